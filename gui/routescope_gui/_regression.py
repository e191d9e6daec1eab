"""The Regression view: open a suite, run it in the background with progress, filter the cases,
read each structured diff, accept a case as golden, and open any case in the live view."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from routescope import RoutescopeError, resources_root
from routescope.regress import (
    CaseResult,
    Suite,
    class_report,
    load_suite,
    run_case,
    update_goldens,
)
from routescope.regress import SuiteResult as _SuiteResult

__all__ = ["RegressionView", "SuiteRunner"]

_BATCH = 25
_FILTERS = ("All", "Failures", "Changed")


class SuiteRunner(QObject):
    """Runs a suite's cases in batches on the event loop, so the window stays responsive.

    Signals:
        progress: emitted with (cases done, cases in all).
        finished: emitted with the `SuiteResult` when every case has run.
    """

    progress = Signal(int, int)
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.task: asyncio.Task[None] | None = None

    def start(self, suite: Suite) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = asyncio.ensure_future(self._run(suite))

    async def _run(self, suite: Suite) -> None:
        cache: dict[str, Any] = {}
        results: list[CaseResult] = []
        total = len(suite.cases)
        for index, case in enumerate(suite.cases, start=1):
            results.append(run_case(case, suite, cache))
            if index % _BATCH == 0 or index == total:
                self.progress.emit(index, total)
                await asyncio.sleep(0)  # let the window paint between batches
        self.finished.emit(
            _SuiteResult(
                suite=suite.suite,
                path=str(suite.path),
                router=suite.router,
                cases=results,
                report=class_report(suite.router, results),
            )
        )


class RegressionView(QWidget):
    """Signals:
    open_case: emitted with (Suite, Case) when the analyst asks to open a case live.
    """

    open_case = Signal(object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suite: Suite | None = None
        self.result: _SuiteResult | None = None
        self._previous: dict[str, bool] = {}
        self.runner = SuiteRunner(self)
        self.runner.progress.connect(self._progress)
        self.runner.finished.connect(self._finished)
        self._build()

    # -- construction --------------------------------------------------------------------
    def _build(self) -> None:
        self.open_button = QPushButton("Open suite…")
        self.open_button.clicked.connect(self._choose)
        self.run_button = QPushButton("Run ▶")
        self.run_button.clicked.connect(self.run)
        self.filter = QComboBox()
        self.filter.addItems(_FILTERS)
        self.filter.currentTextChanged.connect(lambda _: self._fill_cases())
        self.progress_bar = QProgressBar()
        self.progress_bar.setTextVisible(True)
        self.summary = QLabel("Open a suite (resources/fixtures has the built-in ones).")
        self.summary.setObjectName("muted")
        bar = QHBoxLayout()
        for widget in (self.open_button, self.run_button, QLabel("show:"), self.filter):
            bar.addWidget(widget)
        bar.addWidget(self.progress_bar, 1)
        bar.addWidget(self.summary, 2)

        self.cases = self._table(["", "Case", "Prompt", "Expected", "Got", "Diffs"])
        self.cases.itemSelectionChanged.connect(self._show_case)
        self.diffs = self._table(["Path", "Matcher", "Expected", "Actual"])
        self.accept_button = QPushButton("Accept as golden")
        self.accept_button.clicked.connect(self.accept_selected)
        self.live_button = QPushButton("Open in live view")
        self.live_button.clicked.connect(self._open_selected)
        self.matrix = self._table([])
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.metrics = QLabel("")
        self.metrics.setObjectName("muted")
        self.metrics.setWordWrap(True)

        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept_button)
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
        self._enable()

    @staticmethod
    def _table(headers: list[str]) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setAlternatingRowColors(True)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setStretchLastSection(True)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        return table

    # -- actions -------------------------------------------------------------------------
    def load(self, path: str | Path) -> bool:
        """Open a suite file; on error keep the current one and say why."""
        try:
            self.suite = load_suite(path)
        except RoutescopeError as exc:
            self.summary.setText(f"<span style='color:#c62828'>{exc}</span>")
            return False
        self.result = None
        self._previous = {}
        self.summary.setText(f"{self.suite.suite}: {len(self.suite.cases)} cases — press Run")
        self._fill_cases()
        self._enable()
        return True

    def run(self) -> None:
        if self.suite is None:
            return
        if self.result is not None:
            self._previous = {c.id: c.passed for c in self.result.cases}
        self.progress_bar.setRange(0, len(self.suite.cases))
        self.progress_bar.setValue(0)
        self.run_button.setEnabled(False)
        self.runner.start(self.suite)

    def accept_selected(self) -> None:
        """Write the selected case's current results into the suite as its new goldens."""
        case = self._selected_result()
        if self.suite is None or self.result is None or case is None or case.passed:
            return
        changed = update_goldens(self.suite, self.result, only={case.id})
        previous = {c.id: c.passed for c in self.result.cases}
        self.load(self.suite.path)
        self._previous = previous  # so "Changed" shows what accepting the golden changed
        self.summary.setText(f"accepted {changed} golden value(s) for {case.id}; re-running")
        self.run()

    def _choose(self) -> None:
        start = str(resources_root() / "fixtures")
        path, _ = QFileDialog.getOpenFileName(self, "Open suite", start, "Suites (*.yaml *.yml)")
        if path:
            self.load(path)

    def _open_selected(self) -> None:
        result = self._selected_result()
        if self.suite is None or result is None:
            return
        case = next(c for c in self.suite.cases if c.id == result.id)
        self.open_case.emit(self.suite, case)

    # -- rendering -----------------------------------------------------------------------
    def _progress(self, done: int, total: int) -> None:
        self.progress_bar.setValue(done)
        self.progress_bar.setFormat(f"{done} / {total}")

    def _finished(self, result: _SuiteResult) -> None:
        self.result = result
        self.run_button.setEnabled(True)
        changed = len(self._changed())
        self.summary.setText(
            f"{result.suite}: {result.passed} passed, {result.failed} failed"
            + (f", {changed} changed since the last run" if self._previous else "")
        )
        self._fill_cases()
        self._fill_report()
        self._enable()

    def _changed(self) -> set[str]:
        if self.result is None:
            return set()
        return {c.id for c in self.result.cases if self._previous.get(c.id, c.passed) != c.passed}

    def visible_cases(self) -> list[CaseResult]:
        if self.result is None:
            return []
        mode = self.filter.currentText()
        if mode == "Failures":
            return [c for c in self.result.cases if not c.passed]
        if mode == "Changed":
            changed = self._changed()
            return [c for c in self.result.cases if c.id in changed]
        return list(self.result.cases)

    def _fill_cases(self) -> None:
        self.cases.setRowCount(0)
        if self.result is None:
            for planned in self.suite.cases if self.suite else []:
                self._case_row(planned.id, planned.prompt, "", "", "", None)
            return
        for case in self.visible_cases():
            self._case_row(
                case.id,
                case.prompt,
                case.expected_class or "",
                case.predicted_class or "",
                str(len(case.diffs)),
                case.passed,
            )
        self.diffs.setRowCount(0)

    def _case_row(
        self, case_id: str, prompt: str, expected: str, got: str, diffs: str, passed: bool | None
    ) -> None:
        row = self.cases.rowCount()
        self.cases.insertRow(row)
        mark = "·" if passed is None else "✓" if passed else "✗"
        for column, text in enumerate((mark, case_id, prompt, expected, got, diffs)):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, case_id)
            if passed is False:
                item.setForeground(QBrush(QColor("#c62828")))
            self.cases.setItem(row, column, item)

    def _selected_result(self) -> CaseResult | None:
        rows = self.cases.selectionModel().selectedRows() if self.cases.selectionModel() else []
        if not rows or self.result is None:
            return None
        item = self.cases.item(rows[0].row(), 1)
        case_id = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return next((c for c in self.result.cases if c.id == case_id), None)

    def _show_case(self) -> None:
        self.diffs.setRowCount(0)
        case = self._selected_result()
        self._enable()
        if case is None:
            return
        for diff in case.diffs:
            row = self.diffs.rowCount()
            self.diffs.insertRow(row)
            values = (diff.path, diff.matcher, _json(diff.expected), _json(diff.actual))
            for column, text in enumerate(values):
                self.diffs.setItem(row, column, QTableWidgetItem(text))

    def _fill_report(self) -> None:
        report = self.result.report if self.result else None
        self.matrix.clear()
        if report is None or not report.labels:
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            self.metrics.setText("")
            return
        self.matrix.setRowCount(len(report.labels))
        self.matrix.setColumnCount(len(report.labels))
        self.matrix.setHorizontalHeaderLabels(report.labels)
        self.matrix.setVerticalHeaderLabels(report.labels)
        self.matrix.verticalHeader().setVisible(True)
        for row, expected in enumerate(report.labels):
            for column, got in enumerate(report.labels):
                count = report.matrix[expected][got]
                item = QTableWidgetItem(str(count))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if count and row == column:
                    item.setBackground(QBrush(QColor("#dcedc8")))
                elif count:
                    item.setBackground(QBrush(QColor("#ffcdd2")))
                self.matrix.setItem(row, column, item)
        self.metrics.setText(
            " · ".join(
                f"<b>{label}</b> precision {_ratio(report.precision[label])}, recall "
                f"{_ratio(report.recall[label])} (n={report.support.get(label, 0)})"
                for label in report.labels
            )
        )

    def _enable(self) -> None:
        selected = self._selected_result()
        self.run_button.setEnabled(self.suite is not None)
        self.accept_button.setEnabled(selected is not None and not selected.passed)
        self.live_button.setEnabled(selected is not None)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
