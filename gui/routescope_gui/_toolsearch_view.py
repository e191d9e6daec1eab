"""The hybrid tool search's view: the tools ranked for the prompt with every signal explained
(per-field BM25, vector similarity, the fusion, rerank boosts) and a stacked bar of what each
adds to the score; whether any tool fits; each step of a request that needs several tools;
live controls for the strategy, the fusion and its weights or RRF k, the fit threshold and the
field boosts; and "why not this tool?". Mirrors `routescope.toolsearch`.

The fields, their canonical boosts, the strategies, the fusions and their formulas come from
`routescope.toolsearch` (`default_boosts()`, `SearchStrategy`, `FUSIONS`,
`SearchSettings.formula()`, `ToolSearchResult.formula`), never from constants of the view. Under
the weighted fusion a hit's keyword share is shown with the query words that moved it: in its
bar (split by word), its tooltips and a "keyword words" row under it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._style import css
from ._toolsearch_columns import explained_width, fit_columns
from ._toolsearch_controls import SearchControls
from ._toolsearch_hits import (
    COLUMNS,
    WHY,
    awaits_explanation,
    explanation_html,
    show_columns,
    show_hit,
    tool_of,
)
from ._toolsearch_rows import RankingTree, legend_html
from ._toolsearch_steps import StepsTree
from ._widgets import (
    bounded_tip,
    enable_copy,
    ensure_children,
    relay_least_size,
    row_of,
    set_tone,
)

if TYPE_CHECKING:
    from routescope.toolsearch import SearchSettings, ToolSearchResult, WhyNot

__all__ = ["ToolSearchView"]

RANKING_ROWS = 8
"""The ranking keeps at least this many result rows visible when the steps tree appears."""
STEPS_BESIDE_LEAST = 180
"""Beside the ranking, the steps tree keeps at least this width (at most 2/5 of the two): the
ranking takes what it needs to show each hit's explanation (`explained_width`), the steps the
rest."""
LEAST_RANKING_ROWS = 4
"""The ranking is never shorter than this many result rows (its header aside): a window too
short for it scrolls (the live view does) rather than squeezing it to nothing."""


class ToolSearchView(QWidget):
    """Renders one `ToolSearchResult` and one `WhyNot`; its controls ask for other settings.

    Attributes:
        controls: the search's settings, in the drawer (their widgets are named here too:
            strategy, fusion, threshold, boosts, …).

    Signals:
        open_catalog_requested: the analyst asks to open another catalog.
        settings_changed: emitted with the `SearchSettings` the controls now describe.
        pinned: emitted with the name of the tool to explain ("" for none).
    """

    open_catalog_requested = Signal()
    explain_requested = Signal(str)
    settings_changed = Signal(object)
    pinned = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: ToolSearchResult | None = None
        self.open_button = QPushButton("Open catalog…")
        self.open_button.setToolTip("a folder of SKILL.md files, or a JSON file of tools")
        self.open_button.clicked.connect(self.open_catalog_requested)
        self.status = QLabel("the catalog loads when this tab is first shown")
        self.status.setObjectName("muted")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # escaped text, or an error in red
        # Clipped rather than widening the tab (a docked rule editor leaves it ~450 px): the
        # details, then the whole line, are its tooltip.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.controls = SearchControls()
        self.controls.settings_changed.connect(self.settings_changed)
        self.header = QLabel("")
        self.header.setWordWrap(True)
        self.verdict = QLabel("")
        self.verdict.setObjectName("verdict")
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setWordWrap(True)
        self.legend = QLabel(legend_html())
        self.legend.setObjectName("muted")
        self.legend.setToolTip("what each part of a score bar is: the signal or boost it adds")
        self.table = self._results_table()
        self.detail = QLabel("")  # (the explanation in full, whatever the table's width)
        self.detail.setObjectName("muted")
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setWordWrap(True)
        # Its least height is only the one held while the tab is shown (`_hold_text`): a tab
        # not shown does not make the others taller (presenter mode's prompt grows).
        self.detail.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.detail.setToolTip(
            "the selected tool's score, share by share (the first tool's until one is selected)"
        )
        self.steps = StepsTree()
        self.results_split = QSplitter(Qt.Orientation.Vertical)
        self.pin = QComboBox()
        self.pin.setEditable(True)
        self.pin.setMinimumContentsLength(18)
        self.pin.setPlaceholderText("why not this tool?")
        self.pin.currentTextChanged.connect(self.pinned)
        self.pin_text = QLabel("")
        self.pin_text.setWordWrap(True)
        self.pin_text.setObjectName("reason")
        self._lay_out()
        self._name_controls()

    def _name_controls(self) -> None:
        """Name the controls' widgets on the view, where the window and the tests reach them."""
        controls = self.controls
        self.strategy, self.fusion = controls.strategy, controls.fusion
        self.rrf, self.rrf_box, self.rrf_label = controls.rrf, controls.rrf_box, controls.rrf_label
        self.vector_weight, self.keyword_weight = controls.vector_weight, controls.keyword_weight
        self.weights_box, self.weight_labels = controls.weights_box, controls.weight_labels
        self.threshold, self.threshold_label = controls.threshold, controls.threshold_label
        self.calibrated_button = controls.calibrated_button
        self.reset_button = controls.reset_button
        self.boosts, self.boost_labels = controls.boosts, controls.boost_labels

    def _results_table(self) -> QTreeWidget:
        table = RankingTree(name_column=1, bar_column=2)
        table.setHeaderLabels(list(COLUMNS))
        table.setAlternatingRowColors(True)
        table.header().moveSection(WHY, 3)  # what moved the score, right after it
        table.itemExpanded.connect(self._row_opened)
        table.currentItemChanged.connect(lambda _now, _before: self._show_detail())
        table.itemExpanded.connect(lambda _row: fit_columns(table))
        table.itemCollapsed.connect(lambda _row: fit_columns(table))
        table.viewport().installEventFilter(self)
        enable_copy(table)
        return table

    def _lay_out(self) -> None:
        # The sliders live in a drawer, closed by default: the ranking is what the tab is for
        # (the verdict above it names the fit threshold in force).
        self.drawer = self.controls
        self.drawer.setVisible(False)
        self.drawer_button = QToolButton()
        self.drawer_button.setCheckable(True)
        self.drawer_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.drawer_button.setArrowType(Qt.ArrowType.RightArrow)
        self.drawer_button.setText("Search settings")
        self.drawer_button.setToolTip("the strategy, the fusion and its weights, the field boosts")
        self.drawer_button.toggled.connect(self._toggle_drawer)
        self.results_split.addWidget(self.table)
        self.results_split.addWidget(self.steps)
        self.results_split.setCollapsible(0, False)
        self.results_split.setCollapsible(1, False)
        self._split_moved = False
        self.results_split.splitterMoved.connect(self._analyst_moved_split)
        self.results_split.installEventFilter(self)
        self.results_split.setStretchFactor(0, 3)
        self.results_split.setStretchFactor(1, 1)
        self._hold_ranking()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(row_of((self.open_button, 0), (self.status, 1), self.drawer_button))
        layout.addWidget(self.drawer)
        # The search's description and its verdict share a line: the ranking gets the room.
        self._text_row = row_of((self.header, 3), (self.verdict, 2))
        self._text_row.installEventFilter(self)
        self.detail.installEventFilter(self)  # (the lines it wraps to are held too)
        layout.addWidget(self._text_row)
        layout.addWidget(self.results_split, 1)
        layout.addWidget(self.detail)
        layout.addWidget(row_of(QLabel("Why not:"), self.pin, (self.pin_text, 1), (self.legend, 0)))

    def _analyst_moved_split(self) -> None:
        self._split_moved = True

    def _toggle_drawer(self, open_: bool) -> None:
        if open_ and not self.controls.fusion_tips:
            self.controls.show_fusion_tips()
        self.drawer.setVisible(open_)
        self.drawer_button.setArrowType(
            Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow
        )

    def show_settings(self, settings: SearchSettings) -> None:
        """Move the controls to `settings` (without asking for them again)."""
        self.controls.show_settings(settings)

    # -- the engine --------------------------------------------------------------------------
    def show_loading(self, catalog: str) -> None:
        self.status.setText(f"loading {html.escape(catalog)}: index and tool vectors…")
        self.status.setToolTip("")

    def show_engine(self, status: str, tool_names: Sequence[str], details: str = "") -> None:
        """The loaded catalog: its status line (format, entries skipped), the tools to pin, and
        the details (why that format, each entry skipped) on hover."""
        self.status.setText(html.escape(status))
        self.status.setToolTip(bounded_tip(f"{details}\n{status}" if details else status))
        current = self.pin.currentText()
        self.pin.blockSignals(True)
        self.pin.clear()
        self.pin.addItems(["", *tool_names])
        self.pin.setCurrentText(current)
        self.pin.blockSignals(False)

    def show_error(self, message: str) -> None:
        self.status.setText(f"<span style='color:{css('bad')}'>{html.escape(message)}</span>")

    # -- results ---------------------------------------------------------------------------
    def show_result(self, result: ToolSearchResult | None) -> None:
        self.result = result
        if result is None:
            self.header.setText("")
            self._show_verdict(None)
            ensure_children(self.table, 0)
            self.steps.show_steps([], 0.0, "")
            self._show_detail()
            return
        self.header.setText(_header_html(result))
        self._show_verdict(result)
        show_columns(self.table, result, self.controls.settings)
        # Rows are reused by rank; a tool's details stay open wherever it moves.
        shown = (self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount()))
        expanded = {tool_of(row) for row in shown if row is not None and row.isExpanded()}
        top = result.results[0].score if result.results else 1.0
        rows = ensure_children(self.table, len(result.results))
        self.table.blockSignals(True)  # re-opening rows is not the analyst opening them
        for row, hit in zip(rows, result.results, strict=True):
            show_hit(row, hit, top, result, self.controls.canonical)
            row.setExpanded(hit.tool_name in expanded)
        self.table.blockSignals(False)
        fit_columns(self.table)
        self._hold_ranking()
        self._hold_text()
        self._show_steps(result)
        self._show_detail()
        for row in rows:  # rows left open: explain them now (the view is complete)
            if row.isExpanded() and awaits_explanation(row):
                self.explain_requested.emit(tool_of(row))

    def _show_steps(self, result: ToolSearchResult) -> None:
        """The per-step tree; when it appears, the splitter is shared out again (`_fit_steps`)."""
        appearing = self.steps.isHidden() and bool(result.steps)
        self.steps.show_steps(result.steps, result.fit_threshold, result.fusion, result.merge)
        if appearing:
            self._split_moved = False
            self._fit_steps()

    def _fit_steps(self) -> None:
        """The steps tree gets the height its rows want, but never more than leaves the ranking
        its first `RANKING_ROWS` rows (and never less than a few rows of its own). Done again on
        every resize until the analyst drags the splitter: a splitter gives a widget that was
        hidden almost nothing, and the space is only known once the tab is laid out."""
        if self.steps.isHidden() or self._split_moved:
            return
        split = self.results_split
        rows = RANKING_ROWS  # rows, open or not: a result opened shows its fields
        row = max(self.table.sizeHintForRow(0), self.table.fontMetrics().height())
        ranking = rows * row + self.table.header().sizeHint().height() + 6
        floor = min(self.steps.wanted_height(), 3 * row + self.steps.header().sizeHint().height())
        # Too short for both one above the other: the steps go beside the ranking.
        beside = split.height() < ranking + floor + split.handleWidth()
        split.blockSignals(True)
        split.setOrientation(Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical)
        total = sum(split.sizes())
        if beside:  # the ranking keeps its explanation in sight, the steps take the rest
            steps_least = min(total * 2 // 5, STEPS_BESIDE_LEAST)
            wanted = min(total * 2 // 5, max(steps_least, total - explained_width(self.table)))
        else:
            wanted = max(floor, min(self.steps.wanted_height(), total - ranking))
        if total > 0:
            split.setSizes([total - wanted, wanted])
        self.results_split.blockSignals(False)

    def _hold_ranking(self) -> None:
        """Keep `LEAST_RANKING_ROWS` rows of the ranking (a hit's row, with its equation: the
        first one's height, or two lines before any) and its header in sight, above a
        horizontal scroll bar."""
        table = self.table
        line = table.fontMetrics().height()
        row = table.sizeHintForRow(0) if table.topLevelItemCount() else 2 * line + 6
        least = table.header().sizeHint().height() + LEAST_RANKING_ROWS * row
        scroll_bar = table.horizontalScrollBar().sizeHint().height()  # (wide columns)
        least += scroll_bar + 2 * table.frameWidth()
        if least != self.results_split.minimumHeight():
            self.results_split.setMinimumHeight(least)
            relay_least_size(self)  # (the tabs do not pass a page's new size on by themselves)

    def _hold_text(self, width: int | None = None, row: QWidget | None = None) -> None:
        """The search's description and its verdict (`row`: or the explanation line under the
        ranking) keep the lines they wrap to at the row's width (`width`: the one it takes
        now), so the tab counts them in its least height and the ranking keeps its rows; only
        growing while the width stays (a text that wraps differently at each key would move
        the ranking, and lay the window out again)."""
        row = self._text_row if row is None else row
        width = row.width() if width is None else width
        if width <= 0 or not self.isVisible():
            return
        needed = row.heightForWidth(width)
        if needed > row.minimumHeight():
            row.setMinimumHeight(needed)
            relay_least_size(self)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._hold_ranking()  # (zoom, presenter mode)
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.results_split and event.type() == QEvent.Type.Resize:
            self._fit_steps()
        elif watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            fit_columns(self.table)
        elif watched in (self._text_row, self.detail) and _width_changed(event):
            assert isinstance(event, QResizeEvent) and isinstance(watched, QWidget)
            watched.setMinimumHeight(0)  # (another width: other lines)
            self._hold_text(event.size().width(), watched)
        return super().eventFilter(watched, event)

    def _show_verdict(self, result: ToolSearchResult | None) -> None:
        """An amber banner when no tool fits; otherwise a muted line saying why one does."""
        reason = result.fit_reason if result is not None else ""
        self.verdict.setToolTip(fit_model_tip(result.fit_model) if result is not None else "")
        if result is not None and not result.fits:
            detail = reason.removeprefix("no tool fits").lstrip(": ")
            self.verdict.setText(f"⚠ <b>No tool fits</b> — {html.escape(detail)}")
            set_tone(self.verdict, "nofit")
        elif result is not None and result.results:  # the verdict first, then what backs it
            best = html.escape(result.results[0].tool_name)
            self.verdict.setText(f"✓ <b>{best} fits</b> — {html.escape(reason)}")
            set_tone(self.verdict, "fits")
        else:
            self.verdict.setText(html.escape(reason))
            set_tone(self.verdict, "fits")

    def _show_detail(self) -> None:
        """The selected tool's explanation in full under the ranking (the first tool's until
        one is selected): the table's Why column is elided when the table is narrow."""
        result, row = self.result, self.table.currentItem()
        while row is not None and row.parent() is not None:
            row = row.parent()
        name = tool_of(row) if row is not None else None
        hits = result.results if result is not None else []
        hit = next((h for h in hits if h.tool_name == name), hits[0] if hits else None)
        self.detail.setText(explanation_html(hit, result) if hit and result else "")
        self._hold_text(row=self.detail)
        self._fit_detail()

    def _fit_detail(self) -> None:
        """The explanation line gives way in a tab given less than its parts' least height (a
        rule editor docked in a 720-px window): the ranking keeps its rows, the selected
        tool's explanation stays in the Why column's tip."""
        layout, detail = self.layout(), self.detail
        shown = bool(detail.text()) and layout is not None
        if shown and layout is not None:
            missing = (
                0
                if detail.isVisibleTo(self)
                else (detail.heightForWidth(max(1, self.width() - 8)) + layout.spacing())
            )
            shown = self.height() >= layout.minimumSize().height() + missing
        if shown != detail.isVisibleTo(self):
            detail.setVisible(shown)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_detail()

    def _row_opened(self, row: QTreeWidgetItem) -> None:
        if awaits_explanation(row):
            self.explain_requested.emit(tool_of(row))

    def show_why_not(self, report: WhyNot | None) -> None:
        if report is None:
            self.pin_text.setText("")
            return
        keyword = f"keyword #{report.keyword_rank}" if report.keyword_rank else "keyword: no match"
        cosine = (
            f"vector #{report.vector_rank} (cos {report.similarity:.3f})"
            if report.vector_rank is not None and report.similarity is not None
            else "vector: —"
        )
        final = f"final #{report.final_rank}" if report.final_rank else "not ranked"
        self.pin_text.setText(
            f"<b>{html.escape(report.tool_name)}</b>: {keyword} · {cosine} · {final} — "
            f"{html.escape(report.reason)}"
        )


def _header_html(result: ToolSearchResult) -> str:
    warning = (
        f" <span style='color:{css('bad')}'>· vector search {html.escape(result.semantic)}</span>"
        if result.semantic != "ready"
        else ""
    )
    gap = f" · runner-up gap {result.runner_up_gap:.4f}" if result.runner_up_gap is not None else ""
    return (
        f"<b>{result.strategy}</b>: {html.escape(result.strategy_reason)} · filter: "
        f"{result.category_filter or '—'} "
        f"({html.escape(result.category_filter_reason)}){gap}{_lead_html(result)}{warning}"
    )


def _lead_html(result: ToolSearchResult) -> str:
    """ " · led by step 2's best (…)" when a step's best tool leads the ranking (a request of
    several needs whose best tool is no step's best), else ""."""
    top = result.results[0] if result.results else None
    if top is None or top.step is None or not result.whole_request:
        return ""
    whole_name, whole_score = result.whole_request[0]
    if top.tool_name == whole_name or not 0 < top.step <= len(result.steps):
        return ""
    own = result.steps[top.step - 1].results
    step_score = own[0].score if own else top.score
    mark, name = html.escape(top.step_mark, quote=False), html.escape(whole_name, quote=False)
    return (
        f" · <b>led by {mark}</b> ({step_score:.3f} for its step &gt; the whole request's best "
        f"{name} {whole_score:.3f})"
    )


_FEATURES = {
    "score": "best score",
    "margin": "margin over the second tool",
    "cosine": "its cosine",
    "above_mean": "cosine above the catalog's mean",
    "cosine_margin": "cosine margin over the second",
    "evidence": "keyword evidence",
    "words": "matched words",
    "coverage": "share of the query's words it matches",
}


def fit_model_tip(judged: dict[str, Any]) -> str:
    """The fit model's verdict part by part (what each adds to the logit), or "" when the
    model did not judge (the verdict line says the rule that did)."""
    if not judged:
        return ""
    sign = "≥" if judged["probability"] >= judged["threshold"] else "<"
    lines = [
        f"fit model {judged['probability']:.3f} {sign} {judged['threshold']:.3f}, decided by "
        f"{judged['decided_by']}",
        f"the request: asks for a tool {judged['need']:.2f} (adds {judged['request']:+.2f})",
        f"this catalog's best match: adds {judged['match']:+.2f}",
    ]
    contributions: dict[str, float] = judged["contributions"]
    for name, value in contributions.items():
        said = _FEATURES.get(name, name)
        lines.append(f"  {said} {judged['inputs'][name]:.3f}: {value:+.2f}")
    lines.append(f"  the model's baseline: {judged['match'] - sum(contributions.values()):+.2f}")
    return bounded_tip("\n".join(lines))


def _width_changed(event: QEvent) -> bool:
    return isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width()
