"""What the views share: an empty table or tree says what will appear in it; steady tabs pass on
a page's held least size when told."""

from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from routescope_gui._widgets import (
    Placeholder,
    RoomyColumn,
    SteadyTabs,
    ensure_children,
    relay_least_size,
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


def test_a_page_s_held_least_size_reaches_the_layout_around_steady_tabs(qtbot) -> None:  # type: ignore[no-untyped-def]
    """SteadyTabs keep a page's layout requests to themselves (typing stays cheap): a page that
    holds a taller least size says so with `relay_least_size`, and the tabs get the room."""
    window = QWidget()
    qtbot.addWidget(window)
    tabs, page = SteadyTabs(), QWidget()
    inner = QLabel("rows")
    QVBoxLayout(page).addWidget(inner)
    tabs.addTab(page, "page")
    layout = QVBoxLayout(window)
    layout.addWidget(tabs)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    before = window.minimumSizeHint().height()
    inner.setMinimumHeight(before + 200)
    QApplication.processEvents()
    assert window.layout().minimumSize().height() < before + 200  # not passed on by the tabs
    relay_least_size(page)
    assert window.layout().minimumSize().height() >= before + 200
