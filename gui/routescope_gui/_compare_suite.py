"""The compare view's suite under both sides: a regression suite run under A's rule pack (or
catalog) and B's, how many cases pass on each side, and the cases whose results differ — what
differs in one picked, any of them opened in the live view."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._compare_common import A_INK, B_INK, OUTCOME_COLUMNS, value_text
from ._html import clip
from ._style import colour, css

if TYPE_CHECKING:
    from routescope.compare import CaseComparison, SuiteComparison

__all__ = ["SuitePage"]


class SuitePage(QWidget):
    """Renders a `SuiteComparison`: its summary, the cases that differ, the one picked.

    Attributes:
        suite_result: the suite comparison shown (None: none yet).

    Signals:
        open_case_requested: emitted with a suite case's id to open it in the live view.
    """

    open_case_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suite_result: SuiteComparison | None = None
        self.suite_summary = QLabel(
            "Choose another rule pack or catalog for B, then “Run a suite under both packs…”: "
            "every case runs on both sides and the cases whose results differ are listed here."
        )
        self.suite_summary.setObjectName("muted")
        self.suite_summary.setWordWrap(True)
        self.suite_cases = self._cases_table()
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.suite_summary)
        layout.addWidget(self.suite_cases, 1)
        layout.addLayout(bottom)

    def _cases_table(self) -> QTableWidget:
        table = QTableWidget(0, 6)
        table.setHorizontalHeaderLabels(["Case", "Prompt", "A", "B", "Differs in", "Fails"])
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.verticalHeader().setVisible(False)
        table.setAlternatingRowColors(True)
        header = table.horizontalHeader()
        for column in range(6):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.cellDoubleClicked.connect(lambda row, _column: self._open_case(row))
        table.itemSelectionChanged.connect(self._show_case_detail)
        return table

    def show_running(self, name: str) -> None:
        self.suite_summary.setText(f"running {name} on side A and on side B…")
        self.suite_cases.setRowCount(0)
        self.suite_detail.setText("")
        self.open_case_button.setEnabled(False)

    def show_suite(self, result: SuiteComparison) -> None:
        self.suite_result = result
        differ = len(result.differ)
        self.suite_summary.setText(
            f"<b>{Path(result.path).name}</b> ({result.router}) · {result.cases} cases · "
            f"A passes {result.passed_a}, B passes {result.passed_b} · "
            f"<b>{differ} differ</b><br>"
            f"<span style='color:{css('muted')}'>A: {result.a} · B: {result.b} · "
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
                    item.setForeground(QBrush(colour(B_INK if passed else A_INK)))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.suite_cases.setItem(row, column, item)
        if differ:
            self.suite_cases.selectRow(0)
        else:
            self.suite_detail.setText("No case differs: both sides give the same results.")

    def show_error(self, message: str) -> None:
        self.suite_summary.setText(
            f"<span style='color:{css('bad')}'>cannot run the suite:</span> {message}"
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
            f"{title}: {value_text(getattr(a, name))} → {value_text(getattr(b, name))}"
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
