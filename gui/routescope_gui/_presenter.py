"""Presenter mode (View ▸ Presenter, F11; issue 20 §2): a state of the main window for a room.

The prompt, the decision badge and its reason in large type, and one result panel (the current
tab: View ▸ Presenter panel, Ctrl+1 … Ctrl+6) whose type, columns and rows grow with it; the
toolbar, the menus, the status bar, the Context pane, the why strip, the task route line, the
legend and the views' tab bar are hidden (F11, Esc or the command palette, Ctrl+K, lead back;
every menu's keys still work). The window goes full screen where there is a window manager
and returns to its state, zoom and layout — every splitter where it was — on the way out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QEvent,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QTabWidget,
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
"""The prompt's height in presenter mode when it cannot be measured; else as tall as one line
of its large type, or two for a prompt that wraps (the panel gets the rest)."""
_COLUMNS_SHARE = 0.85
"""The most of the panel's width the grown columns take (the last one stretches in the
rest): at 1024 px the score columns stay on screen, behind no scroll bar."""
_NO_WINDOW_MANAGER = ("offscreen", "minimal")
"""Platforms without a window manager: full screen would mean nothing there."""


@dataclass(frozen=True, slots=True)
class PresenterParts:
    """The few parts of the window presenter mode changes.

    Attributes:
        window: goes full screen (where there is a window manager); its state comes back.
        live: the live view, brought to the front (`show_live`); its tables re-measured.
        body: the splitter of the prompt above the results: the prompt gets the one or two
            lines of the large type its text needs (`prompt`, when given, says how many).
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
    prompt: QPlainTextEdit | None = None


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
        self._layout = _Layout()
        self._prompt_height = 0
        if parts.prompt is not None:
            parts.prompt.textChanged.connect(self._fit_prompt)
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

    def _fit_prompt(self) -> None:
        """The prompt's one or two lines of large type (as many as its text needs now)."""
        if not self._on:
            return
        body, prompt = self._parts.body, self._parts.prompt
        if prompt is None:
            height = _PROMPT_HEIGHT
        else:
            lines = min(_visual_lines(prompt), 2)
            box = body.widget(0)
            chrome = (prompt.height() - prompt.viewport().height()) + (
                (box.height() - prompt.height()) if box is not None else 0
            )
            margin = round(2 * prompt.document().documentMargin())
            height = lines * prompt.fontMetrics().lineSpacing() + margin + chrome + 4
        if height == self._prompt_height:
            return  # (the panel below moves only when the prompt wraps onto another line)
        self._prompt_height = height
        body.setSizes([height, max(sum(body.sizes()) - height, 1)])

    def _remeasure(self) -> None:
        if self._on:
            self._fit_prompt()  # laid out at its large type now
        else:
            self._layout.restore_splitters()  # once the type is back to normal size
        for table in self._parts.live.findChildren(QTableView):
            if table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed:
                continue
            table.resizeRowsToContents()

    # -- the window's state ------------------------------------------------------------
    def _enter(self) -> None:
        parts = self._parts
        hidden = parts.hidden()
        self._layout.keep(parts.window, parts.live)
        self._saved = {
            "visible": {widget: not widget.isHidden() for widget in hidden},
            "state": parts.window.windowState(),
            "cancel": parts.cancel_research.shortcuts(),
        }
        # Esc leaves presenter mode: "Cancel research" gives it up meanwhile (two actions on
        # one key would make it ambiguous, and neither would run).
        parts.cancel_research.setShortcuts([])
        self.action.setShortcuts([QKeySequence("F11"), QKeySequence("Esc")])
        for widget in hidden:
            widget.setVisible(False)
            _lay_out_again(widget.parentWidget())
        parts.show_live()
        before, points = parts.zoom.steps, parts.window.font().pointSizeF()
        parts.zoom.apply(before + PRESENTER_ZOOM)
        self._zoom_offset = parts.zoom.steps - before
        parts.theme.set_presenter(True)
        if points > 0:  # columns and fixed rows grow with the type, within the panel's width
            room = round(parts.live.width() * _COLUMNS_SHARE)
            self._layout.scale(parts.window.font().pointSizeF() / points, room)
        self._prompt_height = 0
        self._fit_prompt()
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
                _lay_out_again(widget.parentWidget())
        self._layout.unscale()
        state = saved.get("state")
        if isinstance(state, Qt.WindowState) and window.windowState() != state:
            window.setWindowState(state)
        # The splitters go back where they were now, once the layout has settled at the
        # normal type (`_remeasure`), and when a window manager has given the window its size
        # back: until then a panel's minimum still measured at the large type (or the full
        # screen's width) would squeeze the Context pane.
        _settle_layouts()
        self._layout.restore_splitters()
        self._saved = {}


class _Layout(QObject):
    """What presenter mode changes in the live view's layout and gives back: each splitter's
    sizes, and the columns and fixed rows of its tables and trees (scaled with the type)."""

    def __init__(self) -> None:
        super().__init__()
        self._window: QWidget | None = None
        self._size = QSize()
        self._splitters: dict[QSplitter, QByteArray] = {}
        self._columns: dict[QHeaderView, list[int]] = {}
        self._rows: dict[QHeaderView, int] = {}
        self._views: list[QAbstractItemView] = []

    def keep(self, window: QWidget, live: QWidget) -> None:
        """Note the window's size and every splitter's sizes (before presenter mode)."""
        if self._window is not None:
            self._window.removeEventFilter(self)
        self._window, self._size = window, window.size()
        self._splitters = {
            splitter: splitter.saveState() for splitter in live.findChildren(QSplitter)
        }
        self._views = live.findChildren(QAbstractItemView)

    def scale(self, ratio: float, room: int) -> None:
        """Widen the columns the views size themselves (not those that stretch or follow
        their contents) by `ratio`, the type's growth, as far as `room` pixels allow; heighten
        fixed rows by `ratio`."""
        self._columns, self._rows = {}, {}
        for view in self._views:
            header = getattr(view, "header", None) or getattr(view, "horizontalHeader", None)
            columns = header() if callable(header) else None
            if isinstance(columns, QHeaderView) and columns.count():
                self._columns[columns] = widths = [
                    columns.sectionSize(i) for i in range(columns.count())
                ]
                sized = [i for i in range(len(widths)) if _sized_by_view(columns, i)]
                total = sum(widths[i] for i in sized)
                fits = max(1.0, room / total) if total else ratio
                for section in sized:
                    columns.resizeSection(section, round(widths[section] * min(ratio, fits)))
            if isinstance(view, QTableView):
                rows = view.verticalHeader()
                if rows.sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed:
                    self._rows[rows] = rows.defaultSectionSize()
                    rows.setDefaultSectionSize(round(rows.defaultSectionSize() * ratio))

    def unscale(self) -> None:
        """The columns and rows as they were."""
        for columns, widths in self._columns.items():
            for section, width in enumerate(widths[: columns.count()]):
                if _sized_by_view(columns, section):
                    columns.resizeSection(section, width)
        for rows, size in self._rows.items():
            rows.setDefaultSectionSize(size)
        self._columns, self._rows = {}, {}

    def restore_splitters(self) -> None:
        """Every splitter as it was; again when the window gets its size back (a window
        manager leaving full screen does that later)."""
        for splitter, state in self._splitters.items():
            splitter.restoreState(state)  # (its shares too: later resizes keep them)
        window = self._window
        if window is not None and window.size() != self._size:
            window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        window = self._window
        back = window is not None and window.size() == self._size
        if watched is window and event.type() == QEvent.Type.Resize and back:
            window.removeEventFilter(self)
            QTimer.singleShot(0, self.restore_splitters)
        return False


def _lay_out_again(parent: QWidget | None) -> None:
    """Lay `parent`'s children out again: a tab widget whose tab bar was shown again does not
    by itself (its page would keep the bar's room and cover it) — a resize lays it out."""
    if isinstance(parent, QTabWidget):
        QCoreApplication.sendEvent(parent, QResizeEvent(parent.size(), parent.size()))
    elif parent is not None:
        QCoreApplication.postEvent(parent, QEvent(QEvent.Type.LayoutRequest))


def _settle_layouts() -> None:
    """Lay the window out now at its normal type and with its parts back (the layout requests
    that would wait for the event loop), so that sizes set next are kept as they are."""
    for _ in range(3):  # (a layout done can ask its parent's again)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def _visual_lines(editor: QPlainTextEdit) -> int:
    """How many lines the editor's text takes at its width (1 for an empty one)."""
    lines, block = 0, editor.document().firstBlock()
    while block.isValid():
        layout = block.layout()
        lines += max(layout.lineCount() if layout is not None else 1, 1)
        block = block.next()
    return max(lines, 1)


def _sized_by_view(header: QHeaderView, section: int) -> bool:
    """Whether a column's width is the view's to set (not stretched, not the last one that
    stretches, not following its contents)."""
    mode = header.sectionResizeMode(section)
    last = header.stretchLastSection() and section == header.count() - 1
    return not last and mode in (QHeaderView.ResizeMode.Interactive, QHeaderView.ResizeMode.Fixed)
