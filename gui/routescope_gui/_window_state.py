"""What the window keeps between starts (in `QSettings`): its geometry, where each named
splitter was left, the analyst's zoom, the research settings and the routers file (with the
routers left unticked); and the zoom itself (the whole window's font, a step a point).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter, QWidget

import routescope

if TYPE_CHECKING:
    from routescope.research import ResearchSettings

    from ._style import Theme

__all__ = [
    "FIRST_SIZE",
    "MAX_ZOOM",
    "SETTINGS",
    "Zoom",
    "restore_layout",
    "save_layout",
    "save_research_settings",
    "save_routers",
    "saved_research_settings",
    "saved_routers",
]

SETTINGS = ("Routescope", "routescope-gui")
"""The organization and application `QSettings` keep the window's state under."""
FIRST_SIZE = (1280, 720)
"""The largest first size: it fits a 1366×768 screen with its panels and title bar."""
MAX_ZOOM = 16
"""The most 1-point steps the window's font grows (View ▸ Zoom in)."""


def restore_layout(window: QMainWindow) -> None:
    """The window's geometry (the first time: the first size, centred on its screen) and
    each named splitter where the analyst left it (a state from another layout, with another
    count of panes, is ignored by Qt and the default sizes stay)."""
    settings = QSettings(*SETTINGS)
    saved = settings.value("window/geometry")
    if not (isinstance(saved, QByteArray) and window.restoreGeometry(saved)):
        available = window.screen().availableGeometry()
        width = min(FIRST_SIZE[0], available.width() - 40)
        height = min(FIRST_SIZE[1], available.height() - 60)
        window.resize(width, height)
        window.move(available.center() - window.rect().center())
    for splitter in window.findChildren(QSplitter):
        state = settings.value(f"window/splitter/{splitter.objectName()}")
        if splitter.objectName() and isinstance(state, QByteArray):
            splitter.restoreState(state)


def save_layout(window: QMainWindow) -> None:
    """Keep the window's geometry and its named splitters for the next start."""
    settings = QSettings(*SETTINGS)
    settings.setValue("window/geometry", window.saveGeometry())
    for splitter in window.findChildren(QSplitter):
        if splitter.objectName():
            settings.setValue(f"window/splitter/{splitter.objectName()}", splitter.saveState())


def saved_research_settings() -> ResearchSettings:
    """The research settings kept last (none saved, from another version, edited by hand: the
    defaults)."""
    saved = QSettings(*SETTINGS).value("research/settings")
    research = routescope.research
    try:
        return research.ResearchSettings.from_json(str(saved))
    except ValueError:
        return research.ResearchSettings()


def save_research_settings(settings: ResearchSettings) -> None:
    QSettings(*SETTINGS).setValue("research/settings", settings.to_json())


def saved_routers() -> tuple[str, list[str]] | None:
    """The routers file opened last and the routers of it left unticked (None: none)."""
    settings = QSettings(*SETTINGS)
    path = settings.value("routers/file")
    if not isinstance(path, str) or not path:
        return None
    unticked = settings.value("routers/unticked")
    if isinstance(unticked, str):  # (an INI file keeps a one-item list as its item)
        unticked = [unticked] if unticked else []
    names = [str(name) for name in unticked] if isinstance(unticked, list) else []
    return path, names


def save_routers(path: str, unticked: list[str]) -> None:
    settings = QSettings(*SETTINGS)
    settings.setValue("routers/file", path)
    settings.setValue("routers/unticked", unticked)


class Zoom:
    """The window's font, a step a point above (below) its normal size, for demos.

    Attributes:
        steps: the steps applied now (the analyst's and presenter mode's).
    """

    def __init__(self, window: QWidget, theme: Theme) -> None:
        self._window = window
        self._theme = theme
        self._base = window.font().pointSizeF()
        self.steps = 0

    @staticmethod
    def saved() -> int:
        """The analyst's zoom kept last (an int, or its text in an INI file; 0: none)."""
        try:
            return int(str(QSettings(*SETTINGS).value("window/zoom")))
        except ValueError:
            return 0

    @staticmethod
    def save(steps: int) -> None:
        QSettings(*SETTINGS).setValue("window/zoom", steps)

    def apply(self, steps: int) -> None:
        """Set the font `steps` points from its normal size (within what can be shown)."""
        base = self._base
        low = 1 - int(base) if base > 0 else 0
        self.steps = max(low, min(steps, MAX_ZOOM))
        if base <= 0:  # a pixel-sized font: nothing to scale in points
            return
        font = self._window.font()
        font.setPointSizeF(base + self.steps)
        self._window.setFont(font)
        # The widgets the style sheet polished take their size from it, not from the window.
        points = base + self.steps
        self._theme.set_font(points if self.steps else None, points / base)
