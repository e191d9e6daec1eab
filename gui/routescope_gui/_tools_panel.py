"""The Tools tab: hybrid tool search with every rank explained, live boosts and "why not?".

The catalog is loaded and the query embedded off the UI thread; re-ranking after a slider
moves reuses the query vector, so it is instant.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Coroutine
from pathlib import Path

import numpy as np
from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from routescope import RoutescopeError, resources_root
from routescope.toolsearch import (
    SearchSettings,
    ToolHit,
    ToolSearch,
    ToolSearchResult,
    load_catalog,
    why_not,
)

__all__ = ["ToolsController", "ToolsPanel"]

_BAR_ROLE = Qt.ItemDataRole.UserRole + 2
_FIELDS = ("tool_name", "intents", "keywords", "description")
_Index = QModelIndex | QPersistentModelIndex


class ToolsController(QObject):
    """Owns the searchable catalog and runs searches; slow work goes to a thread.

    Signals:
        ready: emitted with a status line when a catalog is loaded (or failed to load).
        searched: emitted with the `ToolSearchResult` of the current text and settings.
    """

    ready = Signal(str)
    searched = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.search: ToolSearch | None = None
        self.settings = SearchSettings()
        self.text = ""
        self.vector: np.ndarray | None = None
        self._vector_text = ""
        self._generation = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop runs (a script, a test without one): finish now
            asyncio.run(self._drain(coroutine))
            return
        task = loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, coroutine: Coroutine[object, object, None]) -> None:
        """Run `coroutine` and whatever it spawns, so a loop made just for it ends empty."""
        await coroutine
        while pending := [task for task in self._tasks if not task.done()]:
            await asyncio.gather(*pending)

    def load(self, path: str | Path) -> None:
        self._spawn(self._load(Path(path)))

    async def _load(self, path: Path) -> None:
        try:
            search = await asyncio.to_thread(lambda: ToolSearch(load_catalog(path)))
        except RoutescopeError as exc:
            self.ready.emit(f"cannot load catalog: {exc}")
            return
        self.search, self._vector_text, self.vector = search, "", None
        problems = f" · {len(search.catalog.problems)} skipped" if search.catalog.problems else ""
        self.ready.emit(
            f"{len(search.catalog.tools)} tools from {path.name}{problems} · vectors: "
            f"{search.semantic_status}"
        )
        self.run()

    def set_text(self, text: str) -> None:
        self.text = text
        self.run()

    def run(self) -> None:
        """Search the current text with the current settings (embedding off the UI thread)."""
        self._generation += 1
        if self.search is None or not self.text.strip():
            return
        if self.search.vector is not None and self._vector_text != self.text:
            self._spawn(self._embed_then_search(self.text, self._generation))
        else:
            self._emit()

    async def _embed_then_search(self, text: str, generation: int) -> None:
        assert self.search is not None
        vector = await asyncio.to_thread(self.search.embed_query, text)
        if generation != self._generation:
            return  # the text changed while embedding: a newer search is on its way
        self.vector, self._vector_text = vector, text
        self._emit()

    def _emit(self) -> None:
        assert self.search is not None
        vector = self.vector if self._vector_text == self.text else None
        self.searched.emit(self.search.search(self.text, self.settings, query_vector=vector))


class _BarDelegate(QStyledItemDelegate):
    """Paints the final score as a bar scaled to the top score, with the number on it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        fraction = index.data(_BAR_ROLE)
        if fraction is None:
            super().paint(painter, option, index)
            return
        rect: QRect = option.rect
        painter.save()
        bar = QRect(
            rect.left() + 2, rect.top() + 3, int((rect.width() - 4) * fraction), rect.height() - 6
        )
        painter.fillRect(bar, QColor("#b39ddb"))
        painter.setPen(QColor("#263238"))
        painter.drawText(rect.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, index.data())
        painter.restore()


class ToolsPanel(QWidget):
    """Renders tool search results; its controls change the controller's settings."""

    def __init__(self, controller: ToolsController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.result: ToolSearchResult | None = None
        controller.ready.connect(self._ready)
        controller.searched.connect(self.show_result)
        self._build()

    def _build(self) -> None:
        self.open_button = QPushButton("Open catalog…")
        self.open_button.clicked.connect(self._choose)
        self.status = QLabel("loading the sample catalog…")
        self.status.setObjectName("muted")
        self.strategy = QComboBox()
        self.strategy.addItems(["auto", "exact", "semantic", "hybrid"])
        self.strategy.currentTextChanged.connect(self._settings_changed)
        self.rrf = self._slider(1, 200, 60)
        self.boosts = {name: self._slider(0, 100, 0) for name in _FIELDS}
        self.reset_button = QPushButton("Canonical boosts")
        self.reset_button.clicked.connect(self._reset_boosts)
        self.pin = QComboBox()
        self.pin.setEditable(True)
        self.pin.setPlaceholderText("why not this tool?")
        self.pin.currentTextChanged.connect(lambda _: self._explain_pin())
        self.pin_text = QLabel("")
        self.pin_text.setWordWrap(True)
        self.pin_text.setObjectName("reason")
        self.header = QLabel("")
        self.header.setWordWrap(True)

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
        self.rrf_label = QLabel("60")
        row.addWidget(self.rrf_label)
        controls.addRow(row)
        boosts = QHBoxLayout()
        self.boost_labels: dict[str, QLabel] = {}
        for name, slider in self.boosts.items():
            self.boost_labels[name] = QLabel("")
            boosts.addWidget(QLabel(name))
            boosts.addWidget(slider, 1)
            boosts.addWidget(self.boost_labels[name])
        boosts.addWidget(self.reset_button)
        controls.addRow(boosts)

        self.table = QTreeWidget()
        self.table.setHeaderLabels(["#", "Tool", "Final", "Keyword", "Vector", "RRF", "Boosts"])
        tips = [
            "rank",
            "tool (category on hover)",
            "final score = RRF + boosts (bar scaled to the top)",
            "rank · BM25 with field boosts (Tantivy)",
            "rank · cosine similarity",
            "sum of 1/(k + rank)",
            "rerank boosts",
        ]
        header = self.table.headerItem()
        for column, tip in enumerate(tips):
            header.setToolTip(column, tip)
        self.table.setItemDelegateForColumn(2, _BarDelegate(self.table))
        self.table.setAlternatingRowColors(True)
        self.table.setColumnWidth(0, 48)
        self.table.setColumnWidth(1, 170)
        self.table.setColumnWidth(2, 130)
        self.table.setColumnWidth(3, 110)
        self.table.setColumnWidth(4, 110)
        self.table.setColumnWidth(5, 70)
        self.table.itemExpanded.connect(lambda _: self.table.resizeColumnToContents(1))

        pin_row = QHBoxLayout()
        pin_row.addWidget(QLabel("Why not:"))
        pin_row.addWidget(self.pin)
        pin_row.addWidget(self.pin_text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.header)
        layout.addWidget(self.table, 1)
        layout.addLayout(pin_row)
        self._reset_boosts()

    def _slider(self, low: int, high: int, value: int) -> QSlider:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(low, high)
        slider.setValue(value)
        slider.valueChanged.connect(self._settings_changed)
        return slider

    def _reset_boosts(self) -> None:
        canonical = {"tool_name": 5.0, "intents": 4.0, "keywords": 3.0, "description": 1.0}
        if self.controller.search is not None:
            canonical = self.controller.search.default_boosts()
        for name, slider in self.boosts.items():
            slider.blockSignals(True)
            slider.setValue(int(canonical[name] * 10))
            slider.blockSignals(False)
        self._settings_changed()

    def _update_labels(self) -> None:
        self.rrf_label.setText(str(self.rrf.value()))
        for name, slider in self.boosts.items():
            self.boost_labels[name].setText(f"{slider.value() / 10:.1f}")

    def _settings_changed(self) -> None:
        self._update_labels()
        self.controller.settings = SearchSettings(
            strategy=self.strategy.currentText(),  # type: ignore[arg-type]
            rrf_k=self.rrf.value(),
            boosts={name: max(slider.value() / 10, 0.01) for name, slider in self.boosts.items()},
        )
        self.controller.run()

    def _choose(self) -> None:
        start = str(resources_root() / "catalog")
        path = QFileDialog.getExistingDirectory(self, "Open a folder of SKILL.md files", start)
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Or a JSON catalog", start, "JSON (*.json)")
        if path:
            self.controller.load(path)

    def _ready(self, message: str) -> None:
        self.status.setText(message)
        search = self.controller.search
        if search is not None:
            current = self.pin.currentText()
            self.pin.blockSignals(True)
            self.pin.clear()
            self.pin.addItems(["", *sorted(t.tool_name for t in search.catalog.tools)])
            self.pin.setCurrentText(current)
            self.pin.blockSignals(False)

    # -- rendering -----------------------------------------------------------------------
    def show_result(self, result: ToolSearchResult) -> None:
        self.result = result
        self.table.clear()
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
        top = result.results[0].score if result.results else 1.0
        for hit in result.results:
            self._row(hit, top)
        self._explain_pin()

    def _row(self, hit: ToolHit, top: float) -> None:
        s = hit.signals
        keyword = f"#{s.keyword.rank} · {s.keyword.score:.2f}" if s.keyword else "—"
        vector = f"#{s.vector.rank} · {s.vector.similarity:.3f}" if s.vector else "—"
        rrf = " + ".join(f"1/({t.k}+{t.rank})" for t in s.rrf)
        short = {"metadata_alignment_boost": "align", "file_discovery_boost": "files"}
        boosts = " ".join(f"+{v:.3f} {short.get(k, k)}" for k, v in s.boosts.items() if v)
        item = QTreeWidgetItem(
            self.table,
            [
                str(hit.rank),
                hit.tool_name,
                f"{hit.score:.4f}",
                keyword,
                vector,
                f"{s.fused:.4f}" if rrf else "0",
                boosts or "—",
            ],
        )
        item.setToolTip(5, f"{s.fused:.5f} = {rrf}" if rrf else "in no list")
        item.setToolTip(6, ", ".join(f"{k} {v:.4f}" for k, v in s.boosts.items()))
        item.setData(2, _BAR_ROLE, hit.score / top if top else 0.0)
        item.setToolTip(1, f"category {hit.category}")
        if hit.tied_with:
            item.setText(0, f"{hit.rank} =")
            item.setToolTip(0, "tied with " + ", ".join(hit.tied_with) + " (broken by name)")
        if s.keyword:
            for field in _FIELDS:
                if field in s.keyword.fields:
                    terms = ", ".join(s.keyword.matched_terms.get(field, []))
                    child = QTreeWidgetItem(
                        item,
                        [
                            "",
                            f"  {field}",
                            "",
                            f"{s.keyword.fields[field]:.2f}",
                            "",
                            "",
                            f"matched: {terms}",
                        ],
                    )
                    child.setForeground(6, QBrush(QColor("#7a3fd1")))
        if s.boost_terms:
            QTreeWidgetItem(
                item, ["", "  rerank", "", "", "", "", "aligned terms: " + ", ".join(s.boost_terms)]
            )

    def _explain_pin(self) -> None:
        name = self.pin.currentText().strip()
        search = self.controller.search
        if not name or search is None or not self.controller.text.strip():
            self.pin_text.setText("")
            return
        vector = (
            self.controller.vector if self.controller._vector_text == self.controller.text else None
        )
        report = why_not(search, self.controller.text, name, self.controller.settings, vector)
        keyword = f"keyword #{report.keyword_rank}" if report.keyword_rank else "keyword: no match"
        cosine = (
            f"vector #{report.vector_rank} (cos {report.similarity:.3f})"
            if report.vector_rank is not None and report.similarity is not None
            else "vector: —"
        )
        final = f"final #{report.final_rank}" if report.final_rank else "not ranked"
        self.pin_text.setText(
            f"<b>{html.escape(name)}</b>: {keyword} · {cosine} · {final} — "
            f"{html.escape(report.reason)}"
        )
