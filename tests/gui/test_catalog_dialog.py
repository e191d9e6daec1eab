"""Open catalog…: a JSON file or a folder, picked or typed (issue 19 §1)."""

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog

from routescope_gui._catalog_dialog import CatalogDialog


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """A folder the dialog starts in, and another holding a JSON catalog and a folder."""
    start = tmp_path / "start"
    (start / "skills").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "skills").mkdir(parents=True)
    (elsewhere / "tools.json").write_text("[]", encoding="utf-8")
    return start, elsewhere


def typed(qtbot, start: Path, text: str) -> CatalogDialog:  # type: ignore[no-untyped-def]
    """The dialog, shown in `start`, after `text` is typed into its name field and Enter."""
    dialog = CatalogDialog(None, start / "skills")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()  # typed into the focused name field, as the analyst does
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    edit = dialog.name_edit
    assert edit is not None
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    return dialog


@pytest.mark.parametrize("name", ["tools.json", "skills", ""])
def test_an_absolute_path_typed_opens_that_file_or_folder(qtbot, folders, name) -> None:  # type: ignore[no-untyped-def]
    start, elsewhere = folders
    target = elsewhere / name if name else elsewhere
    dialog = typed(qtbot, start, str(target))
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.chosen() == str(target)


def test_a_path_from_home_opens_and_quotes_are_dropped(qtbot, folders, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    start, elsewhere = folders
    monkeypatch.setenv("HOME", str(elsewhere))
    dialog = typed(qtbot, start, "~/tools.json")
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.chosen() == str(elsewhere / "tools.json")
    pasted = typed(qtbot, start, f"'{elsewhere / 'skills'}'")
    assert pasted.chosen() == str(elsewhere / "skills")


def test_a_path_that_does_not_exist_keeps_the_dialog_open(qtbot, folders) -> None:  # type: ignore[no-untyped-def]
    start, elsewhere = folders
    dialog = typed(qtbot, start, str(elsewhere / "missing.json"))
    assert dialog.isVisible() and dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.problem == f"no file or folder {elsewhere / 'missing.json'}"


def test_a_folder_of_the_one_shown_is_still_picked_by_name(qtbot, folders) -> None:  # type: ignore[no-untyped-def]
    start, _elsewhere = folders
    dialog = typed(qtbot, start, "skills")
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.chosen() == str(start / "skills")
