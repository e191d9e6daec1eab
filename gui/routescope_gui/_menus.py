"""The window's menus and the rules-and-date bar beside them: where its actions are laid out.
The window makes the actions (each runs one of its methods); this module only places them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QDate, QEvent, QObject, QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QDateEdit,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QToolButton,
    QWidget,
)

__all__ = ["ElidedLabel", "Entry", "Key", "MenuSpec", "SettingsBar", "fill_menus", "make_action"]

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


def fill_menus(window: QMainWindow, menus: Sequence[MenuSpec]) -> None:
    """Put `menus` in the window's menu bar. Their actions are the window's too: their
    shortcuts then work while presenter mode hides the menu bar (a hidden menu bar's actions
    take no keys)."""
    bar = window.menuBar()
    for title, entries in menus:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is None:
                menu.addSeparator()
            elif isinstance(entry, QMenu):
                menu.addMenu(entry)
            else:
                menu.addAction(entry)
        window.addActions([action for action in menu.actions() if action.menu() is None])


class ElidedLabel(QLabel):
    """A one-line label that asks for the room its whole text needs (up to `max_width`) and,
    given less, elides the middle of it: the start (a name) and the end (a file) stay; the
    whole text is its tooltip's first line."""

    def __init__(self, text: str = "", *, max_width: int = 420, min_chars: int = 12) -> None:
        super().__init__(text)
        self._max_width = max_width
        self._min_chars = min_chars

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(min(hint.width(), self._max_width), hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        least = self.fontMetrics().averageCharWidth() * self._min_chars
        return QSize(min(hint.width(), least), hint.height())

    def elided(self) -> str:
        """The text as it is painted in the label's width now."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle, width)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(self.alignment()), self.elided())


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
        self.rules_label = ElidedLabel("default  (built-in)")
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

    def show_rules(self, text: str, tooltip: str) -> None:
        """The pack in use: its name and source (elided in the middle when the bar is short of
        room), the whole of it in the tooltip."""
        self.rules_label.setText(text)
        self.rules_label.setToolTip(tooltip)

    def event(self, event: QEvent) -> bool:
        # A menu bar places its corner widget only when it is resized: a longer pack name
        # would be clipped to the width of the last one. Its layout is asked again here.
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:
            bar = self.parentWidget()
            if bar is not None:
                QApplication.sendEvent(bar, QResizeEvent(bar.size(), bar.size()))
        return handled
