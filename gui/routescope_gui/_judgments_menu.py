"""The Judgments menu: the judged sets as first-class things — the set judgments go to (named
at the top, checked in Switch to), a new one, a merge of it into another, a labelled file
imported into it, and its export as a labelled set (JSON lines `routescope score` reads); then
the Quality view and the suggestions. The menu asks (a name, a file) and says what it wants; the
judge model does it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QWidget

from ._html import counted

__all__ = ["LABELLED_FILES", "JudgmentsAsks", "JudgmentsMenu"]

LABELLED_FILES = "Labelled sets (*.jsonl *.json *.csv *.tsv *.yaml *.yml);;All files (*)"
"""What a labelled set is read from: JSON lines, CSV, a regression suite's YAML."""


@dataclass(slots=True)
class JudgmentsAsks:
    """The questions the menu asks (tests replace them): each answer blank when cancelled."""

    name: Callable[[str, str, Sequence[str]], str]
    """(title, label, names offered) → a set's name."""
    open_path: Callable[[str, str], str]
    """(title, filters) → a file to read."""
    save_path: Callable[[str, str], str]
    """(title, filters) → a file to write."""

    @classmethod
    def modal(cls, parent: QWidget) -> JudgmentsAsks:
        def name(title: str, label: str, offered: Sequence[str]) -> str:
            text, ok = QInputDialog.getItem(parent, title, label, list(offered), 0, True)
            return text.strip() if ok else ""

        def open_path(title: str, filters: str) -> str:
            return QFileDialog.getOpenFileName(parent, title, "", filters)[0]

        def save_path(title: str, filters: str) -> str:
            return QFileDialog.getSaveFileName(parent, title, "judged.jsonl", filters)[0]

        return cls(name, open_path, save_path)


class JudgmentsMenu(QMenu):
    """The judged sets and what can be done with them.

    Attributes:
        current_action: names the set judgments go to (disabled: a heading);
        switch_menu: every set, the current one checked; new_action, merge_action,
        import_action, export_action, quality_action, suggestions_action: the entries.

    Signals:
        set_requested: emitted with the name of the set to judge into (new or existing).
        merge_requested: emitted with the set to merge the current one into.
        import_requested: emitted with a labelled file to import into the current set.
        export_requested: emitted with the file to export the current set to.
        quality_requested, suggestions_requested: the Quality view, the suggestions.
    """

    set_requested = Signal(str)
    merge_requested = Signal(str)
    import_requested = Signal(str)
    export_requested = Signal(str)
    quality_requested = Signal()
    suggestions_requested = Signal()

    def __init__(self, asks: JudgmentsAsks, parent: QWidget | None = None) -> None:
        super().__init__("&Judgments", parent)
        self.asks = asks
        self._sets: list[tuple[str, int]] = []
        self._current = ""
        self.current_action = self.addAction("")
        self.current_action.setEnabled(False)
        self.addSeparator()
        self.new_action = self._entry("New judged set…", self._new, "Ctrl+Shift+J")
        self.switch_menu = self.addMenu("Switch to")
        self.merge_action = self._entry("Merge into another set…", self._merge)
        self.addSeparator()
        self.import_action = self._entry("Import labelled file…", self._import)
        self.export_action = self._entry("Export as labelled set…", self._export)
        self.addSeparator()
        self.quality_action = self._entry("Quality", self.quality_requested.emit, "Ctrl+Shift+Q")
        self.suggestions_action = self._entry(
            "Suggestions…", self.suggestions_requested.emit, "Ctrl+Shift+G"
        )
        self.aboutToShow.connect(self._fill_switch)
        self.show_sets([], "")

    def _entry(self, text: str, slot: Callable[[], object], key: str = "") -> QAction:
        action = self.addAction(text)
        action.triggered.connect(lambda _checked=False: slot())
        if key:
            action.setShortcut(QKeySequence(key))
        return action

    def show_sets(self, sets: Sequence[tuple[str, int]], current: str) -> None:
        """The sets and the one judgments go to."""
        self._sets, self._current = list(sets), current
        size = dict(self._sets).get(current, 0)
        self.current_action.setText(
            f"Judging into «{current}» ({counted(size, 'prompt')})" if current else ""
        )
        self._fill_switch()

    def _fill_switch(self) -> None:
        self.switch_menu.clear()
        for name, size in self._sets:
            action = self.switch_menu.addAction(f"{name}  ({size})")
            action.setCheckable(True)
            action.setChecked(name == self._current)
            action.triggered.connect(
                lambda _checked=False, name=name: self.set_requested.emit(name)
            )
        self.switch_menu.setEnabled(bool(self._sets))

    def _others(self) -> list[str]:
        return [name for name, _size in self._sets if name != self._current]

    def _new(self) -> None:
        name = self.asks.name("New judged set", "Name of the set to judge into:", [])
        if name:
            self.set_requested.emit(name)

    def _merge(self) -> None:
        name = self.asks.name(
            "Merge judged sets",
            f"Merge «{self._current}» into (its judgments win there):",
            self._others(),
        )
        if name:
            self.merge_requested.emit(name)

    def _import(self) -> None:
        path = self.asks.open_path(f"Import a labelled file into «{self._current}»", LABELLED_FILES)
        if path:
            self.import_requested.emit(path)

    def _export(self) -> None:
        path = self.asks.save_path(
            f"Export «{self._current}» as a labelled set", "Labelled sets (*.jsonl)"
        )
        if path:
            self.export_requested.emit(path)
