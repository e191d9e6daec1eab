"""The command palette (Ctrl+K): every action by its menu path and shortcut."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from routescope_gui._palette import CommandPalette, commands, matches


@pytest.mark.parametrize(
    ("query", "found"),
    [("", True), ("zoom in", True), ("ZI", True), ("vwzm", True), ("zoom out", False)],
)
def test_a_query_matches_its_letters_in_order(query: str, found: bool) -> None:
    assert matches(query, "View ▸ Zoom in") is found


def test_every_action_is_listed_with_its_menu_path_and_shortcut(window) -> None:  # type: ignore[no-untyped-def]
    listed = {c.path: c.shortcut for c in commands(window.menuBar(), window.actions())}
    assert listed["View ▸ Zoom in"] == "Ctrl+="
    assert listed["File ▸ Open demo script…"] == ""
    assert listed["View ▸ Presenter"] == "F11"
    assert listed["View ▸ Presenter panel ▸ Linter"] == ""
    assert listed["Research ▸ Cancel research"] == "Esc"
    assert listed["View ▸ Command palette…"] == "Ctrl+K"
    menu_actions = sum(
        len([a for a in m.menu().actions() if a.text()]) for m in window.menuBar().actions()
    )
    assert len(listed) >= menu_actions - 1  # (the submenu's own entry is its actions)
    skipped = commands(window.menuBar(), skip=[window.palette_action])
    assert "View ▸ Command palette…" not in {c.path for c in skipped}


def open_palette(qtbot, window) -> CommandPalette:  # type: ignore[no-untyped-def]
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)
    qtbot.keyClick(window.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    palette = window.findChild(CommandPalette)
    assert palette is not None and palette.isVisible()
    qtbot.waitUntil(lambda: palette.filter.hasFocus())
    return palette


def test_typing_filters_and_enter_runs_the_command(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.zoom(0)
    palette = open_palette(qtbot, window)
    assert "View ▸ Command palette…" not in palette.shown()
    assert len(palette.shown()) > 20
    qtbot.keyClicks(palette.filter, "zoom in")
    assert palette.shown()[0] == "View ▸ Zoom in"
    item = palette.list.currentItem()
    assert item is not None and item.text(1) == "Ctrl+="
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is None)
    assert window.zoom_steps == 1
    window.zoom(0)


def test_esc_closes_and_disabled_commands_are_greyed_and_never_run(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    assert not window.demo_next_action.isEnabled()  # no demo script loaded
    palette = open_palette(qtbot, window)
    qtbot.keyClicks(palette.filter, "next demo")
    assert palette.shown() == ["View ▸ Next demo prompt"]
    item = palette.list.topLevelItem(0)
    assert item is not None and not item.flags() & Qt.ItemFlag.ItemIsEnabled
    assert item.text(1) == "PgDown"
    triggered: list[bool] = []
    window.demo_next_action.triggered.connect(lambda: triggered.append(True))
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    palette.list.itemActivated.emit(item, 0)
    assert not triggered and palette.isVisible()
    qtbot.keyClick(palette.filter, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is None)


def test_the_palette_opens_in_presenter_mode_and_leads_back(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.presenter.set_on(True)
    palette = open_palette(qtbot, window)
    qtbot.keyClicks(palette.filter, "presenter")
    assert palette.shown()[0] == "View ▸ Presenter"
    qtbot.keyClick(palette.filter, Qt.Key.Key_Return)
    assert not window.presenter.on and window.menuBar().isVisibleTo(window)
