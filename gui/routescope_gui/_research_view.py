"""The deep-research view: one run of `routescope.research.run_research`. One row per attempt
(the query and where it came from, the provider's status, relevance / confidence / coverage as
bars, the score), the best attempt starred, each attempt's pages with the policy's verdict and
the outcome underneath; the verdict (the next step and why the loop stopped, coloured by the
outcome) and the warnings; the findings; a detail pane under them that spells out the
selected attempt or page (the score's reasons, the page's title, full URL, verdict and
evidence), each pane with its least rows in a column that scrolls (`_research_panes`); a link
to the saved report; "Copy report" puts `report_markdown` on the clipboard. Attempts appear
one by one as the run grades them.

It never shows one prompt's result as another's: when a run starts, what is on screen is
greyed out and labelled with the prompt it belongs to until the new run's first attempt
replaces it; a run whose prompt was edited since is marked stale, with a way to re-run it for
the new prompt or cancel it.

It renders the result objects it is given and nothing more: the session runs the research; the
buttons (Run, Cancel, Settings…, Save report…, Re-run for the new prompt) only ask for it
through signals.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, QUrl, Signal
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._html import counted
from ._research_detail import (
    attempt_detail,
    outcome_text,
    page_detail,
    page_evidence,
    reasons_text,
)
from ._research_panes import (
    ATTEMPT_ROWS,
    DETAIL_LINES,
    FINDING_ROWS,
    PaneColumn,
    least_text_height,
    least_tree_height,
)
from ._style import colour, css
from ._widgets import (
    BAR_ROLE,
    BarDelegate,
    RoomyColumn,
    enable_copy,
    ensure_children,
    fill_row,
    set_tone,
)

if TYPE_CHECKING:
    from routescope.research import (
        Attempt,
        DeepResearchResult,
        Grounding,
        NextStep,
        PageEvidence,
        PageRead,
        ResearchSettings,
    )

__all__ = ["ResearchView"]

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
VERDICT_LINES = 4
"""Lines of the verdict shown before it scrolls."""
_FINDING_COLUMNS = ("#", "Finding", "Attempt", "Relevance", "Meaning", "Terms", "Answers")
_FINDING_TIPS = (
    "the findings: the best pages read across attempts, best first",
    "the page (hover: its URL and the passage nearest the goal)",
    "the attempt that read it (★ the best attempt)",
    "the page's relevance to the goal: its meaning and its terms together (0–1)",
    "how near the page's nearest passage comes to the goal (embedding model, 0–1)",
    "the weighted share of the goal's terms the page holds (0–1)",
    "the goal's aspects the page answers",
)
_FINDING_WIDTHS = (32, 220, 76, 80, 80, 80, 160)
_WIDTHS = (56, 200, 116, 100, 80, 86, 76, 64)
OUTCOME_TONES = {
    "proceed": "good",
    "proceed_weak": "warn_ink",
    "research_again": "warn_ink",
    "escalate": "bad",
}
"""The theme's role of each outcome of the next step: proceed green, research again amber,
escalate red; a proceed that comes with a warning (weak research: relying on the model prior)
amber."""
_WHERE = Qt.ItemDataRole.UserRole + 1
"""Item data of a row: (attempt index,) or (attempt index, page index)."""
_DIMMED = 0.4
"""The opacity of a result that belongs to another prompt than the run under way."""
GROUNDING_LABELS = {
    "auto": "Grounding: from the goal",
    "required": "Grounding: required",
    "not_required": "Grounding: not required",
}
"""The window's grounding toggle: derived from the goal (time-sensitive, local or price goals
need pages that answer them), or the user's word."""


class ResearchView(QWidget):
    """Renders one `DeepResearchResult` (or the attempts of a run under way, or why it failed).

    Attributes:
        result: the run shown (None: none yet, a blank prompt, or the rows are those of a run
            under way or cancelled); error: why the last run failed ("" when it did not);
            attempts: the attempts shown while a run is under way.
        backends: where research searches, what grades it, and how it starts (wraps).
        status: what the view shows now (running, finished, failed, cancelled and why).
        stale_bar: shown when the prompt changed since the run shown (or under way) started:
            stale_label says for which prompt; rerun_button, stale_cancel_button.
        caption: which prompt the rows belong to, when it is not the run under way's (drawn
            over the foot of the table: showing it moves nothing).
        summary: the verdict (the next step, why the loop stopped, coloured by the outcome),
            the warnings and notes.
        report_link: a link to the report saved for the run shown.
        table: the attempts, their pages underneath; findings: the best pages read across
            attempts; detail: the selected row spelled out.
        panes: the column of the verdict, the attempts, the findings and the detail pane; each
            pane keeps its least rows and the column scrolls when the tab is shorter.
        run_button, cancel_button, settings_button, save_button, copy_button: the controls.
        grounding: the grounding toggle (from the goal, required, not required).

    Signals:
        run_requested: Run, or "Re-run for the new prompt"; cancel_requested: Cancel (also in
            the stale bar); settings_requested, save_requested: the other buttons;
            grounding_changed: the toggle, set by the analyst (its mode).
    """

    run_requested = Signal()
    cancel_requested = Signal()
    settings_requested = Signal()
    save_requested = Signal()
    grounding_changed = Signal(str)
    """The grounding toggle was set by the analyst: `auto`, `required` or `not_required`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: DeepResearchResult | None = None
        self.error = ""
        self.attempts: list[Attempt] = []
        self._running = False
        self._running_goal = ""
        self._rows_goal = ""
        """The prompt the rows on screen belong to ("" none)."""
        self._stale_goal = ""
        self._build_controls()
        self._build_result_area()
        layout = QVBoxLayout(self)
        layout.addLayout(self._controls)
        layout.addLayout(self._status_row)
        layout.addWidget(self.stale_bar)
        layout.addWidget(self.panes, 1)
        self.show_backends(None)

    def _build_controls(self) -> None:
        self.backends = _wrapping_label("")
        self.backends.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.status = _wrapping_label(
            "research runs on the prompt while this tab is shown (offline)"
        )
        self.status.setObjectName("muted")
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
        self.grounding = QComboBox()
        for mode, label in GROUNDING_LABELS.items():
            self.grounding.addItem(label, mode)
        self.grounding.setToolTip(
            "whether research needs pages that answer the goal: from the goal (time-sensitive, "
            "local or price goals do, and weak evidence for them escalates), or your word"
        )
        self.grounding.setAccessibleName("grounding")
        self.grounding.activated.connect(
            lambda _: self.grounding_changed.emit(self.grounding.currentData())
        )
        for button in (self.save_button, self.copy_button):
            button.setEnabled(False)
        self._controls = QHBoxLayout()  # the backends and the run's buttons
        self._controls.addWidget(self.backends, 1)
        self._controls.addWidget(self.grounding, 0, Qt.AlignmentFlag.AlignTop)
        for button in (self.run_button, self.cancel_button, self.settings_button):
            self._controls.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self._status_row = QHBoxLayout()  # the run's state and the report's buttons
        self._status_row.addWidget(self.status, 1)
        for button in (self.save_button, self.copy_button):
            self._status_row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self.stale_bar = QFrame()
        self.stale_bar.setObjectName("stale")
        self.stale_label = _wrapping_label("")
        self.rerun_button = _button(
            "Re-run for the new prompt", "research the prompt as it is now (Ctrl+Enter)"
        )
        self.rerun_button.clicked.connect(self.run_requested)
        self.stale_cancel_button = _button("Cancel run", "stop the stale run (Esc)")
        self.stale_cancel_button.clicked.connect(self.cancel_requested)
        bar = QHBoxLayout(self.stale_bar)
        bar.setContentsMargins(8, 4, 8, 4)
        bar.addWidget(self.stale_label, 1)
        bar.addWidget(self.rerun_button)
        bar.addWidget(self.stale_cancel_button)
        self.stale_bar.setVisible(False)

    def _build_result_area(self) -> None:
        self.summary = _wrapping_label("")
        self.summary.setObjectName("researchVerdict")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A long verdict (an escalation says why in several lines) scrolls past
        # `VERDICT_LINES` lines instead of taking the attempts' and the findings' rows.
        self.summary_box = QScrollArea()
        self.summary_box.setObjectName("verdictBox")
        self.summary_box.setFrameShape(QFrame.Shape.NoFrame)
        self.summary_box.setWidgetResizable(True)
        self.summary_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.summary_box.setWidget(self.summary)
        self.summary_box.viewport().installEventFilter(self)
        self.report_link = QLabel("")
        self.report_link.setOpenExternalLinks(True)
        self.report_link.setVisible(False)
        self.table = self._attempts_table()
        self.table.currentItemChanged.connect(lambda *_: self._show_detail())
        self.table.currentItemChanged.connect(lambda item: self._picked(self.table, item))
        self.caption = QLabel("", self.table)
        self.caption.setObjectName("caption")
        self.caption.setVisible(False)
        self.table.installEventFilter(self)
        self.findings = self._findings_table()
        self.findings.currentItemChanged.connect(lambda *_: self._show_finding())
        self.findings.currentItemChanged.connect(lambda item: self._picked(self.findings, item))
        self.detail = QTextBrowser()
        self.detail.setObjectName("detail")
        self.detail.setOpenExternalLinks(True)
        self.detail.setPlaceholderText("select an attempt or a page: its details show here")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("research")
        splitter.addWidget(self.table)
        splitter.addWidget(self.findings)
        splitter.addWidget(self.detail)
        for pane, stretch in enumerate((2, 2, 3)):  # (a taller tab's room beyond their rows)
            splitter.setStretchFactor(pane, stretch)
        splitter.setChildrenCollapsible(False)
        self._result_area = QWidget()
        area = QVBoxLayout(self._result_area)
        area.setContentsMargins(0, 0, 0, 0)
        area.addWidget(self.summary_box)
        area.addWidget(self.report_link)
        area.addWidget(splitter, 1)
        self.panes = PaneColumn(self._result_area)
        self._hold_panes()
        # Faded as a whole while it belongs to another run (the table's header stays: it names
        # the columns, whatever run the rows are of).
        self._dims: list[QGraphicsOpacityEffect] = []
        for widget in (
            self.summary,
            self.report_link,
            self.table.viewport(),
            self.findings.viewport(),
            self.detail,
        ):
            effect = QGraphicsOpacityEffect(widget)
            effect.setOpacity(_DIMMED)
            effect.setEnabled(False)
            widget.setGraphicsEffect(effect)
            self._dims.append(effect)

    def _attempts_table(self) -> QTreeWidget:
        table = QTreeWidget()
        table.setHeaderLabels(list(_COLUMNS))
        header = table.headerItem()
        for column, tip in enumerate(_COLUMN_TIPS):
            header.setToolTip(column, tip)
        bar = BarDelegate(table, sample="0.00")
        for column in _BAR_COLUMNS:
            table.setItemDelegateForColumn(column, bar)
        table.setAlternatingRowColors(True)
        table.setUniformRowHeights(True)
        table.header().setMinimumSectionSize(40)
        RoomyColumn(table, _WIDTHS, 1, keep=(0,))  # the query; the attempt's number and ★ stay
        enable_copy(table)
        return table

    def _findings_table(self) -> QTreeWidget:
        table = QTreeWidget()
        table.setObjectName("findings")
        table.setHeaderLabels(list(_FINDING_COLUMNS))
        header = table.headerItem()
        for column, tip in enumerate(_FINDING_TIPS):
            header.setToolTip(column, tip)
        bar = BarDelegate(table, sample="0.00")
        for column in (3, 4, 5):
            table.setItemDelegateForColumn(column, bar)
        table.setRootIsDecorated(False)
        table.setUniformRowHeights(True)
        table.setAlternatingRowColors(True)
        RoomyColumn(table, _FINDING_WIDTHS, 1)  # the page
        enable_copy(table)
        return table

    def _hold_panes(self) -> None:
        """Each pane keeps its least rows in sight (the column scrolls when the tab is
        shorter than they are): again when rows appear and at a zoom or a style change."""
        self.table.setMinimumHeight(least_tree_height(self.table, ATTEMPT_ROWS))
        self.findings.setMinimumHeight(least_tree_height(self.findings, FINDING_ROWS))
        self.detail.setMinimumHeight(least_text_height(self.detail, DETAIL_LINES))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._hold_panes()  # (zoom, presenter mode)
        super().changeEvent(event)

    def _picked(self, tree: QTreeWidget, item: QTreeWidgetItem | None) -> None:
        """The analyst picked a row: the detail pane comes into sight with it."""
        if item is not None and tree.hasFocus():
            self.panes.bring_in_below(tree, item, self.detail)

    @property
    def dimmed(self) -> bool:
        """Whether the rows on screen are greyed out: they belong to another run."""
        return self._dims[0].isEnabled()

    # -- states ------------------------------------------------------------------------------
    def show_backends(self, settings: ResearchSettings | None) -> None:
        """Where research searches and what grades it; offline backends follow the typing,
        network ones run on Ctrl+Enter."""
        settings = settings or routescope.research.ResearchSettings()
        how = "runs as you type" if settings.offline else "Ctrl+Enter runs · Esc cancels"
        text = settings.describe()
        self.grounding.setCurrentIndex(max(0, self.grounding.findData(settings.grounding)))
        self.backends.setText(f"<b>{html.escape(text)}</b> — {how}")
        self.backends.setToolTip(text)

    def show_running(self, goal: str) -> None:
        """A run for `goal` started: what is on screen is greyed out and labelled with its own
        prompt until the run's first attempt replaces it."""
        self.error = ""
        self.attempts = []
        self._running_goal = goal
        self._set_running(True)
        self.status.setText(f"researching <b>{_quoted(goal)}</b>…")
        self._dim_rows()

    def add_attempt(self, attempt: Attempt) -> None:
        """An attempt of the run under way was graded: the rows show the run so far."""
        if not self._running:
            return
        if not self.attempts:  # the first: what was on screen goes
            self.result = None
            self.summary.setText("")
            self._fit_summary()
            set_tone(self.summary, "")
            self.report_link.setVisible(False)
            if self._running_goal != self._rows_goal:
                self.panes.to_top()  # another prompt's run: its verdict first
            self._rows_goal = self._running_goal
            ensure_children(self.findings, 0)
            self._undim()
            for button in (self.save_button, self.copy_button):
                button.setEnabled(False)
        self.attempts.append(attempt)
        rows = ensure_children(self.table, len(self.attempts))
        self._show_attempt(rows[-1], attempt, best=False)
        self.status.setText(
            f"researching <b>{_quoted(self._running_goal)}</b>… "
            f"{counted(len(self.attempts), 'attempt')} graded, "
            f"{counted(sum(a.fetched for a in self.attempts), 'page')} read"
        )
        self._show_detail()

    def show_cancelled(self, reason: str = "cancelled") -> None:
        """The run under way was cancelled (`reason`: "cancelled by you", "cancelled: the
        prompt changed", …). What is on screen stays, labelled with its prompt."""
        if not self._running:
            return
        self._set_running(False)
        goal = _quoted(self._running_goal)
        self.status.setText(f"research {html.escape(reason)} — <b>{goal}</b>")
        if self.attempts:
            self._show_caption(
                f"{counted(len(self.attempts), 'attempt')} of the cancelled run for <b>{goal}</b>"
            )

    def show_error(self, message: str) -> None:
        self.error = message
        self._set_running(False)
        self.status.setText(
            f"<span style='color:{css('bad')}'>research failed: {html.escape(message)}</span>"
        )

    def show_saved(self, path: str) -> None:
        url = QUrl.fromLocalFile(path).toString()
        self.report_link.setText(
            f"report: <a href='{html.escape(url)}'>{html.escape(Path(path).parent.name)}</a>"
        )
        self.report_link.setToolTip(path)
        self.report_link.setVisible(True)

    def show_stale(self, goal: str) -> None:
        """The prompt changed since the run under way (or shown) started for `goal` ("": it
        did not, or it is the prompt again)."""
        self._stale_goal = goal
        self._show_stale_bar()

    def _show_stale_bar(self) -> None:
        goal = self._stale_goal
        self.stale_bar.setVisible(bool(goal))
        if not goal:
            return
        what = "started for" if self._running else "this result is for"
        self.stale_label.setText(
            f"<b>stale:</b> {what} <b>{_quoted(goal)}</b>; the prompt has changed since"
        )
        self.stale_cancel_button.setVisible(self._running)

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.cancel_button.setEnabled(running)
        self._show_stale_bar()

    def _dim_rows(self) -> None:
        """Grey out the rows on screen and say which prompt they belong to."""
        self.caption.setVisible(False)
        if self.table.topLevelItemCount() == 0 and not self.summary.text():
            return
        for effect in self._dims:
            effect.setEnabled(True)
        self._show_caption(f"greyed out: the previous run, for <b>{_quoted(self._rows_goal)}</b>")

    def _show_caption(self, text: str) -> None:
        self.caption.setText(text)
        self.caption.setVisible(True)
        self._place_caption()

    def _place_caption(self) -> None:
        """Over the foot of the table's rows, as wide as they are (at most)."""
        table, size = self.table, self.caption.sizeHint()
        frame = table.frameWidth()  # (from the table's own size: its viewport may lag behind)
        scrollbar = table.horizontalScrollBar()
        bottom = table.height() - frame - (scrollbar.height() if scrollbar.isVisible() else 0)
        width = min(size.width(), table.width() - 2 * frame - 8)
        self.caption.setGeometry(frame + 4, bottom - size.height() - 4, width, size.height())
        self.caption.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.table and event.type() == QEvent.Type.Resize:
            self._place_caption()
        elif watched is self.summary_box.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_summary()
        return False

    def _fit_summary(self) -> None:
        """The verdict's box: as tall as its text at this width, up to `VERDICT_LINES` lines
        (then it scrolls)."""
        width = self.summary_box.viewport().width()
        needed = self.summary.heightForWidth(width) if self.summary.text() else 0
        most = VERDICT_LINES * self.summary.fontMetrics().lineSpacing() + 6  # (its padding)
        height = min(max(needed, 0), most)
        if self.summary_box.height() != height:
            self.summary_box.setFixedHeight(height)

    def _undim(self) -> None:
        for effect in self._dims:
            effect.setEnabled(False)
        self.caption.setVisible(False)

    def show_result(self, result: DeepResearchResult | None) -> None:
        self.result = result
        self._set_running(False)
        self.attempts = []
        self._undim()
        self.report_link.setVisible(False)
        for button in (self.save_button, self.copy_button):
            button.setEnabled(result is not None)
        if result is None:
            self._rows_goal = ""
            self.status.setText("type a prompt: research runs on it while this tab is shown")
            self.summary.setText("")
            self._fit_summary()
            set_tone(self.summary, "")
            ensure_children(self.table, 0)
            ensure_children(self.findings, 0)
            self._show_detail()
            return
        if result.goal != self._rows_goal:
            self.panes.to_top()  # another prompt: its verdict first
        self._rows_goal = result.goal
        model = f" · model {html.escape(result.model)}" if result.model else ""
        self.status.setText(
            f"<b>{_quoted(result.goal)}</b>: {counted(len(result.attempts), 'attempt')} · "
            f"{counted(result.web_calls, 'search', 'searches')} · "
            f"{counted(result.pages_fetched, 'page')} read · "
            f"{result.duration_ms:,.0f} ms{model}"
        )
        self.summary.setText(_summary(result))
        self._fit_summary()
        set_tone(self.summary, tone_of(result.next_step))
        expanded = {
            row.text(1)
            for i in range(self.table.topLevelItemCount())
            if (row := self.table.topLevelItem(i)) is not None and row.isExpanded()
        }
        rows = ensure_children(self.table, len(result.attempts))
        for row, attempt in zip(rows, result.attempts, strict=True):
            self._show_attempt(row, attempt, best=attempt.index == result.best)
            row.setExpanded(attempt.query in expanded)
        if self.table.currentItem() is None and result.best is not None:
            self._make_current(rows[result.best])
        self._show_findings(result)
        self._show_detail()
        self._hold_panes()

    def expand_best(self) -> None:
        """Open the best attempt's row, and spell it out in the detail pane."""
        best = self.result.best if self.result is not None else None
        row = self.table.topLevelItem(best) if best is not None else None
        if row is not None:
            row.setExpanded(True)
            self._make_current(row)

    def copy_report(self) -> None:
        """Put the shown run's report on the clipboard, as Markdown."""
        if self.result is not None:
            QGuiApplication.clipboard().setText(routescope.research.report_markdown(self.result))

    def _make_current(self, row: QTreeWidgetItem) -> None:
        """Make `row` the one the detail pane spells out, without selecting it."""
        self.table.setCurrentItem(row, 0, QItemSelectionModel.SelectionFlag.NoUpdate)

    # -- rows ----------------------------------------------------------------------------------
    def _shown_attempts(self) -> list[Attempt]:
        return self.attempts or (self.result.attempts if self.result is not None else [])

    def _show_attempt(self, row: QTreeWidgetItem, attempt: Attempt, *, best: bool) -> None:
        provider = f"{attempt.provider} · {attempt.status if attempt.status is not None else '—'}"
        if attempt.error:
            provider += f" · {attempt.error}"
        scores = (attempt.relevance, attempt.confidence, attempt.coverage, attempt.score)
        reasons = reasons_text(attempt)
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
                f"{attempt.fetched} of {counted(len(attempt.pages), 'page')} read",
                None,
                None,
                *([reasons] * 3),
                "should retry" if attempt.should_retry else "no retry needed",
            ],
        )
        row.setData(0, _WHERE, (attempt.index,))
        for column, value in zip(_BAR_COLUMNS, scores, strict=True):
            row.setData(column, BAR_ROLE, value)
        font = QFont(row.font(0))
        font.setBold(best)
        for column in range(len(_COLUMNS)):
            row.setFont(column, font)
        row.setData(3, Qt.ItemDataRole.ForegroundRole, colour("bad") if attempt.error else None)
        pages = ensure_children(row, len(attempt.pages))
        for number, (child, page) in enumerate(zip(pages, attempt.pages, strict=True)):
            _show_page(child, page, page_evidence(attempt, page.url))
            child.setData(0, _WHERE, (attempt.index, number))

    # -- the findings ------------------------------------------------------------------------
    def _show_findings(self, result: DeepResearchResult) -> None:
        """The best pages read across attempts, best first: where each was read, how near its
        meaning comes to the goal, its terms' share and the aspects it answers."""
        rows = ensure_children(self.findings, len(result.findings))
        for number, (row, finding) in enumerate(zip(rows, result.findings, strict=True), 1):
            evidence = finding.evidence
            relevance = evidence.relevance if evidence is not None else None
            meaning = evidence.semantic_relevance if evidence is not None else None
            terms = evidence.term_relevance if evidence is not None else None
            if terms is None and evidence is not None and meaning is None:
                terms = evidence.relevance  # read on terms alone
            answers = _answers(evidence)
            passage = evidence.passage if evidence is not None else ""
            in_best = finding.attempt == result.best
            where = f"{finding.attempt + 1}{' ★' if in_best else ''}"
            values = (relevance, meaning, terms)
            fill_row(
                row,
                [
                    str(number),
                    finding.title or finding.url,
                    where,
                    *(f"{v:.2f}" if isinstance(v, float) else "—" for v in values),
                    answers or "—",
                ],
                [
                    finding.why or finding.url,
                    f"{finding.url}\n{passage}" if passage else finding.url,
                    "read in the best attempt"
                    if in_best
                    else f"read in attempt {finding.attempt + 1}, not the best attempt",
                    evidence.reason if evidence is not None else None,
                    "how near the page's nearest passage comes to the goal (embedding model)",
                    "the weighted share of the goal's terms the page holds",
                    "the goal's aspects the page answers",
                ],
            )
            for column, value in zip((3, 4, 5), values, strict=True):
                row.setData(column, BAR_ROLE, value if isinstance(value, float) else None)
            row.setData(0, _WHERE, (finding.attempt, finding.url))

    def _show_finding(self) -> None:
        item = self.findings.currentItem()
        where = item.data(0, _WHERE) if item is not None else None
        if not where:
            return
        attempts = {attempt.index: attempt for attempt in self._shown_attempts()}
        attempt = attempts.get(where[0])
        page = next((p for p in attempt.pages if p.url == where[1]), None) if attempt else None
        if attempt is not None and page is not None:
            self.detail.setHtml(page_detail(page, attempt))

    # -- the detail pane ---------------------------------------------------------------------
    def _show_detail(self) -> None:
        """Spell out the current row: an attempt (its scores and their reasons) or a page (its
        title, URL, the policy's verdict, the outcome and its evidence)."""
        item = self.table.currentItem()
        where: tuple[int, ...] = (item.data(0, _WHERE) if item is not None else None) or ()
        attempts = {attempt.index: attempt for attempt in self._shown_attempts()}
        attempt = attempts.get(where[0]) if where else None
        if attempt is None:
            self.detail.setHtml("")
            return
        if len(where) == 1:
            best = self.result is not None and self.result.best == attempt.index
            self.detail.setHtml(attempt_detail(attempt, best=best))
        elif where[1] < len(attempt.pages):
            self.detail.setHtml(page_detail(attempt.pages[where[1]], attempt))


def _show_page(row: QTreeWidgetItem, page: PageRead, evidence: object | None) -> None:
    """A page's row: its title, the policy's verdict, the outcome; its relevance to the goal
    when the attempt has the pages' evidence."""
    verdict = f"{'allowed' if page.allowed else 'blocked'} · {page.rule}"
    outcome = outcome_text(page)
    relevance = getattr(evidence, "relevance", None)
    reason = str(getattr(evidence, "reason", "")) if evidence is not None else ""
    shown = f"{relevance:.1f}" if isinstance(relevance, float) else ""
    fill_row(
        row,
        ["", f"  {page.title or page.url}", verdict, outcome, shown, "", "", ""],
        ["", page.url, f"host policy: {verdict}", outcome, reason, "", "", ""],
    )
    for column in range(len(_COLUMNS)):
        row.setData(column, BAR_ROLE, None)
    if isinstance(relevance, float):
        row.setData(4, BAR_ROLE, relevance)
    bad = not page.allowed or bool(page.error)
    red = colour("bad")
    row.setData(2, Qt.ItemDataRole.ForegroundRole, None if page.allowed else red)
    row.setData(3, Qt.ItemDataRole.ForegroundRole, red if bad else None)


def tone_of(step: NextStep) -> str:
    """The verdict's tone: its outcome, or `proceed_weak` for a proceed with warnings."""
    return "proceed_weak" if step.outcome == "proceed" and step.warnings else step.outcome


def _summary(result: DeepResearchResult) -> str:
    """The verdict as the core gives it (the next step and its reason, why the loop stopped),
    in the outcome's colour; the warnings and notes below."""
    step = result.next_step
    tone = css(OUTCOME_TONES.get(tone_of(step), "text"))
    # (the grounding, when known, is said on a line of its own below)
    reason = step.reason if result.grounding is None else step.reason_without_grounding()
    lines = [
        f"<span style='color:{tone}'>next step: <b>{html.escape(step.outcome.replace('_', ' '))}"
        f"</b> — {html.escape(reason)}</span>",
        f"<span style='color:{tone}'>stopped: {html.escape(result.termination_reason)}</span>",
    ]
    if result.grounding is not None:
        lines.append(grounding_text(result.grounding))
    red = css("bad")
    lines += [f"<span style='color:{red}'>⚠ {html.escape(w)}</span>" for w in result.warnings]
    lines += [f"note: {html.escape(note)}" for note in result.notes]
    return "<br>".join(lines)


def _answers(evidence: PageEvidence | None) -> str:
    """The goal's aspects a page answers: "the goal" when it asks for one thing."""
    if evidence is None or evidence.similarity is None:
        return ""
    if len(evidence.aspect_scores) <= 1:
        return "the goal" if evidence.answers else ""
    return f"{len(evidence.answers)} of {len(evidence.aspect_scores)}: " + "; ".join(
        evidence.answers
    )


def grounding_text(grounding: Grounding) -> str:
    """Which grounding applied and why, as HTML: the goal's words behind it in bold."""
    state = "required" if grounding.required else "not required"
    where = "from the goal" if grounding.source == "goal" else "set by you"
    tone = css("warn_ink" if grounding.required else "muted")
    reason = html.escape(grounding.reason.split(": ", 1)[-1])
    for cue in sorted({c.text for c in grounding.cues}, key=len, reverse=True)[:6]:
        quoted = html.escape(repr(cue))
        reason = reason.replace(quoted, f"<b>{quoted}</b>", 1)
    return (
        f"<span style='color:{tone}'>grounding <b>{state}</b> ({where})</span> — "
        f"<span>{reason}</span>"
    )


def _button(text: str, tip: str) -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tip)
    return button


def _wrapping_label(text: str) -> QLabel:
    """A label that wraps: a longer text makes it taller, never the view wider."""
    label = QLabel(text)
    label.setWordWrap(True)
    return label


def _quoted(goal: str, limit: int = 120) -> str:
    """A prompt on one line, cut at `limit` characters, in «», escaped for rich text."""
    line = " ".join(goal.split())
    short = line if len(line) <= limit else line[: limit - 1] + "…"
    return f"«{html.escape(short)}»"
