"""The compare view's tool ranks: the tools in A's or B's top ranks, each with its rank on
both sides, how it moved (↑ better in B, ↓ worse, new, dropped) and its scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._style import colour
from ._widgets import enable_copy

if TYPE_CHECKING:
    from routescope.compare import ToolMove

__all__ = ["ToolMoves"]

_MOVES = {"up": "side_b", "down": "side_a", "new": "info", "dropped": "muted", "same": "muted"}
"""The theme's role of each move's text."""


class ToolMoves(QWidget):
    """A note (how many tools, how many moved) over the table of the tools' moves."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tools = QTableWidget(0, 5)
        self.tools.setHorizontalHeaderLabels(["A", "B", "Tool", "Move", "Score A → B"])
        self.tools.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tools.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tools.verticalHeader().setVisible(False)
        self.tools.verticalHeader().setDefaultSectionSize(22)
        self.tools.setAlternatingRowColors(True)
        tool_header = self.tools.horizontalHeader()
        for column in range(5):
            tool_header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        tool_header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        enable_copy(self.tools)
        self.tools_note = QLabel("")
        self.tools_note.setObjectName("muted")
        self.tools_note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.tools_note)
        layout.addWidget(self.tools, 1)

    def show_tools(self, tools: Sequence[ToolMove] | None) -> None:
        if tools is None:
            self.tools.setRowCount(0)
            self.tools_note.setText(
                "No tool search on either side: tick “rank tools”, or compare catalogs."
            )
            return
        moved = sum(move.movement != "same" for move in tools)
        self.tools_note.setText(
            f"{len(tools)} tools in A's or B's top ranks · {moved} moved · "
            "↑ better in B, ↓ worse, new: only in B's, dropped: only in A's"
        )
        self.tools.setRowCount(len(tools))
        for row, move in enumerate(tools):
            cells = [
                "—" if move.rank_a is None else f"#{move.rank_a}",
                "—" if move.rank_b is None else f"#{move.rank_b}",
                move.tool,
                _move(move),
                f"{_score(move.score_a)} → {_score(move.score_b)}",
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column != 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if column == 3:
                    item.setForeground(QBrush(colour(_MOVES[move.movement])))
                    font = QFont(item.font())
                    font.setBold(move.movement != "same")
                    item.setFont(font)
                item.setToolTip(
                    f"{move.tool}: rank in A {cells[0]}, in B {cells[1]} ({move.movement})"
                )
                self.tools.setItem(row, column, item)


def _score(score: float | None) -> str:
    return "—" if score is None else f"{score:.3f}"


def _move(move: ToolMove) -> str:
    if move.movement == "up":
        return f"↑{move.delta}"
    if move.movement == "down":
        return f"↓{-(move.delta or 0)}"
    if move.movement == "same":
        return "="
    return move.movement
