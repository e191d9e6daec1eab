"""The compare view's comparison of one prompt: a summary of what differs, the headline
decisions of A and B with the changed ones highlighted, the planned queries with their changed
words marked, what else changed (the intent flags that flipped with the words that set them,
the evidence, the contract's plan), and the tool ranks with their movement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from ._compare_common import A_FILL, A_INK, B_FILL, B_INK, OUTCOME_COLUMNS, value_text
from ._compare_tools import ToolMoves
from ._html import HTML_ROLE, HtmlDelegate, clip
from ._style import colour, css
from ._why_strip import marked_html
from ._widgets import enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.compare import Comparison, Decisions, QueryChange

__all__ = ["ComparisonPage"]

_OUTCOME_FIELDS = frozenset(
    {
        "strategy",
        "lint.query_class",
        "decision.agent",
        "decision.mode",
        "task.route",
        "tools.top",
        "tools.fits",
    }
)
"""Changes the outcome rows already show (the other changes are listed as evidence)."""


def _removed_style() -> str:
    """Words of A's query that B's lacks."""
    return (
        f"background-color:{css('removed')}; color:{css('removed_text')}; "
        "text-decoration:line-through"
    )


def _added_style() -> str:
    """Words of B's query that A's lacks."""
    return f"background-color:{css('added')}; color:{css('added_text')}; font-weight:600"


_KINDS = {"same": "=", "changed": "≠", "removed": "−", "added": "+"}
_NO_RESULT = "Type a prompt (A) and give B: another prompt, rule pack or catalog."


class ComparisonPage(QWidget):
    """Renders a `Comparison` of A and B (the status line says what is loading, or failed)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.summary = QLabel(_NO_RESULT)
        self.summary.setObjectName("reason")
        self.summary.setWordWrap(True)
        self._build_outcome()
        self._build_queries()
        self._build_changes()
        self.tool_moves = ToolMoves()
        self.tools, self.tools_note = self.tool_moves.tools, self.tool_moves.tools_note
        self._lay_out()

    def _lay_out(self) -> None:
        left = QSplitter(Qt.Orientation.Vertical)
        left.setObjectName("compare_queries")
        left.addWidget(self.queries)
        left.addWidget(self.changes)
        left.setSizes([260, 160])
        self.split = QSplitter()
        self.split.setObjectName("compare")
        self.split.addWidget(left)
        self.split.addWidget(self.tool_moves)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(self.status)
        layout.addLayout(head)
        layout.addWidget(self.outcome)
        layout.addWidget(self.split, 1)

    def _build_outcome(self) -> None:
        self.outcome = QTableWidget(2, len(OUTCOME_COLUMNS))
        self.outcome.setHorizontalHeaderLabels([title for _field, title in OUTCOME_COLUMNS])
        self.outcome.setVerticalHeaderLabels(["A", "B"])
        self.outcome.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.outcome.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.outcome.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.outcome.setFixedHeight(
            self.outcome.horizontalHeader().sizeHint().height()
            + 2 * self.outcome.verticalHeader().defaultSectionSize()
            + 4
        )
        self.outcome.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        enable_copy(self.outcome)

    def _build_queries(self) -> None:
        self.queries = QTableWidget(0, 4)
        self.queries.setHorizontalHeaderLabels(
            ["", "Pack rule", "A's planned query", "B's planned query"]
        )
        self.queries.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.queries.setWordWrap(True)
        self.queries.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.queries.verticalHeader().setVisible(False)
        self.queries.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.queries.horizontalHeader()
        for column in (0, 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for column in (2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
            self.queries.setItemDelegateForColumn(column, HtmlDelegate(self.queries))
        enable_copy(self.queries)

    def _build_changes(self) -> None:
        self.changes = QTreeWidget()
        self.changes.setHeaderLabels(["What else changed", "A", "B"])
        self.changes.setAlternatingRowColors(True)
        self.changes.setUniformRowHeights(True)
        self.changes.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.changes.header().setStretchLastSection(True)
        self.changes.setColumnWidth(1, 180)
        enable_copy(self.changes)

    def show_result(self, comparison: Comparison | None) -> None:
        self.status.setText("")
        if comparison is None:
            self.summary.setText(_NO_RESULT)
            self._show_outcome(None, None, ())
            self.queries.setRowCount(0)
            ensure_children(self.changes, 0)
            self.tool_moves.show_tools(None)
            return
        a, b = comparison.a, comparison.b
        if comparison.changed:
            sections = ", ".join(comparison.sections)
            self.summary.setText(f"<b>A and B differ in:</b> {sections}")
        else:
            self.summary.setText("<b>A and B decide the same</b> in every router.")
        changed = {
            name
            for name, _title in OUTCOME_COLUMNS
            if getattr(a.outcome, name) != getattr(b.outcome, name)
        }
        self._show_outcome(a.outcome, b.outcome, changed)
        self._show_queries(comparison.queries)
        self._show_changes(comparison)
        self.tool_moves.show_tools(comparison.tools)

    def show_loading(self, name: str) -> None:
        self.status.setText(f"loading the tools of {name} (once)…")

    def show_error(self, message: str) -> None:
        self.status.setText(f"cannot compare: {message}")
        self.status.setToolTip(message)

    def changed_columns(self) -> list[str]:
        """The outcome columns highlighted as changed (their `Decisions` field names)."""
        return [
            name
            for column, (name, _title) in enumerate(OUTCOME_COLUMNS)
            if (item := self.outcome.item(1, column)) is not None and item.font().bold()
        ]

    def _show_outcome(
        self, a: Decisions | None, b: Decisions | None, changed: set[str] | Sequence[str]
    ) -> None:
        for column, (name, _title) in enumerate(OUTCOME_COLUMNS):
            for row, (outcome, ink, fill) in enumerate(((a, A_INK, A_FILL), (b, B_INK, B_FILL))):
                value = getattr(outcome, name) if outcome is not None else None
                item = QTableWidgetItem("" if outcome is None else value_text(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if name in changed:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                    item.setForeground(QBrush(colour(ink)))
                    item.setBackground(QBrush(colour(fill)))
                    item.setToolTip(f"{name}: changed in B")
                self.outcome.setItem(row, column, item)

    def _show_queries(self, queries: Sequence[QueryChange]) -> None:
        self.queries.setRowCount(len(queries))
        for row, query in enumerate(queries):
            kind = QTableWidgetItem(_KINDS[query.kind])
            kind.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            kind.setToolTip(query.kind)
            if query.source_a and query.source_b and query.source_a != query.source_b:
                source = f"{query.source_a} → {query.source_b}"
            else:
                source = query.source_a or query.source_b or ""
            cells = [
                kind,
                QTableWidgetItem(source),
                self._query_cell(query.a, query.removed, _removed_style()),
                self._query_cell(query.b, query.added, _added_style()),
            ]
            if query.kind == "same":
                for cell in cells:
                    cell.setForeground(QBrush(colour("muted")))
            for column, cell in enumerate(cells):
                self.queries.setItem(row, column, cell)
        self.queries.resizeRowsToContents()

    @staticmethod
    def _query_cell(text: str | None, spans: Sequence[Any], style: str) -> QTableWidgetItem:
        if text is None:
            item = QTableWidgetItem("—")
            item.setForeground(QBrush(colour("faint")))
            return item
        item = QTableWidgetItem(text)
        item.setToolTip(text)
        if spans:
            item.setData(HTML_ROLE, marked_html(clip(text, 600), spans, style))
        return item

    def _show_changes(self, comparison: Comparison) -> None:
        groups: list[tuple[str, list[list[str]]]] = []
        flags = [
            [
                f"intent.{flip.flag}",
                _flag(flip.a, flip.evidence_a),
                _flag(flip.b, flip.evidence_b),
            ]
            for flip in comparison.flags
        ]
        if flags:
            groups.append((f"Intent flags that flipped ({len(flags)})", flags))
        evidence = [
            [change.field, clip(value_text(change.a), 200), clip(value_text(change.b), 200)]
            for change in comparison.changes
            if change.field not in _OUTCOME_FIELDS
        ]
        if evidence:
            groups.append((f"Evidence ({len(evidence)})", evidence))
        calls = [
            [
                f"{call.kind} step: {call.tool}",
                "—" if call.args_a is None else value_text(call.args_a),
                "—" if call.args_b is None else value_text(call.args_b),
            ]
            for call in comparison.calls
        ]
        groups.append(
            (f"Contract plan ({len(calls)} step(s) differ)", calls)
            if calls
            else ("Contract plan: the same steps", [])
        )
        tops = ensure_children(self.changes, len(groups))
        for top, (title, rows) in zip(tops, groups, strict=True):
            fill_row(top, [title, "", ""])
            top.setFirstColumnSpanned(True)
            font = QFont(top.font(0))
            font.setBold(True)
            top.setFont(0, font)
            for child, cells in zip(ensure_children(top, len(rows)), rows, strict=True):
                fill_row(child, cells)
                child.setForeground(1, QBrush(colour(A_INK)))
                child.setForeground(2, QBrush(colour(B_INK)))
            top.setExpanded(True)


def _flag(on: bool, evidence: Sequence[Any]) -> str:
    if not on:
        return "○ off"
    words = ", ".join(f"“{span.value}”" for span in evidence[:4])
    return f"● on — {words}" if words else "● on"
