"""The tool ranking's columns fitted to the table's width, so it never scrolls sideways: the
rank, the tool (with the step that placed it), the final score's bar and what moved the score
(the Why column) are always in sight; the detail columns after them — keyword and vector
signals, the fusion, the boosts — are shown while they fit and give way otherwise (their
figures stay in the equation under each row and in the tips). In a narrow table the bar
and the Why column narrow in turn (`_GIVING_WAY`), the tool's name last (elided in the
middle)."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from ._toolsearch_hits import WHY

__all__ = ["explained_width", "fit_columns"]

_RANK = 48
"""The rank column (the arrow that opens a row, and "10 =")."""
_NAME = (110, 260)
"""The tool column fits the longest name shown, within these widths (longer names are elided
in the middle, in full on hover)."""
_BAR = (80, 190)
_WHY = (96, 420)
"""The Why column's least width, and the most its text asks for (it takes what is left)."""
_WHY_BESIDE = 300
"""Beside the steps, the ranking asks for room for this much of the Why column."""

_GIVING_WAY = (("bar", 120), ("why", 240), ("bar", _BAR[0]), ("why", _WHY[0]), ("name", _NAME[0]))
"""What gives way in a narrow table, in turn and down to how much: the bar to 120 px, the Why
column to 240, the bar to its least, the Why column to its least, the tool's name last."""
_DETAILS = ((3, 88), (4, 88), (5, 70), (6, 110))
"""The detail columns, in the order they are given room: keyword, vector, fused, boosts."""
_PAD = 16


def _rows(table: QTreeWidget) -> Iterator[QTreeWidgetItem]:
    """The top-level rows, and the children of those open."""
    for n in range(table.topLevelItemCount()):
        row = table.topLevelItem(n)
        if row is None:
            continue
        yield row
        if row.isExpanded():
            children = (row.child(i) for i in range(row.childCount()))
            yield from (child for child in children if child is not None)


def _wanted(table: QTreeWidget, column: int, bounds: tuple[int, int]) -> int:
    metrics = table.fontMetrics()
    longest = max((metrics.horizontalAdvance(row.text(column)) for row in _rows(table)), default=0)
    low, high = bounds
    return min(high, max(low, longest + _PAD))


def explained_width(table: QTreeWidget) -> int:
    """The width of the table that shows the rank, the whole tool column, the score's bar at
    its least and the Why column's text (up to `_WHY_BESIDE`), its frame and a vertical scroll
    bar included."""
    frame = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()
    why = min(_WHY_BESIDE, _wanted(table, WHY, _WHY))
    return _RANK + _wanted(table, 1, _NAME) + _BAR[0] + why + frame


def fit_columns(table: QTreeWidget) -> None:
    """Share the viewport's width out among the columns (see the module's docstring)."""
    room = table.viewport().width()
    name, why, bar = _wanted(table, 1, _NAME), _wanted(table, WHY, _WHY), _BAR[1]
    widths = {"name": name, "bar": bar, "why": why}
    over = _RANK + name + bar + why - room
    for part, least in _GIVING_WAY:  # each in turn gives way, down to its least
        cut = max(0, min(over, widths[part] - least))
        widths[part] -= cut
        over -= cut
    name, bar, why = widths["name"], widths["bar"], widths["why"]
    if over > 0:  # narrower than every least width: the Why column is elided
        why = max(24, why - over)
    spare = room - (_RANK + name + bar + why)
    header = table.header()
    header.setStretchLastSection(False)
    shown = True
    for column, width in _DETAILS:  # in order: one that does not fit hides those after it
        shown = shown and spare >= width
        table.setColumnHidden(column, not shown)
        if shown:
            table.setColumnWidth(column, width)
            spare -= width
    for column, width in ((0, _RANK), (1, name), (2, bar), (WHY, why + max(spare, 0))):
        table.setColumnWidth(column, width)
