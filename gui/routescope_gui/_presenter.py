"""Presenter mode (View ▸ Presenter, F11; issue 20 §2): a state of the main window for a room.

The prompt, the decision badge and its reason in large type, and one result panel (the current
tab: View ▸ Presenter panel, Ctrl+1 … Ctrl+6); the toolbar, the menus, the status bar, the
Context pane, the why strip, the legend and the views' tab bar are hidden (F11, Esc or the
command palette, Ctrl+K, lead back). The window goes full screen where there is a window
manager and returns to its state, zoom and layout on the way out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QHeaderView,
    QMainWindow,
    QMenu,
    QSplitter,
    QTableView,
    QWidget,
)

if TYPE_CHECKING:
    from ._style import Theme
    from ._window_state import Zoom

__all__ = ["PRESENTER_ZOOM", "Presenter", "PresenterParts"]

PRESENTER_ZOOM = 5
"""The 1-point steps presenter mode adds to the window's font (tables and panels); the prompt,
the badge and the reason get their own large sizes from the style sheet."""
_PROMPT_HEIGHT = 150
"""The prompt's height in presenter mode: two lines of its large type."""
_NO_WINDOW_MANAGER = ("offscreen", "minimal")
"""Platforms without a window manager: full screen would mean nothing there."""


@dataclass(frozen=True, slots=True)
class PresenterParts:
    """The few parts of the window presenter mode changes.

    Attributes:
        window: goes full screen (where there is a window manager); its state comes back.
        live: the live view, brought to the front (`show_live`); its tables re-measured.
        body: the splitter of the prompt above the results: the prompt gets two lines.
        hidden: what presenter mode hides (asked each time: the menu bar, the status bar, the
            Context pane, the why strip, the legends, the views' tab bar).
        cancel_research: gives its key (Esc) up meanwhile.
        zoom: the window's zoom; theme: the style sheet's large type.
        show_tab: brings a result tab to the front (View ▸ Presenter panel).
    """

    window: QMainWindow
    live: QWidget
    body: QSplitter
    hidden: Callable[[], list[QWidget]]
    cancel_research: QAction
    zoom: Zoom
    theme: Theme
    show_tab: Callable[[str], None]
    show_live: Callable[[], None]


class Presenter(QObject):
    """Presenter mode of the window: its actions, and the window's state while it is on.

    Attributes:
        action: View ▸ Presenter (F11; Esc too while on), checkable.
        panel_menu: View ▸ Presenter panel: the result tab shown (Ctrl+1 … Ctrl+6).

    Signals:
        toggled: emitted with True when presenter mode starts, False when it ends.
    """

    toggled = Signal(bool)

    def __init__(self, parts: PresenterParts, tabs: Sequence[str]) -> None:
        window = parts.window
        super().__init__(window)
        self._parts = parts
        self._on = False
        self._saved: dict[str, object] = {}
        self._zoom_offset = 0
        self.action = QAction("Presenter", window)
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence("F11"))
        self.action.setStatusTip("Large type for a room: the prompt, the decision, one panel")
        self.action.toggled.connect(self.set_on)
        self.panel_menu = QMenu("Presenter panel", window)
        self._panels = QActionGroup(self)
        for name in tabs:
            panel = self.panel_menu.addAction(name)
            panel.setCheckable(True)
            panel.triggered.connect(lambda _checked=False, name=name: parts.show_tab(name))
            self._panels.addAction(panel)

    @property
    def on(self) -> bool:
        return self._on

    @property
    def zoom_offset(self) -> int:
        """The steps presenter mode added to the window's zoom (0 when off)."""
        return self._zoom_offset

    def toggle(self) -> None:
        self.set_on(not self._on)

    def show_panel(self, name: str) -> None:
        """Check the panel `name` in View ▸ Presenter panel (the tab shown changed)."""
        for panel in self._panels.actions():
            if panel.text() == name:
                panel.setChecked(True)

    def set_on(self, on: bool) -> None:
        if on == self._on:
            return
        self._on = on
        window = self._parts.window
        window.setUpdatesEnabled(False)
        try:
            self._enter() if on else self._leave()
        finally:
            window.setUpdatesEnabled(True)
        self.action.setChecked(on)
        # Rows measured at the old type and widths are re-measured once the layout settled.
        QTimer.singleShot(0, self._remeasure)
        self.toggled.emit(on)

    def _remeasure(self) -> None:
        for table in self._parts.live.findChildren(QTableView):
            if table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed:
                continue
            table.resizeRowsToContents()

    # -- the window's state ------------------------------------------------------------
    def _enter(self) -> None:
        parts = self._parts
        hidden = parts.hidden()
        self._saved = {
            "visible": {widget: not widget.isHidden() for widget in hidden},
            "body": parts.body.sizes(),
            "state": parts.window.windowState(),
            "cancel": parts.cancel_research.shortcuts(),
        }
        # Esc leaves presenter mode: "Cancel research" gives it up meanwhile (two actions on
        # one key would make it ambiguous, and neither would run).
        parts.cancel_research.setShortcuts([])
        self.action.setShortcuts([QKeySequence("F11"), QKeySequence("Esc")])
        for widget in hidden:
            widget.setVisible(False)
        parts.show_live()
        before = parts.zoom.steps
        parts.zoom.apply(before + PRESENTER_ZOOM)
        self._zoom_offset = parts.zoom.steps - before
        parts.theme.set_presenter(True)
        total = sum(parts.body.sizes())
        parts.body.setSizes([_PROMPT_HEIGHT, max(total - _PROMPT_HEIGHT, 1)])
        if QGuiApplication.platformName() not in _NO_WINDOW_MANAGER:
            parts.window.showFullScreen()

    def _leave(self) -> None:
        parts, window = self._parts, self._parts.window
        saved = self._saved
        self.action.setShortcuts([QKeySequence("F11")])
        cancel = saved.get("cancel")
        if isinstance(cancel, list):
            parts.cancel_research.setShortcuts(cancel)
        parts.theme.set_presenter(False)
        parts.zoom.apply(parts.zoom.steps - self._zoom_offset)
        self._zoom_offset = 0
        visible = saved.get("visible")
        if isinstance(visible, dict):
            for widget, shown in visible.items():
                widget.setVisible(shown)
        state = saved.get("state")
        if isinstance(state, Qt.WindowState) and window.windowState() != state:
            window.setWindowState(state)
        sizes = saved.get("body")
        if isinstance(sizes, list):
            parts.body.setSizes(sizes)
        self._saved = {}
