"""The Batch view's leak checks: a card per check (how many offending queries, in how many
prompts; green when none, red otherwise), in a row whose cards ask to list their findings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ._html import counted
from ._widgets import set_tone

if TYPE_CHECKING:
    from routescope.batch import LeakCheck

__all__ = ["LeakCard", "LeakRow"]


class LeakCard(QFrame):
    """One leak check: how many offending queries, in how many prompts. Green when none, red
    otherwise; a click (or Space/Enter once focused) asks to list its findings.

    Signals:
        clicked: the analyst picked this check.
    """

    clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("leakCard")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.check: LeakCheck | None = None
        self.count = QLabel("—")
        self.count.setObjectName("leakCount")
        self.title = QLabel("")
        self.title.setObjectName("leakTitle")
        self.title.setWordWrap(True)
        self.detail = QLabel("")
        self.detail.setObjectName("leakDetail")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.count)
        text = QVBoxLayout()
        text.setSpacing(0)
        text.addWidget(self.title)
        text.addWidget(self.detail)
        layout.addLayout(text, 1)
        self._selected = False

    def show_check(self, check: LeakCheck) -> None:
        self.check = check
        self.count.setText(f"{check.count:,}")
        self.title.setText(check.title)
        if check.count:
            self.detail.setText(f"in {counted(check.prompts, 'prompt')} · click to list")
        else:
            self.detail.setText("none found")
        self.setToolTip(f"{check.rule}: {check.description}")
        self.set_selected(False)

    @property
    def selected(self) -> bool:
        return self._selected

    def set_selected(self, selected: bool) -> None:
        self._selected = selected
        tone = "leak" if self.check is not None and self.check.count else "clean"
        set_tone(self, f"{tone}-selected" if selected else tone)
        set_tone(self.count, tone)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.clicked.emit()
        else:
            super().keyPressEvent(event)


class LeakRow(QWidget):
    """The leak checks of a report side by side, a card each (cards are made as checks come).

    Signals:
        picked: emitted with the number of the check whose card was clicked.
    """

    picked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[LeakCard] = []
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)

    def show_checks(self, checks: Sequence[LeakCheck]) -> None:
        while len(self.cards) < len(checks):
            card = LeakCard()
            number = len(self.cards)
            card.clicked.connect(lambda number=number: self.picked.emit(number))
            self.cards.append(card)
            self._row.addWidget(card, 1)
        for card, check in zip(self.cards, checks, strict=False):
            card.show_check(check)

    def clear_selection(self) -> None:
        for card in self.cards:
            if card.selected:
                card.set_selected(False)
