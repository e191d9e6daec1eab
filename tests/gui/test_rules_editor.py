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
