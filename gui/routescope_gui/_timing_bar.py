"""Where the time of one inspection went (as DevTools' request timing): a compact bar beside
the status line, one segment per stage (extract, route, plan, sanitize, lint, decide, task) as
wide as its share of the total, named inside when there is room; its tooltip lists every
stage's µs and share. The colours are the theme's label accents, the same in both schemes."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from ._style import accent
from ._style import colour as role_colour

__all__ = ["STAGE_ACCENTS", "TimingBar", "stage_shares"]

STAGE_ACCENTS = {
    "extract": "entity",
    "route": "tech",
    "plan": "local",
    "sanitize": "time_sensitive",
    "lint": "anchor",
    "decide": "purchase",
    "task": "place",
}
"""Each stage's colour: a label accent of the theme (a stage not named here: the muted one)."""
TOTAL = "total"
"""The key of the whole run's time in `Inspection.timings_us` (not a segment)."""
_WIDTH = 200


def stage_shares(timings: Mapping[str, float]) -> list[tuple[str, float, float]]:
    """(stage, µs, share of the stages' sum) for each stage in order, the total left out."""
    stages = [(name, max(float(us), 0.0)) for name, us in timings.items() if name != TOTAL]
    whole = sum(us for _name, us in stages)
    return [(name, us, us / whole if whole > 0 else 0.0) for name, us in stages]


class TimingBar(QWidget):
    """The stages of the latest inspection as a stacked bar (empty: nothing inspected)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timingBar")
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.shares: list[tuple[str, float, float]] = []
        self.total = 0.0

    def sizeHint(self) -> QSize:
        return QSize(_WIDTH, self.fontMetrics().height() + 2)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def show_timings(self, timings: Mapping[str, float] | None) -> None:
        """The stages' µs of an inspection (None: none to show)."""
        self.shares = stage_shares(timings) if timings else []
        self.total = (
            float(timings.get(TOTAL, sum(us for _n, us, _s in self.shares))) if timings else 0
        )
        rows = "".join(
            f"<tr><td>{name}</td><td align='right'>{us:,.0f} µs</td>"
            f"<td align='right'>{share:.0%}</td></tr>"
            for name, us, share in self.shares
        )
        self.setToolTip(
            f"<b>where the time went</b> — total {self.total:,.0f} µs<table>{rows}</table>"
            if self.shares
            else ""
        )
        summary = ", ".join(f"{name} {us:,.0f} µs" for name, us, _share in self.shares)
        self.setAccessibleName("stage timings")
        self.setAccessibleDescription(summary)
        self.update()

    def segments(self) -> list[tuple[str, QRectF]]:
        """Each stage's rectangle in the bar now (a stage with no time has none)."""
        inner = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        found: list[tuple[str, QRectF]] = []
        x = inner.left()
        for name, _us, share in self.shares:
            width = inner.width() * share
            if width > 0:
                found.append((name, QRectF(x, inner.top(), width, inner.height())))
            x += width
        return found

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        palette = self.palette()
        frame = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.fillRect(frame, palette.color(QPalette.ColorRole.Base))
        metrics = self.fontMetrics()
        for name, box in self.segments():
            known = name in STAGE_ACCENTS
            fill = accent(STAGE_ACCENTS[name]) if known else role_colour("chart_grey")
            painter.fillRect(box, fill)
            for text in (name, name[:1]):
                if metrics.horizontalAdvance(text) + 4 <= box.width():
                    painter.setPen(role_colour("on_accent" if known else "text"))
                    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                    break
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(frame)
