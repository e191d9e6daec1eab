"""Panels that render an `Inspection`: context, strategy and the plan. They hold no logic."""

from __future__ import annotations

import difflib
import html
from collections.abc import Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

from routescope import Inspection
from routescope.strategy import INTENTS, Action, IntentName

from ._style import LABELS, STRATEGY_COLOURS, accent, fill

__all__ = ["ContextPanel", "PlanModel", "PlanView", "StrategyPanel", "word_diff_html"]

HTML_ROLE = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex


def word_diff_html(before: str, after: str) -> str:
    """`after` as HTML, words added since `before` in green, words removed struck out in red."""
    old, new = before.split(), after.split()
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            removed = html.escape(" ".join(old[a0:a1]))
            parts.append(
                f'<span style="color:#c62828;text-decoration:line-through">{removed}</span>'
            )
        if op in ("replace", "insert"):
            added = html.escape(" ".join(new[b0:b1]))
            parts.append(f'<span style="color:#1b5e20;background:#e3f6e5">{added}</span>')
        if op == "equal":
            parts.append(html.escape(" ".join(new[b0:b1])))
    return " ".join(parts)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


class ContextPanel(QTreeWidget):
    """Entities (ranked, with kind, score and span), the place hint and the intent flags."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["Context", "Value", "Evidence"])
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.setWordWrap(True)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.setColumnWidth(1, 150)

    def show_result(self, result: Inspection | None) -> None:
        self.clear()
        if result is None:
            return
        ctx = result.context
        entities = QTreeWidgetItem(
            self, ["Entities", f"{len(ctx.entities.candidates)} found", "best first"]
        )
        for rank, entity in enumerate(ctx.entities.details, start=1):
            item = QTreeWidgetItem(
                entities,
                [
                    f"{rank}.{' ★' if rank == 1 else ''}",
                    entity.text,
                    f"{entity.reason} · score {entity.score:g} · @{entity.start}–{entity.end}",
                ],
            )
            item.setBackground(1, QBrush(fill("entity")))
        for note in ctx.entities.dropped:
            item = QTreeWidgetItem(entities, ["", "(not an entity)", note])
            item.setForeground(2, QBrush(QColor("#90a4ae")))
        place = ctx.entities.place
        place_item = QTreeWidgetItem(
            self,
            [
                "Place hint",
                place.text if place else "—",
                f"{place.rule} @{place.start}–{place.end}"
                if place
                else "no near/around/in <Place>",
            ],
        )
        if place:
            place_item.setBackground(1, QBrush(fill("place")))
        flags = QTreeWidgetItem(self, ["Intent flags", "", ""])
        for name in INTENTS:
            self._flag(flags, result, name)
        goal = QTreeWidgetItem(self, ["Goal", _clip(ctx.user_goal, 40), "normalised request"])
        goal.setToolTip(1, _clip(ctx.user_goal, 2000))
        QTreeWidgetItem(
            self,
            [
                "OpenClaw",
                "mentioned" if ctx.has_openclaw else "—",
                ", ".join(f"@{s.start}–{s.end}" for s in ctx.openclaw_spans),
            ],
        )
        self.expandAll()
        iterator = QTreeWidgetItemIterator(self)
        while (item := iterator.value()) is not None:
            for column in (1, 2):
                if not item.toolTip(column):
                    item.setToolTip(column, item.text(column))
            iterator += 1

    def _flag(self, parent: QTreeWidgetItem, result: Inspection, name: IntentName) -> None:
        on = getattr(result.context.intent, name)
        matches = [m for m in result.context.intent_matches if m.intent == name]
        total = result.context.intent_match_counts.get(name, 0)
        words = ", ".join(f"“{m.text}” @{m.start}–{m.end}" for m in matches[:6])
        more = f" (+{total - 6} more)" if total > 6 else ""
        item = QTreeWidgetItem(parent, [name, "● on" if on else "○ off", words + more])
        colour = accent(name) if on else QColor("#90a4ae")
        item.setForeground(0, QBrush(colour))
        item.setForeground(1, QBrush(colour))
        tooltip = "\n".join(
            f"{m.keyword!r} matched “{m.text}” at {m.start}–{m.end}" for m in matches
        )
        item.setToolTip(1, tooltip or f"no keyword of intent.{name} in the prompt")
        item.setToolTip(2, item.toolTip(1))


class StrategyPanel(QGroupBox):
    """The chosen strategy as a badge, the rule that chose it and the OpenClaw gate."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Strategy", parent)
        self.badge = QLabel("—")
        self.badge.setObjectName("strategyBadge")
        self.reason = QLabel("Type a prompt to see which strategy the router picks, and why.")
        self.reason.setObjectName("reason")
        self.reason.setWordWrap(True)
        self.gate = QLabel("")
        self.gate.setObjectName("gate")
        self.gate.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.badge)
        top.addWidget(self.reason, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.gate)
        self._paint_badge("general", "—")

    def _paint_badge(self, strategy: str, text: str) -> None:
        self.badge.setText(text)
        self.badge.setStyleSheet(f"background: {STRATEGY_COLOURS.get(strategy, '#90a4ae')};")

    def show_result(self, result: Inspection | None) -> None:
        if result is None:
            self._paint_badge("", "—")
            self.reason.setText("Type a prompt to see which strategy the router picks, and why.")
            self.gate.setText("")
            return
        self._paint_badge(result.strategy, result.strategy.upper())
        self.reason.setText(
            f"<b>why:</b> {html.escape(result.strategy_reason)} "
            f"<span style='color:#78909c'>(rule {result.strategy_rule})</span>"
        )
        plan = result.plan
        lines = [f"OpenClaw: {plan.openclaw_gate}"]
        if plan.goal_removed:
            lines.append("goal without: " + ", ".join(f"“{p}”" for p in plan.goal_removed))
        if plan.entity_used:
            lines.append(f"entity used: {plan.entity_used}")
        if plan.safety_matches:
            lines.append("safety words: " + ", ".join(m.text for m in plan.safety_matches))
        lines += plan.notes
        self.gate.setText(" · ".join(lines))


class PlanModel(QAbstractTableModel):
    """The sanitized actions in execution order."""

    HEADERS = ("#", "Priority", "Source", "Raw query", "Sanitized query", "What sanitizing changed")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._actions: Sequence[Action] = ()

    def set_actions(self, actions: Sequence[Action]) -> None:
        self.beginResetModel()
        self._actions = actions
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._actions)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        action, column = self._actions[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(index.row(), action, column)
        if role == HTML_ROLE and column == 4 and action.edits:
            return word_diff_html(_clip(action.raw_query, 600), action.query)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(action, column)
        if role == Qt.ItemDataRole.BackgroundRole and column == 1 and action.priority == 0:
            return QBrush(QColor(LABELS["tech"][0]))
        if role == Qt.ItemDataRole.ForegroundRole and column == 5 and action.edits:
            return QBrush(QColor("#8d6e00"))
        return None

    @staticmethod
    def _text(row: int, action: Action, column: int) -> str:
        if column == 0:
            return str(row + 1)
        if column == 1:
            return str(action.priority)
        if column == 2:
            return action.source
        if column == 3:
            return _clip(action.raw_query)
        if column == 4:
            return "(same)" if not action.edits else action.query
        return "; ".join(f"{e.rule}: {e.detail}" for e in action.edits) or "—"

    @staticmethod
    def _tooltip(action: Action, column: int) -> str:
        if column == 5 and action.edits:
            return "\n".join(
                f"{e.rule}: {e.detail}\n  before: {e.before}\n  after: {e.after}"
                for e in action.edits
            )
        if column in (3, 4):
            return f"raw: {_clip(action.raw_query, 1000)}\nfinal: {action.query}"
        return ""


class HtmlDelegate(QStyledItemDelegate):
    """Draws a cell's HTML_ROLE rich text (the sanitize diff), else the plain text."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        markup = index.data(HTML_ROLE)
        if not markup:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect
        doc = self._document(markup, opt, rect.width())
        painter.save()
        painter.translate(
            rect.left(), rect.top() + max(0.0, (rect.height() - doc.size().height()) / 2)
        )
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        markup = index.data(HTML_ROLE)
        if not markup:
            return super().sizeHint(option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        view = self.parent()
        width = view.columnWidth(index.column()) if isinstance(view, QTableView) else 300
        doc = self._document(markup, opt, width)
        return QSize(width, int(doc.size().height()) + 4)

    @staticmethod
    def _document(markup: str, option: QStyleOptionViewItem, width: int) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(4)
        doc.setHtml(markup)
        doc.setTextWidth(width)
        return doc


class PlanView(QTableView):
    """The plan as a table; the sanitized column shows what sanitizing changed, in colour."""

    def __init__(self, model: PlanModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setItemDelegateForColumn(4, HtmlDelegate(self))
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.horizontalHeader()
        for column in (0, 1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for column in (3, 4, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
