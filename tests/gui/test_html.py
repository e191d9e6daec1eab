"""`HtmlDelegate`: a rich-text cell is as tall as the text it paints."""

from PySide6.QtWidgets import QStyleOptionViewItem, QTableWidget, QTableWidgetItem
from pytestqt.qtbot import QtBot

from routescope_gui._html import HTML_ROLE, HtmlDelegate, counted

TEXT = "Best ramen open near Denver, Colorado as of November 26, 2026 " * 3


def test_a_wrapped_cell_is_measured_at_the_width_it_is_painted(qtbot: QtBot) -> None:
    table = QTableWidget(1, 1)
    qtbot.addWidget(table)
    delegate = HtmlDelegate(table)
    table.setItemDelegateForColumn(0, delegate)
    item = QTableWidgetItem()
    item.setData(HTML_ROLE, TEXT)
    table.setItem(0, 0, item)
    index = table.model().index(0, 0)
    option = QStyleOptionViewItem()
    option.font = table.font()

    def height_at(width: int) -> float:
        return delegate._document(TEXT, option, width).size().height()

    # A width where one pixel less wraps one more line: the grid line's pixel decides.
    width = next(w for w in range(80, 600) if height_at(w - 1) > height_at(w))
    table.setColumnWidth(0, width)
    assert table.showGrid()
    assert delegate.sizeHint(option, index).height() == int(height_at(width - 1)) + 4
    table.setShowGrid(False)
    assert delegate.sizeHint(option, index).height() == int(height_at(width)) + 4


def test_a_count_takes_its_noun_singular_for_one() -> None:
    assert counted(1, "attempt") == "1 attempt"
    assert counted(0, "page") == "0 pages"
    assert counted(3, "search", "searches") == "3 searches"
    assert counted(12_000, "prompt") == "12,000 prompts"
