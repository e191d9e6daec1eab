"""The regression view: a suite's cases with pass/fail and filters, each case's structured diff,
the per-class confusion matrix, "accept as golden" and "open in the live view". Mirrors
`routescope.regress`; the session loads and runs the suites."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._style import colour, css
from ._widgets import HeaderedTableModel, enable_copy

if TYPE_CHECKING:
    from routescope.regress import CaseResult, ClassReport, Suite, SuiteResult

__all__ = ["CaseTableModel", "RegressView"]

_FILTERS = ("All", "Failures", "Changed")
_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True, slots=True)
class _CaseRow:
    case_id: str
    prompt: str
    expected: str = ""
    got: str = ""
    diffs: str = ""
    passed: bool | None = None
    """None: not run yet."""

    @property
    def cells(self) -> tuple[str, ...]:
        mark = "·" if self.passed is None else "✓" if self.passed else "✗"
        return (mark, self.case_id, self.prompt, self.expected, self.got, self.diffs)


class CaseTableModel(HeaderedTableModel):
    """The cases shown: one row each, failures in red. A model, so a suite of thousands of
    cases costs nothing until its rows are painted."""

    HEADERS = ("", "Case", "Prompt", "Expected", "Got", "Diffs")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[_CaseRow] = []

    def set_rows(self, rows: Sequence[_CaseRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def case_id(self, row: int) -> str | None:
        return self.rows[row].case_id if 0 <= row < len(self.rows) else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return row.cells[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and row.passed is False:
            return QBrush(colour("bad"))
        return None


class RegressView(QWidget):
    """Renders a suite, its run's progress and its `SuiteResult`; asks the session for the rest.

    Signals:
        open_requested: the analyst asks to open a suite file.
        run_requested: the analyst asks to run the suite.
        accept_requested: emitted with a failing case's id to accept its values as goldens.
        undo_requested: the analyst asks to undo the last accept (the Undo button, or
            `undo_action`'s Ctrl+Z while the focus is in this view).
        open_case_requested: emitted with a case's id to open it in the live view.
    """

    open_requested = Signal()
    run_requested = Signal()
    accept_requested = Signal(str)
    undo_requested = Signal()
    open_case_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suite: Suite | None = None
        self.result: SuiteResult | None = None
        self._changed: frozenset[str] | None = None
        self._running = False
        self.open_button = QPushButton("Open suite…")
        self.open_button.clicked.connect(self.open_requested)
        self.run_button = QPushButton("Run ▶")
        self.run_button.clicked.connect(self._run)
        self.filter = QComboBox()
        self.filter.addItems(_FILTERS)
        self.filter.currentTextChanged.connect(lambda _text: self._fill_cases())
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(True)
        self.summary = QLabel("Open a suite (resources/fixtures has the built-in ones).")
        self.summary.setObjectName("muted")
        self.case_model = CaseTableModel(self)
        self.cases = self._cases_table()
        self.diffs = self._table(["Path", "Matcher", "Expected", "Actual"])
        self.accept_button = QPushButton("Accept as golden")
        self.accept_button.clicked.connect(self._accept_selected)
        self.undo_button = QPushButton("Undo accept")
        self.undo_button.setToolTip("put the suite file back as it was before the last accept")
        self.undo_button.clicked.connect(self.undo_requested)
        self.undo_action = QAction("Undo accept as golden", self)
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.undo_action.triggered.connect(self.undo_requested)
        self.addAction(self.undo_action)
        self._can_undo = False
        self.live_button = QPushButton("Open in live view")
        self.live_button.clicked.connect(self._open_selected)
        self.matrix = self._table([])
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.metrics = QLabel("")
        self.metrics.setObjectName("muted")
        self.metrics.setWordWrap(True)
        self._lay_out()
        self._enable()

    def _cases_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.case_model)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().setVisible(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        enable_copy(table)
        table.selectionModel().selectionChanged.connect(self._show_case)
        return table

    @staticmethod
    def _table(headers: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setStretchLastSection(True)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        enable_copy(table)
        return table

    def _lay_out(self) -> None:
        bar = QHBoxLayout()
        for widget in (self.open_button, self.run_button, QLabel("show:"), self.filter):
            bar.addWidget(widget)
        bar.addWidget(self.progress_bar, 1)
        bar.addWidget(self.summary, 2)
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.live_button)
        buttons.addStretch(1)
        detail_layout.addWidget(QLabel("Structured diff of the selected case"))
        detail_layout.addWidget(self.diffs, 2)
        detail_layout.addLayout(buttons)
        detail_layout.addWidget(QLabel("Per class: confusion matrix (rows expected, columns got)"))
        detail_layout.addWidget(self.matrix, 2)
        detail_layout.addWidget(self.metrics)
        split = QSplitter()
        split.addWidget(self.cases)
        split.addWidget(detail)
        split.setSizes([760, 560])
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(split, 1)

    # -- what the session reports ------------------------------------------------------------
    def show_suite(self, suite: Suite) -> None:
        """A suite was opened (or opened again after accepting a golden): its cases, not run."""
        self.suite, self.result, self._changed = suite, None, None
        self._running = False
        self.summary.setText(f"{suite.suite}: {len(suite.cases)} cases — press Run")
        self.progress_bar.reset()
        self._fill_cases()
        self._fill_report()

    def show_error(self, message: str) -> None:
        self.summary.setText(f"<span style='color:{css('bad')}'>{html.escape(message)}</span>")
        self._running = False
        self._enable()

    def show_progress(self, done: int, total: int) -> None:
        self.progress_bar.setRange(0, total)
        self.progress_bar.setValue(done)
        self.progress_bar.setFormat(f"{done} / {total}")
        self._running = True
        self.run_button.setEnabled(False)

    def show_result(self, result: SuiteResult, changed: frozenset[str] | None) -> None:
        """A run finished; `changed` holds the cases whose outcome changed since the previous
        run of the same suite (None: there was none)."""
        self.result, self._changed = result, changed
        self._running = False
        since = f", {len(changed)} changed since the last run" if changed is not None else ""
        self.summary.setText(
            f"{result.suite}: {result.passed} passed, {result.failed} failed{since}"
        )
        self._fill_cases()
        self._fill_report()

    def show_accepted(self, case_id: str, values: int) -> None:
        self.summary.setText(f"accepted {values} golden value(s) for {case_id}; re-running")

    def show_undo(self, available: bool, case_id: str) -> None:
        """Whether an accept can be undone, and the case of the last one."""
        self._can_undo = available
        tip = f"put the suite file back as it was before accepting {case_id}" if available else ""
        self.undo_button.setToolTip(tip or "no accept to undo")
        self._enable()

    def show_undone(self, case_id: str, values: int) -> None:
        self.summary.setText(
            f"undid the accept of {case_id}: {values} golden value(s) put back; re-running"
        )

    # -- cases -----------------------------------------------------------------------------
    def visible_cases(self) -> list[CaseResult]:
        if self.result is None:
            return []
        mode = self.filter.currentText()
        if mode == "Failures":
            return [c for c in self.result.cases if not c.passed]
        if mode == "Changed":
            return [c for c in self.result.cases if c.id in (self._changed or ())]
        return list(self.result.cases)

    def _fill_cases(self) -> None:
        if self.result is None:
            planned = self.suite.cases if self.suite else []
            self.case_model.set_rows([_CaseRow(case.id, case.prompt) for case in planned])
        else:
            self.case_model.set_rows(
                [
                    _CaseRow(
                        case.id,
                        case.prompt,
                        case.expected_class or "",
                        case.predicted_class or "",
                        case.error or str(len(case.diffs)),
                        case.passed,
                    )
                    for case in self.visible_cases()
                ]
            )
        self._show_case()

    def _selected_result(self) -> CaseResult | None:
        case_id = self.case_model.case_id(self.cases.currentIndex().row())
        if self.result is None or case_id is None:
            return None
        if not self.cases.selectionModel().isRowSelected(self.cases.currentIndex().row()):
            return None
        return next((c for c in self.result.cases if c.id == case_id), None)

    def _show_case(self) -> None:
        case = self._selected_result()
        diffs = case.diffs if case else []
        self.diffs.setRowCount(len(diffs))
        for row, diff in enumerate(diffs):
            values = (diff.path, diff.matcher, diff.expected_text, diff.actual_text)
            for column, text in enumerate(values):
                self.diffs.setItem(row, column, QTableWidgetItem(text))
        self._enable()

    def _fill_report(self) -> None:
        report = self.result.report if self.result else None
        self.matrix.clear()
        if report is None or not report.labels:
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            self.metrics.setText("")
            return
        self._fill_matrix(report)
        self.metrics.setText(
            " · ".join(
                f"<b>{label}</b> precision {_ratio(report.precision[label])}, recall "
                f"{_ratio(report.recall[label])} (n={report.support.get(label, 0)})"
                for label in report.labels
            )
        )

    def _fill_matrix(self, report: ClassReport) -> None:
        labels = report.labels
        self.matrix.setRowCount(len(labels))
        self.matrix.setColumnCount(len(labels))
        self.matrix.setHorizontalHeaderLabels(labels)
        self.matrix.setVerticalHeaderLabels(labels)
        self.matrix.verticalHeader().setVisible(True)
        for row, expected in enumerate(labels):
            for column, got in enumerate(labels):
                count = report.matrix[expected][got]
                item = QTableWidgetItem(str(count))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if count:  # right on the diagonal, wrong elsewhere: fill and text both
                    role = "hit" if row == column else "miss"
                    item.setBackground(colour(role))
                    item.setForeground(colour(f"{role}_text"))
                self.matrix.setItem(row, column, item)

    # -- actions -----------------------------------------------------------------------------
    def _run(self) -> None:
        self._running = True
        self.run_button.setEnabled(False)
        self.run_requested.emit()

    def _accept_selected(self) -> None:
        case = self._selected_result()
        if case is not None and not case.passed:
            self.accept_requested.emit(case.id)

    def _open_selected(self) -> None:
        case = self._selected_result()
        if case is not None:
            self.open_case_requested.emit(case.id)

    def _enable(self) -> None:
        selected = self._selected_result()
        self.run_button.setEnabled(self.suite is not None and not self._running)
        self.accept_button.setEnabled(selected is not None and not selected.passed)
        self.live_button.setEnabled(selected is not None)
        self.undo_button.setEnabled(self._can_undo)
        self.undo_action.setEnabled(self._can_undo)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
