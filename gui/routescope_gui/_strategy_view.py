"""The search-strategy router's view: the context it extracted (entities, place, intent flags),
the strategy it picked and why, and its plan of sanitized queries. Mirrors `routescope.strategy`.

Every part updates in place: rows are reused, so expansion and selection survive typing, and an
unchanged cell repaints nothing.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._html import HTML_ROLE, HtmlDelegate, clip, muted, word_diff_html
from ._style import accent, colour, css, fill
from ._why_strip import marked_html
from ._widgets import (
    Badge,
    HeaderedTableModel,
    Placeholder,
    bounded_tip,
    enable_copy,
    ensure_children,
    fill_row,
)

if TYPE_CHECKING:
    from routescope import Inspection
    from routescope.compare import Trace
    from routescope.strategy import Action, IntentName, Plan, QueryContext, StrategyDecision
    from routescope.task import TaskDecision

__all__ = [
    "ContextTree",
    "DecisionPanel",
    "PlanModel",
    "PlanTable",
    "StrategySlice",
    "StrategyView",
]

_Index = QModelIndex | QPersistentModelIndex
_FLAG_EVIDENCE = 6
"""Keyword matches named per intent flag; the rest are counted."""
_NO_RESULT = "Type a prompt to see which strategy the router picks, and why."
NO_CONTEXT = (
    "Type a prompt above: the entities, intent flags and place the router finds in it appear "
    "here, each with the words that made it. Click an entity (or press Enter on it) to trace "
    "where it flows."
)
NO_PLAN = (
    "Type a prompt above: the search queries the strategy router plans for it appear here, in "
    "the order they run, each before and after sanitizing (with the edits made)."
)


def _traced_style() -> str:
    """A traced entity's words in a query of the plan."""
    return f"background-color:{css('trace')}; color:{css('ink')}; font-weight:600"


PLAN_LINES = 3
"""The most lines a cell of the plan takes: a longer query is cut with "…" (its tooltip and a
copy give it in full), so one long prompt does not push the other actions out of sight."""
PLAN_CHARACTERS = 400
"""The characters of a sanitized query's diff a Plan cell lays out: more than three lines of
the widest column show (the tooltip has the whole query)."""
_TIP_CHARACTERS = 2_000
"""How much of a query a tooltip shows (a prompt may be megabytes long; a copy has it all)."""
_VALUE_WIDTHS = (70, 150)
"""The context tree's Value column: 45 % of the room the first column leaves, within these
widths; the Evidence column has the rest."""
_VALUE_SHARE = 0.45


@dataclass(frozen=True, slots=True)
class StrategySlice:
    """What the strategy router decided about one prompt: everything its view shows."""

    context: QueryContext
    decision: StrategyDecision
    plan: Plan
    actions: Sequence[Action]
    task: TaskDecision | None = None
    """The task router's route for the prompt (seed 000's chat, browse or research), which
    runs the strategy pipeline on its goal."""

    @classmethod
    def of(cls, inspection: Inspection) -> StrategySlice:
        decision = routescope.strategy.StrategyDecision(
            inspection.strategy, inspection.strategy_rule, inspection.strategy_reason
        )
        return cls(
            inspection.context, decision, inspection.plan, inspection.actions, inspection.task
        )


class StrategyView:
    """The strategy router's three parts; the window places them where they fit.

    Attributes:
        context_tree: entities, place hint, intent flags, goal, OpenClaw.
        decision_panel: the strategy as a badge, the rule that chose it, the plan's gates.
        plan_table: the sanitized actions in execution order.
    """

    def __init__(self) -> None:
        self.context_tree = ContextTree()
        self.decision_panel = DecisionPanel()
        self.plan_table = PlanTable()

    def show_result(self, result: StrategySlice | None) -> None:
        self.context_tree.show_result(result.context if result else None)
        self.decision_panel.show_result(
            result.decision if result else None,
            result.plan if result else None,
            result.task if result else None,
        )
        self.plan_table.show_result(result.actions if result else ())


class ContextTree(QTreeWidget):
    """Entities (ranked, with kind, score and span), the place hint, the intent flags with the
    words that set them, the normalised goal and OpenClaw mentions.

    Signals:
        entity_clicked: emitted with an entity's (or the place hint's) text when its row is
            clicked, or is current and Enter or Space is pressed (where it flows is wanted).
    """

    entity_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels(["Context", "Value", "Evidence"])
        self.setRootIsDecorated(True)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.setColumnWidth(1, _VALUE_WIDTHS[1])
        self._fitting = False
        self._analyst_sized = False
        header.sectionResized.connect(self._section_resized)
        self.menu_entries: Callable[[QMenu, QModelIndex], None] | None = None
        """Adds a row's own entries to its context menu, after Copy (the judging's)."""
        enable_copy(self, self._more_entries)
        self._rows: dict[str, QTreeWidgetItem] = {}
        self.itemClicked.connect(self._clicked)
        self.itemActivated.connect(self._clicked)  # Enter on an entity traces it too
        self.placeholder = Placeholder(self, NO_CONTEXT)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _more_entries(self, menu: QMenu, index: QModelIndex) -> None:
        if self.menu_entries is not None:
            self.menu_entries(menu, index)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.currentItem()
        if event.key() == Qt.Key.Key_Space and item is not None:
            self._clicked(item, self.currentColumn())  # Space traces, as a click does
            return
        super().keyPressEvent(event)

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        header = self.header()
        if column == 1:
            if not self._fitting and QApplication.mouseButtons():
                self._analyst_sized = True  # dragged: the analyst's width stays
        elif column != header.logicalIndex(header.count() - 1):
            self._fit_columns()  # sized to its contents: Value and Evidence share what is left

    def _fit_columns(self) -> None:
        """Value takes its share of the room the other columns leave, Evidence (the last) the
        rest, so both stay in sight in a narrow pane (texts elide; each cell's tooltip has it
        whole)."""
        if self._analyst_sized:
            return
        low, high = _VALUE_WIDTHS
        header = self.header()
        last = header.logicalIndex(header.count() - 1)
        fixed = sum(
            header.sectionSize(column)
            for column in range(header.count())
            if column not in (1, last) and not header.isSectionHidden(column)
        )
        free = self.viewport().width() - fixed
        self._fitting = True
        # (the last section, stretched, keeps at least the header's default size)
        share = min(round(free * _VALUE_SHARE), free - header.defaultSectionSize())
        self.setColumnWidth(1, max(low, min(high, share)))
        self._fitting = False

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        entities, place = self._rows.get("entities"), self._rows.get("place")
        entity = entities is not None and item.parent() is entities and bool(item.text(0))
        if entity or (item is place and item.text(1) != "—"):
            self.entity_clicked.emit(item.text(1))

    def row(self, name: str) -> QTreeWidgetItem | None:
        """A fixed row by its name ("entities", "place", an intent flag, "goal", "openclaw";
        None before the first result)."""
        return self._rows.get(name)

    def show_result(self, context: QueryContext | None) -> None:
        if context is None:
            self.clear()
            self._rows = {}
            return
        if not self._rows:
            self._build()
        self._show_entities(context)
        place = context.entities.place
        place_row = self._rows["place"]
        fill_row(
            place_row,
            [
                "Place hint",
                place.text if place else "—",
                f"{place.rule} @{place.start}–{place.end}"
                if place
                else "no near/around/in <Place>",
            ],
        )
        place_row.setData(1, Qt.ItemDataRole.BackgroundRole, fill("place") if place else None)
        place_row.setData(1, Qt.ItemDataRole.ForegroundRole, colour("ink") if place else None)
        for name in routescope.strategy.INTENTS:
            self._show_flag(self._rows[name], context, name)
        fill_row(
            self._rows["goal"],
            ["Goal", clip(context.user_goal, 40), "normalised request"],
            [None, bounded_tip(clip(context.user_goal, _TIP_CHARACTERS))],
        )
        fill_row(
            self._rows["openclaw"],
            [
                "OpenClaw",
                "mentioned" if context.has_openclaw else "—",
                ", ".join(f"@{s.start}–{s.end}" for s in context.openclaw_spans),
            ],
        )

    def _build(self) -> None:
        """The fixed rows, once: later results only change their texts and children."""
        names = ["entities", "place", "flags", "goal", "openclaw"]
        for name, row in zip(names, ensure_children(self, len(names)), strict=True):
            self._rows[name] = row
        self._rows["flags"].setText(0, "Intent flags")
        intents = routescope.strategy.INTENTS
        for name, row in zip(
            intents, ensure_children(self._rows["flags"], len(intents)), strict=True
        ):
            self._rows[name] = row
        self.expandAll()

    def _show_entities(self, context: QueryContext) -> None:
        entities = context.entities
        parent = self._rows["entities"]
        fill_row(parent, ["Entities", f"{len(entities.candidates)} found", "best first"])
        rows = ensure_children(parent, len(entities.details) + len(entities.dropped))
        for rank, (row, entity) in enumerate(zip(rows, entities.details, strict=False), start=1):
            fill_row(
                row,
                [
                    f"{rank}.{' ★' if rank == 1 else ''}",
                    entity.text,
                    f"{entity.reason} · score {entity.score:g} · @{entity.start}–{entity.end}",
                ],
            )
            row.setData(1, Qt.ItemDataRole.BackgroundRole, fill("entity"))
            row.setData(1, Qt.ItemDataRole.ForegroundRole, colour("ink"))  # light fill, any theme
            row.setData(2, Qt.ItemDataRole.ForegroundRole, None)
        for row, note in zip(rows[len(entities.details) :], entities.dropped, strict=True):
            fill_row(row, ["", "(not an entity)", note])
            row.setData(1, Qt.ItemDataRole.BackgroundRole, None)
            row.setData(2, Qt.ItemDataRole.ForegroundRole, colour("faint"))

    @staticmethod
    def _show_flag(row: QTreeWidgetItem, context: QueryContext, name: IntentName) -> None:
        on = getattr(context.intent, name)
        matches = [m for m in context.intent_matches if m.intent == name]
        total = context.intent_match_counts.get(name, 0)
        words = ", ".join(f"“{m.text}” @{m.start}–{m.end}" for m in matches[:_FLAG_EVIDENCE])
        more = f" (+{total - _FLAG_EVIDENCE} more)" if total > _FLAG_EVIDENCE else ""
        evidence = "\n".join(
            f"{m.keyword!r} matched “{m.text}” at {m.start}–{m.end}" for m in matches
        ) or (f"no keyword of intent.{name} in the prompt")
        vote = next((v for v in context.example_votes if v.intent == name), None)
        if vote is not None:  # the pack's [intents.examples]: the nearest labelled examples
            if vote.decided != vote.rules:
                words = f"vote: {vote.reason}"
            nearest = "\n".join(
                f"{'✓' if n.carries else '✗'} {n.similarity:.2f}  {clip(n.text, 80)}"
                for n in vote.neighbours
            )
            evidence = f"{evidence}\n\nvote: {vote.reason}\n{nearest}"
        fill_row(row, [name, "● on" if on else "○ off", words + more], [None, evidence, evidence])
        ink = accent(name) if on else colour("faint")
        row.setData(0, Qt.ItemDataRole.ForegroundRole, ink)
        row.setData(1, Qt.ItemDataRole.ForegroundRole, ink)


class DecisionPanel(QGroupBox):
    """The chosen strategy as a badge, the rule that chose it, the plan's gates and the task
    router's route (with a research route's first search)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Strategy", parent)
        self.badge = Badge()
        self.reason = QLabel(_NO_RESULT)
        self.reason.setObjectName("reason")
        self.reason.setWordWrap(True)
        self.gate = QLabel("")
        self.gate.setObjectName("gate")
        self.gate.setWordWrap(True)
        self.task = QLabel("")
        self.task.setObjectName("task")
        self.task.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.badge)
        top.addWidget(self.reason, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.gate)
        layout.addWidget(self.task)

    def show_result(
        self,
        decision: StrategyDecision | None,
        plan: Plan | None,
        task: TaskDecision | None = None,
    ) -> None:
        if decision is None or plan is None:
            self.badge.show_tone("", "—")
            self.reason.setText(_NO_RESULT)
            self.gate.setText("")
            self._show_task(None)
            self._hold_size(False)
            return
        self._show_texts(decision, plan)
        self._show_task(task)
        self._hold_size(True)

    def _show_task(self, task: TaskDecision | None) -> None:
        """The task route, where it came from, and a research route's first search (why each
        word is there and the hosts expected, on hover)."""
        if task is None:
            self.task.setText("")
            self.task.setToolTip("")
            return
        text = f"<b>task route:</b> {task.route} {muted(f'({task.reason})')}"
        tip = [f"Task router ({task.source}): goal “{clip(task.user_goal)}”"]
        first = task.research_query
        if first is not None:
            text += f" · research searches first: “{html.escape(clip(first.query, 80))}”"
            tip.append(f"First search: {first.reason}")
            if first.expected_domains:
                tip.append("Answers expected on: " + ", ".join(first.expected_domains))
        self.task.setText(text)
        self.task.setToolTip(bounded_tip("\n".join(tip)))

    def _hold_size(self, holding: bool) -> None:
        """While a prompt is typed the panel and its badge only grow: a reason that wraps
        differently at each key would move every panel below it, and repaint them all."""
        if not holding:
            self.setMinimumHeight(0)
            self.badge.setMinimumWidth(0)
            return
        if not self.isVisible():  # (laid out at another width than it will be shown at)
            return
        badge = self.badge.sizeHint().width()
        if badge > self.badge.minimumWidth():
            self.badge.setMinimumWidth(badge)
        layout = self.layout()
        needed = layout.totalHeightForWidth(self.width()) if layout is not None else 0
        if needed > self.minimumHeight():
            self.setMinimumHeight(needed)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if event.size().width() != event.oldSize().width():
            self._hold_size(False)  # another width wraps otherwise: held again at the next key
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._hold_size(False)  # (zoom, presenter mode, another theme)
        super().changeEvent(event)

    def _show_texts(self, decision: StrategyDecision, plan: Plan) -> None:
        self.badge.show_tone(decision.strategy, decision.strategy.upper())
        self.reason.setText(
            f"<b>why:</b> {html.escape(decision.reason)} "
            f"<span style='color:{css('muted')}'>(rule {html.escape(decision.rule)})</span>"
        )
        lines = [f"OpenClaw: {plan.openclaw_gate}"]
        if plan.goal_removed:
            lines.append("goal without: " + ", ".join(f"“{p}”" for p in plan.goal_removed))
        if plan.entity_used:
            lines.append(f"entity used: {plan.entity_used}")
        if plan.safety_matches:
            lines.append("safety words: " + ", ".join(m.text for m in plan.safety_matches))
        lines += plan.notes
        self.gate.setText(" · ".join(lines))


_PLAN_ROLES = frozenset(
    {
        Qt.ItemDataRole.DisplayRole,
        HTML_ROLE,
        Qt.ItemDataRole.ToolTipRole,
        Qt.ItemDataRole.BackgroundRole,
        Qt.ItemDataRole.ForegroundRole,
    }
)


class PlanModel(HeaderedTableModel):
    """The sanitized actions in execution order. A new plan changes only the rows that differ,
    so the table keeps its selection and re-measures only those rows."""

    HEADERS = ("#", "Priority", "Source", "Raw query", "Sanitized query", "Sanitizer edits")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Action] = []
        self.trace: Trace | None = None

    def set_trace(self, trace: Trace | None) -> None:
        """Mark where a traced entity stands in the sanitized queries (None: no trace)."""
        if trace == self.trace:
            return
        self.trace = trace
        if self.rows:
            last = len(self.HEADERS) - 1
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, last))

    def _traced_html(self, row: int, query: str) -> str | None:
        trace = self.trace
        if trace is None:
            return None
        for found in trace.queries:
            if found.where == "actions" and found.index == row and found.query == query:
                return marked_html(query, found.spans, _traced_style())
        return None

    def set_actions(self, actions: Sequence[Action]) -> None:
        new, old = list(actions), self.rows
        # New rows count as changed: the header sizes its columns to contents on dataChanged,
        # not on insertion.
        changed = [row for row in range(len(new)) if row >= len(old) or old[row] != new[row]]
        if len(new) < len(old):
            self.beginRemoveRows(QModelIndex(), len(new), len(old) - 1)
            self.rows = new
            self.endRemoveRows()
        elif len(new) > len(old):
            self.beginInsertRows(QModelIndex(), len(old), len(new) - 1)
            self.rows = new
            self.endInsertRows()
        else:
            self.rows = new
        if changed:
            last = len(self.HEADERS) - 1
            self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], last))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role not in _PLAN_ROLES or not index.isValid():  # (asked ~10 roles a cell, often)
            return None
        action, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(index.row(), action, column)
        if role == HTML_ROLE and column == 4:
            traced = self._traced_html(index.row(), action.query)
            if traced is not None:
                return traced
            if action.edits:
                return word_diff_html(clip(action.raw_query, 600), action.query, PLAN_CHARACTERS)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(action, column)
        first = column == 1 and action.priority == 0  # OpenClaw's queries go first
        if role == Qt.ItemDataRole.BackgroundRole and first:
            return QBrush(colour("first_fill"))
        if role == Qt.ItemDataRole.ForegroundRole and first:
            return QBrush(colour("first_text"))
        if role == Qt.ItemDataRole.ForegroundRole and column == 5 and action.edits:
            return QBrush(colour("warn_ink"))
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
            return action.raw_query  # whole, for a copy: the cell shows its first lines
        if column == 4:
            return "(same)" if not action.edits else action.query
        return "; ".join(f"{e.rule}: {e.detail}" for e in action.edits) or "—"

    @staticmethod
    def _tooltip(action: Action, column: int) -> str:
        if column == 5 and action.edits:
            return bounded_tip(
                "\n".join(
                    f"{e.rule}: {e.detail}\n  before: {clip(e.before, _TIP_CHARACTERS)}\n"
                    f"  after: {clip(e.after, _TIP_CHARACTERS)}"
                    for e in action.edits
                )
            )
        if column in (3, 4):
            return bounded_tip(
                f"raw: {clip(action.raw_query, _TIP_CHARACTERS)}\n"
                f"final: {clip(action.query, _TIP_CHARACTERS)}"
            )
        return ""


class PlanTable(QTableView):
    """The plan as a table; the sanitized column shows what sanitizing changed, in colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan_model = PlanModel(self)
        self.setModel(self.plan_model)
        cells = HtmlDelegate(self, max_lines=PLAN_LINES)  # the diff (4); plain text elsewhere
        for column in (3, 4, 5):
            self.setItemDelegateForColumn(column, cells)
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
        enable_copy(self)
        self.placeholder = Placeholder(self, NO_PLAN)

    def show_result(self, actions: Sequence[Action]) -> None:
        self.plan_model.set_actions(actions)

    def show_trace(self, trace: Trace | None, _text: str = "") -> None:
        """Mark the traced entity's words in the queries (None: no trace)."""
        self.plan_model.set_trace(trace)
