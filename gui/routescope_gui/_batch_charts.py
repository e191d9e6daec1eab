"""The Batch view's charts, painted by hand: a figure's bars, most frequent first (the first ten,
a last row unfolding the rest), and the latency of each stage on a log scale."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from ._style import colour, named_colour

if TYPE_CHECKING:
    from routescope.batch import StageLatency

__all__ = ["BarChart", "ChartBar", "LatencyChart", "share_text"]


def _micros(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f} s"
    if value >= 1_000:
        return f"{value / 1_000:.1f} ms"
    return f"{value:.0f} µs" if value >= 10 else f"{value:.1f} µs"


def share_text(share: float) -> str:
    """A share as "12 %": a sliver reads "<1 %", not a 0 % that would hide it."""
    if 0 < share < 0.01:
        return "<1 %"
    return f"{share:.0%}".replace("%", " %")


@dataclass(frozen=True, slots=True)
class ChartBar:
    """One bar: its label, count, share of the figure's total and colour (a theme's role or a
    colour: `named_colour`)."""

    label: str
    count: int
    share: float
    colour: str = "chart_blue"


def bar_length(bar: ChartBar, room: float) -> float:
    """A bar's length in `room` pixels: its share of the card's whole ("of 2,049 prompts"), so
    that bars of different cards compare — 9 % of the prompts never draws as long as 97 % —
    and at least 2 px when it counts anything."""
    return max(2.0, room * min(bar.share, 1.0)) if bar.count else 0.0


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
        return f"{bar.count:,}  ({share_text(bar.share)})"

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
            painter.setPen(colour("muted"))
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
        for index, bar in enumerate(bars):
            row = self.bar_rect(index)
            if index == self.selected:
                painter.fillRect(row, colour("chart_selected"))
            elif index == self._hover:
                painter.fillRect(row, colour("chart_hover"))
            painter.setPen(colour("text"))
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
            length = bar_length(bar, room)
            shape = QRectF(left, row.top() + 4, length, row.height() - 8)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(named_colour(bar.colour))
            painter.drawRoundedRect(shape, 2, 2)
            painter.setPen(colour("muted"))
            painter.drawText(
                QRect(int(left + length + self._GAP), row.top(), value_width + 4, row.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self._value_text(bar),
            )
        if self.foldable:
            fold = self.fold_rect()
            if self._hover == _FOLD:
                painter.fillRect(fold, colour("chart_hover"))
            painter.setPen(colour("link"))
            painter.drawText(
                fold.adjusted(left, 0, 0, 0),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                self._fold_text(),
            )
        if self.hasFocus() and 0 <= self.selected < self.shown:
            painter.setPen(colour("focus"))
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
                f"{bar.label}: {bar.count:,} ({share_text(bar.share)}) — click to list its prompts"
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
            painter.setPen(colour("muted"))
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
            painter.setPen(colour("text"))
            painter.drawText(
                QRect(0, top, label_width, self.ROW),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                stage.stage,
            )
            half = (self.ROW - 8) // 2
            painter.fillRect(QRectF(left, top + 4, length(stage.p50), half), colour("chart_blue"))
            painter.fillRect(
                QRectF(left, top + 4 + half, length(stage.p95), half), colour("chart_orange")
            )
            painter.setPen(colour("muted"))
            end = int(left + length(stage.p95) + 8)
            painter.drawText(
                QRect(end, top, value_width + 4, self.ROW),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
