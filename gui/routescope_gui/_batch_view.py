"""The batch view: a log routed by `routescope batch` in the background, with progress and
Cancel, then its report — the leak checks first, then the figures as bar charts. Clicking a bar
or a leak check lists the prompts behind it; any of them opens in the live view. Mirrors
`routescope.batch`; the session runs the batches and reads the reports."""

from __future__ import annotations

import html
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ._catalog_dialog import choose_catalog
from ._style import CLASS_COLOURS, INK, LABELS, STRATEGY_COLOURS
from ._widgets import HeaderedTableModel, enable_copy

if TYPE_CHECKING:
    from routescope.batch import (
        Bar,
        BatchProgress,
        BatchSummary,
        Distribution,
        LeakCheck,
        PromptRef,
        Report,
        StageLatency,
    )

__all__ = [
    "BarChart",
    "BatchView",
    "ChartBar",
    "LatencyChart",
    "LeakCard",
    "PromptTableModel",
    "default_results",
]

BLUE = "#3b6ea8"
ORANGE = "#d9822b"
GREY = "#9aa5b1"
MUTED = "#607d8b"
RED = "#c62828"
GREEN = "#2e7d32"
_SPECIAL = {"(none)": GREY, "(contract off)": GREY, "(no tool fits)": ORANGE}
"""The report's labels for "nothing" (`routescope.batch` names them so): grey, and orange for
prompts no tool fits."""
_LOGS = "Logs (*.jsonl *.ndjson *.json *.csv *.tsv *.txt *.log *.gz);;All files (*)"
_RESULTS = "Results (*.jsonl *.jsonl.gz *.ndjson *.parquet);;All files (*)"
_HINT = "Open a log and press Run, or open the results of a batch to read its report."
_PICK = "Click a bar or a leak check to list the prompts behind it."

_STYLE = """
QFrame#leakCard {
    background: white; border: 1px solid #dde1e6; border-radius: 8px; padding: 2px;
}
QFrame#leakCard[tone="clean"] { background: #f3faf4; border: 1px solid #b7dfbf; }
QFrame#leakCard[tone="leak"] { background: #fdf0f0; border: 1px solid #ef9a9a; }
QFrame#leakCard[tone="clean-selected"] { background: #f3faf4; border: 2px solid #2f6fdb; }
QFrame#leakCard[tone="leak-selected"] { background: #fdf0f0; border: 2px solid #2f6fdb; }
QLabel#leakCount { font-size: 22px; font-weight: 700; }
QLabel#leakCount[tone="clean"] { color: #2e7d32; }
QLabel#leakCount[tone="leak"] { color: #c62828; }
QLabel#leakTitle { font-weight: 600; color: #263238; }
QFrame#chartCard { background: white; border: 1px solid #dde1e6; border-radius: 8px; }
QLabel#chartTitle { font-weight: 600; color: #37474f; }
QLabel#chartNote, QLabel#leakDetail { color: #607d8b; }
QLabel#batchHint { color: #607d8b; font-size: 14px; padding: 40px; }
"""


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


def _micros(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f} s"
    if value >= 1_000:
        return f"{value / 1_000:.1f} ms"
    return f"{value:.0f} µs" if value >= 10 else f"{value:.1f} µs"


def _where(ref: PromptRef) -> str:
    return f"{Path(ref.source).name}:{ref.line}"


def _share(share: float) -> str:
    if 0 < share < 0.01:
        return "<1 %"
    return f"{share:.0%}".replace("%", " %")


# -- the charts ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChartBar:
    """One bar: its label, count, share of the figure's total and colour."""

    label: str
    count: int
    share: float
    colour: str = BLUE


class BarChart(QWidget):
    """Horizontal bars, the most frequent on top, each ending in "count (share)". The first
    `LIMIT` bars show, and a last row expands the rest. A click, or the arrow keys once it has
    the focus, selects a bar.

    Signals:
        bar_clicked: emitted with the index of the bar selected.
    """

    bar_clicked = Signal(int)

    ROW = 22
    LIMIT = 10
    _GAP = 8

    def __init__(self, key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.bars: list[ChartBar] = []
        self.selected = -1
        self.expanded = False
        self._hover = -1
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_bars(self, bars: Sequence[ChartBar]) -> None:
        self.bars = list(bars)
        self.selected = self._hover = -1
        self.expanded = False
        self.updateGeometry()
        self.update()

    @property
    def shown(self) -> int:
        """How many bars show (the others wait for the last row's "more")."""
        return len(self.bars) if self.expanded else min(len(self.bars), self.LIMIT)

    @property
    def foldable(self) -> bool:
        return len(self.bars) > self.LIMIT

    def set_expanded(self, expanded: bool) -> None:
        if expanded != self.expanded and self.foldable:
            self.expanded = expanded
            if not expanded and self.selected >= self.LIMIT:
                self.selected = -1
            self.updateGeometry()
            self.update()

    def select(self, index: int) -> None:
        """Mark a bar as selected (-1: none), without telling anyone; a folded one unfolds."""
        if index >= self.LIMIT:
            self.set_expanded(True)
        if index != self.selected:
            self.selected = index
            self.update()

    def sizeHint(self) -> QSize:
        rows = max(1, self.shown) + (1 if self.foldable else 0)
        return QSize(320, rows * self.ROW + 4)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.sizeHint().height())

    def bar_rect(self, index: int) -> QRect:
        """The row of bar `index` (label, bar and numbers); the fold row follows the bars."""
        return QRect(0, 2 + index * self.ROW, self.width(), self.ROW)

    def fold_rect(self) -> QRect:
        return self.bar_rect(self.shown)

    def bar_at(self, y: float) -> int:
        index = math.floor((y - 2) / self.ROW)
        return index if 0 <= index < self.shown and y >= 2 else -1

    def _value_text(self, bar: ChartBar) -> str:
        return f"{bar.count:,}  ({_share(bar.share)})"

    def _fold_text(self) -> str:
        if self.expanded:
            return "▴ show the first ten"
        hidden = self.bars[self.LIMIT :]
        return f"▸ {len(hidden)} more ({sum(bar.count for bar in hidden):,})"

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.font())
        if not self.bars:
            painter.setPen(QColor(MUTED))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "nothing to show")
            return
        bars = self.bars[: self.shown]
        width = self.width()
        bold = QFont(self.font())
        bold.setBold(True)
        wide = QFontMetrics(bold)  # a selected label is bold: room for it
        label_width = min(int(width * 0.4), max(wide.horizontalAdvance(b.label) for b in bars) + 4)
        value_width = max(metrics.horizontalAdvance(self._value_text(b)) for b in bars)
        left = label_width + self._GAP
        room = max(10, width - left - value_width - 2 * self._GAP)
        top = max(max(b.count for b in bars), 1)
        for index, bar in enumerate(bars):
            row = self.bar_rect(index)
            if index == self.selected:
                painter.fillRect(row, QColor("#dbe9fb"))
            elif index == self._hover:
                painter.fillRect(row, QColor("#f0f4f8"))
            painter.setPen(QColor(INK))
            chosen = index == self.selected
            painter.setFont(bold if chosen else self.font())
            label = (wide if chosen else metrics).elidedText(
                bar.label, Qt.TextElideMode.ElideMiddle, label_width
            )
            painter.drawText(
                QRect(0, row.top(), label_width, row.height()),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )
            painter.setFont(self.font())
            length = max(2.0, room * bar.count / top) if bar.count else 0.0
            shape = QRectF(left, row.top() + 4, length, row.height() - 8)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(bar.colour))
            painter.drawRoundedRect(shape, 2, 2)
            painter.setPen(QColor(MUTED))
            painter.drawText(
                QRect(int(left + length + self._GAP), row.top(), value_width + 4, row.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self._value_text(bar),
            )
        if self.foldable:
            fold = self.fold_rect()
            if self._hover == _FOLD:
                painter.fillRect(fold, QColor("#f0f4f8"))
            painter.setPen(QColor("#2f6fdb"))
            painter.drawText(
                fold.adjusted(left, 0, 0, 0),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self._fold_text(),
            )
        if self.hasFocus() and 0 <= self.selected < self.shown:
            painter.setPen(QColor("#2f6fdb"))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.bar_rect(self.selected).adjusted(0, 0, -1, -1))

    def _target(self, y: float) -> int:
        """The bar at `y`, `_FOLD` for the fold row, -1 for nothing."""
        if self.foldable and self.fold_rect().top() <= y < self.fold_rect().bottom():
            return _FOLD
        return self.bar_at(y)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        target = self._target(event.position().y())
        if target == self._hover:
            return
        self._hover = target
        pointing = target >= 0 or target == _FOLD
        self.setCursor(
            Qt.CursorShape.PointingHandCursor if pointing else Qt.CursorShape.ArrowCursor
        )
        if target >= 0:
            bar = self.bars[target]
            self.setToolTip(
                f"{bar.label}: {bar.count:,} ({_share(bar.share)}) — click to list its prompts"
            )
        else:
            self.setToolTip("")
        self.update()

    def leaveEvent(self, event: QEvent) -> None:
        self._hover = -1
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        target = self._target(event.position().y())
        if target == _FOLD:
            self.set_expanded(not self.expanded)
        elif target >= 0:
            self._choose(target)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.bars:
            step = 1 if key == Qt.Key.Key_Down else -1
            last = len(self.bars) - 1  # moving past the tenth unfolds the rest
            start = self.selected if self.selected >= 0 else (-1 if step > 0 else self.shown)
            self._choose(min(max(start + step, 0), last))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.bars:
            self._choose(max(self.selected, 0))
        else:
            super().keyPressEvent(event)

    def _choose(self, index: int) -> None:
        self.select(index)
        self.bar_clicked.emit(index)


_FOLD = -2
"""`BarChart`'s fold row ("▸ 10 more"), as a hover target."""


class LatencyChart(QWidget):
    """p50 and p95 per stage on a log scale of microseconds, the numbers beside them."""

    ROW = 26

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stages: list[StageLatency] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_stages(self, stages: Sequence[StageLatency]) -> None:
        self.stages = list(stages)
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(320, max(1, len(self.stages)) * self.ROW + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        metrics = QFontMetrics(self.font())
        if not self.stages:
            painter.setPen(QColor(MUTED))
            painter.drawText(
                self.rect(), Qt.AlignmentFlag.AlignCenter, "no timings (run with timings on)"
            )
            return
        label_width = max(metrics.horizontalAdvance(s.stage) for s in self.stages) + 4
        texts = [f"p50 {_micros(s.p50)} · p95 {_micros(s.p95)}" for s in self.stages]
        value_width = max(metrics.horizontalAdvance(text) for text in texts)
        left = label_width + 8
        room = max(10, self.width() - left - value_width - 16)
        low = 1.0  # 1 µs: the scale's left end
        high = max(max(s.p95 for s in self.stages), 10.0) * 1.5

        def length(value: float) -> float:
            return room * math.log(max(value, low) / low) / math.log(high / low)

        for index, (stage, text) in enumerate(zip(self.stages, texts, strict=True)):
            top = 2 + index * self.ROW
            painter.setPen(QColor(INK))
            painter.drawText(
                QRect(0, top, label_width, self.ROW),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                stage.stage,
            )
            half = (self.ROW - 8) // 2
            painter.fillRect(QRectF(left, top + 4, length(stage.p50), half), QColor(BLUE))
            painter.fillRect(QRectF(left, top + 4 + half, length(stage.p95), half), QColor(ORANGE))
            painter.setPen(QColor(MUTED))
            end = int(left + length(stage.p95) + 8)
            painter.drawText(
                QRect(end, top, value_width + 4, self.ROW),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )


class LeakCard(QFrame):
    """One leak check: how many offending queries, in how many prompts. Green when none, red
    otherwise; a click (or Space/Enter once focused) asks to list its findings.

    Signals:
        clicked: the analyst picked this check.
    """

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("leakCard")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.check: LeakCheck | None = None
        self.count = QLabel("—")
        self.count.setObjectName("leakCount")
        self.title = QLabel("")
        self.title.setObjectName("leakTitle")
        self.title.setWordWrap(True)
        self.detail = QLabel("")
        self.detail.setObjectName("leakDetail")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.count)
        text = QVBoxLayout()
        text.setSpacing(0)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        layout.addLayout(text, 1)
        self._selected = False

    def show_check(self, check: LeakCheck) -> None:
        self.check = check
        self.count.setText(f"{check.count:,}")
        self.title.setText(check.title)
        if check.count:
            self.detail.setText(
                f"in {check.prompts:,} prompt{'s' if check.prompts != 1 else ''} · click to list"
            )
        else:
            self.detail.setText("none found")
        self.setToolTip(f"{check.rule}: {check.description}")
        self.set_selected(False)

    @property
    def selected(self) -> bool:
        return self._selected

    def set_selected(self, selected: bool) -> None:
        self._selected = selected
        tone = "leak" if self.check is not None and self.check.count else "clean"
        _polish(self, f"{tone}-selected" if selected else tone)
        _polish(self.count, tone)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.clicked.emit()
        else:
            super().keyPressEvent(event)


def _polish(widget: QWidget, tone: str) -> None:
    if widget.property("tone") == tone:
        return
    widget.setProperty("tone", tone)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


# -- the prompts behind a figure -----------------------------------------------------------------
_Index = QModelIndex | QPersistentModelIndex
_BAR_HEADERS = ("Where", "Prompt")
_LEAK_HEADERS = ("Where", "Strategy", "Offending", "Query", "Prompt")


@dataclass(frozen=True, slots=True)
class _PromptRow:
    ref: PromptRef
    cells: tuple[str, ...]
    tips: tuple[str, ...]


class PromptTableModel(HeaderedTableModel):
    """The prompts behind the bar or leak check picked: where each came from and its text (a
    leak's offending query too)."""

    HEADERS: tuple[str, ...] = _BAR_HEADERS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[_PromptRow] = []

    def show_bar(self, bar: Bar) -> None:
        self._set(
            _BAR_HEADERS,
            [
                _PromptRow(ref, (_where(ref), _flat(ref.prompt)), (ref.source, ref.prompt))
                for ref in bar.examples
            ],
        )

    def show_leak(self, check: LeakCheck) -> None:
        rows = []
        for finding in check.findings:
            ref = finding.ref
            offending = finding.query[finding.start : finding.end]
            rows.append(
                _PromptRow(
                    ref,
                    (_where(ref), finding.strategy, offending, finding.query, _flat(ref.prompt)),
                    (ref.source, finding.detail, offending, finding.query, ref.prompt),
                )
            )
        self._set(_LEAK_HEADERS, rows)

    def clear(self) -> None:
        self._set(_BAR_HEADERS, [])

    def _set(self, headers: tuple[str, ...], rows: list[_PromptRow]) -> None:
        self.beginResetModel()
        self.HEADERS = headers
        self.rows = rows
        self.endResetModel()

    def ref(self, row: int) -> PromptRef | None:
        return self.rows[row].ref if 0 <= row < len(self.rows) else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.cells[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tips[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and self.HEADERS[index.column()] == "Offending":
            return QBrush(QColor(RED))
        return None


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- the view -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Figure:
    key: str
    title: str
    colours: Mapping[str, str]


_INTENT_COLOURS = {name: accent for name, (_fill, accent) in LABELS.items()}
_FIGURES = (
    _Figure("strategies", "Strategy", STRATEGY_COLOURS),
    _Figure("lint_classes", "Query linter class", CLASS_COLOURS),
    _Figure("intents", "Intent flags (prompts with each flag on)", _INTENT_COLOURS),
    _Figure("agents", "Contract agent", {}),
    _Figure("modes", "Contract mode", {}),
    _Figure("task_routes", "Task route", {}),
    _Figure("top_tools", "Top-1 tool", {}),
    _Figure("intent_sets", "Intent flags that come on together", {}),
    _Figure("entities", "Top entities (prompts naming each)", {}),
)
_ORDER = (
    "strategies",
    "lint_classes",
    "intents",
    "agents",
    "modes",
    "top_tools",
    "task_routes",
    "latency",
    "intent_sets",
    "entities",
)
"""The charts in the order they are laid out, row by row: short figures first."""


class ChartGrid(QWidget):
    """Cards in as many columns as fit (one to three), each put under the column that is
    shortest so far: cards of uneven heights leave no holes, and the first ones lead."""

    COLUMN_WIDTH = 380
    MAX_COLUMNS = 3
    SPACING = 10

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[QWidget] = []
        self.columns = 0
        self.stacks: list[QVBoxLayout] = []
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(self.SPACING)

    def add(self, card: QWidget) -> None:
        self.cards.append(card)
        self.reflow()

    def reflow(self) -> None:
        """Lay the cards out again (their heights changed)."""
        self.columns = 0
        self._flow(self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._flow(event.size().width())

    def _flow(self, width: int) -> None:
        columns = max(1, min(self.MAX_COLUMNS, width // self.COLUMN_WIDTH))
        if columns == self.columns:
            return
        self.columns = columns
        for stack in self.stacks:
            for card in self.cards:
                stack.removeWidget(card)
            self._row.removeItem(stack)
            stack.deleteLater()
        self.stacks = []
        for _ in range(columns):
            stack = QVBoxLayout()
            stack.setSpacing(self.SPACING)
            self._row.addLayout(stack, 1)
            self.stacks.append(stack)
        heights = [0] * columns
        for card in self.cards:
            column = heights.index(min(heights))
            self.stacks[column].addWidget(card)
            heights[column] += card.sizeHint().height() + self.SPACING
        for stack in self.stacks:
            stack.addStretch(1)


class BatchView(QWidget):
    """Runs a batch (through the session) and renders its progress and its `Report`.

    Attributes:
        report: the report shown (None: none yet); summary: its batch's `BatchSummary` (None:
            results opened as they are); charts: the bar charts by figure key.

    Signals:
        run_requested: emitted with (log, results file, catalog or "", workers).
        cancel_requested: the analyst asks to stop the batch (its results stay resumable).
        open_results_requested: emitted with a results file to read the report of.
        open_prompt_requested: emitted with a `PromptRef` to open in the live view.
    """

    run_requested = Signal(str, str, str, int)
    cancel_requested = Signal()
    open_results_requested = Signal(str)
    open_prompt_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(_STYLE)
        self.report: Report | None = None
        self.summary: BatchSummary | None = None
        self.error = ""
        self._running = False
        self._default_out = ""
        self._stopped_out = ""
        """The results file a cancelled batch left (Run continues it)."""
        self._build_inputs()
        self._build_report()
        self._build_prompts()
        self._lay_out()
        self._show_report_area(False)
        self._enable()

    # -- construction ------------------------------------------------------------------------
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
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self.progress_bar.setTextVisible(True)
        self.status = QLabel(_HINT)
        self.status.setObjectName("muted")
        self.status.setTextFormat(Qt.TextFormat.RichText)

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
        self.leak_cards: list[LeakCard] = []
        self.leak_box = QWidget()
        self.leak_row = QHBoxLayout(self.leak_box)
        self.leak_row.setContentsMargins(0, 0, 0, 0)
        self.charts: dict[str, BarChart] = {}
        self.chart_notes: dict[str, QLabel] = {}
        self.cards: dict[str, QFrame] = {}
        self.latency = LatencyChart()
        self.latency_note = QLabel("")
        self.latency_note.setTextFormat(Qt.TextFormat.RichText)
        self.grid = ChartGrid()
        for key in _ORDER:
            if key == "latency":
                card = self._card("Latency per stage", self.latency_note, self.latency)
            else:
                card = self._chart_card(next(f for f in _FIGURES if f.key == key))
            self.cards[key] = card
            self.grid.add(card)
        page = QWidget()
        page.setObjectName("central")
        layout = QVBoxLayout(page)
        layout.setSpacing(6)
        self.hint = QLabel(_HINT)
        self.hint.setObjectName("batchHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        for widget in (self.hint, self.headline, self.note, self.leak_summary, self.leak_box):
            layout.addWidget(widget)
        layout.addWidget(self.grid)
        layout.addStretch(1)
        self.report_page = page
        self.report_scroll = QScrollArea()
        self.report_scroll.setWidgetResizable(True)
        self.report_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.report_scroll.setWidget(page)

    @staticmethod
    def _card(title: str, note: QLabel, chart: QWidget) -> QFrame:
        card = QFrame()
        card.setObjectName("chartCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(1)
        heading = QLabel(title)
        heading.setObjectName("chartTitle")
        note.setObjectName("chartNote")
        note.setWordWrap(True)
        layout.addWidget(heading)
        layout.addWidget(note)
        layout.addSpacing(4)
        layout.addWidget(chart)
        layout.addStretch(1)
        return card

    def _chart_card(self, figure: _Figure) -> QFrame:
        note = QLabel("")
        chart = BarChart(figure.key)
        chart.bar_clicked.connect(lambda index, key=figure.key: self.pick_bar(key, index))
        self.charts[figure.key] = chart
        self.chart_notes[figure.key] = note
        return self._card(figure.title, note, chart)

    def _build_prompts(self) -> None:
        self.caption = QLabel(_PICK)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.prompt_model = PromptTableModel(self)
        table = QTableView()
        table.setModel(self.prompt_model)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(24)
        table.horizontalHeader().setStretchLastSection(True)
        enable_copy(table)
        table.activated.connect(self._open_index)  # a double click, or Enter
        table.selectionModel().selectionChanged.connect(lambda *_args: self._enable())
        self.prompts = table
        self.live_button = QPushButton("Open in live view")
        self.live_button.setToolTip("inspect the selected prompt live, on its batch's date")
        self.live_button.clicked.connect(self._open_selected)

    def _lay_out(self) -> None:
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
        progress = QHBoxLayout()
        progress.addWidget(self.progress_bar, 1)
        progress.addWidget(self.status, 3)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 4, 0, 0)
        heading = QHBoxLayout()
        heading.addWidget(self.caption, 1)
        heading.addWidget(self.live_button)
        bottom_layout.addLayout(heading)
        bottom_layout.addWidget(self.prompts, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("batch")
        self.splitter.addWidget(self.report_scroll)
        self.splitter.addWidget(bottom)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([420, 230])
        layout = QVBoxLayout(self)
        layout.addLayout(inputs)
        layout.addLayout(progress)
        layout.addWidget(self.splitter, 1)

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
        self.live_button.setEnabled(self.selected_ref() is not None)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.error = text if error else ""
        colour = RED if error else MUTED
        self.status.setText(f"<span style='color:{colour}'>{html.escape(text)}</span>")
        self.status.setToolTip(text)

    # -- what the session reports ----------------------------------------------------------
    def show_started(self, log: str, out: str) -> None:
        self._running = True
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self._set_status(f"Reading {Path(log).name}: planning the work…")
        self.hint.setText(f"Routing {Path(log).name}: its report shows here once it is done.")
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
        self.hint.setText("Continue the batch to read its report, or open the results of another.")
        self._enable()

    def show_error(self, message: str) -> None:
        self._running = False
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat("")
        self._set_status(message, error=True)
        self.hint.setText(_HINT)
        self._enable()

    def show_note(self, note: str) -> None:
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def show_result(self, summary: BatchSummary | None, report: Report) -> None:
        """A batch finished (`summary`), or results were opened (None): render the report."""
        self.summary, self.report = summary, report
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
        self.headline.setText(self._headline(summary, report))
        self._fill_leaks(report)
        for figure in _FIGURES:
            self._fill_chart(figure, getattr(report, figure.key))
        self._fill_latency(report)
        self.grid.reflow()
        self.prompt_model.clear()
        self.caption.setText(_PICK)
        self._show_report_area(True)
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
            parts.append(f"<span style='color:{RED}'>{report.failed.total:,} not routed</span>")
        parts.append(f"<span style='color:{MUTED}'>{html.escape(source)}</span>")
        return " · ".join(parts)

    def _show_report_area(self, shown: bool) -> None:
        self.hint.setVisible(not shown)
        for widget in (self.headline, self.leak_summary, self.leak_box, self.grid):
            widget.setVisible(shown)
        if not shown:
            self.note.setVisible(False)

    def _fill_leaks(self, report: Report) -> None:
        while len(self.leak_cards) < len(report.leaks):
            card = LeakCard()
            number = len(self.leak_cards)
            card.clicked.connect(lambda number=number: self.pick_leak(number))
            self.leak_cards.append(card)
            self.leak_row.addWidget(card, 1)
        for card, check in zip(self.leak_cards, report.leaks, strict=False):
            card.show_check(check)
        total = report.leak_count
        if total:
            self.leak_summary.setText(
                f"<b>Leak checks</b> — <span style='color:{RED}'><b>{total:,} offending "
                f"queries</b> in {report.leak_prompts:,} prompts</span> break the routers' "
                "promises"
            )
        else:
            self.leak_summary.setText(
                f"<b>Leak checks</b> — <span style='color:{GREEN}'><b>no leaks</b></span>: "
                "every planned query keeps the routers' promises"
            )

    def _fill_chart(self, figure: _Figure, distribution: Distribution) -> None:
        chart = self.charts[figure.key]
        colours = figure.colours
        chart.set_bars(
            [
                ChartBar(
                    bar.label,
                    bar.count,
                    bar.share,
                    colours.get(bar.label) or _SPECIAL.get(bar.label, BLUE),
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
                f"{report.no_fit:,} ({_share(share)})"
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
            f"<span style='color:{BLUE}'>■</span> p50 &nbsp; "
            f"<span style='color:{ORANGE}'>■</span> p95 &nbsp; microseconds, log scale"
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
        title = next(f.title for f in _FIGURES if f.key == key).split(" (")[0]
        listed = len(bar.examples)
        more = (
            "all listed"
            if listed >= bar.count
            else f"the first {listed:,} are listed (a report keeps the first few of each bar)"
        )
        self.caption.setText(
            f"<b>{html.escape(title)}: {html.escape(bar.label)}</b> — {bar.count:,} "
            f"{distribution.of} ({_share(bar.share)}); {more}. Double-click one to inspect it live."
        )
        self._after_pick()

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
        self.caption.setText(text)
        self._after_pick()

    def _clear_picks(self, keep: str = "") -> None:
        for key, chart in self.charts.items():
            if key != keep:
                chart.select(-1)
        for card in self.leak_cards:
            if card.selected:
                card.set_selected(False)

    def _after_pick(self) -> None:
        if self.prompt_model.rowCount():
            self.prompts.selectRow(0)
        self._fit_columns()
        self._enable()

    def _fit_columns(self) -> None:
        """The last column (the prompt) takes the room left; the others fit their text, up to
        a third of the table each."""
        header = self.prompts.horizontalHeader()
        last = self.prompt_model.columnCount() - 1
        for column in range(last + 1):
            mode = (
                QHeaderView.ResizeMode.Stretch
                if column == last
                else QHeaderView.ResizeMode.Interactive
            )
            header.setSectionResizeMode(column, mode)
        self.prompts.resizeColumnsToContents()
        widest = max(120, self.prompts.viewport().width() // 3)
        for column in range(last):
            header.resizeSection(column, min(header.sectionSize(column) + 8, widest))

    def selected_ref(self) -> PromptRef | None:
        index = self.prompts.currentIndex()
        if not index.isValid() or not self.prompts.selectionModel().isRowSelected(index.row()):
            return None
        return self.prompt_model.ref(index.row())

    def _open_index(self, index: QModelIndex) -> None:
        ref = self.prompt_model.ref(index.row())
        if ref is not None:
            self.open_prompt_requested.emit(ref)

    def _open_selected(self) -> None:
        ref = self.selected_ref()
        if ref is not None:
            self.open_prompt_requested.emit(ref)
