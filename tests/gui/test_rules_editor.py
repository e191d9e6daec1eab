from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

import routescope
from routescope.rules import default_rules_text
from routescope_gui import MainWindow
from routescope_gui._rules_editor_model import error_line

NAME_LINE = 'name = "default"'


def type_text(window: MainWindow, text: str) -> None:
    """Replace the editor's text as a user's edit (one undoable change, `edited` emitted)."""
    cursor = window.rules_editor_view.text_edit.textCursor()
    cursor.select(cursor.SelectionType.Document)
    cursor.insertText(text)


def inspected_rules(window: MainWindow) -> str | None:
    result = window.session.inspection.result
    return None if result is None else result.rules


@pytest.fixture
def editing(qtbot, window: MainWindow) -> MainWindow:  # type: ignore[no-untyped-def]
    window.editor.setPlainText("How do I install FastAPI on Ubuntu?")
    qtbot.waitUntil(lambda: inspected_rules(window) == "default")
    window.edit_rules_action.trigger()
    assert window.rules_editor_view.isVisible()
    assert window.rules_editor_view.text_edit.toPlainText() == default_rules_text()
    return window


def test_typing_an_edit_updates_the_inspection(qtbot, editing: MainWindow) -> None:  # type: ignore[no-untyped-def]
    type_text(editing, default_rules_text().replace(NAME_LINE, 'name = "edited"', 1))
    qtbot.waitUntil(lambda: inspected_rules(editing) == "edited")
    assert editing.session.request.rules.load().name == "edited"
    assert "edited" in editing.rules_label.text()


def test_a_broken_edit_shows_its_line_and_keeps_the_last_pack(qtbot, editing: MainWindow) -> None:  # type: ignore[no-untyped-def]
    before = editing.session.request.rules
    broken = default_rules_text().replace('tech = ["install",', 'tech = 5 #["install",', 1)
    with qtbot.waitSignal(editing.session.rules_editor.invalid) as blocker:
        type_text(editing, broken)
    message, line = blocker.args
    assert line == 11 and ":11: field intents.tech" in message
    view = editing.rules_editor_view
    assert view.error_line == 11 and view.error_label.text() == message
    assert len(view.text_edit.extraSelections()) == 1
    assert editing.session.request.rules == before
    # a TOML syntax error names its line too
    assert error_line("x.toml: not valid TOML: Unclosed array (at line 3, column 2)", "x") == 3


def test_revert_goes_back_to_the_text_at_open(qtbot, editing: MainWindow) -> None:  # type: ignore[no-untyped-def]
    type_text(editing, default_rules_text().replace(NAME_LINE, 'name = "edited"', 1))
    qtbot.waitUntil(lambda: inspected_rules(editing) == "edited")
    editing.rules_editor_view.revert_button.click()
    assert editing.rules_editor_view.text_edit.toPlainText() == default_rules_text()
    qtbot.waitUntil(lambda: inspected_rules(editing) == "default")
    assert editing.session.request.rules.is_builtin


def test_save_writes_the_file_only_on_save(  # type: ignore[no-untyped-def]
    qtbot, editing: MainWindow, tmp_path: Path, monkeypatch
) -> None:
    target = tmp_path / "mine.toml"
    original = default_rules_text().replace(NAME_LINE, 'name = "mine"', 1)
    target.write_text(original, encoding="utf-8")
    assert editing.open_rules(target)
    editing.edit_rules_action.trigger()
    model = editing.session.rules_editor
    assert model.source == str(target)
    edited = original.replace('name = "mine"', 'name = "mine2"', 1)
    type_text(editing, edited)
    qtbot.waitUntil(lambda: inspected_rules(editing) == "mine2")
    assert target.read_text(encoding="utf-8") == original  # not before Save
    with qtbot.waitSignal(model.saved):
        editing.rules_editor_view.save_button.click()
    assert target.read_text(encoding="utf-8") == editing.rules_editor_view.text_edit.toPlainText()
    assert [p.name for p in tmp_path.iterdir()] == ["mine.toml"]
    # the built-in pack is saved as a new file
    editing.session.set_rules(routescope.RulesRef.builtin())
    editing.edit_rules_action.trigger()
    assert model.is_builtin and not editing.rules_editor_view.save_button.isEnabled()
    copy = tmp_path / "copy.toml"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(copy), ""))
    with qtbot.waitSignal(model.saved):
        editing.rules_editor_view.save_as_button.click()
    assert copy.read_text(encoding="utf-8") == default_rules_text()
    assert editing.session.request.rules.source == str(copy)


def test_changed_cases_are_counted_for_a_known_edit(qtbot, editing: MainWindow) -> None:  # type: ignore[no-untyped-def]
    model = editing.session.rules_editor
    edited = default_rules_text().replace('tech = ["install",', 'tech = ["install", "best",', 1)
    with qtbot.waitSignal(model.counted, timeout=20_000) as blocker:
        type_text(editing, edited)
    changed, run = blocker.args
    assert run == 94 and changed == 5
    assert "5 regression cases of 94" in editing.rules_editor_view.count_label.text()


def test_a_newer_edit_drops_the_count_under_way(qtbot, editing: MainWindow) -> None:  # type: ignore[no-untyped-def]
    model = editing.session.rules_editor
    first = default_rules_text().replace('tech = ["install",', 'tech = ["install", "best",', 1)
    type_text(editing, first)
    model.apply_now()
    type_text(editing, default_rules_text())
    model.apply_now()  # back to the pack at open: nothing changes, the first count is dropped
    qtbot.waitUntil(lambda: not model.busy)
    assert model.changed == 0


def asked(window: MainWindow, answer: str) -> list[str]:
    """Answer the unsaved-edits question with `answer`; the packs asked about."""
    packs: list[str] = []

    def unsaved_rules(pack: str) -> str:
        packs.append(pack)
        return answer

    window.dialogs.unsaved_rules = unsaved_rules  # type: ignore[method-assign,assignment]
    return packs


def test_the_editor_is_docked_beside_the_panels_it_changes(editing: MainWindow) -> None:
    from PySide6.QtCore import Qt

    dock = editing.rules_dock
    assert dock.widget() is editing.rules_editor_view and not dock.isFloating()
    assert editing.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    # the badge and the plan it changes stay in sight, left of the editor
    live = editing.live.geometry()
    assert not live.intersects(dock.geometry()) and live.right() < dock.x()
    assert editing.strategy_view.plan_table.isVisible()
    assert editing.rules_editor_view.text_edit.hasFocus() or not editing.isActiveWindow()


def test_esc_with_unsaved_edits_asks_and_discard_brings_the_saved_pack_back(  # type: ignore[no-untyped-def]
    qtbot, editing: MainWindow
) -> None:
    from PySide6.QtCore import Qt

    editing.resize(1280, 720)
    packs = asked(editing, "cancel")
    type_text(editing, default_rules_text().replace(NAME_LINE, 'name = "edited"', 1))
    qtbot.waitUntil(lambda: inspected_rules(editing) == "edited")
    assert editing.rules_label.text() == "edited*  (built-in, edited)"
    assert "not saved" in editing.rules_label.toolTip()
    # the whole name is shown: the bar beside the menus made room for it (once the new text's
    # layout request is served: the label is set in the same pass the inspection lands in)
    label = editing.rules_label
    qtbot.waitUntil(lambda: label.elided() == label.text(), timeout=5_000)
    text = editing.rules_editor_view.text_edit
    qtbot.keyClick(text, Qt.Key.Key_Escape)
    assert packs == ["edited"] and editing.rules_dock.isVisible()  # Cancel: still editing
    assert inspected_rules(editing) == "edited"
    packs = asked(editing, "discard")
    editing.rules_dock.close()  # its close button asks the same
    assert packs == ["edited"] and not editing.rules_dock.isVisible()
    qtbot.waitUntil(lambda: inspected_rules(editing) == "default")
    assert editing.session.request.rules.is_builtin
    assert editing.rules_label.text() == "default  (built-in)"
    # without edits, Esc just closes it
    editing.edit_rules_action.trigger()
    packs = asked(editing, "cancel")
    qtbot.keyClick(text, Qt.Key.Key_Escape)
    assert packs == [] and not editing.rules_dock.isVisible()


def test_save_on_close_writes_the_file_and_keeps_the_pack(  # type: ignore[no-untyped-def]
    qtbot, editing: MainWindow, tmp_path: Path
) -> None:
    from PySide6.QtCore import Qt

    target = tmp_path / "a-rather-long-rule-pack-file-name-for-the-bar.toml"
    original = default_rules_text().replace(NAME_LINE, 'name = "mine"', 1)
    target.write_text(original, encoding="utf-8")
    editing.close_rules_editor()
    assert editing.open_rules(target)
    assert editing.rules_label.text() == f"mine  ({target.name})"
    assert editing.rules_label.toolTip() == f"rule pack «mine» from {target}"
    editing.edit_rules_action.trigger()
    edited = original.replace('name = "mine"', 'name = "mine2"', 1)
    type_text(editing, edited)
    qtbot.waitUntil(lambda: inspected_rules(editing) == "mine2")
    assert editing.rules_label.text() == f"mine2*  ({target.name}, edited)"
    packs = asked(editing, "save")
    qtbot.keyClick(editing.rules_editor_view.text_edit, Qt.Key.Key_Escape)
    assert packs == ["mine2"] and not editing.rules_dock.isVisible()
    assert target.read_text(encoding="utf-8") == edited
    assert inspected_rules(editing) == "mine2"
    assert editing.rules_label.text() == f"mine2  ({target.name})"


def test_a_narrow_bar_elides_the_middle_of_the_pack_name(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    label = window.rules_label
    label.setText("a-pack-with-a-very-long-name  (a-pack-with-a-very-long-name.toml)")
    label.resize(label.fontMetrics().horizontalAdvance("a-pack-with-a-very-long-name"), 20)
    shown = label.elided()
    assert "…" in shown and shown.startswith("a-pack") and shown.endswith(".toml)")


def test_closing_the_window_with_unsaved_edits_asks_first(  # type: ignore[no-untyped-def]
    qtbot, editing: MainWindow
) -> None:
    type_text(editing, default_rules_text().replace(NAME_LINE, 'name = "edited"', 1))
    qtbot.waitUntil(lambda: inspected_rules(editing) == "edited")
    packs = asked(editing, "cancel")
    assert not editing.close() and editing.isVisible()
    assert packs == ["edited"]
    asked(editing, "discard")


def test_closing_the_editor_gives_the_panels_their_split_back(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    from routescope_gui._window_state import SETTINGS

    window.resize(1024, 768)
    qtbot.wait(20)  # (layout passes run from the event loop)
    before = window.splitter.sizes()
    window.edit_rules_action.trigger()
    qtbot.waitUntil(lambda: sum(window.splitter.sizes()) < sum(before))  # room for the editor
    assert window.close_rules_editor()
    assert window.splitter.sizes() == before
    # closed with the editor open, the window keeps the panels' own split for the next start
    window.edit_rules_action.trigger()
    qtbot.waitUntil(lambda: sum(window.splitter.sizes()) < sum(before))
    window.close()
    state = QSettings(*SETTINGS).value("window/splitter/context")
    assert window.splitter.sizes() == before and state == window.splitter.saveState()


def test_a_window_the_editor_widened_gets_its_width_back(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.resize(700, 700)
    qtbot.wait(20)
    before, split = window.width(), window.splitter.sizes()
    window.edit_rules_action.trigger()
    qtbot.waitUntil(lambda: window.width() > before)  # its least width, beside the panels'
    assert window.close_rules_editor()
    assert window.width() == before and window.splitter.sizes() == split


def test_the_editor_docked_at_1024_leaves_the_live_view_no_sideways_scroll(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    """Docked beside the panels in a 1024×768 window (the Tools tab shown, its catalog loaded),
    the editor leaves the window's least width within 1024 px and the live view unscrolled
    sideways (its body once asked 1,009 px of 668: the Tools status line and the Context pane
    beside the result tabs): the Context pane gives way while it is docked, and comes back
    when it goes."""
    window.resize(1024, 768)
    window.set_prompt("why is my container crashing after the deploy?")
    with qtbot.waitSignal(window.session.tools.ranked, timeout=120_000):
        window.show_tab("Tools")
    qtbot.wait(20)
    before = window.splitter.sizes()
    scroll = window.live.body_scroll.horizontalScrollBar()
    window.edit_rules_action.trigger()
    qtbot.waitUntil(lambda: window.rules_dock.isVisible() and window.rules_dock.width() > 0)
    qtbot.waitUntil(lambda: scroll.maximum() == 0)
    assert window.width() == 1024 and window.minimumSizeHint().width() <= 1024
    assert window.rules_dock.width() >= 300  # (the editor is not squeezed to make room)
    live = window.live.geometry()
    assert live.right() < window.rules_dock.x() and window.toolsearch_view.table.isVisible()
    assert window.close_rules_editor()
    context = window.splitter.widget(0)
    assert context is not None and context.isVisible()
    assert window.splitter.sizes() == before
