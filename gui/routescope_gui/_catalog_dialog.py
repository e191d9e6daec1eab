"""The dialog that opens a tool catalog: a JSON file in any format the core reads (OpenAI tools
or functions, MCP tools/list, Anthropic, Routescope's), or a folder of SKILL.md files.

Qt has no mode for "a file or a folder", and a native dialog picks one or the other. Qt's own
dialog is used instead, switching between its folder and file modes as the analyst moves from
entry to entry: with a folder (or nothing) highlighted, Open takes the folder; with a file, the
file.

A path typed or pasted into the name field — absolute, or from `~` — opens that file or folder
as it is when Open (or Enter) is pressed; Qt's dialog would join it to the folder shown, refuse
a file while in folder mode, or take the parent of a folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QDialog, QFileDialog, QLineEdit, QToolTip, QWidget

__all__ = ["CatalogDialog", "choose_catalog"]

_TITLE = "Open catalog: a JSON file of tools, or a folder of SKILL.md files"
_FILTERS = ("Catalogs: JSON files and SKILL.md folders (*.json)", "All files (*)")


class CatalogDialog(QFileDialog):
    """Picks a JSON file or a folder; `chosen()` is the path picked."""

    def __init__(self, parent: QWidget | None = None, current: Path | None = None) -> None:
        super().__init__(parent, _TITLE)
        self.setOption(QFileDialog.Option.DontUseNativeDialog)
        self.setNameFilters(list(_FILTERS))
        self.setFileMode(QFileDialog.FileMode.Directory)
        self.setLabelText(QFileDialog.DialogLabel.Accept, "Open")
        self.currentChanged.connect(self._follow)
        self._typed: str | None = None
        self.problem = ""
        """Why a typed path was not opened ("" when none was refused)."""
        self.name_edit = self.findChild(QLineEdit, "fileNameEdit")
        if self.name_edit is not None:
            self.name_edit.textChanged.connect(self._follow_typed)
        if current is not None:
            self.setDirectory(str(current.parent))
            self.selectFile(str(current))

    def typed_path(self) -> Path | None:
        """The path in the name field when it is one of its own (absolute or from ~), else
        None (a name in the folder shown, which Qt's dialog handles)."""
        text = self.name_edit.text().strip() if self.name_edit is not None else ""
        if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]  # a pasted path in quotes
        if not text or not (text.startswith("~") or Path(text).is_absolute()):
            return None
        return Path(text).expanduser()

    def _follow_typed(self, _text: str) -> None:
        """A typed file needs the file mode for Open to be enabled, a folder the folder mode."""
        path = self.typed_path()
        if path is not None and path.exists():
            self._follow(str(path))

    def accept(self) -> None:
        path = self.typed_path()
        if path is None:
            self._typed = None
            super().accept()
            return
        if not (path.is_file() or path.is_dir()):
            self.problem = f"no file or folder {path}"
            if self.name_edit is not None:
                self.name_edit.selectAll()
                QToolTip.showText(
                    self.name_edit.mapToGlobal(QPoint(0, self.name_edit.height())),
                    self.problem,
                    self.name_edit,
                )
            return
        self._typed, self.problem = str(path), ""
        QDialog.accept(self)  # as typed: not joined to the folder shown

    def _follow(self, path: str) -> None:
        """Folder mode on a folder (Open takes it), file mode on a file (Open takes the file)."""
        folder = not path or Path(path).is_dir()
        mode = QFileDialog.FileMode.Directory if folder else QFileDialog.FileMode.ExistingFile
        if self.fileMode() != mode:
            self.setFileMode(mode)

    def chosen(self) -> str:
        if self._typed is not None:
            return self._typed
        files = self.selectedFiles()
        return files[0] if files else ""


def choose_catalog(parent: QWidget | None, current: Path | None) -> str:
    """Ask for a catalog, starting beside `current`; "" when the analyst cancels."""
    dialog = CatalogDialog(parent, current)
    return dialog.chosen() if dialog.exec() == QFileDialog.DialogCode.Accepted else ""
