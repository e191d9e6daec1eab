"""What the views share: an empty table or tree says what will appear in it."""

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

from routescope_gui._widgets import (
    Placeholder,
    RoomyColumn,
    WrappedLine,
    ensure_children,
    selection_as_tsv,
)


def test_a_placeholder_shows_only_while_the_view_is_empty(qtbot) -> None:  # type: ignore[no-untyped-def]
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    tree.resize(400, 300)
    tree.show()
    hint = Placeholder(tree, "Type a prompt above: its rows appear here.")
    assert hint.shown and hint.label.parent() is tree.viewport()
    assert hint.label.geometry().width() > 300  # across the view, wrapping
    tree.addTopLevelItem(QTreeWidgetItem(["a row"]))
    assert not hint.shown
    ensure_children(tree, 0)
    assert hint.shown
    hint.set_text("Nothing here for this prompt.")
    assert hint.label.text() == "Nothing here for this prompt." and hint.shown
    hint.set_text("")
    tree.addTopLevelItem(QTreeWidgetItem(["b"]))
    tree.clear()
    assert not hint.shown  # nothing to say


def test_a_copy_has_the_columns_as_shown(qtbot) -> None:  # type: ignore[no-untyped-def]
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    tree.setColumnCount(4)
    item = QTreeWidgetItem(["a", "b", "c", "d"])
    tree.addTopLevelItem(item)
    tree.header().moveSection(3, 1)  # d shown second
    tree.setColumnHidden(2, True)  # c not shown
    item.setSelected(True)
    assert selection_as_tsv(tree) == "a\td\tb"


def test_a_roomy_column_keeps_its_room_as_the_view_narrows(qtbot) -> None:  # type: ignore[no-untyped-def]
    tree = QTreeWidget()
    qtbot.addWidget(tree)
    tree.setHeaderLabels(["#", "Query", "From", "Score"])
    RoomyColumn(tree, [56, 200, 120, 80], 1, room=180, keep=(0,))
    tree.resize(900, 200)
    tree.show()
    header = tree.header()
    qtbot.waitUntil(lambda: header.sectionSize(2) == 120)
    assert header.sectionSize(3) == 80 and header.sectionSize(1) >= 180  # room to spare
    tree.resize(420, 200)  # the others give way in proportion; "#" keeps its width
    qtbot.waitUntil(lambda: header.sectionSize(2) < 120)
    assert header.sectionSize(0) == 56
    assert header.sectionSize(1) >= 175  # (within a scroll bar's rounding of 180)
    assert abs(header.sectionSize(2) / header.sectionSize(3) - 120 / 80) < 0.1
    tree.resize(200, 200)  # no room at all: each at its floor, no column of 0 px
    qtbot.waitUntil(lambda: header.sectionSize(2) == 44)
    assert header.sectionSize(3) == 44 and header.sectionSize(0) == 56


def test_a_wrapped_line_holds_its_texts_height_only_while_shown(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A layout squeezed short scrolls rather than paint over a wrapped line (its least height
    is its text's at its width, up to its most lines); hidden — on a tab not shown — it asks
    no height of the tabs."""
    line = WrappedLine(most_lines=3)
    qtbot.addWidget(line)
    line.resize(200, 20)
    line.show()
    qtbot.waitExposed(line)
    one = line.fontMetrics().lineSpacing()
    line.setText("a few words")
    assert one <= line.minimumHeight() < 2 * one
    line.setText("many more words, " * 6)  # (wraps onto more lines than it may take)
    assert line.minimumHeight() == 3 * one + 4
    wide = line.fontMetrics().horizontalAdvance(line.text()) + 40
    line.resize(wide, line.height())
    qtbot.waitUntil(lambda: line.width() == wide)
    assert line.minimumHeight() < 2 * one, (line.width(), line.minimumHeight())
    line.hide()
    assert line.minimumHeight() == 0 and line.minimumSizeHint().height() == 0
