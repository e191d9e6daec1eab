"""The dialog that opens a tool catalog: a JSON file in any format the core reads (OpenAI tools
or functions, MCP tools/list, Anthropic, Routescope's), or a folder of SKILL.md files.

Qt has no mode for "a file or a folder", and a native dialog picks one or the other. Qt's own
dialog is used instead, switching between its folder and file modes as the analyst moves from
entry to entry: with a folder (or nothing) highlighted, Open takes the folder; with a file, the
file.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

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
        if current is not None:
            self.setDirectory(str(current.parent))
            self.selectFile(str(current))

    def _follow(self, path: str) -> None:
        """Folder mode on a folder (Open takes it), file mode on a file (Open takes the file)."""
        folder = not path or Path(path).is_dir()
        mode = QFileDialog.FileMode.Directory if folder else QFileDialog.FileMode.ExistingFile
        if self.fileMode() != mode:
            self.setFileMode(mode)

    def chosen(self) -> str:
        files = self.selectedFiles()
        return files[0] if files else ""


def choose_catalog(parent: QWidget | None, current: Path | None) -> str:
    """Ask for a catalog, starting beside `current`; "" when the analyst cancels."""
    dialog = CatalogDialog(parent, current)
    return dialog.chosen() if dialog.exec() == QFileDialog.DialogCode.Accepted else ""
