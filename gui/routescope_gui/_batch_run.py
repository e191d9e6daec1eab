"""The Batch view's run bar: the log, its results file, a catalog and the workers; Run (or
Continue after a Cancel), Cancel and Open results; the progress bar and the status line that
follow a batch from its start to its summary."""

from __future__ import annotations

import html
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ._catalog_dialog import choose_catalog
from ._style import css

if TYPE_CHECKING:
    from routescope.batch import BatchProgress, BatchSummary, Report

__all__ = ["HINT", "RunBar", "default_results"]

_LOGS = "Logs (*.jsonl *.ndjson *.json *.csv *.tsv *.txt *.log *.gz);;All files (*)"
_RESULTS = "Results (*.jsonl *.jsonl.gz *.ndjson *.parquet);;All files (*)"
HINT = "Open a log and press Run, or open the results of a batch to read its report."


def default_results(log: str) -> str:
    """Where a log's results go unless told: beside it, `<name>.results.jsonl` (the name
    without its extensions; `batch.results.jsonl` beside a glob)."""
    text = log.strip()
    if not text:
        return ""
    path = Path(text).expanduser()
    name = path.name
    if any(mark in name for mark in "*?["):
        stem = "batch"
    else:
        stem = name.split(".", 1)[0] if not name.startswith(".") else name
    return str(path.parent / f"{stem or 'batch'}.results.jsonl")


def _size(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1000
    return f"{count:,} bytes"  # pragma: no cover (the loop always returns)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class RunBar(QWidget):
    """What to run and how it goes: the inputs and buttons of a batch over its progress.

    Attributes:
        error: the error the status line shows ("" when none).

    Signals:
        run_requested: emitted with (log, results file, catalog or "", workers).
        cancel_requested: the analyst asks to stop the batch (its results stay resumable).
        open_results_requested: emitted with a results file to read the report of.
    """

    run_requested = Signal(str, str, str, int)
    cancel_requested = Signal()
    open_results_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.error = ""
        self._running = False
        self._default_out = ""
        self._stopped_out = ""
        """The results file a cancelled batch left (Run continues it)."""
        self._build_inputs()
        self._build_progress()
        self._lay_out()
        self._enable()

    def _build_inputs(self) -> None:
        self.log_edit = QLineEdit()
        self.log_edit.setPlaceholderText("a log: JSONL, CSV or text, gzip too; or a glob")
        self.log_edit.textChanged.connect(self._log_changed)
        self.log_edit.returnPressed.connect(self._run)
        self.log_button = QPushButton("Browse…")
        self.log_button.clicked.connect(self.choose_log)
        self.out_edit = QLineEdit()
        self.out_edit.setPlaceholderText("results file (.jsonl or .parquet), beside the log")
        self.out_edit.textChanged.connect(lambda _text: self._enable())
        self.out_button = QPushButton("Choose…")
        self.out_button.clicked.connect(self.choose_out)
        self.catalog_edit = QLineEdit()
        self.catalog_edit.setPlaceholderText("optional: a catalog whose tools to rank")
        self.catalog_button = QPushButton("Browse…")
        self.catalog_button.clicked.connect(self.choose_catalog)
        self.workers = QSpinBox()
        # A frozen app cannot start worker processes of itself (they would start the window).
        frozen = bool(getattr(sys, "frozen", False))
        self.workers.setRange(1, 1 if frozen else max(1, os.cpu_count() or 1))
        self.workers.setValue(1)
        self.workers.setToolTip(
            "1: route in a thread of this window (typing stays smooth); more: a pool of "
            "worker processes, for large logs"
        )
        self.run_button = QPushButton("Run ▶")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self._run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("stop after the current chunk; Run again continues")
        self.cancel_button.clicked.connect(self._cancel)
        self.open_button = QPushButton("Open results…")
        self.open_button.clicked.connect(self.choose_results)

    def _build_progress(self) -> None:
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self.progress_bar.setTextVisible(True)
        self.status = QLabel(HINT)
        self.status.setObjectName("muted")
        self.status.setTextFormat(Qt.TextFormat.RichText)

    def _lay_out(self) -> None:
        progress = QHBoxLayout()
        progress.addWidget(self.progress_bar, 1)
        progress.addWidget(self.status, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)  # the view's own margins frame the bar
        layout.addLayout(self._inputs())
        layout.addLayout(progress)

    def _inputs(self) -> QGridLayout:
        inputs = QGridLayout()
        inputs.setHorizontalSpacing(6)
        inputs.setVerticalSpacing(4)
        inputs.addWidget(QLabel("Log"), 0, 0)
        inputs.addWidget(self.log_edit, 0, 1)
        inputs.addWidget(self.log_button, 0, 2)
        inputs.addWidget(QLabel("Results"), 0, 3)
        inputs.addWidget(self.out_edit, 0, 4)
        inputs.addWidget(self.out_button, 0, 5)
        inputs.addWidget(QLabel("Catalog"), 1, 0)
        inputs.addWidget(self.catalog_edit, 1, 1)
        inputs.addWidget(self.catalog_button, 1, 2)
        inputs.addWidget(QLabel("Workers"), 1, 3)
        actions = QHBoxLayout()
        actions.addWidget(self.workers)
        actions.addStretch(1)
        actions.addWidget(self.run_button)
        actions.addWidget(self.cancel_button)
        actions.addSpacing(16)
        actions.addWidget(self.open_button)
        inputs.addLayout(actions, 1, 4, 1, 2)
        inputs.setColumnStretch(1, 1)
        inputs.setColumnStretch(4, 1)
        return inputs

    # -- inputs ------------------------------------------------------------------------------
    def set_log(self, path: str) -> None:
        """Take a log (the results file follows it, unless one was chosen)."""
        self.log_edit.setText(path)

    def choose_log(self) -> None:
        start = self.log_edit.text().strip() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open a log", start, _LOGS)
        if path:
            self.set_log(path)

    def choose_out(self) -> None:
        start = self.out_edit.text().strip() or default_results(self.log_edit.text())
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Results file (an unfinished one continues)",
            start,
            _RESULTS,
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.out_edit.setText(path)

    def choose_catalog(self) -> None:
        current = self.catalog_edit.text().strip()
        path = choose_catalog(self, Path(current) if current else None)
        if path:
            self.catalog_edit.setText(path)

    def choose_results(self) -> None:
        start = self.out_edit.text().strip() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open results", start, _RESULTS)
        if path:
            self.open_results_requested.emit(path)

    def _log_changed(self, text: str) -> None:
        """The results file follows the log while it is the default (or empty)."""
        current = self.out_edit.text().strip()
        if not current or current == self._default_out:
            self._default_out = default_results(text)
            self.out_edit.setText(self._default_out)
        self._enable()

    def _run(self) -> None:
        log, out = self.log_edit.text().strip(), self.out_edit.text().strip()
        if self._running or not log or not out:
            return
        self.run_requested.emit(log, out, self.catalog_edit.text().strip(), self.workers.value())

    def _cancel(self) -> None:
        if self._running:
            self.cancel_button.setEnabled(False)
            self._set_status("Cancelling: the batch stops after the chunk it is writing…")
            self.cancel_requested.emit()

    def _enable(self) -> None:
        out = self.out_edit.text().strip()
        ready = bool(self.log_edit.text().strip() and out)
        self.run_button.setEnabled(ready and not self._running)
        resumes = bool(out) and out == self._stopped_out
        self.run_button.setText("Continue ▶" if resumes else "Run ▶")
        self.run_button.setToolTip(
            "continue the cancelled batch where it stopped" if resumes else "route every prompt"
        )
        self.cancel_button.setEnabled(self._running)
        self.open_button.setEnabled(not self._running)
        for widget in (self.log_edit, self.out_edit, self.catalog_edit, self.workers):
            widget.setEnabled(not self._running)
        for button in (self.log_button, self.out_button, self.catalog_button):
            button.setEnabled(not self._running)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.error = text if error else ""
        colour = css("bad" if error else "muted")
        self.status.setText(f"<span style='color:{colour}'>{html.escape(text)}</span>")
        self.status.setToolTip(text)

    # -- what the session reports ----------------------------------------------------------
    def show_started(self, log: str) -> None:
        self._running = True
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self._set_status(f"Reading {Path(log).name}: planning the work…")
        self._enable()

    def show_progress(self, progress: BatchProgress) -> None:
        self._running = True
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(round(progress.share * 1000))
        self.progress_bar.setFormat(f"{progress.share:.0%}")
        parts = [f"{progress.prompts:,} prompts"]
        if progress.bad:
            parts.append(f"{progress.bad:,} bad lines")
        parts.append(f"{_size(progress.read)} of {_size(progress.size)} read")
        if progress.rate > 0:
            parts.append(f"{progress.rate:,.0f} prompts/s")
        left = progress.seconds_left
        if left is not None and progress.share < 1:
            parts.append(f"about {_duration(left)} left")
        if progress.done_before:
            parts.append(f"resumed after {progress.done_before:,}")
        if self.cancel_button.isEnabled():
            self._set_status(" · ".join(parts))
        self._enable()

    def show_reading(self, results: str) -> None:
        self.progress_bar.setRange(0, 0)  # busy: a report is one pass of unknown length
        self._set_status(f"Reading {Path(results).name} for the report…")

    def show_cancelled(self, summary: BatchSummary) -> None:
        self._running = False
        self._stopped_out = summary.out
        self.progress_bar.setRange(0, 1000)
        lines = summary.prompts + summary.bad
        self.progress_bar.setFormat(f"stopped · {lines:,} lines")
        self._set_status(
            f"Cancelled: {summary.prompts:,} prompts are kept in {Path(summary.out).name}. "
            "Run again to continue where it stopped."
        )
        self._enable()

    def show_error(self, message: str) -> None:
        self._running = False
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self._set_status(message, error=True)
        self._enable()

    def show_done(self, summary: BatchSummary | None, report: Report) -> None:
        """A batch finished (`summary`), or results were opened (None)."""
        self._running = False
        self._stopped_out = ""
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(1000)
        if summary is not None:
            self.out_edit.setText(summary.out)
            self.progress_bar.setFormat("done")
            self._set_status(self._summary_text(summary))
        else:
            self.progress_bar.setFormat("opened")
            self._set_status(f"Opened {report.sources[0] if report.sources else 'results'}")
        self._enable()

    @staticmethod
    def _summary_text(summary: BatchSummary) -> str:
        if summary.already_complete:
            return (
                f"{Path(summary.out).name} was already complete: its report, without running again"
            )
        text = (
            f"Done: {summary.prompts:,} prompts in {_duration(summary.seconds)} "
            f"({summary.rate:,.0f} lines/s)"
        )
        if summary.done_before:
            new = summary.prompts + summary.bad - summary.done_before
            text += f", {new:,} lines of them after resuming"
        if summary.bad:
            text += f" · {summary.bad:,} bad lines in {Path(summary.bad_lines_file or '').name}"
        return text
