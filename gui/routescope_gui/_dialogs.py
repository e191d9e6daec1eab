"""The window's questions and messages: which file to read or write, which folder, which case
id; and what needs reading (a failure, a session's warnings). Tests replace these methods; the
window keeps no dialog code of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from ._catalog_dialog import choose_catalog

__all__ = ["Dialogs", "unsaved_rules_box"]


class Dialogs:
    """Modal questions over `parent`; each answer blank when cancelled."""

    def __init__(self, parent: QWidget) -> None:
        self._parent = parent

    def save_path(self, title: str, filters: str, *, append: bool = False) -> str:
        """The file to write, or with `append` to add to (no overwrite question)."""
        options = QFileDialog.Option.DontConfirmOverwrite if append else QFileDialog.Option(0)
        path, _ = QFileDialog.getSaveFileName(self._parent, title, "", filters, options=options)
        return path

    def open_path(self, title: str, filters: str, start: str = "") -> str:
        """The file to read, the dialog opened in `start`."""
        path, _ = QFileDialog.getOpenFileName(self._parent, title, start, filters)
        return path

    def folder(self, title: str) -> str:
        return QFileDialog.getExistingDirectory(self._parent, title)

    def catalog(self, current: Path) -> str:
        """A tool catalog: a folder of SKILL.md files or a JSON file of tools."""
        return choose_catalog(self._parent, current)

    def case_id(self) -> str:
        """The new regression case's id."""
        text, ok = QInputDialog.getText(self._parent, "Save as regression case", "Case id:")
        return text.strip() if ok else ""

    def unsaved_rules(self, pack: str) -> Literal["save", "discard", "cancel"]:
        """What becomes of the rule pack's unsaved edits (they are live until discarded)."""
        buttons = QMessageBox.StandardButton
        answer = unsaved_rules_box(self._parent, pack).exec()
        if answer == buttons.Save:
            return "save"
        return "discard" if answer == buttons.Discard else "cancel"

    def tell(self, title: str, message: str) -> None:
        """Say something that needs reading (a failure, a session's warnings)."""
        QMessageBox.warning(self._parent, title, message)


def unsaved_rules_box(parent: QWidget, pack: str) -> QMessageBox:
    """The question asked when the rule pack editor closes with edits not saved."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Unsaved rule pack edits")
    box.setText(f"The rule pack «{pack}» has edits that are not saved.")
    box.setInformativeText(
        "They are in force now. Save them, or discard them and go back to the saved pack?"
    )
    buttons = QMessageBox.StandardButton
    box.setStandardButtons(buttons.Save | buttons.Discard | buttons.Cancel)
    box.setDefaultButton(buttons.Save)
    box.setEscapeButton(buttons.Cancel)
    return box
