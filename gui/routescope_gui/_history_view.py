"""The History view: every inspected prompt, searchable (full text), filtered by strategy,
linter class and top tool, pinned ones starred; double-click or Enter reopens one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from routescope.history import Entry, Facets

__all__ = ["COLUMNS", "HistoryView"]

COLUMNS = ("★", "Prompt", "Strategy", "Class", "Top tool", "Last seen", "Count")
_ANY = "any"
_NO_TOOL = "(none)"


class _Table(QTreeWidget):
    """Enter opens the current row, as a double-click does."""

    activated_row = Signal(QTreeWidgetItem)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.currentItem()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and item is not None:
            self.activated_row.emit(item)
            return
        super().keyPressEvent(event)


class HistoryView(QWidget):
    """The history's entries and the controls that search them.

    Signals:
        search_changed: (text, strategy, lint class, top tool, pinned only); a filter is None
            when any value will do, the top tool "" for entries without one.
        open_requested: an entry's id to reopen.
        pin_requested: an entry's id and whether it is to be pinned.
        delete_requested: an entry's id to delete.
        judge_requested: an entry's id to judge (its context menu's Judge…).
    """

    search_changed = Signal(str, object, object, object, bool)
    open_requested = Signal(int)
    pin_requested = Signal(int, bool)
    delete_requested = Signal(int)
    judge_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="Search the prompts…", clearButtonEnabled=True)
        self.strategy = QComboBox()
        self.lint_class = QComboBox()
        self.top_tool = QComboBox()
        for combo in (self.strategy, self.lint_class, self.top_tool):
            combo.addItem(_ANY, None)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pinned_only = QCheckBox("★ pinned only")
        controls = QHBoxLayout()
        controls.addWidget(self.search, 1)
        for label, combo in (
            ("strategy", self.strategy),
            ("class", self.lint_class),
            ("top tool", self.top_tool),
        ):
            controls.addWidget(QLabel(label))
            controls.addWidget(combo)
        controls.addWidget(self.pinned_only)
        self.note = QLabel("")
        self.note.setObjectName("banner")
        self.note.setWordWrap(True)
        self.note.setVisible(False)
        self.table = _Table()
        self.table.setColumnCount(len(COLUMNS))
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header = self.table.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        self.entries: list[Entry] = []
        self.search.textChanged.connect(self._emit_search)
        for combo in (self.strategy, self.lint_class, self.top_tool):
            combo.currentIndexChanged.connect(self._emit_search)
        self.pinned_only.toggled.connect(self._emit_search)
        self.table.itemDoubleClicked.connect(self._open_item)
        self.table.activated_row.connect(self._open_item)
        self.table.customContextMenuRequested.connect(self._context_menu)

    # -- rendering -----------------------------------------------------------------------
    def show_note(self, note: str | None) -> None:
        """The store's one line (why history is off, what was repaired), or nothing."""
        self.note.setText(note or "")
        self.note.setVisible(bool(note))

    def show_entries(self, entries: list[Entry], facets: Facets) -> None:
        self.entries = list(entries)
        self._fill_facets(facets)
        current = self._current_id()
        self.table.clear()
        for entry in entries:
            summary = entry.summary
            prompt = " ".join(entry.text.split())
            item = QTreeWidgetItem(
                [
                    "★" if entry.pinned else "",
                    prompt if len(prompt) <= 200 else prompt[:199] + "…",
                    summary.strategy,
                    summary.lint_class,
                    summary.top_tool or "—",  # (no catalog ranked, or no tool fits)
                    entry.last_seen.astimezone().strftime("%Y-%m-%d %H:%M"),
                    str(entry.count),
                ]
            )
            item.setData(0, Qt.ItemDataRole.UserRole, entry.id)
            item.setToolTip(1, entry.text[:2000])
            item.setTextAlignment(6, Qt.AlignmentFlag.AlignRight)
            self.table.addTopLevelItem(item)
            if entry.id == current:
                self.table.setCurrentItem(item)
        count = len(entries)
        self.status.setText(
            f"{count} prompt{'' if count == 1 else 's'}" if entries else "No prompts match."
        )

    def _fill_facets(self, facets: Facets) -> None:
        for combo, values in (
            (self.strategy, facets.strategies),
            (self.lint_class, facets.lint_classes),
            (self.top_tool, facets.top_tools),
        ):
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(_ANY, None)
            for value, count in values:
                combo.addItem(f"{value or _NO_TOOL} ({count})", value)
            index = combo.findData(chosen) if chosen is not None else 0
            if index < 0:  # the value chosen has no entries left: keep it offered
                combo.addItem(f"{chosen or _NO_TOOL} (0)", chosen)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

    # -- requests --------------------------------------------------------------------------
    def _emit_search(self) -> None:
        self.search_changed.emit(
            self.search.text(),
            self.strategy.currentData(),
            self.lint_class.currentData(),
            self.top_tool.currentData(),
            self.pinned_only.isChecked(),
        )

    def _current_id(self) -> int | None:
        item = self.table.currentItem()
        return None if item is None else int(item.data(0, Qt.ItemDataRole.UserRole))

    def _entry(self, item: QTreeWidgetItem) -> Entry | None:
        entry_id = item.data(0, Qt.ItemDataRole.UserRole)
        return next((e for e in self.entries if e.id == entry_id), None)

    def _open_item(self, item: QTreeWidgetItem) -> None:
        entry = self._entry(item)
        if entry is not None:
            self.open_requested.emit(entry.id)

    def _context_menu(self, position: QPoint) -> None:
        item = self.table.itemAt(position)
        entry = None if item is None else self._entry(item)
        if entry is None:
            return
        menu = QMenu(self.table)
        menu.addAction("Open", lambda: self.open_requested.emit(entry.id))
        menu.addAction("Judge…", lambda: self.judge_requested.emit(entry.id))
        menu.addAction(
            "Unpin" if entry.pinned else "Pin ★",
            lambda: self.pin_requested.emit(entry.id, not entry.pinned),
        )
        menu.addAction("Delete", lambda: self.delete_requested.emit(entry.id))
        menu.popup(self.table.viewport().mapToGlobal(position))
