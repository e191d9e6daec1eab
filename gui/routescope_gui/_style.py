"""Colours and the style sheet: one palette for the editor, the legend and the views, in a
light and a dark theme that follow the system's colour scheme (or one chosen: `--theme`).

The style sheet has the same selectors in both schemes, only their colours change;
presenter mode (`style_sheet(presenter=True)`) adds large type for the prompt, the decision
badge and its reason.
"""

from __future__ import annotations

from string import Template
from typing import Literal, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QWidget

# Label -> (fill, accent). Fills are light so the text stays readable under several layers.
LABELS: dict[str, tuple[str, str]] = {
    "entity": ("#d6e6ff", "#2f6fdb"),
    "place": ("#cdf2d6", "#1f8a46"),
    "tech": ("#eadcff", "#7a3fd1"),
    "local": ("#ffe4c2", "#c76a00"),
    "purchase": ("#ffd9e6", "#c2185b"),
    "troubleshooting": ("#ffd2cc", "#c62828"),
    "time_sensitive": ("#fff0a8", "#9a7b00"),
    "anchor": ("#c8f1ee", "#00796b"),
}

CLASS_COLOURS = {"guided": "#2e7d32", "semi": "#f9a825", "vague": "#c62828"}

STRATEGY_COLOURS = {"general": "#546e7a", "local": "#c76a00", "tech": "#7a3fd1"}

__all__ = [
    "CLASS_COLOURS",
    "INK",
    "LABELS",
    "MUTED",
    "STRATEGY_COLOURS",
    "STYLE_SHEET",
    "THEMES",
    "Scheme",
    "Theme",
    "accent",
    "fill",
    "palette",
    "style_sheet",
    "system_scheme",
    "text_colour",
]

MUTED = "#90a4ae"
"""Text and marks that are present but off (an intent flag that is off, a dropped entity)."""


INK = "#263238"
"""Text on a light fill (a label's fill, a traced word): dark in both schemes, since the fills
stay light."""

Scheme = Literal["light", "dark"]
THEMES = ("system", "light", "dark")
"""The themes one can ask for (`--theme`): the system's colour scheme, or one of the two."""


def fill(label: str) -> QColor:
    return QColor(LABELS[label][0])


def accent(label: str) -> QColor:
    return QColor(LABELS[label][1])


# A badge's colour follows its `tone` property, so a new result re-polishes it only when the
# tone changes (a style sheet set per result re-polishes the whole badge every time).
_BADGE_TONES = "\n".join(
    f'QLabel#badge[tone="{tone}"] {{ background: {colour}; }}'
    for tone, colour in {**STRATEGY_COLOURS, **CLASS_COLOURS}.items()
)

_COLOURS: dict[Scheme, dict[str, str]] = {
    "light": {
        "window": "#f6f7f9",
        "panel": "#ffffff",
        "border": "#dde1e6",
        "title": "#37474f",
        "input_border": "#c5ccd6",
        "input": "#ffffff",
        "selection": "#90caf9",
        "reason": "#263238",
        "strong": "#000000",
        "muted": "#607d8b",
        "banner": "#ffebee",
        "banner_text": "#b71c1c",
        "banner_border": "#ef9a9a",
        "warn": "#fff4e0",
        "warn_text": "#6d4100",
        "warn_border": "#f0b256",
        "proceed": "#edf7ee",
        "again": "#fff6e5",
        "escalate": "#fdecec",
        "table": "#ffffff",
        "grid": "#eceff1",
        "alternate": "#fafbfc",
        "header": "#eef1f4",
        "status": "#455a64",
        "demo": "#e3ecfa",
        "demo_text": "#1c4fa8",
    },
    "dark": {
        "window": "#1b1f24",
        "panel": "#23282e",
        "border": "#3a424b",
        "title": "#cfd8dc",
        "input_border": "#4a545e",
        "input": "#15181c",
        "selection": "#2f5f9e",
        "reason": "#eceff1",
        "strong": "#ffffff",
        "muted": "#9aabb5",
        "banner": "#4a1f22",
        "banner_text": "#ffcdd2",
        "banner_border": "#8e3b40",
        "warn": "#3b2f14",
        "warn_text": "#ffd699",
        "warn_border": "#8a6a22",
        "proceed": "#1f3324",
        "again": "#3b3116",
        "escalate": "#45201f",
        "table": "#15181c",
        "grid": "#2c3238",
        "alternate": "#1b1f24",
        "header": "#2a3037",
        "status": "#b0bec5",
        "demo": "#1f3a66",
        "demo_text": "#d6e6ff",
    },
}
"""The style sheet's colours in each scheme (the same names, so the same selectors)."""

_SHEET = Template(
    """
QMainWindow, QWidget#central { background: $window; }
QGroupBox {
    background: $panel; border: 1px solid $border; border-radius: 8px;
    margin-top: 14px; padding: 8px 8px 8px 8px; font-weight: 600;
}
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; color: $title; }
QPlainTextEdit#prompt {
    font-size: ${prompt_px}px; border: 1px solid $input_border; border-radius: 6px; padding: 6px;
    background: $input; selection-background-color: $selection;
}
QLabel#badge {
    color: white; border-radius: 6px; padding: 4px 14px; font-size: ${badge_px}px; font-weight: 700;
    background: $badge;
}
$tones
QLabel#reason { color: $reason; font-size: ${reason_px}px; }
QLabel#muted, QLabel#gate { color: $muted; }
QLabel#demo {
    background: $demo; color: $demo_text; border-radius: 6px; padding: 2px 10px;
    font-weight: 600;
}
QLabel#banner {
    background: $banner; color: $banner_text; border: 1px solid $banner_border;
    border-radius: 6px; padding: 4px 8px;
}
QLabel#verdict[tone="fits"] { color: $muted; }
QLabel#verdict[tone="nofit"] {
    background: $warn; color: $warn_text; border: 1px solid $warn_border; border-radius: 6px;
    padding: 3px 8px;
}
QFrame#stale {
    background: $warn; color: $warn_text; border: 1px solid $warn_border; border-radius: 6px;
}
QLabel#caption {
    background: $warn; color: $warn_text; border: 1px solid $warn_border; border-radius: 4px;
    padding: 1px 6px;
}
QLabel#researchVerdict { border-radius: 6px; padding: 3px 8px; }
QLabel#researchVerdict[tone="proceed"] { background: $proceed; }
QLabel#researchVerdict[tone="research_again"] { background: $again; }
QLabel#researchVerdict[tone="proceed_weak"] { background: $again; }
QLabel#researchVerdict[tone="escalate"] { background: $escalate; }
QTableView, QTreeWidget, QPlainTextEdit#json, QTextBrowser#detail {
    background: $table; border: 1px solid $border; border-radius: 6px;
    gridline-color: $grid; alternate-background-color: $alternate;
}
QHeaderView::section {
    background: $header; border: none; border-bottom: 1px solid $border; padding: 4px 6px;
    font-weight: 600; color: $title;
}
QStatusBar { color: $status; }
QToolBar { background: $header; border-bottom: 1px solid $border; spacing: 8px; padding: 4px; }
"""
)

_PRESENTER_SHEET = Template(
    """
QPlainTextEdit#prompt { font-size: 34px; padding: 10px; }
QLabel#badge { font-size: 60px; padding: 10px 30px; border-radius: 12px; }
QLabel#reason { font-size: 30px; color: $strong; }
QLabel#gate { font-size: 18px; }
QLabel#demo { font-size: 22px; padding: 4px 14px; }
QGroupBox { margin-top: 18px; }
"""
)
"""Presenter mode's large type: read from the back of a room (the rest of the window grows
with its font, the window's zoom)."""


def style_sheet(
    scheme: Scheme = "light",
    *,
    presenter: bool = False,
    points: float | None = None,
    scale: float = 1.0,
) -> str:
    """The window's style sheet in a colour scheme; `presenter`: with presenter mode's large
    type for the prompt, the decision badge and its reason; `points`: every widget's font size
    (the window's zoom), `scale` the prompt's, the badge's and the reason's.

    (A font set on the window does not reach the widgets a style sheet has polished: the
    zoom goes through the sheet.)"""
    colours = _COLOURS[scheme]
    sizes = {name: round(px * scale) for name, px in _PIXELS.items()}
    sheet = _SHEET.substitute({**colours, **sizes, "badge": MUTED, "tones": _BADGE_TONES})
    if points is not None:
        sheet = f"QWidget {{ font-size: {points:g}pt; }}\n" + sheet
    return sheet + _PRESENTER_SHEET.substitute(colours) if presenter else sheet


_PIXELS = {"prompt_px": 15, "badge_px": 18, "reason_px": 13}
"""The prompt's, the badge's and the reason's font sizes at the window's normal zoom."""

STYLE_SHEET = style_sheet("light")
"""The light style sheet (the window applies its theme's: `Theme`)."""

_PALETTES: dict[Scheme, dict[QPalette.ColorRole, str]] = {
    "light": {
        QPalette.ColorRole.Window: "#f6f7f9",
        QPalette.ColorRole.WindowText: "#263238",
        QPalette.ColorRole.Base: "#ffffff",
        QPalette.ColorRole.AlternateBase: "#fafbfc",
        QPalette.ColorRole.Text: "#263238",
        QPalette.ColorRole.Button: "#eef1f4",
        QPalette.ColorRole.ButtonText: "#263238",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#1e6fd9",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#fffde7",
        QPalette.ColorRole.ToolTipText: "#263238",
        QPalette.ColorRole.PlaceholderText: "#78909c",
        QPalette.ColorRole.Link: "#1565c0",
        QPalette.ColorRole.Light: "#ffffff",
        QPalette.ColorRole.Midlight: "#eef1f4",
        QPalette.ColorRole.Mid: "#c5ccd6",
        QPalette.ColorRole.Dark: "#9aa5ad",
        QPalette.ColorRole.Shadow: "#6b767e",
    },
    "dark": {
        QPalette.ColorRole.Window: "#1b1f24",
        QPalette.ColorRole.WindowText: "#e3e8ec",
        QPalette.ColorRole.Base: "#15181c",
        QPalette.ColorRole.AlternateBase: "#1b1f24",
        QPalette.ColorRole.Text: "#e3e8ec",
        QPalette.ColorRole.Button: "#2a3037",
        QPalette.ColorRole.ButtonText: "#e3e8ec",
        QPalette.ColorRole.BrightText: "#ffffff",
        QPalette.ColorRole.Highlight: "#2f5f9e",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#2a3037",
        QPalette.ColorRole.ToolTipText: "#e3e8ec",
        QPalette.ColorRole.PlaceholderText: "#7d8a93",
        QPalette.ColorRole.Link: "#82b1ff",
        QPalette.ColorRole.Light: "#3a424b",
        QPalette.ColorRole.Midlight: "#30363d",
        QPalette.ColorRole.Mid: "#262b31",
        QPalette.ColorRole.Dark: "#101215",
        QPalette.ColorRole.Shadow: "#000000",
    },
}
_DISABLED = {"light": "#9aa5ad", "dark": "#6b767e"}


def palette(scheme: Scheme) -> QPalette:
    """The widgets' palette in a colour scheme (what the style sheet does not colour: dialogs'
    controls, menus, scroll bars, tooltips, plain labels)."""
    result = QPalette()
    for role, colour in _PALETTES[scheme].items():
        result.setColor(role, QColor(colour))
    disabled = QColor(_DISABLED[scheme])
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        result.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return result


def text_colour() -> str:
    """The text colour of the application's palette now: for rich text that names a colour
    for plain words (a link's own would be blue)."""
    return QGuiApplication.palette().color(QPalette.ColorRole.WindowText).name()


def system_scheme() -> Scheme:
    """The system's colour scheme (light when it says none)."""
    dark = QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark
    return "dark" if dark else "light"


class Theme(QObject):
    """The colours and type of a window: the application's palette and the window's style sheet
    in the scheme chosen ("system": the system's, followed when it changes), at the window's
    zoom, with presenter mode's large type or not.

    The palette is the application's (dialogs take it too, and widgets a style sheet polished
    take a new one only from there); under "system" in a light scheme it is left to Qt.

    Signals:
        changed: emitted with the scheme ("light", "dark") when the one applied changes.
    """

    changed = Signal(str)

    def __init__(self, window: QWidget, choice: str = "system") -> None:
        super().__init__(window)
        self._window = window
        self._choice = _checked(choice)
        self._presenter = False
        self._font: tuple[float | None, float] = (None, 1.0)
        self._scheme: Scheme | None = None
        self._sheet = ""
        self._owned = False
        self._pending = False
        window.installEventFilter(self)
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)
        self._apply()

    @property
    def choice(self) -> str:
        """ "system", "light" or "dark"."""
        return self._choice

    @property
    def scheme(self) -> Scheme:
        """The scheme applied."""
        return system_scheme() if self._choice == "system" else cast("Scheme", self._choice)

    @property
    def presenter(self) -> bool:
        return self._presenter

    def set_choice(self, choice: str) -> None:
        """Use the system's scheme ("system") or one of them ("light", "dark")."""
        self._choice = _checked(choice)
        self._apply()

    def set_presenter(self, on: bool) -> None:
        """Presenter mode's large type on or off."""
        self._presenter = on
        self._apply()

    def set_font(self, points: float | None, scale: float = 1.0) -> None:
        """Every widget's font size in points (None: the window's own) and the scale of the
        prompt's, the badge's and the reason's (the window's zoom)."""
        self._font = (points, scale)
        self._apply()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Show and self._pending:
            self._pending = False
            self._set_sheet(self._sheet, again=True)
        return False

    def _set_sheet(self, sheet: str, *, again: bool) -> None:
        """Set the window's sheet; `again`: even the same one (a polished widget takes a new
        palette only with a new sheet)."""
        if again:
            self._window.setStyleSheet("")
        self._window.setStyleSheet(sheet)
        self._sheet = sheet

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._choice == "system":
            self._apply()

    def _apply(self) -> None:
        scheme = self.scheme
        points, scale = self._font
        sheet = style_sheet(scheme, presenter=self._presenter, points=points, scale=scale)
        own = self._choice != "system" or scheme == "dark"
        repaint = False
        if own and QGuiApplication.palette() != palette(scheme):
            QGuiApplication.setPalette(palette(scheme))
            repaint = True
        elif not own and self._owned:
            QGuiApplication.setPalette(QPalette())  # back to the system's
            repaint = True
        self._owned = own
        # Widgets polished before the window is shown keep their first palette: once shown,
        # the sheet is applied again.
        self._pending = self._pending or (repaint and not self._window.isVisible())
        if repaint or sheet != self._sheet:
            self._set_sheet(sheet, again=repaint)
        before, self._scheme = self._scheme, scheme
        if scheme != before:
            self.changed.emit(scheme)


def _checked(choice: str) -> str:
    if choice not in THEMES:
        raise ValueError(f"no theme {choice!r} (one of {', '.join(THEMES)})")
    return choice
