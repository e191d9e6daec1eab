"""The hybrid tool search's view: the tools ranked for the prompt with every signal explained
(per-field BM25, vector similarity, RRF terms, rerank boosts), live controls for the strategy,
RRF k and the field boosts, and "why not this tool?". Mirrors `routescope.toolsearch`.

The fields, their canonical boosts and the strategies come from `routescope.toolsearch`
(`default_boosts()`, `SearchStrategy`), never from constants of the view.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, get_args

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._widgets import BAR_ROLE, BarDelegate, enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.toolsearch import (
        SearchSettings,
        SearchStrategy,
        ToolHit,
        ToolSearchResult,
        WhyNot,
    )

__all__ = ["ToolSearchView"]

_Index = QModelIndex | QPersistentModelIndex
_BOOST_STEPS = 10
"""Slider steps per unit of boost (a slider moves a boost by 0.1)."""
_MIN_BOOST = 0.01
"""A boost of zero would drop the field from the query: the lowest slider stop is this."""
_SHORT_BOOSTS = {"metadata_alignment_boost": "align", "file_discovery_boost": "files"}
_TERM_COLOUR = QColor("#7a3fd1")
_COLUMNS = ("#", "Tool", "Final", "Keyword", "Vector", "RRF", "Boosts")
_COLUMN_TIPS = (
    "rank",
    "tool (category on hover)",
    "final score = RRF + boosts (bar scaled to the top)",
    "rank · BM25 with field boosts (Tantivy)",
    "rank · cosine similarity",
    "sum of 1/(k + rank)",
    "rerank boosts",
)


class ToolSearchView(QWidget):
    """Renders one `ToolSearchResult` and one `WhyNot`; its controls ask for other settings.

    Signals:
        open_catalog_requested: the analyst asks to open another catalog.
        settings_changed: emitted with the `SearchSettings` the controls now describe.
        pinned: emitted with the name of the tool to explain ("" for none).
    """

    open_catalog_requested = Signal()
    settings_changed = Signal(object)
    pinned = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        toolsearch = routescope.toolsearch
        self._canonical = toolsearch.default_boosts()
        self._settings = toolsearch.SearchSettings()
        self.result: ToolSearchResult | None = None
        self.open_button = QPushButton("Open catalog…")
        self.open_button.clicked.connect(self.open_catalog_requested)
        self.status = QLabel("the catalog loads when this tab is first shown")
        self.status.setObjectName("muted")
        self._strategies: tuple[SearchStrategy, ...] = get_args(toolsearch.SearchStrategy)
        self.strategy = QComboBox()
        self.strategy.addItems(list(self._strategies))
        self.strategy.currentTextChanged.connect(self._controls_moved)
        self.rrf = self._slider(1, 200)
        self.rrf_label = QLabel("")
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
        self.table = self._results_table()
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

    def _slider(self, low: int, high: int) -> QSlider:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(low, high)
        slider.valueChanged.connect(self._controls_moved)
        return slider

    def _results_table(self) -> QTreeWidget:
        table = QTreeWidget()
        table.setHeaderLabels(list(_COLUMNS))
        header = table.headerItem()
        for column, tip in enumerate(_COLUMN_TIPS):
            header.setToolTip(column, tip)
        table.setItemDelegateForColumn(2, BarDelegate("#b39ddb", table))
        table.setAlternatingRowColors(True)
        table.setUniformRowHeights(True)
        for column, width in enumerate((48, 170, 130, 110, 110, 70)):
            table.setColumnWidth(column, width)
        table.itemExpanded.connect(lambda _item: table.resizeColumnToContents(1))
        enable_copy(table)
        return table

    def _lay_out(self) -> None:
        controls = QFormLayout()
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.status, 1)
        controls.addRow(top)
        row = QHBoxLayout()
        row.addWidget(QLabel("strategy"))
        row.addWidget(self.strategy)
        row.addWidget(QLabel("RRF k"))
        row.addWidget(self.rrf, 1)
        row.addWidget(self.rrf_label)
        controls.addRow(row)
        boosts = QHBoxLayout()
        for name, slider in self.boosts.items():
            boosts.addWidget(QLabel(name))
            boosts.addWidget(slider, 1)
            boosts.addWidget(self.boost_labels[name])
        boosts.addWidget(self.reset_button)
        controls.addRow(boosts)
        pin_row = QHBoxLayout()
        pin_row.addWidget(QLabel("Why not:"))
        pin_row.addWidget(self.pin)
        pin_row.addWidget(self.pin_text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.header)
        layout.addWidget(self.table, 1)
        layout.addLayout(pin_row)

    # -- controls ----------------------------------------------------------------------------
    def show_settings(self, settings: SearchSettings) -> None:
        """Move the controls to `settings` (without asking for them again)."""
        self._settings = settings
        boosts = settings.boosts or self._canonical
        controls = [self.strategy, self.rrf, *self.boosts.values()]
        for control in controls:
            control.blockSignals(True)
        self.strategy.setCurrentText(settings.strategy)
        self.rrf.setValue(settings.rrf_k)
        for name, slider in self.boosts.items():
            slider.setValue(round(boosts.get(name, self._canonical[name]) * _BOOST_STEPS))
        for control in controls:
            control.blockSignals(False)
        self._update_labels()

    def _reset_boosts(self) -> None:
        self.show_settings(dataclasses.replace(self._settings, boosts=None))
        self.settings_changed.emit(self._settings)

    def _controls_moved(self) -> None:
        self._update_labels()
        boosts = {
            name: max(slider.value() / _BOOST_STEPS, _MIN_BOOST)
            for name, slider in self.boosts.items()
        }
        self._settings = dataclasses.replace(
            self._settings,
            strategy=self._strategies[self.strategy.currentIndex()],
            rrf_k=self.rrf.value(),
            boosts=None if boosts == self._canonical else boosts,
        )
        self.settings_changed.emit(self._settings)

    def _update_labels(self) -> None:
        self.rrf_label.setText(str(self.rrf.value()))
        for name, slider in self.boosts.items():
            self.boost_labels[name].setText(f"{slider.value() / _BOOST_STEPS:.1f}")

    # -- the engine --------------------------------------------------------------------------
    def show_loading(self, catalog: str) -> None:
        self.status.setText(f"loading {catalog}: index and tool vectors…")

    def show_engine(self, status: str, tool_names: Sequence[str]) -> None:
        self.status.setText(status)
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
            ensure_children(self.table, 0)
            return
        warning = (
            f" <span style='color:#c62828'>· vector search {html.escape(result.semantic)}</span>"
            if result.semantic != "ready"
            else ""
        )
        gap = (
            f" · runner-up gap {result.runner_up_gap:.4f}"
            if result.runner_up_gap is not None
            else ""
        )
        self.header.setText(
            f"<b>{result.strategy}</b>: {html.escape(result.strategy_reason)} · filter: "
            f"{result.category_filter or '—'} ({html.escape(result.category_filter_reason)})"
            f"{gap}{warning}"
        )
        # Rows are reused by rank; a tool's details stay open wherever it moves.
        shown = (self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount()))
        expanded = {row.text(1) for row in shown if row is not None and row.isExpanded()}
        top = result.results[0].score if result.results else 1.0
        rows = ensure_children(self.table, len(result.results))
        for row, hit in zip(rows, result.results, strict=True):
            self._show_hit(row, hit, top)
            row.setExpanded(hit.tool_name in expanded)

    def _show_hit(self, row: QTreeWidgetItem, hit: ToolHit, top: float) -> None:
        s = hit.signals
        rrf = " + ".join(f"1/({t.k}+{t.rank})" for t in s.rrf)
        boosts = " ".join(f"+{v:.3f} {_SHORT_BOOSTS.get(k, k)}" for k, v in s.boosts.items() if v)
        fill_row(
            row,
            [
                f"{hit.rank} =" if hit.tied_with else str(hit.rank),
                hit.tool_name,
                f"{hit.score:.4f}",
                f"#{s.keyword.rank} · {s.keyword.score:.2f}" if s.keyword else "—",
                f"#{s.vector.rank} · {s.vector.similarity:.3f}" if s.vector else "—",
                f"{s.fused:.4f}" if rrf else "0",
                boosts or "—",
            ],
            [
                "tied with " + ", ".join(hit.tied_with) + " (broken by name)"
                if hit.tied_with
                else "rank",
                f"category {hit.category}",
                None,
                None,
                None,
                f"{s.fused:.5f} = {rrf}" if rrf else "in no list",
                ", ".join(f"{k} {v:.4f}" for k, v in s.boosts.items()),
            ],
        )
        row.setData(2, BAR_ROLE, hit.score / top if top else 0.0)
        fields = (
            [(name, s.keyword) for name in self._canonical if name in s.keyword.fields]
            if s.keyword
            else []
        )
        children = ensure_children(row, len(fields) + bool(s.boost_terms))
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
