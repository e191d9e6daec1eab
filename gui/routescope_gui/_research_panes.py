"""The room of the Research tab's result panes: the verdict, the attempts, the findings and the
detail pane, one above the other in a column that scrolls as a whole.

Under the tab's controls a 1280×720 window leaves the Research tab about 270 px: shared out
by a splitter, three panes and the verdict got two or three rows each. Each pane keeps its
least rows instead (the best attempt and its pages, the findings, the first lines of the
detail) and the column scrolls when the tab is shorter than they are; in a taller window the
splitter shares out the rest as before. Picking a row scrolls the detail pane into sight with
it. The column's scroll area, not the tab, absorbs what
the panes ask for: the tabs (`SteadyTabs`) do not relay a page's new size hint, and a page
taller than its tab laid its panes over each other.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QFrame,
    QScrollArea,
    QTextEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

__all__ = [
    "ATTEMPT_ROWS",
    "DETAIL_LINES",
    "FINDING_ROWS",
    "PaneColumn",
    "least_text_height",
    "least_tree_height",
    "row_height",
]

ATTEMPT_ROWS = 6
"""Rows of the attempts always in sight: the best attempt and the five pages it read."""
FINDING_ROWS = 5
"""Rows of the findings always in sight (a run keeps five)."""
DETAIL_LINES = 8
"""Lines of the detail pane always in sight: a page's evidence up to its nearest passage."""


def row_height(tree: QTreeWidget) -> int:
    """A row's height: the first row's, or a line before there is one."""
    line = tree.fontMetrics().height()
    return max(tree.sizeHintForRow(0), line) if tree.topLevelItemCount() else line


def least_tree_height(tree: QTreeWidget, rows: int) -> int:
    """The height that shows `rows` rows of `tree` under its header."""
    return tree.header().sizeHint().height() + rows * row_height(tree) + 2 * tree.frameWidth()


def least_text_height(text: QTextEdit, lines: int) -> int:
    """The height that shows `lines` lines of `text`."""
    margin = int(text.document().documentMargin())
    return lines * text.fontMetrics().lineSpacing() + 2 * (margin + text.frameWidth())


class PaneColumn(QScrollArea):
    """A column of panes that scrolls vertically as a whole when it is shorter than their
    least heights (its width is always the tab's: nothing scrolls sideways)."""

    def __init__(self, column: QWidget) -> None:
        super().__init__()
        self.setObjectName("researchPanes")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)  # the column fills it, down to its least height
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(column)

    def to_top(self) -> None:
        self.verticalScrollBar().setValue(0)

    def bring_in_below(self, tree: QTreeWidget, item: QTreeWidgetItem, below: QWidget) -> None:
        """Scroll the column down (as little as it takes) so `below` comes into sight whole,
        or as much of it as fits with `item`, the row of `tree` just picked, still at the top:
        what the row spells out is seen as it is picked."""
        column = self.widget()
        bar = self.verticalScrollBar()
        if column is None or bar.maximum() == 0:
            return
        row_top = tree.viewport().mapTo(column, tree.visualItemRect(item).topLeft()).y()
        wanted = below.mapTo(column, QPoint(0, 0)).y() + below.height()
        bottom = bar.value() + self.viewport().height()
        if wanted > bottom:
            bar.setValue(max(bar.value(), min(bar.value() + wanted - bottom, row_top)))
