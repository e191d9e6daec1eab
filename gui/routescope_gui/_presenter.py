"""Presenter mode (View ▸ Presenter, F11; issue 20 §2): a state of the main window for a room.

The prompt, the decision badge and its reason in large type, and one result panel (the current
tab: View ▸ Presenter panel, Ctrl+1 … Ctrl+6); the toolbar, the menus, the status bar, the
Context pane, the why strip, the legend and the views' tab bar are hidden (F11, Esc or the
command palette, Ctrl+K, lead back). The window goes full screen where there is a window
manager and returns to its state, zoom and layout on the way out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QMenu,
    QTableView,
    QWidget,
)

from ._editor import Legend

if TYPE_CHECKING:
    from routescope.demo import DemoScript, DemoStep

    from ._window import MainWindow

__all__ = ["PRESENTER_ZOOM", "DemoLabel", "Presenter", "demo_caption"]

PRESENTER_ZOOM = 5
"""The 1-point steps presenter mode adds to the window's font (tables and panels); the prompt,
the badge and the reason get their own large sizes from the style sheet."""
_PROMPT_HEIGHT = 150
"""The prompt's height in presenter mode: two lines of its large type."""
_NO_WINDOW_MANAGER = ("offscreen", "minimal")
"""Platforms without a window manager: full screen would mean nothing there."""


def demo_caption(index: int, total: int, step: DemoStep) -> str:
    """ "Demo 3/12 · a local search" (the caption only when the step has one)."""
    caption = f" · {step.caption}" if step.caption else ""
    return f"Demo {index + 1}/{total}{caption}"


class DemoLabel(QLabel):
    """Where a demo script stands: "Demo 3/12 · caption"; hidden while no script is loaded."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("demo")
        self.setVisible(False)

    def show_script(self, script: DemoScript | None) -> None:
        self.setVisible(script is not None)
        if script is None:
            self.setText("")
        else:
            self.setToolTip(f"{script.source}: PageDown: next prompt, PageUp: previous")

    def show_step(self, index: int, total: int, step: DemoStep) -> None:
        self.setText(demo_caption(index, total, step))


class Presenter(QObject):
    """Presenter mode of a `MainWindow`: its actions, and the window's state while it is on.

    Attributes:
        action: View ▸ Presenter (F11; Esc too while on), checkable.
        panel_menu: View ▸ Presenter panel: the result tab shown (Ctrl+1 … Ctrl+6).

    Signals:
        toggled: emitted with True when presenter mode starts, False when it ends.
    """

    toggled = Signal(bool)

    def __init__(self, window: MainWindow, tabs: Sequence[str]) -> None:
        super().__init__(window)
        self._window = window
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
            panel.triggered.connect(lambda _checked=False, name=name: window.show_tab(name))
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
        window = self._window
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
        for table in self._window.live.findChildren(QTableView):
            if table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed:
                continue
            table.resizeRowsToContents()

    # -- the window's state ------------------------------------------------------------
    def _hidden(self) -> list[QWidget]:
        """What presenter mode hides."""
        window = self._window
        # (the rules and date bar sits in the menu bar's corner: hidden with it)
        hidden: list[QWidget] = [window.menuBar(), window.statusBar()]
        context = window.splitter.widget(0)  # the Context pane
        assert context is not None
        hidden += [context, window.why_strip, window.views.tabBar()]
        hidden += window.findChildren(Legend)
        return hidden

    def _enter(self) -> None:
        window = self._window
        self._saved = {
            "visible": {widget: not widget.isHidden() for widget in self._hidden()},
            "body": window.body.sizes(),
            "state": window.windowState(),
            "cancel": window.cancel_research_action.shortcuts(),
        }
        # Esc leaves presenter mode: "Cancel research" gives it up meanwhile (two actions on
        # one key would make it ambiguous, and neither would run).
        window.cancel_research_action.setShortcuts([])
        self.action.setShortcuts([QKeySequence("F11"), QKeySequence("Esc")])
        for widget in self._hidden():
            widget.setVisible(False)
        window.views.setCurrentWidget(window.live)
        before = window.zoom_steps
        window._apply_zoom(before + PRESENTER_ZOOM)
        self._zoom_offset = window.zoom_steps - before
        window.theme.set_presenter(True)
        body = window.body
        total = sum(body.sizes())
        body.setSizes([_PROMPT_HEIGHT, max(total - _PROMPT_HEIGHT, 1)])
        if QGuiApplication.platformName() not in _NO_WINDOW_MANAGER:
            window.showFullScreen()

    def _leave(self) -> None:
        window = self._window
        saved = self._saved
        self.action.setShortcuts([QKeySequence("F11")])
        cancel = saved.get("cancel")
        if isinstance(cancel, list):
            window.cancel_research_action.setShortcuts(cancel)
        window.theme.set_presenter(False)
        window._apply_zoom(window.zoom_steps - self._zoom_offset)
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
            window.body.setSizes(sizes)
        self._saved = {}
