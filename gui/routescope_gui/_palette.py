"""The command palette (Ctrl+K): every action of the window by its menu path and shortcut;
typing filters, Enter (or a click) triggers, Esc closes. A view: it is given the actions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QHeaderView,
    QLineEdit,
    QMenu,
    QMenuBar,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["Command", "CommandPalette", "commands", "matches"]

_SEPARATOR = " ▸ "
_MNEMONIC = re.compile(r"&(.)")
_WIDTH, _HEIGHT = 560, 420


@dataclass(frozen=True, slots=True)
class Command:
    """One action as the palette lists it: "View ▸ Zoom in", "Ctrl+=".

    Attributes:
        action: the action triggered.
        path: its menus and its text, without mnemonics or the "…" of a dialog.
        shortcut: its first shortcut as text ("" when none).
    """

    action: QAction
    path: str
    shortcut: str


def _plain(text: str) -> str:
    """A menu text without its mnemonic (`&File` → `File`, `&&` → `&`) or trailing tab."""
    return _MNEMONIC.sub(r"\1", text.split("\t")[0])


def _command(action: QAction, menus: Sequence[str]) -> Command:
    path = _SEPARATOR.join([*menus, _plain(action.text())])
    shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    return Command(action, path, shortcut)


def commands(
    menu_bar: QMenuBar, others: Iterable[QAction] = (), skip: Iterable[QAction] = ()
) -> list[Command]:
    """The actions of a menu bar's menus (recursively, in menu order) with their paths, then
    the `others` (a window's own actions) not in any menu; separators, submenus' own entries
    and the actions in `skip` are left out."""
    found: list[Command] = []
    seen: set[int] = {id(action) for action in skip}

    def walk(actions: Iterable[QAction], menus: list[str]) -> None:
        for action in actions:
            menu = action.menu()
            if isinstance(menu, QMenu):
                walk(menu.actions(), [*menus, _plain(action.text())])
            elif not action.isSeparator() and action.text() and id(action) not in seen:
                seen.add(id(action))
                found.append(_command(action, menus))

    walk(menu_bar.actions(), [])
    walk(others, [])
    return found


def matches(query: str, text: str) -> bool:
    """Whether every character of `query` (blanks aside) appears in `text` in order, ignoring
    case: "zi" finds "View ▸ Zoom in"."""
    rest = iter(text.casefold())
    return all(char in rest for char in query.casefold() if not char.isspace())


def _rank(query: str, path: str) -> int:
    """0: every word of the query starts a word of the path; 1: the query is in it; 2: only its
    letters in order (the list is sorted by this, menu order kept within a rank)."""
    words = query.casefold().split()
    names = re.split(r"[\s▸…]+", path.casefold())
    if words and all(any(name.startswith(word) for name in names) for word in words):
        return 0
    return 1 if query.strip().casefold() in path.casefold() else 2


class CommandPalette(QFrame):
    """A popup over the window: a filter field and the actions that match it, disabled ones
    greyed (listed, never triggered). Enter or a click triggers the current one and closes."""

    def __init__(self, parent: QWidget, commands: Sequence[Command]) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("palette")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # A popup is a window of its own: it takes its window's theme (palette, font) only so.
        self.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._commands = list(commands)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Type a command…  (Enter runs it, Esc closes)")
        self.filter.setClearButtonEnabled(True)
        self.list = QTreeWidget()
        self.list.setColumnCount(2)
        self.list.setHeaderHidden(True)
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.filter)
        layout.addWidget(self.list)
        self.filter.textChanged.connect(self._refilter)
        self.filter.installEventFilter(self)
        self.list.itemActivated.connect(self._activate)
        self.list.itemClicked.connect(self._activate)
        self._refilter("")

    def popup(self) -> None:
        """Show over the top of the window, centred, the filter ready for typing."""
        window = self.parentWidget()
        assert window is not None
        width = min(_WIDTH + 10 * window.font().pointSize(), max(window.width() - 40, 200))
        height = min(_HEIGHT + 10 * window.font().pointSize(), max(window.height() - 80, 160))
        self.resize(width, height)
        top_left = window.mapToGlobal(window.rect().topLeft())
        self.move(top_left.x() + (window.width() - width) // 2, top_left.y() + 60)
        self.show()
        self.activateWindow()
        self.filter.setFocus(Qt.FocusReason.PopupFocusReason)

    def shown(self) -> list[str]:
        """The paths listed, in order (for tests and the status)."""
        items = (self.list.topLevelItem(row) for row in range(self.list.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None]

    def _refilter(self, query: str) -> None:
        found = [c for c in self._commands if matches(query, c.path)]
        found.sort(key=lambda c: _rank(query, c.path) if query.strip() else 0)
        self.list.clear()
        for command in found:
            item = QTreeWidgetItem([command.path, command.shortcut])
            item.setData(0, Qt.ItemDataRole.UserRole, command.action)
            item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if not command.action.isEnabled():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(0, "not available now")
            self.list.addTopLevelItem(item)
        self._move(0, 1)

    def _move(self, start: int, step: int) -> None:
        """Make the first enabled row from `start` on (towards `step`) current."""
        row = start
        while 0 <= row < self.list.topLevelItemCount():
            item = self.list.topLevelItem(row)
            if item is not None and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                self.list.setCurrentItem(item)
                return
            row += step

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.filter
            and isinstance(event, QKeyEvent)
            and event.type() == QEvent.Type.KeyPress
        ):
            return self._key(event)
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        key = event.key()
        item = self.list.currentItem()
        current = self.list.indexOfTopLevelItem(item) if item is not None else -1
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if item is not None:
                self._activate(item)
            return True
        if key == Qt.Key.Key_Escape:
            self.close()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            step = 1 if key == Qt.Key.Key_Down else -1
            self._move(current + step, step)
            return True
        return False

    def _activate(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        action = item.data(0, Qt.ItemDataRole.UserRole)
        if not isinstance(action, QAction) or not action.isEnabled():
            return
        self.close()
        action.trigger()
