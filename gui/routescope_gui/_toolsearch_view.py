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

import dataclasses
import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast, get_args

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._toolsearch_rows import (
    EQUATION_ROLE,
    SHARE_COLOURS,
    RankingTree,
    legend_html,
    share_label,
    show_score,
)
from ._toolsearch_steps import StepsTree
from ._widgets import bounded_tip, enable_copy, ensure_children, fill_row, set_tone

if TYPE_CHECKING:
    from routescope.toolsearch import (
        Fusion,
        KeywordSignal,
        SearchSettings,
        SearchStrategy,
        Signals,
        ToolHit,
        ToolSearchResult,
        WhyNot,
    )

__all__ = ["ToolSearchView"]

_BOOST_STEPS = 10
"""Slider steps per unit of boost (a slider moves a boost by 0.1)."""
_MIN_BOOST = 0.01
"""A boost of zero would drop the field from the query: the lowest slider stop is this."""
_WEIGHT_STEPS = 20
"""Slider steps per unit of a fusion weight (a slider moves a weight by 0.05)."""
_THRESHOLD_STEPS = 100
"""Slider steps per unit of the fit threshold (0.01 a step)."""
_TERM_COLOUR = QColor("#7a3fd1")
RANKING_ROWS = 8
"""The ranking keeps at least this many result rows visible when the steps tree appears."""
_UNEXPLAINED_ROLE = Qt.ItemDataRole.UserRole + 6
"""Row data: the hit's per-field explanation is still to be asked for."""
_COLUMNS = ("#", "Tool", "Final", "Keyword", "Vector", "Fused", "Boosts")
_NAME_WIDTHS = (110, 260)
"""The tool column fits the longest name shown, within these widths (longer names are elided
in the middle, in full on hover)."""
_FUSED = 5
"""The fused column: its title and tip follow the fusion that made the result."""
_FUSION_INTRO = {
    "weighted": "weighted (the default, chosen by measurement)",
    "canonical": "canonical: the seed's pipeline exactly",
}
_THRESHOLD_TIP = (
    "Below this final score the best tool does not fit, and the result says "
    "“no tool fits” (0: off). Scores are on the fusion's scale: weighted about 0–1, "
    "canonical (RRF) about 0–0.05."
)


def _fusion_tip(name: str) -> str:
    """A fusion in one paragraph: what it is, then its formula as the core says it."""
    settings = routescope.toolsearch.SearchSettings(fusion=cast("Fusion", name))
    return f"{_FUSION_INTRO.get(name, name)}: {settings.formula()}"


def _column_tips(fusion: str, settings: SearchSettings, formula: str) -> tuple[str, ...]:
    """The header's tips: the formula of the fusion that made the result, as the core says it."""
    legend = ", ".join(share_label(name) for name in SHARE_COLOURS)
    if fusion == "weighted":
        fused = (
            f"{settings.vector_weight:g} · cosine + {settings.keyword_weight:g} · keyword "
            "evidence, before the boosts"
        )
        keyword = (
            "rank by keyword evidence · the evidence (0–1): the query's words the tool matches, "
            "each by its rarity in the catalog and how well the tool matches it; adds keyword "
            "weight · evidence (hover a cell for the words)"
        )
        vector = "rank · cosine similarity; adds vector weight · cosine"
        words = "; the keyword part is split into the query words that moved it"
    else:
        fused = f"sum of 1/(k + rank) over the keyword and vector lists (k = {settings.rrf_k})"
        keyword = "rank · BM25 with field boosts (Tantivy); adds 1/(k + rank)"
        vector = "rank · cosine similarity; adds 1/(k + rank)"
        words = ""
    return (
        "rank",
        "tool (category on hover)",
        f"{formula}\nThe bar stacks what each adds ({legend}){words}, scaled to the top score; "
        "the mark is the fit threshold",
        keyword,
        vector,
        fused,
        "rerank boosts, on the final score's scale",
    )


def _fused_title(fusion: str) -> str:
    """The fused column's title; its tip gives the formula, with the weights."""
    return "Fused" if fusion == "weighted" else "RRF"


class ToolSearchView(QWidget):
    """Renders one `ToolSearchResult` and one `WhyNot`; its controls ask for other settings.

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
        toolsearch = routescope.toolsearch
        self._canonical = toolsearch.default_boosts()
        self._settings = toolsearch.SearchSettings()
        self.result: ToolSearchResult | None = None
        self.open_button = QPushButton("Open catalog…")
        self.open_button.setToolTip("a folder of SKILL.md files, or a JSON file of tools")
        self.open_button.clicked.connect(self.open_catalog_requested)
        self.status = QLabel("the catalog loads when this tab is first shown")
        self.status.setObjectName("muted")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # escaped text, or an error in red
        self._strategies: tuple[SearchStrategy, ...] = get_args(toolsearch.SearchStrategy)
        self.strategy = QComboBox()
        self.strategy.addItems(list(self._strategies))
        self.strategy.currentTextChanged.connect(self._controls_moved)
        self._build_fusion_controls(toolsearch.FUSIONS)
        self.threshold = self._slider(0, _THRESHOLD_STEPS)
        self.threshold.setToolTip(_THRESHOLD_TIP)
        self.threshold_label = QLabel("")
        self.calibrated_button = QPushButton("Calibrated")
        self.calibrated_button.setToolTip(
            "the fusion's threshold measured by make eval: 1 % of the answerable BFCL "
            "questions score below it"
        )
        self.calibrated_button.clicked.connect(self._calibrated_threshold)
        self.threshold_label.setMinimumWidth(30)
        self.boosts = {name: self._slider(0, 10 * _BOOST_STEPS) for name in self._canonical}
        self.boost_labels = {name: QLabel("") for name in self._canonical}
        self.reset_button = QPushButton("Canonical boosts")
        self.reset_button.setToolTip(
            "the boosts of the canonical schema: "
            + ", ".join(f"{name} {boost:g}" for name, boost in self._canonical.items())
        )
        self.reset_button.clicked.connect(self._reset_boosts)
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
        self.show_settings(self._settings)

    def _build_fusion_controls(self, fusions: Sequence[str]) -> None:
        """The fusion, and what tunes it: RRF k for canonical, the two weights for weighted."""
        # FUSIONS is the Literal's values, typed as plain strings.
        self._fusions = cast("tuple[Fusion, ...]", tuple(fusions))
        self.fusion = QComboBox()
        self.fusion.addItems(list(self._fusions))
        self._fusion_tips = False
        """Whether the fusion controls have their tips: written when the drawer first opens,
        since the formulas come from the fusion module, which imports numpy and Tantivy."""
        self.fusion.currentTextChanged.connect(self._controls_moved)
        self.rrf = self._slider(1, 200)
        self.rrf_label = QLabel("")
        self.vector_weight = self._slider(0, _WEIGHT_STEPS)
        self.keyword_weight = self._slider(0, _WEIGHT_STEPS)
        self.weight_labels = {"vector": QLabel(""), "keyword": QLabel("")}
        self.rrf_box = _row(QLabel("RRF k"), (self.rrf, 1), self.rrf_label)
        self.rrf_box.setToolTip("k of reciprocal-rank fusion: 1/(k + rank); canonical only")
        self.weights_box = _row(
            QLabel("vector"),
            (self.vector_weight, 1),
            self.weight_labels["vector"],
            QLabel("keyword"),
            (self.keyword_weight, 1),
            self.weight_labels["keyword"],
        )

    def _show_fusion_tips(self) -> None:
        """The fusions' formulas as the core says them, on the controls that tune them."""
        self._fusion_tips = True
        for number, name in enumerate(self._fusions):
            self.fusion.setItemData(
                number, bounded_tip(_fusion_tip(name)), Qt.ItemDataRole.ToolTipRole
            )
        self.fusion.setToolTip(
            bounded_tip("\n\n".join(_fusion_tip(name) for name in self._fusions))
        )
        self._update_labels()

    def _slider(self, low: int, high: int) -> QSlider:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(low, high)
        slider.valueChanged.connect(self._controls_moved)
        return slider

    def _results_table(self) -> QTreeWidget:
        table = RankingTree(name_column=1, bar_column=2)
        table.setHeaderLabels(list(_COLUMNS))
        table.setAlternatingRowColors(True)
        for column, width in enumerate((48, 130, 190, 88, 88, 70)):
            table.setColumnWidth(column, width)
        table.itemExpanded.connect(self._row_opened)
        enable_copy(table)
        return table

    def _lay_out(self) -> None:
        controls = QFormLayout()
        controls.addRow(
            _row(
                QLabel("strategy"),
                self.strategy,
                QLabel("fusion"),
                self.fusion,
                (self.rrf_box, 1),
                (self.weights_box, 1),
            )
        )
        field_boosts: list[QWidget | tuple[QWidget, int]] = []
        for name, slider in self.boosts.items():
            field_boosts += [QLabel(name), (slider, 1), self.boost_labels[name]]
        controls.addRow(_row(*field_boosts, self.reset_button))
        fit_label = QLabel("no tool fits below")
        fit_label.setToolTip(_THRESHOLD_TIP)
        self.threshold.setMinimumWidth(120)
        controls.addRow(
            _row(fit_label, (self.threshold, 1), self.threshold_label, self.calibrated_button)
        )
        # The sliders live in a drawer, closed by default: the ranking is what the tab is for
        # (the verdict above it names the fit threshold in force).
        self.drawer = QWidget()
        self.drawer.setLayout(controls)
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
        layout = QVBoxLayout(self)
        layout.addWidget(_row((self.open_button, 0), (self.status, 1), self.drawer_button))
        layout.addWidget(self.drawer)
        # The search's description and its verdict share a line: the ranking gets the room.
        layout.addWidget(_row((self.header, 3), (self.verdict, 2)))
        layout.addWidget(self.results_split, 1)
        layout.addWidget(_row(QLabel("Why not:"), self.pin, (self.pin_text, 1), (self.legend, 0)))

    def _analyst_moved_split(self) -> None:
        self._split_moved = True

    def _toggle_drawer(self, open_: bool) -> None:
        if open_ and not self._fusion_tips:
            self._show_fusion_tips()
        self.drawer.setVisible(open_)
        self.drawer_button.setArrowType(
            Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow
        )

    # -- controls ----------------------------------------------------------------------------
    def show_settings(self, settings: SearchSettings) -> None:
        """Move the controls to `settings` (without asking for them again)."""
        self._settings = settings
        boosts = settings.boosts or self._canonical
        controls = [
            self.strategy,
            self.fusion,
            self.rrf,
            self.vector_weight,
            self.keyword_weight,
            self.threshold,
            *self.boosts.values(),
        ]
        for control in controls:
            control.blockSignals(True)
        self.strategy.setCurrentText(settings.strategy)
        self.fusion.setCurrentText(settings.fusion)
        self.rrf.setValue(settings.rrf_k)
        self.vector_weight.setValue(round(settings.vector_weight * _WEIGHT_STEPS))
        self.keyword_weight.setValue(round(settings.keyword_weight * _WEIGHT_STEPS))
        self.threshold.setValue(round(self._effective_threshold(settings) * _THRESHOLD_STEPS))
        for name, slider in self.boosts.items():
            slider.setValue(round(boosts.get(name, self._canonical[name]) * _BOOST_STEPS))
        for control in controls:
            control.blockSignals(False)
        self._update_labels()

    def _reset_boosts(self) -> None:
        self.show_settings(dataclasses.replace(self._settings, boosts=None))
        self.settings_changed.emit(self._settings)

    def _controls_moved(self) -> None:
        boosts = {
            name: max(slider.value() / _BOOST_STEPS, _MIN_BOOST)
            for name, slider in self.boosts.items()
        }
        self._settings = dataclasses.replace(
            self._settings,
            strategy=self._strategies[self.strategy.currentIndex()],
            fusion=self._fusions[self.fusion.currentIndex()],
            rrf_k=self.rrf.value(),
            vector_weight=self.vector_weight.value() / _WEIGHT_STEPS,
            keyword_weight=self.keyword_weight.value() / _WEIGHT_STEPS,
            fit_threshold=self._chosen_threshold(),
            boosts=None if boosts == self._canonical else boosts,
        )
        if self._settings.fit_threshold is None:  # the calibrated value of the fusion chosen
            self.show_settings(self._settings)
        self._update_labels()
        self.settings_changed.emit(self._settings)

    @staticmethod
    def _effective_threshold(settings: SearchSettings) -> float:
        if settings.fit_threshold is not None:
            return settings.fit_threshold
        return routescope.toolsearch.CALIBRATED_FIT_THRESHOLDS[settings.fusion]

    def _chosen_threshold(self) -> float | None:
        """None (calibrated) until the analyst moves the threshold slider away from it."""
        value = self.threshold.value()
        if self._settings.fit_threshold is None and value == round(
            self._effective_threshold(self._settings) * _THRESHOLD_STEPS
        ):
            return None
        return value / _THRESHOLD_STEPS

    def _calibrated_threshold(self) -> None:
        self.show_settings(dataclasses.replace(self._settings, fit_threshold=None))
        self.settings_changed.emit(self._settings)

    def _update_labels(self) -> None:
        """The values beside the sliders, and only the controls the chosen fusion uses."""
        weighted = self.fusion.currentText() == "weighted"
        self.weights_box.setVisible(weighted)
        if weighted and self._fusion_tips:
            self.weights_box.setToolTip(bounded_tip(f"weighted fusion: {self._settings.formula()}"))
        self.rrf_box.setVisible(not weighted)
        self.rrf_label.setText(str(self.rrf.value()))
        self.weight_labels["vector"].setText(f"{self.vector_weight.value() / _WEIGHT_STEPS:.2f}")
        self.weight_labels["keyword"].setText(f"{self.keyword_weight.value() / _WEIGHT_STEPS:.2f}")
        threshold = self.threshold.value()
        label = f"{threshold / _THRESHOLD_STEPS:.2f}" if threshold else "off"
        calibrated = self._settings.fit_threshold is None
        self.threshold_label.setText(f"{label} (calibrated)" if calibrated else label)
        self.calibrated_button.setEnabled(not calibrated)
        for name, slider in self.boosts.items():
            self.boost_labels[name].setText(f"{slider.value() / _BOOST_STEPS:.1f}")

    # -- the engine --------------------------------------------------------------------------
    def show_loading(self, catalog: str) -> None:
        self.status.setText(f"loading {html.escape(catalog)}: index and tool vectors…")
        self.status.setToolTip("")

    def show_engine(self, status: str, tool_names: Sequence[str], details: str = "") -> None:
        """The loaded catalog: its status line (format, entries skipped), the tools to pin, and
        the details (why that format, each entry skipped) on hover."""
        self.status.setText(html.escape(status))
        self.status.setToolTip(details)
        current = self.pin.currentText()
        self.pin.blockSignals(True)
        self.pin.clear()
        self.pin.addItems(["", *tool_names])
        self.pin.setCurrentText(current)
        self.pin.blockSignals(False)

    def show_error(self, message: str) -> None:
        self.status.setText(f"<span style='color:#c62828'>{html.escape(message)}</span>")

    # -- results ---------------------------------------------------------------------------
    def show_result(self, result: ToolSearchResult | None) -> None:
        self.result = result
        if result is None:
            self.header.setText("")
            self._show_verdict(None)
            ensure_children(self.table, 0)
            self.steps.show_steps([], 0.0, "")
            return
        self.header.setText(_header_html(result))
        self._show_verdict(result)
        self._show_columns(result)
        # Rows are reused by rank; a tool's details stay open wherever it moves.
        shown = (self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount()))
        expanded = {row.text(1) for row in shown if row is not None and row.isExpanded()}
        top = result.results[0].score if result.results else 1.0
        rows = ensure_children(self.table, len(result.results))
        self.table.blockSignals(True)  # re-opening rows is not the analyst opening them
        for row, hit in zip(rows, result.results, strict=True):
            self._show_hit(row, hit, top, result)
            row.setExpanded(hit.tool_name in expanded)
        self.table.blockSignals(False)
        self._fit_names(result)
        self._show_steps(result)
        for row in rows:  # rows left open: explain them now (the view is complete)
            if row.isExpanded() and row.data(0, _UNEXPLAINED_ROLE):
                self.explain_requested.emit(row.text(1))

    def _show_steps(self, result: ToolSearchResult) -> None:
        """The per-step tree; when it appears, the splitter is shared out again (`_fit_steps`)."""
        appearing = self.steps.isHidden() and bool(result.steps)
        self.steps.show_steps(result.steps, result.fit_threshold, result.fusion)
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
        if beside:
            wanted = total * 2 // 5
        else:
            wanted = max(floor, min(self.steps.wanted_height(), total - ranking))
        if total > 0:
            split.setSizes([total - wanted, wanted])
        self.results_split.blockSignals(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.results_split and event.type() == QEvent.Type.Resize:
            self._fit_steps()
        return super().eventFilter(watched, event)

    def _show_verdict(self, result: ToolSearchResult | None) -> None:
        """An amber banner when no tool fits; otherwise a muted line saying why one does."""
        reason = result.fit_reason if result is not None else ""
        if result is not None and not result.fits:
            detail = reason.removeprefix("no tool fits").lstrip(": ")
            self.verdict.setText(f"⚠ <b>No tool fits</b> — {html.escape(detail)}")
            set_tone(self.verdict, "nofit")
        else:
            self.verdict.setText(html.escape(reason))
            set_tone(self.verdict, "fits")

    def _show_columns(self, result: ToolSearchResult) -> None:
        header = self.table.headerItem()
        header.setText(_FUSED, _fused_title(result.fusion))
        formula = result.formula or self._settings.formula()
        for column, tip in enumerate(_column_tips(result.fusion, self._settings, formula)):
            header.setToolTip(column, bounded_tip(tip))

    def _show_hit(
        self, row: QTreeWidgetItem, hit: ToolHit, top: float, result: ToolSearchResult
    ) -> None:
        s, fusion = hit.signals, result.fusion
        boosts = " ".join(f"+{v:.3f} {share_label(k)}" for k, v in s.boosts.items() if v)
        fused, fused_tip = _fused_cell(s, fusion)
        fill_row(
            row,
            [
                f"{hit.rank} =" if hit.tied_with else str(hit.rank),
                hit.tool_name,
                "",
                _keyword_cell(s.keyword),
                f"#{s.vector.rank} · {s.vector.similarity:.3f}" if s.vector else "—",
                fused,
                boosts or "—",
            ],
            [
                "tied with " + ", ".join(hit.tied_with) + " (broken by name)"
                if hit.tied_with
                else "rank",
                f"{hit.tool_name}\ncategory {hit.category}",
                None,
                _bounded(_adds(s, "keyword", fusion)),
                _adds(s, "vector", fusion),
                bounded_tip(fused_tip),
                ", ".join(f"{k} {v:.4f}" for k, v in s.boosts.items()),
            ],
        )
        show_score(row, 2, hit, top, result.fit_threshold, fusion)
        row.setToolTip(2, bounded_tip(row.toolTip(2)))
        row.setData(0, EQUATION_ROLE, routescope.toolsearch.score_equation(hit))
        self._show_fields(row, s)

    def _fit_names(self, result: ToolSearchResult) -> None:
        """The tool column as wide as the longest name shown, within `_NAME_WIDTHS`."""
        metrics = self.table.fontMetrics()
        longest = max((metrics.horizontalAdvance(h.tool_name) for h in result.results), default=0)
        low, high = _NAME_WIDTHS
        self.table.setColumnWidth(1, min(high, max(low, longest + 16)))

    def _row_opened(self, row: QTreeWidgetItem) -> None:
        if row.parent() is None and row.data(0, _UNEXPLAINED_ROLE):
            self.explain_requested.emit(row.text(1))

    def _show_fields(self, row: QTreeWidgetItem, s: Signals) -> None:
        """The children of a hit: the query words behind its keyword share (weighted), BM25 per
        field with the matched terms, the rerank's terms. A hit not explained yet has one
        placeholder child for its fields; opening the row asks for it."""
        fields = (
            [(name, s.keyword) for name in self._canonical if name in s.keyword.fields]
            if s.keyword
            else []
        )
        words = bool(s.keyword and s.keyword.terms)
        unexplained = s.keyword is not None and not s.keyword.fields
        row.setData(0, _UNEXPLAINED_ROLE, unexplained)
        children = ensure_children(row, words + len(fields) + bool(s.boost_terms) + unexplained)
        for child in children:
            child.setFirstColumnSpanned(False)
        if words and s.keyword is not None:  # one line across the row: the words are the point
            share = s.shares.get("keyword", 0.0)
            text = f"      keyword words: +{share:.3f} = {_words_text(s.keyword)}"
            fill_row(
                children[0], [text, "", "", "", "", "", ""], [bounded_tip(_words_tip(s.keyword))]
            )
            children[0].setFirstColumnSpanned(True)
            children[0].setData(0, Qt.ItemDataRole.ForegroundRole, _TERM_COLOUR)
            children = children[1:]
        if unexplained:
            fill_row(children[0], ["", "  fields", "", "", "", "", "explaining…"])
            children[0].setData(6, Qt.ItemDataRole.ForegroundRole, None)
        for child, (name, keyword) in zip(children, fields, strict=False):
            terms = ", ".join(keyword.matched_terms.get(name, []))
            fill_row(
                child,
                ["", f"  {name}", "", f"{keyword.fields[name]:.2f}", "", "", f"matched: {terms}"],
            )
            child.setData(6, Qt.ItemDataRole.ForegroundRole, _TERM_COLOUR)
        if s.boost_terms:
            fill_row(
                children[-1],
                ["", "  rerank", "", "", "", "", "aligned terms: " + ", ".join(s.boost_terms)],
            )
            children[-1].setData(6, Qt.ItemDataRole.ForegroundRole, None)

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


def _row(*widgets: QWidget | tuple[QWidget, int]) -> QWidget:
    """A row of widgets without margins; a (widget, stretch) pair takes that share of space."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for entry in widgets:
        widget, stretch = entry if isinstance(entry, tuple) else (entry, 0)
        layout.addWidget(widget, stretch)
    return row


def _header_html(result: ToolSearchResult) -> str:
    warning = (
        f" <span style='color:#c62828'>· vector search {html.escape(result.semantic)}</span>"
        if result.semantic != "ready"
        else ""
    )
    gap = f" · runner-up gap {result.runner_up_gap:.4f}" if result.runner_up_gap is not None else ""
    return (
        f"<b>{result.strategy}</b>: {html.escape(result.strategy_reason)} · filter: "
        f"{result.category_filter or '—'} "
        f"({html.escape(result.category_filter_reason)}){gap}{warning}"
    )


def _bounded(tip: str | None) -> str | None:
    return None if tip is None else bounded_tip(tip)


def _adds(s: Signals, source: str, fusion: str) -> str | None:
    """The tip of a keyword or vector cell: what the signal adds to the final score (and for
    the weighted keyword share, the words that moved it)."""
    share = s.shares.get(source)
    if share is None:
        return None
    decimals = 3 if fusion == "weighted" else 4
    text = f"adds {share:.{decimals}f} to the final score"
    if source == "keyword" and s.keyword is not None and s.keyword.terms:
        return f"{text}: {_words_text(s.keyword)} (BM25 {s.keyword.score:.2f})\n" + _words_tip(
            s.keyword
        )
    return text


def _keyword_cell(keyword: KeywordSignal | None) -> str:
    """ "#2 · 0.57": the rank and the keyword evidence (weighted), or the rank and BM25."""
    if keyword is None:
        return "—"
    if keyword.evidence is not None:
        return f"#{keyword.rank} · {keyword.evidence:.2f}"
    return f"#{keyword.rank} · {keyword.score:.2f}"


def _words_text(keyword: KeywordSignal) -> str:
    """ "crashing +0.071 · container +0.047 · report +0.006 (path)": largest first."""
    terms = sorted(keyword.terms, key=lambda t: -t.share)
    return " · ".join(
        f"{t.word} +{t.share:.3f}" + (f" ({_SHORT_NOTES.get(t.note, t.note)})" if t.note else "")
        for t in terms
    )


def _words_tip(keyword: KeywordSignal) -> str:
    """One line per word: what it adds, why (rarity, match), and why it counts less."""
    lines = []
    for t in sorted(keyword.terms, key=lambda t: -t.share):
        held = f"{t.tools} tool{'s' if t.tools != 1 else ''} hold{'s' if t.tools == 1 else ''} it"
        match = "the best match" if t.match >= 1.0 else f"match {t.match:.2f} of the best"
        note = f"; {t.note}" if t.note else ""
        lines.append(
            f"{t.word} (“{t.term}”) +{t.share:.3f}: weight {t.weight:.2f} ({held}), {match}{note}"
        )
    return "\n".join(lines)


_SHORT_NOTES = {
    "in a URL or path": "path",
    "a request phrase": "request",
    "a number": "number",
    "a URL in the request": "a URL",
    "a file path in the request": "a path",
}


def _fused_cell(s: Signals, fusion: str) -> tuple[str, str]:
    """The fused column: the RRF sum and its terms, or the weighted sum and its two shares."""
    if fusion != "weighted":
        rrf = " + ".join(f"1/({t.k}+{t.rank})" for t in s.rrf)
        return (f"{s.fused:.4f}", f"{s.fused:.5f} = {rrf}") if rrf else ("0", "in no list")
    evidence = s.keyword.evidence if s.keyword is not None else None
    parts = [
        f"{label} {s.shares[name]:.3f}" + detail
        for name, label, detail in (
            ("vector", "vector", f" (cos {s.vector.similarity:.3f})" if s.vector else ""),
            ("keyword", "keyword", f" (evidence {evidence:.2f})" if evidence is not None else ""),
        )
        if name in s.shares
    ]
    return f"{s.fused:.3f}", f"{s.fused:.3f} = " + (" + ".join(parts) or "0")
