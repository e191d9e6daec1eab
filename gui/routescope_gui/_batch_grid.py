"""The Batch view's figures and the cards they sit in: which figure each card shows, in what
order, and the grid that lays the cards out in as many columns as fit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ._style import CLASS_COLOURS, LABELS, STRATEGY_COLOURS

__all__ = ["FIGURES", "ORDER", "ChartGrid", "Figure", "chart_card"]


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure of the report: its `Report` attribute, its card's title, its labels' colours."""

    key: str
    title: str
    colours: Mapping[str, str]


_INTENT_COLOURS = {name: accent for name, (_fill, accent) in LABELS.items()}
FIGURES = (
    Figure("strategies", "Strategy", STRATEGY_COLOURS),
    Figure("lint_classes", "Query linter class", CLASS_COLOURS),
    Figure("intents", "Intent flags (prompts with each flag on)", _INTENT_COLOURS),
    Figure("agents", "Contract agent", {}),
    Figure("modes", "Contract mode", {}),
    Figure("task_routes", "Task route", {}),
    Figure("top_tools", "Top-1 tool", {}),
    Figure("intent_sets", "Intent flags that come on together", {}),
    Figure("entities", "Top entities (prompts naming each)", {}),
)
ORDER = (
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


def chart_card(title: str, note: QLabel, chart: QWidget) -> QFrame:
    """A card: the figure's title, its note (what it counts) and its chart."""
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
