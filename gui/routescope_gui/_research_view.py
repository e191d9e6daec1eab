"""The deep-research view: one run of `routescope.research.deep_research`. One row per attempt
(the query and where it came from, the provider's status, relevance / confidence / coverage as
bars, the score), the best attempt starred, each attempt's pages with the policy's verdict and
the outcome underneath; the next step, the warnings and why the loop stopped; a link to the
saved report; "Copy report" puts `report_markdown` on the clipboard. Attempts appear one by one
as the run grades them.

It renders the result objects it is given and nothing more: the session runs the research; the
buttons (Run, Cancel, Settings…, Save report…) only ask for it through signals.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._widgets import BAR_ROLE, BarDelegate, enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.research import Attempt, DeepResearchResult, PageRead, ResearchSettings

__all__ = ["ResearchView"]

_Index = QModelIndex | QPersistentModelIndex
_COLUMNS = ("#", "Query", "From", "Provider", "Relevance", "Confidence", "Coverage", "Score")
_COLUMN_TIPS = (
    "attempt (★ the best: highest 0.5·relevance + 0.3·coverage + 0.2·confidence)",
    "the query searched; expand for the pages it found",
    "where the query came from: optimiser, refiner, or the goal itself",
    "search provider · status (or error)",
    "how relevant the pages read are to the goal (0–1)",
    "how confident the evaluator is (0–1)",
    "how much of the goal the pages cover (0–1)",
    "0.5·relevance + 0.3·coverage + 0.2·confidence",
)
_BAR_COLUMNS = (4, 5, 6, 7)
_WIDTHS = (56, 200, 116, 100, 80, 86, 76, 56)
_OUTCOME_TONES = {"proceed": "#2e7d32", "research_again": "#ef6c00", "escalate": "#c62828"}
_RED = QColor("#c62828")


class ResearchView(QWidget):
    """Renders one `DeepResearchResult` (or the attempts of a run under way, or why it failed).

    Attributes:
        result: the run shown (None: none yet, or a blank prompt); error: why the last run
            failed ("" when it did not); attempts: the attempts shown while a run is under way.
        backends: where research searches, what grades it, and how it starts.
        status: what the view shows now (running, finished, failed).
        summary: the next step, why the loop stopped, the warnings.
        report_link: a link to the report saved for the run shown.
        table: the attempts, their pages underneath.
        run_button, cancel_button, settings_button, save_button, copy_button: the controls.

    Signals:
        run_requested, cancel_requested, settings_requested, save_requested: the buttons.
    """

    run_requested = Signal()
    cancel_requested = Signal()
    settings_requested = Signal()
    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: DeepResearchResult | None = None
        self.error = ""
        self.attempts: list[Attempt] = []
        self._running = False
        self.backends = QLabel()
        self.status = QLabel("research runs on the prompt while this tab is shown (offline)")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.run_button = _button("Run", "research the prompt now (Ctrl+Enter)")
        self.run_button.clicked.connect(self.run_requested)
        self.cancel_button = _button("Cancel", "stop the run under way (Esc)")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.setEnabled(False)
        self.settings_button = _button("Settings…", "search provider, model and keys")
        self.settings_button.clicked.connect(self.settings_requested)
        self.save_button = _button("Save report…", "write report.md and report.json")
        self.save_button.clicked.connect(self.save_requested)
        self.copy_button = _button("Copy report", "copy the run's report as Markdown")
        self.copy_button.clicked.connect(self.copy_report)
        for button in (self.save_button, self.copy_button):
            button.setEnabled(False)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report_link = QLabel("")
        self.report_link.setOpenExternalLinks(True)
        self.report_link.setVisible(False)
        self.table = self._attempts_table()
        controls = QHBoxLayout()
        controls.addWidget(self.backends, 1)
        for button in (
            self.run_button,
            self.cancel_button,
            self.settings_button,
            self.save_button,
            self.copy_button,
        ):
            controls.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.summary)
        layout.addWidget(self.report_link)
        layout.addWidget(self.table, 1)
        self.show_backends(None)

    def _attempts_table(self) -> QTreeWidget:
        table = QTreeWidget()
        table.setHeaderLabels(list(_COLUMNS))
        header = table.headerItem()
        for column, tip in enumerate(_COLUMN_TIPS):
            header.setToolTip(column, tip)
        bar = BarDelegate("#90caf9", table)
        for column in _BAR_COLUMNS:
            table.setItemDelegateForColumn(column, bar)
        table.setAlternatingRowColors(True)
        table.setUniformRowHeights(True)
        header_view = table.header()
        header_view.setStretchLastSection(False)
        header_view.setMinimumSectionSize(40)
        for column, width in enumerate(_WIDTHS):
            table.setColumnWidth(column, width)
        header_view.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the query
        enable_copy(table)
        return table

    # -- states ------------------------------------------------------------------------------
    def show_backends(self, settings: ResearchSettings | None) -> None:
        """Where research searches and what grades it; offline backends follow the typing,
        network ones run on Ctrl+Enter."""
        settings = settings or routescope.research.ResearchSettings()
        how = "runs as you type" if settings.offline else "Ctrl+Enter runs · Esc cancels"
        self.backends.setText(f"<b>{html.escape(settings.describe())}</b> — {how}")

    def show_running(self, goal: str) -> None:
        """A run for `goal` started: the previous run stays until its first attempt arrives."""
        self.error = ""
        self.attempts = []
        self._set_running(True)
        self.status.setText(f"researching <b>{html.escape(_short(goal))}</b>…")

    def add_attempt(self, attempt: Attempt) -> None:
        """An attempt of the run under way was graded: the rows show the run so far."""
        if not self._running:
            return
        if not self.attempts:
            self.summary.setText("")
            self.report_link.setVisible(False)
        self.attempts.append(attempt)
        rows = ensure_children(self.table, len(self.attempts))
        self._show_attempt(rows[-1], attempt, best=False)
        self.status.setText(
            f"researching… {len(self.attempts)} attempt(s) graded, "
            f"{sum(a.fetched for a in self.attempts)} page(s) read"
        )

    def show_cancelled(self) -> None:
        if self._running:
            self._set_running(False)
            self.status.setText("research cancelled")

    def show_error(self, message: str) -> None:
        self.error = message
        self._set_running(False)
        self.status.setText(
            f"<span style='color:#c62828'>research failed: {html.escape(message)}</span>"
        )

    def show_saved(self, path: str) -> None:
        url = QUrl.fromLocalFile(path).toString()
        self.report_link.setText(
            f"report: <a href='{html.escape(url)}'>{html.escape(Path(path).parent.name)}</a>"
        )
        self.report_link.setToolTip(path)
        self.report_link.setVisible(True)

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.cancel_button.setEnabled(running)

    def show_result(self, result: DeepResearchResult | None) -> None:
        self.result = result
        self._set_running(False)
        self.attempts = []
        self.report_link.setVisible(False)
        for button in (self.save_button, self.copy_button):
            button.setEnabled(result is not None)
        if result is None:
            self.status.setText("type a prompt: research runs on it while this tab is shown")
            self.summary.setText("")
            ensure_children(self.table, 0)
            return
        model = f" · model {html.escape(result.model)}" if result.model else ""
        self.status.setText(
            f"<b>{html.escape(_short(result.goal))}</b>: {len(result.attempts)} attempt(s) · "
            f"{result.web_calls} search(es) · {result.pages_fetched} page(s) read · "
            f"{result.duration_ms:,.0f} ms{model}"
        )
        self.summary.setText(_summary(result))
        expanded = {
            row.text(1)
            for i in range(self.table.topLevelItemCount())
            if (row := self.table.topLevelItem(i)) is not None and row.isExpanded()
        }
        rows = ensure_children(self.table, len(result.attempts))
        for row, attempt in zip(rows, result.attempts, strict=True):
            self._show_attempt(row, attempt, best=attempt.index == result.best)
            row.setExpanded(attempt.query in expanded)

    def copy_report(self) -> None:
        """Put the shown run's report on the clipboard, as Markdown."""
        if self.result is not None:
            QGuiApplication.clipboard().setText(routescope.research.report_markdown(self.result))

    # -- rows ----------------------------------------------------------------------------------
    def _show_attempt(self, row: QTreeWidgetItem, attempt: Attempt, *, best: bool) -> None:
        provider = f"{attempt.provider} · {attempt.status if attempt.status is not None else '—'}"
        if attempt.error:
            provider += f" · {attempt.error}"
        evaluation = attempt.evaluation
        reasons = evaluation.reasons if evaluation is not None else attempt.evaluator_error
        scores = (attempt.relevance, attempt.confidence, attempt.coverage, attempt.score)
        fill_row(
            row,
            [
                f"{attempt.index + 1} ★" if best else str(attempt.index + 1),
                attempt.query,
                attempt.query_source,
                provider,
                *(f"{value:.1f}" for value in scores[:3]),
                f"{attempt.score:.2f}",
            ],
            [
                "the best attempt" if best else f"attempt {attempt.index + 1}",
                f"{attempt.query}\n{attempt.duration_ms:,.0f} ms · "
                f"{attempt.fetched} of {len(attempt.pages)} page(s) read",
                None,
                None,
                *([reasons or "not evaluated (nothing read)"] * 3),
                "should retry" if attempt.should_retry else "no retry needed",
            ],
        )
        for column, value in zip(_BAR_COLUMNS, scores, strict=True):
            row.setData(column, BAR_ROLE, value)
        font = QFont(row.font(0))
        font.setBold(best)
        for column in range(len(_COLUMNS)):
            row.setFont(column, font)
        row.setData(3, Qt.ItemDataRole.ForegroundRole, _RED if attempt.error else None)
        pages = ensure_children(row, len(attempt.pages))
        for child, page in zip(pages, attempt.pages, strict=True):
            _show_page(child, page)


def _show_page(row: QTreeWidgetItem, page: PageRead) -> None:
    verdict = f"{'allowed' if page.allowed else 'blocked'} · {page.rule}"
    if page.error:
        outcome = f"{page.status} · {page.error}" if page.status is not None else page.error
    elif page.status is not None:
        outcome = f"{page.status} · {len(page.text):,} chars"
    else:
        outcome = "not fetched"
    fill_row(
        row,
        ["", f"  {page.title or page.url}", verdict, outcome, "", "", "", ""],
        ["", page.url, f"host policy: {verdict}", outcome, "", "", "", ""],
    )
    for column in range(len(_COLUMNS)):
        row.setData(column, BAR_ROLE, None)
    bad = not page.allowed or bool(page.error)
    row.setData(2, Qt.ItemDataRole.ForegroundRole, None if page.allowed else _RED)
    row.setData(3, Qt.ItemDataRole.ForegroundRole, _RED if bad else None)


def _summary(result: DeepResearchResult) -> str:
    step = result.next_step
    tone = _OUTCOME_TONES.get(step.outcome, "#263238")
    lines = [
        f"next step: <b style='color:{tone}'>{html.escape(step.outcome.replace('_', ' '))}</b>"
        f" — {html.escape(step.reason)}",
        f"stopped: {html.escape(result.termination_reason)}",
    ]
    lines += [f"<span style='color:#c62828'>⚠ {html.escape(w)}</span>" for w in result.warnings]
    lines += [f"note: {html.escape(note)}" for note in result.notes]
    return "<br>".join(lines)


def _button(text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tip)
    return button


def _short(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
