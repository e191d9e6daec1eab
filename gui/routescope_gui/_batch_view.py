"""The batch view: a log routed by `routescope batch` in the background, with progress and
Cancel, then its report — the leak checks first, then the figures as bar charts. Clicking a bar
or a leak check lists the prompts behind it; any of them opens in the live view. Mirrors
`routescope.batch`; the session runs the batches and reads the reports."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSplitter, QVBoxLayout, QWidget

from ._batch_charts import BarChart, ChartBar, LatencyChart, share_text
from ._batch_grid import FIGURES, ORDER, ChartGrid, Figure, chart_card
from ._batch_leaks import LeakRow
from ._batch_prompts import PromptList
from ._batch_run import HINT, RunBar
from ._style import css

if TYPE_CHECKING:
    from routescope.batch import BatchProgress, BatchSummary, Distribution, Report

__all__ = ["BatchView"]

_SPECIAL = {
    "(none)": "chart_grey",
    "(contract off)": "chart_grey",
    "(no tool fits)": "chart_orange",
}
"""The report's labels for "nothing" (`routescope.batch` names them so): grey, and orange for
prompts no tool fits."""


class BatchView(QWidget):
    """Runs a batch (through the session) and renders its progress and its `Report`: the run
    bar over the report, the prompts picked in it under both.

    Attributes:
        report: the report shown (None: none yet); summary: its batch's `BatchSummary` (None:
            results opened as they are); charts: the bar charts by figure key; run_bar,
            leak_row, prompt_list: the parts (their widgets are named here too: run_button,
            status, leak_cards, prompts, …).

    Signals:
        run_requested: emitted with (log, results file, catalog or "", workers).
        cancel_requested: the analyst asks to stop the batch (its results stay resumable).
        open_results_requested: emitted with a results file to read the report of.
        open_prompt_requested: emitted with a `PromptRef` to open in the live view.
        judge_requested: emitted with a `PromptRef` to judge.
    """

    run_requested = Signal(str, str, str, int)
    cancel_requested = Signal()
    open_results_requested = Signal(str)
    open_prompt_requested = Signal(object)
    judge_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: Report | None = None
        self.summary: BatchSummary | None = None
        self.run_bar = RunBar()
        self.run_bar.run_requested.connect(self.run_requested)
        self.run_bar.cancel_requested.connect(self.cancel_requested)
        self.run_bar.open_results_requested.connect(self.open_results_requested)
        self._build_report()
        self.prompt_list = PromptList()
        self.prompt_list.open_prompt_requested.connect(self.open_prompt_requested)
        self.prompt_list.judge_requested.connect(self.judge_requested)
        self._lay_out()
        self._name_parts()
        self._show_report_area(False)

    def _name_parts(self) -> None:
        """Name the parts' widgets on the view, where the window and the tests reach them."""
        bar, listed = self.run_bar, self.prompt_list
        self.log_edit, self.out_edit, self.status = bar.log_edit, bar.out_edit, bar.status
        self.run_button, self.cancel_button = bar.run_button, bar.cancel_button
        self.open_button, self.progress_bar = bar.open_button, bar.progress_bar
        self.caption, self.prompts = listed.caption, listed.prompts
        self.live_button, self.prompt_model = listed.live_button, listed.prompt_model
        self.leak_cards = self.leak_row.cards

    @property
    def error(self) -> str:
        """The error the status line shows ("" when none)."""
        return self.run_bar.error

    # -- construction ------------------------------------------------------------------------
    def _build_report(self) -> None:
        self.headline = QLabel("")
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QLabel("")
        self.note.setObjectName("caption")
        self.note.setWordWrap(True)
        self.note.setVisible(False)
        self.leak_summary = QLabel("")
        self.leak_summary.setTextFormat(Qt.TextFormat.RichText)
        self.leak_row = LeakRow()
        self.leak_row.picked.connect(self.pick_leak)
        self.charts: dict[str, BarChart] = {}
        self.chart_notes: dict[str, QLabel] = {}
        self.cards: dict[str, QFrame] = {}
        self.latency = LatencyChart()
        self.latency_note = QLabel("")
        self.latency_note.setTextFormat(Qt.TextFormat.RichText)
        self.grid = ChartGrid()
        for key in ORDER:
            if key == "latency":
                card = chart_card("Latency per stage", self.latency_note, self.latency)
            else:
                card = self._chart_card(next(f for f in FIGURES if f.key == key))
            self.cards[key] = card
            self.grid.add(card)
        page = QWidget()
        page.setObjectName("central")
        layout = QVBoxLayout(page)
        layout.setSpacing(6)
        self.hint = QLabel(HINT)
        self.hint.setObjectName("batchHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        for widget in (self.hint, self.headline, self.note, self.leak_summary, self.leak_row):
            layout.addWidget(widget)
        layout.addWidget(self.grid)
        layout.addStretch(1)
        self.report_page = page
        self.report_scroll = QScrollArea()
        self.report_scroll.setWidgetResizable(True)
        self.report_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.report_scroll.setWidget(page)

    def _chart_card(self, figure: Figure) -> QFrame:
        note = QLabel("")
        chart = BarChart(figure.key)
        chart.bar_clicked.connect(lambda index, key=figure.key: self.pick_bar(key, index))
        self.charts[figure.key] = chart
        self.chart_notes[figure.key] = note
        return chart_card(figure.title, note, chart)

    def _lay_out(self) -> None:
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("batch")
        self.splitter.addWidget(self.report_scroll)
        self.splitter.addWidget(self.prompt_list)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([420, 230])
        layout = QVBoxLayout(self)
        layout.addWidget(self.run_bar)
        layout.addWidget(self.splitter, 1)

    def set_log(self, path: str) -> None:
        """Take a log (the results file follows it, unless one was chosen)."""
        self.run_bar.set_log(path)

    # -- what the session reports ----------------------------------------------------------
    def show_started(self, log: str, out: str) -> None:
        self.run_bar.show_started(log)
        self.hint.setText(f"Routing {Path(log).name}: its report shows here once it is done.")

    def show_progress(self, progress: BatchProgress) -> None:
        self.run_bar.show_progress(progress)

    def show_reading(self, results: str) -> None:
        self.run_bar.show_reading(results)

    def show_cancelled(self, summary: BatchSummary) -> None:
        self.run_bar.show_cancelled(summary)
        self.hint.setText("Continue the batch to read its report, or open the results of another.")

    def show_error(self, message: str) -> None:
        self.run_bar.show_error(message)
        self.hint.setText(HINT)

    def show_note(self, note: str) -> None:
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def show_result(self, summary: BatchSummary | None, report: Report) -> None:
        """A batch finished (`summary`), or results were opened (None): render the report."""
        self.summary, self.report = summary, report
        self.run_bar.show_done(summary, report)
        self.headline.setText(self._headline(summary, report))
        self._fill_leaks(report)
        for figure in FIGURES:
            self._fill_chart(figure, getattr(report, figure.key))
        self._fill_latency(report)
        self.grid.reflow()
        self.prompt_list.clear()
        self._show_report_area(True)

    @staticmethod
    def _headline(summary: BatchSummary | None, report: Report) -> str:
        source = report.sources[0] if report.sources else "results"
        days = report.first_today or "—"
        if report.last_today and report.last_today != report.first_today:
            days += f" … {report.last_today}"
        parts = [
            f"<span style='font-size:15px'><b>{report.prompts:,} prompts</b></span>",
            f"routed on {html.escape(days)}",
        ]
        if summary is not None and summary.bad:
            parts.append(f"{summary.bad:,} bad lines")
        if report.failed.total:
            parts.append(
                f"<span style='color:{css('bad')}'>{report.failed.total:,} not routed</span>"
            )
        parts.append(f"<span style='color:{css('muted')}'>{html.escape(source)}</span>")
        return " · ".join(parts)

    def _show_report_area(self, shown: bool) -> None:
        self.hint.setVisible(not shown)
        for widget in (self.headline, self.leak_summary, self.leak_row, self.grid):
            widget.setVisible(shown)
        if not shown:
            self.note.setVisible(False)

    def _fill_leaks(self, report: Report) -> None:
        self.leak_row.show_checks(report.leaks)
        total = report.leak_count
        if total:
            self.leak_summary.setText(
                f"<b>Leak checks</b> — <span style='color:{css('bad')}'><b>{total:,} offending "
                f"queries</b> in {report.leak_prompts:,} prompts</span> break the routers' "
                "promises"
            )
        else:
            self.leak_summary.setText(
                f"<b>Leak checks</b> — <span style='color:{css('good')}'><b>no leaks</b></span>: "
                "every planned query keeps the routers' promises"
            )

    def _fill_chart(self, figure: Figure, distribution: Distribution) -> None:
        chart = self.charts[figure.key]
        colours = figure.colours
        chart.set_bars(
            [
                ChartBar(
                    bar.label,
                    bar.count,
                    bar.share,
                    colours.get(bar.label) or _SPECIAL.get(bar.label, "chart_blue"),
                )
                for bar in distribution.bars
            ]
        )
        self.chart_notes[figure.key].setText(self._chart_note(figure.key, distribution))

    def _chart_note(self, key: str, distribution: Distribution) -> str:
        report = self.report
        if key == "top_tools" and report is not None:
            if not report.ranked:
                return "no tool ranking: run with a catalog to rank its tools for every prompt"
            share = report.no_fit_share or 0.0
            note = (
                f"of {report.ranked:,} prompts with a tool ranking · no tool fits "
                f"{report.no_fit:,} ({share_text(share)})"
            )
        else:
            note = f"of {distribution.total:,} {distribution.of}"
        if distribution.other:
            more = distribution.distinct - len(distribution.bars)
            note += f" · {more:,} rarer labels ({distribution.other:,}) not listed"
        if distribution.approximate:
            note += " · approximate: rare labels are lower bounds"
        return note

    def _fill_latency(self, report: Report) -> None:
        self.latency.set_stages(report.latency)
        self.latency_note.setText(
            f"<span style='color:{css('chart_blue')}'>■</span> p50 &nbsp; "
            f"<span style='color:{css('chart_orange')}'>■</span> p95 &nbsp; microseconds, log scale"
        )

    # -- picking what to list ------------------------------------------------------------------
    def pick_bar(self, key: str, index: int) -> None:
        """List the prompts behind bar `index` of figure `key` (as a click on it does)."""
        report = self.report
        if report is None:
            return
        distribution: Distribution = getattr(report, key)
        if not 0 <= index < len(distribution.bars):
            return
        self._clear_picks(keep=key)
        self.charts[key].select(index)
        bar = distribution.bars[index]
        self.prompt_model.show_bar(bar)
        title = next(f.title for f in FIGURES if f.key == key).split(" (")[0]
        listed = len(bar.examples)
        more = (
            "all listed"
            if listed >= bar.count
            else f"the first {listed:,} are listed (a report keeps the first few of each bar)"
        )
        self.prompt_list.show_picked(
            f"<b>{html.escape(title)}: {html.escape(bar.label)}</b> — {bar.count:,} "
            f"{distribution.of} ({share_text(bar.share)}); {more}. "
            "Double-click one to inspect it live."
        )

    def pick_leak(self, number: int) -> None:
        """List the offending queries of leak check `number` (as a click on its card does)."""
        report = self.report
        if report is None or not 0 <= number < len(report.leaks):
            return
        check = report.leaks[number]
        self._clear_picks()
        self.leak_cards[number].set_selected(True)
        self.prompt_model.show_leak(check)
        if check.count:
            listed = len(check.findings)
            more = "all listed" if listed >= check.count else f"the first {listed:,} are listed"
            text = (
                f"<b>{html.escape(check.title)}</b> — {check.count:,} offending queries in "
                f"{check.prompts:,} prompts; {more}. Double-click one to inspect it live."
            )
        else:
            text = (
                f"<b>{html.escape(check.title)}</b> — none found. {html.escape(check.description)}"
            )
        self.prompt_list.show_picked(text)

    def _clear_picks(self, keep: str = "") -> None:
        for key, chart in self.charts.items():
            if key != keep:
                chart.select(-1)
        self.leak_row.clear_selection()
