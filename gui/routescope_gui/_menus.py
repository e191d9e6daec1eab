"""The window's menus and the rules-and-date bar beside them: where its actions are laid out.
The window makes the actions (each runs one of its methods); this module only places them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QDate, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QToolButton,
    QWidget,
)

__all__ = ["Entry", "Key", "MenuSpec", "SettingsBar", "fill_menus", "make_action"]

Key = QKeySequence | QKeySequence.StandardKey | str
Entry = QAction | QMenu | None
"""A menu's entry: an action, a submenu, or None for a separator."""
MenuSpec = tuple[str, Sequence[Entry]]
"""A menu's title and its entries, in order."""


def make_action(parent: QObject, text: str, slot: Callable[[], object], *keys: Key) -> QAction:
    """An action that runs `slot`, on its shortcuts (the first one is the one menus show)."""
    action = QAction(text, parent)
    if len(keys) == 1:
        action.setShortcut(keys[0])
    elif keys:
        action.setShortcuts([QKeySequence(key) for key in keys])
    action.triggered.connect(slot)
    return action


def fill_menus(window: QMainWindow, menus: Sequence[MenuSpec], *, keys_kept: int) -> None:
    """Put `menus` in the window's menu bar. The actions of the first `keys_kept` menus are the
    window's too: their shortcuts then work while presenter mode hides the menu bar (a hidden
    menu bar's actions take no keys)."""
    bar = window.menuBar()
    for number, (title, entries) in enumerate(menus):
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is None:
                menu.addSeparator()
            elif isinstance(entry, QMenu):
                menu.addMenu(entry)
            else:
                menu.addAction(entry)
        if number < keys_kept:
            window.addActions(menu.actions())


class SettingsBar(QWidget):
    """The rule pack in use (with its actions) and the date the routers see, beside the menus
    rather than on a line of its own: that line goes to the results.

    Attributes:
        rules_label: the pack's name and file; today_edit: the routers' date.
    """

    def __init__(self, rules_actions: Sequence[QAction]) -> None:
        super().__init__()
        self.setObjectName("settingsBar")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 6, 0)
        row.addWidget(QLabel("rules:"))
        self.rules_label = QLabel("default (built-in)")
        self.rules_label.setObjectName("muted")
        row.addWidget(self.rules_label)
        for action in rules_actions:
            button = QToolButton()
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            row.addWidget(button)
        row.addSpacing(12)
        row.addWidget(QLabel("today:"))
        # The routers' default date is the local date too; the session's request says so
        # once it is built (the date routers see is always the request's).
        self.today_edit = QDateEdit(QDate.currentDate())
        self.today_edit.setCalendarPopup(True)
        self.today_edit.setDisplayFormat("yyyy-MM-dd")
        row.addWidget(self.today_edit)

    def place(self, window: QMainWindow) -> None:
        window.menuBar().setCornerWidget(self, Qt.Corner.TopRightCorner)
