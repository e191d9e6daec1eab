"""The compare view: A (the live prompt) and B side by side — another prompt, or the same
prompt under another rule pack or catalog — and what differs between them: the headline
decisions with the changed ones highlighted, the intent flags that flipped with the words that
set them, the planned queries with their changed words marked, the contract's plan and the
tool ranks with their movement; and a regression suite run under both sides, the cases that
differ listed (double-click one to open it live). Mirrors `routescope.compare`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QShowEvent, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._html import HTML_ROLE, HtmlDelegate, clip
from ._style import MUTED
from ._why_strip import marked_html
from ._widgets import enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.compare import (
        CaseComparison,
        Comparison,
        Decisions,
        QueryChange,
        Side,
        SuiteComparison,
        TextSpan,
        ToolMove,
    )

__all__ = ["OUTCOME_COLUMNS", "CompareView"]

OUTCOME_COLUMNS = (
    ("strategy", "Strategy"),
    ("lint_class", "Linter class"),
    ("agent", "Agent"),
    ("mode", "Mode"),
    ("task_route", "Task route"),
    ("top_tool", "Top tool"),
    ("tool_fit", "Tool fit"),
)
"""The headline decisions (`Decisions` fields) in the order the outcome rows show them."""
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
_MODES = (
    ("another prompt", "prompt"),
    ("same prompt, another rule pack", "rules"),
    ("same prompt, another catalog", "catalog"),
)
_A_INK, _A_FILL = "#b71c1c", "#fdecea"
_B_INK, _B_FILL = "#1b5e20", "#e3f6e5"
_REMOVED = "background-color:#fbd3d0; color:#b71c1c; text-decoration:line-through"
_ADDED = "background-color:#c8efcf; color:#1b5e20; font-weight:600"
_KINDS = {"same": "=", "changed": "≠", "removed": "−", "added": "+"}
_MOVES = {"up": "#1b5e20", "down": "#b71c1c", "new": "#1c4fa8", "dropped": MUTED, "same": MUTED}
_EDITOR_HEIGHT = 52
"""Side by side, A's and B's prompts show about two lines each (they scroll)."""
_NO_RESULT = "Type a prompt (A) and give B: another prompt, rule pack or catalog."


def _chip(text: str, ink: str) -> QLabel:
    chip = QLabel(text)
    chip.setStyleSheet(
        f"QLabel {{ background: {ink}; color: white; border-radius: 4px; padding: 1px 7px;"
        " font-weight: 700; }"
    )
    return chip


def _value(value: Any) -> str:
    """A decision or piece of evidence as a cell's text."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _side_caption(side: Side) -> str:
    catalog = ""
    if side.catalog:
        sample = Path(side.catalog) == routescope.CatalogRef.sample_path()
        catalog = " · the sample catalog" if sample else f" · catalog {Path(side.catalog).name}"
    tools = "" if side.tools else " · no tool search"
    return f"rules {side.rules}{catalog}{tools}"


class CompareView(QWidget):
    """Renders A and B and their `Comparison`, and a `SuiteComparison`; asks for the rest.

    Attributes:
        result: the comparison shown (None: none); suite_result: the suite comparison shown.

    Signals:
        text_a_edited: emitted with A's prompt when it is edited here (it is the live prompt).
        text_b_edited: emitted with B's prompt as it is edited.
        mode_changed: emitted with what B changes ("prompt", "rules" or "catalog").
        rank_tools_changed: emitted when "rank tools" is ticked or unticked.
        rules_b_requested: the analyst asks to choose B's rule pack.
        catalog_b_requested: the analyst asks to choose B's catalog.
        suite_requested: the analyst asks to run a suite under both sides.
        open_case_requested: emitted with a suite case's id to open it in the live view.
    """

    text_a_edited = Signal(str)
    text_b_edited = Signal(str)
    mode_changed = Signal(str)
    rank_tools_changed = Signal(bool)
    rules_b_requested = Signal()
    catalog_b_requested = Signal()
    suite_requested = Signal()
    open_case_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Comparison | None = None
        self.suite_result: SuiteComparison | None = None
        self._b_names: dict[str, str] = {}
        self._text_a = ""
        self._build_sides()
        self._build_result()
        self._build_suite()
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.result_page, "This prompt")
        self.pages.addTab(self.suite_page, "Suite under both sides")
        self.pages.setCornerWidget(self.controls, Qt.Corner.TopRightCorner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.sides)
        layout.addWidget(self.pages, 1)
        self._mode_picked()

    # -- construction --------------------------------------------------------------------
    def _build_sides(self) -> None:
        self.a_editor = QPlainTextEdit()
        self.a_editor.setObjectName("prompt")
        self.a_editor.setPlaceholderText("A: the live prompt — type here or in the Live view")
        self.a_editor.setTabChangesFocus(True)
        self.a_editor.textChanged.connect(
            lambda: self.text_a_edited.emit(self.a_editor.toPlainText())
        )
        self.a_caption = QLabel("the live prompt")
        self.a_caption.setObjectName("muted")
        self.mode = QComboBox()
        for label, mode in _MODES:
            self.mode.addItem(label, mode)
        self.mode.currentIndexChanged.connect(lambda _index: self._mode_picked())
        self.b_editor = QPlainTextEdit()
        self.b_editor.setObjectName("prompt")
        self.b_editor.setPlaceholderText("B: another prompt, e.g. “OpenClaw news this week”")
        self.b_editor.setTabChangesFocus(True)
        self.b_editor.textChanged.connect(
            lambda: self.text_b_edited.emit(self.b_editor.toPlainText())
        )
        self.b_file = QLabel("")
        self.b_file.setWordWrap(True)
        self.b_choose = QPushButton("Choose…")
        self.b_choose.clicked.connect(self._choose_b)
        file_page = QWidget()
        file_row = QVBoxLayout(file_page)
        file_row.setContentsMargins(0, 0, 0, 0)
        chooser = QHBoxLayout()
        chooser.addWidget(self.b_file, 1)
        chooser.addWidget(self.b_choose)
        file_row.addLayout(chooser)
        same = QLabel("B's prompt is A's: only the rule pack or the catalog differs.")
        same.setObjectName("muted")
        file_row.addWidget(same)
        file_row.addStretch(1)
        self.b_stack = QStackedWidget()
        self.b_stack.addWidget(self.b_editor)
        self.b_stack.addWidget(file_page)
        self.b_caption = QLabel("")
        self.b_caption.setObjectName("muted")
        for caption in (self.a_caption, self.b_caption):  # cut at the edge, never wider
            caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for editor in (self.a_editor, self.b_editor):
            editor.setFixedHeight(_EDITOR_HEIGHT)
        self.b_stack.setFixedHeight(_EDITOR_HEIGHT)
        self.rank_tools = QCheckBox("rank tools")
        self.rank_tools.setToolTip(
            "Rank the request's catalog (the sample when none is open) on both sides"
        )
        self.rank_tools.setChecked(True)
        self.rank_tools.toggled.connect(self.rank_tools_changed)
        self.suite_button = QPushButton("Run a suite under both packs…")
        self.suite_button.clicked.connect(self.suite_requested)
        self.status = QLabel("")
        self.status.setObjectName("muted")

        self.sides = QWidget()
        grid = QGridLayout(self.sides)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(3)
        a_head = QHBoxLayout()
        a_head.addWidget(_chip("A", _A_INK))
        a_head.addWidget(self.a_caption, 1)
        b_head = QHBoxLayout()
        b_head.addWidget(_chip("B", _B_INK))
        b_head.addWidget(self.mode)
        b_head.addWidget(self.b_caption, 1)
        grid.addLayout(a_head, 0, 0)
        grid.addLayout(b_head, 0, 1)
        grid.addWidget(self.a_editor, 1, 0)
        grid.addWidget(self.b_stack, 1, 1)
        # The controls sit in the corner of the result pages' tab bar: no row of their own.
        self.controls = QWidget()
        controls = QHBoxLayout(self.controls)
        controls.setContentsMargins(0, 0, 0, 2)
        controls.addWidget(self.rank_tools)
        controls.addWidget(self.suite_button)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

    def _build_result(self) -> None:
        self.summary = QLabel(_NO_RESULT)
        self.summary.setObjectName("reason")
        self.summary.setWordWrap(True)
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

        self.changes = QTreeWidget()
        self.changes.setHeaderLabels(["What else changed", "A", "B"])
        self.changes.setAlternatingRowColors(True)
        self.changes.setUniformRowHeights(True)
        self.changes.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.changes.header().setStretchLastSection(True)
        self.changes.setColumnWidth(1, 180)
        enable_copy(self.changes)

        self.tools = QTableWidget(0, 5)
        self.tools.setHorizontalHeaderLabels(["A", "B", "Tool", "Move", "Score A → B"])
        self.tools.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tools.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tools.verticalHeader().setVisible(False)
        self.tools.verticalHeader().setDefaultSectionSize(22)
        self.tools.setAlternatingRowColors(True)
        tool_header = self.tools.horizontalHeader()
        for column in range(5):
            tool_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        tool_header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        enable_copy(self.tools)
        self.tools_note = QLabel("")
        self.tools_note.setObjectName("muted")
        self.tools_note.setWordWrap(True)

        tools_box = QWidget()
        tools_layout = QVBoxLayout(tools_box)
        tools_layout.setContentsMargins(0, 0, 0, 0)
        tools_layout.setSpacing(2)
        tools_layout.addWidget(self.tools_note)
        tools_layout.addWidget(self.tools, 1)
        left = QSplitter(Qt.Orientation.Vertical)
        left.setObjectName("compare_queries")
        left.addWidget(self.queries)
        left.addWidget(self.changes)
        left.setSizes([260, 160])
        self.split = QSplitter()
        self.split.setObjectName("compare")
        self.split.addWidget(left)
        self.split.addWidget(tools_box)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.result_page = QWidget()
        layout = QVBoxLayout(self.result_page)
        layout.setContentsMargins(0, 4, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(self.status)
        layout.addLayout(head)
        layout.addWidget(self.outcome)
        layout.addWidget(self.split, 1)

    def _build_suite(self) -> None:
        self.suite_summary = QLabel(
            "Choose another rule pack or catalog for B, then “Run a suite under both packs…”: "
            "every case runs on both sides and the cases whose results differ are listed here."
        )
        self.suite_summary.setObjectName("muted")
        self.suite_summary.setWordWrap(True)
        self.suite_cases = QTableWidget(0, 6)
        self.suite_cases.setHorizontalHeaderLabels(
            ["Case", "Prompt", "A", "B", "Differs in", "Fails"]
        )
        self.suite_cases.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.suite_cases.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.suite_cases.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.suite_cases.verticalHeader().setVisible(False)
        self.suite_cases.setAlternatingRowColors(True)
        suite_header = self.suite_cases.horizontalHeader()
        for column in range(6):
            suite_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        suite_header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.suite_cases.cellDoubleClicked.connect(lambda row, _column: self._open_case(row))
        self.suite_cases.itemSelectionChanged.connect(self._show_case_detail)
        self.suite_detail = QLabel("")
        self.suite_detail.setObjectName("gate")
        self.suite_detail.setWordWrap(True)
        self.open_case_button = QPushButton("Open in live view")
        self.open_case_button.setEnabled(False)
        self.open_case_button.clicked.connect(
            lambda: self._open_case(self.suite_cases.currentRow())
        )
        bottom = QHBoxLayout()
        bottom.addWidget(self.suite_detail, 1)
        bottom.addWidget(self.open_case_button, 0, Qt.AlignmentFlag.AlignTop)
        self.suite_page = QWidget()
        layout = QVBoxLayout(self.suite_page)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.suite_summary)
        layout.addWidget(self.suite_cases, 1)
        layout.addLayout(bottom)

    # -- side A and side B -----------------------------------------------------------------
    def show_text_a(self, text: str) -> None:
        """The live prompt changed elsewhere: A follows it (while the view is hidden, once it
        is shown: a keystroke in the live view does not lay this editor out again)."""
        self._text_a = text
        if self.isVisible():
            self._follow_text_a()

    def _follow_text_a(self) -> None:
        if self.a_editor.toPlainText() != self._text_a:
            self.a_editor.blockSignals(True)
            self.a_editor.setPlainText(self._text_a)
            self.a_editor.blockSignals(False)

    def showEvent(self, event: QShowEvent) -> None:
        self._follow_text_a()
        super().showEvent(event)

    def set_text_b(self, text: str) -> None:
        """Compare A with another prompt, as if it had been typed as B."""
        self.mode.setCurrentIndex(0)
        self.b_editor.setPlainText(text)

    def show_b_source(self, mode: str, name: str) -> None:
        """B's rule pack or catalog was chosen."""
        self._b_names[mode] = name
        index = self.mode.findData(mode)
        if index != self.mode.currentIndex():
            self.mode.setCurrentIndex(index)
        else:
            self._mode_picked()

    def show_loading(self, name: str) -> None:
        self.status.setText(f"loading the tools of {name} (once)…")

    def _mode_picked(self) -> None:
        mode = str(self.mode.currentData())
        self.b_stack.setCurrentIndex(0 if mode == "prompt" else 1)
        what = "rule pack" if mode == "rules" else "catalog"
        name = self._b_names.get(mode)
        self.b_file.setText(f"<b>{what}:</b> {name}" if name else f"<i>no {what} chosen yet</i>")
        self.b_choose.setText(f"Choose {what}…")
        ready = mode != "prompt" and name is not None
        self.suite_button.setEnabled(ready)
        self.suite_button.setText(
            "Run a suite under both catalogs…"
            if mode == "catalog"
            else "Run a suite under both packs…"
        )
        self.suite_button.setToolTip(
            "" if ready else "Choose another rule pack (or catalog) for B first"
        )
        self.rank_tools.setEnabled(mode != "catalog")
        self.mode_changed.emit(mode)

    def _choose_b(self) -> None:
        if self.mode.currentData() == "rules":
            self.rules_b_requested.emit()
        else:
            self.catalog_b_requested.emit()

    # -- the comparison ----------------------------------------------------------------------
    def show_result(self, comparison: Comparison | None) -> None:
        self.result = comparison
        self.status.setText("")
        if comparison is None:
            self.summary.setText(_NO_RESULT)
            self._show_outcome(None, None, ())
            self.queries.setRowCount(0)
            ensure_children(self.changes, 0)
            self._show_tools(None)
            for editor in (self.a_editor, self.b_editor):
                editor.setExtraSelections([])
            self.a_caption.setText("the live prompt")
            self.b_caption.setText("")
            return
        a, b = comparison.a, comparison.b
        self.a_caption.setText(f"the live prompt · {_side_caption(a)}")
        self.b_caption.setText(_side_caption(b))
        self.a_caption.setToolTip(self.a_caption.text())
        self.b_caption.setToolTip(self.b_caption.text())
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
        flags = comparison.flags
        _mark(self.a_editor, a.text, [s for f in flags for s in f.evidence_a], _A_INK)
        _mark(self.b_editor, b.text, [s for f in flags for s in f.evidence_b], _B_INK)
        self._show_queries(comparison.queries)
        self._show_changes(comparison)
        self._show_tools(comparison.tools)

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
            for row, (outcome, ink, fill) in enumerate(
                ((a, _A_INK, _A_FILL), (b, _B_INK, _B_FILL))
            ):
                value = getattr(outcome, name) if outcome is not None else None
                item = QTableWidgetItem("" if outcome is None else _value(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if name in changed:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                    item.setForeground(QBrush(QColor(ink)))
                    item.setBackground(QBrush(QColor(fill)))
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
                self._query_cell(query.a, query.removed, _REMOVED, _A_FILL),
                self._query_cell(query.b, query.added, _ADDED, _B_FILL),
            ]
            if query.kind == "same":
                for cell in cells:
                    cell.setForeground(QBrush(QColor("#546e7a")))
            for column, cell in enumerate(cells):
                self.queries.setItem(row, column, cell)
        self.queries.resizeRowsToContents()

    @staticmethod
    def _query_cell(
        text: str | None, spans: Sequence[Any], style: str, fill: str
    ) -> QTableWidgetItem:
        if text is None:
            item = QTableWidgetItem("—")
            item.setForeground(QBrush(QColor(MUTED)))
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
            [change.field, clip(_value(change.a), 200), clip(_value(change.b), 200)]
            for change in comparison.changes
            if change.field not in _OUTCOME_FIELDS
        ]
        if evidence:
            groups.append((f"Evidence ({len(evidence)})", evidence))
        calls = [
            [
                f"{call.kind} step: {call.tool}",
                "—" if call.args_a is None else _value(call.args_a),
                "—" if call.args_b is None else _value(call.args_b),
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
                child.setForeground(1, QBrush(QColor(_A_INK)))
                child.setForeground(2, QBrush(QColor(_B_INK)))
            top.setExpanded(True)

    def _show_tools(self, tools: Sequence[ToolMove] | None) -> None:
        if tools is None:
            self.tools.setRowCount(0)
            self.tools_note.setText(
                "No tool search on either side: tick “rank tools”, or compare catalogs."
            )
            return
        moved = sum(move.movement != "same" for move in tools)
        self.tools_note.setText(
            f"{len(tools)} tools in A's or B's top ranks · {moved} moved · "
            "↑ better in B, ↓ worse, new: only in B's, dropped: only in A's"
        )
        self.tools.setRowCount(len(tools))
        for row, move in enumerate(tools):
            cells = [
                "—" if move.rank_a is None else f"#{move.rank_a}",
                "—" if move.rank_b is None else f"#{move.rank_b}",
                move.tool,
                _move(move),
                f"{_score(move.score_a)} → {_score(move.score_b)}",
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column != 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if column == 3:
                    item.setForeground(QBrush(QColor(_MOVES[move.movement])))
                    font = QFont(item.font())
                    font.setBold(move.movement != "same")
                    item.setFont(font)
                item.setToolTip(
                    f"{move.tool}: rank in A {cells[0]}, in B {cells[1]} ({move.movement})"
                )
                self.tools.setItem(row, column, item)

    # -- a suite under both sides ------------------------------------------------------------
    def show_suite_running(self, name: str) -> None:
        self.pages.setCurrentWidget(self.suite_page)
        self.suite_summary.setText(f"running {name} on side A and on side B…")
        self.suite_cases.setRowCount(0)
        self.suite_detail.setText("")
        self.open_case_button.setEnabled(False)

    def show_suite(self, result: SuiteComparison) -> None:
        self.suite_result = result
        self.pages.setCurrentWidget(self.suite_page)
        differ = len(result.differ)
        self.suite_summary.setText(
            f"<b>{Path(result.path).name}</b> ({result.router}) · {result.cases} cases · "
            f"A passes {result.passed_a}, B passes {result.passed_b} · "
            f"<b>{differ} differ</b><br>"
            f"<span style='color:#607d8b'>A: {result.a} · B: {result.b} · "
            "double-click a case to open it live</span>"
        )
        self.suite_cases.setRowCount(differ)
        for row, case in enumerate(result.differ):
            cells = [
                case.id,
                clip(case.prompt, 200),
                "✓" if case.passed_a else "✗",
                "✓" if case.passed_b else "✗",
                ", ".join(case.comparison.sections) or "verdict only",
                "; ".join(
                    part
                    for part in (
                        f"A: {', '.join(case.failed_a)}" if case.failed_a else "",
                        f"B: {', '.join(case.failed_b)}" if case.failed_b else "",
                    )
                    if part
                ),
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(case.prompt if column == 1 else text)
                if column in (2, 3):
                    passed = case.passed_a if column == 2 else case.passed_b
                    item.setForeground(QBrush(QColor(_B_INK if passed else _A_INK)))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.suite_cases.setItem(row, column, item)
        if differ:
            self.suite_cases.selectRow(0)
        else:
            self.suite_detail.setText("No case differs: both sides give the same results.")

    def show_suite_error(self, message: str) -> None:
        self.pages.setCurrentWidget(self.suite_page)
        self.suite_summary.setText(
            f"<span style='color:#b71c1c'>cannot run the suite:</span> {message}"
        )

    def _case(self, row: int) -> CaseComparison | None:
        result = self.suite_result
        if result is None or not 0 <= row < len(result.differ):
            return None
        return result.differ[row]

    def _show_case_detail(self) -> None:
        case = self._case(self.suite_cases.currentRow())
        self.open_case_button.setEnabled(case is not None)
        if case is None:
            self.suite_detail.setText("")
            return
        a, b = case.comparison.a.outcome, case.comparison.b.outcome
        lines = [
            f"{title}: {_value(getattr(a, name))} → {_value(getattr(b, name))}"
            for name, title in OUTCOME_COLUMNS
            if getattr(a, name) != getattr(b, name)
        ]
        queries = sum(q.kind != "same" for q in case.comparison.queries)
        if queries:
            lines.append(f"{queries} planned quer{'y' if queries == 1 else 'ies'} changed")
        self.suite_detail.setText(
            f"{case.id}: " + (" · ".join(lines) if lines else "the same decisions")
        )

    def _open_case(self, row: int) -> None:
        case = self._case(row)
        if case is not None:
            self.open_case_requested.emit(case.id)


def _mark(editor: QPlainTextEdit, text: str, spans: Sequence[TextSpan], ink: str) -> None:
    """Underline the words that set a flag that flipped, in the prompt they were found in
    (none while the field shows another text)."""
    selections = []
    if editor.toPlainText() == text:
        for span in spans:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(editor.document())
            cursor.setPosition(_utf16(text, span.start))
            cursor.setPosition(_utf16(text, span.end), QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(QColor(ink))
            fmt.setForeground(QColor(ink))
            fmt.setFontWeight(QFont.Weight.DemiBold)
            selection.format = fmt
            selections.append(selection)
    editor.setExtraSelections(selections)


def _utf16(text: str, index: int) -> int:
    """A Python string offset as Qt's position (a character outside the BMP counts two)."""
    return index + sum(1 for char in text[:index] if ord(char) > 0xFFFF)


def _score(score: float | None) -> str:
    return "—" if score is None else f"{score:.3f}"


def _flag(on: bool, evidence: Sequence[Any]) -> str:
    if not on:
        return "○ off"
    words = ", ".join(f"“{span.value}”" for span in evidence[:4])
    return f"● on — {words}" if words else "● on"


def _move(move: ToolMove) -> str:
    if move.movement == "up":
        return f"↑{move.delta}"
    if move.movement == "down":
        return f"↓{-(move.delta or 0)}"
    if move.movement == "same":
        return "="
    return move.movement
