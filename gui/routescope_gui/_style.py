"""Colours and the style sheet: one palette for the editor, the legend and the views, in a
light and a dark theme that follow the system's colour scheme (or one chosen: `--theme`).

Every colour the app shows is named here, by the role it plays ("bad", "hit", "first_fill",
…): the views ask `colour(role)` (or `css(role)` for rich text) in the scheme in force
(`scheme_now`), never spell one themselves. `CONTRAST_PAIRS` lists the text and fill roles
that meet, so a test can hold each pair to a readable contrast in both schemes.

The style sheet has the same selectors in both schemes, only their colours change;
presenter mode (`style_sheet(presenter=True)`) adds large type for the prompt, the decision
badge and its reason.
"""

from __future__ import annotations

from string import Template
from typing import Literal, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QApplication, QFocusFrame, QStyle, QWidget
from shiboken6 import isValid

# Label -> (fill, accent). Fills are light so the text stays readable under several layers
# (the same in both schemes, with `INK` on them); accents are text on the light theme's base
# (`_DARK_ACCENTS`: on the dark one's).
LABELS: dict[str, tuple[str, str]] = {
    "entity": ("#d6e6ff", "#2962c9"),
    "place": ("#cdf2d6", "#1b7a3e"),
    "tech": ("#eadcff", "#7a3fd1"),
    "local": ("#ffe4c2", "#a85a00"),
    "purchase": ("#ffd9e6", "#c2185b"),
    "troubleshooting": ("#ffd2cc", "#c62828"),
    "time_sensitive": ("#fff0a8", "#806600"),
    "anchor": ("#c8f1ee", "#00796b"),
}
_DARK_ACCENTS = {
    "entity": "#82b1ff",
    "place": "#81c995",
    "tech": "#c5a3ff",
    "local": "#ffb74d",
    "purchase": "#f48fb1",
    "troubleshooting": "#ef9a9a",
    "time_sensitive": "#e6c35c",
    "anchor": "#80cbc4",
}

# Badges (white text) and the batch charts' bars: the same in both schemes.
CLASS_COLOURS = {"guided": "#2e7d32", "semi": "#9a6200", "vague": "#c62828"}

STRATEGY_COLOURS = {"general": "#546e7a", "local": "#a85a00", "tech": "#7a3fd1"}

SIGNAL_COLOURS = {
    "vector": "#0072B2",
    "keyword": "#E69F00",
    "metadata_alignment_boost": "#009E73",
    "file_discovery_boost": "#CC79A7",
}
"""The tool search's signals in a score bar (Okabe–Ito: told apart by colour-blind eyes too;
no text is drawn on them)."""
OTHER_SIGNAL = "#D55E00"
"""A score bar's segment of any other boost."""

__all__ = [
    "BADGE_TEXT",
    "CLASS_COLOURS",
    "CONTRAST_PAIRS",
    "FAINT_PAIRS",
    "INK",
    "LABELS",
    "MARK_PAIRS",
    "MUTED",
    "OTHER_SIGNAL",
    "SIGNAL_COLOURS",
    "STRATEGY_COLOURS",
    "STYLE_SHEET",
    "THEMES",
    "FocusRing",
    "Scheme",
    "Theme",
    "accent",
    "colour",
    "colours",
    "css",
    "fill",
    "named_colour",
    "palette",
    "scheme_now",
    "style_sheet",
    "system_scheme",
    "text_colour",
]

MUTED = "#5f7581"
"""The badge of no decision yet ("—")."""
BADGE_TEXT = "#ffffff"
"""The text on a badge (a strategy's, a query class's, a compare side's chip)."""


INK = "#263238"
"""Text on a light fill (a label's fill, a traced word): dark in both schemes, since the fills
stay light."""

Scheme = Literal["light", "dark"]
THEMES = ("system", "light", "dark")
"""The themes one can ask for (`--theme`): the system's colour scheme, or one of the two."""


def fill(label: str) -> QColor:
    return QColor(LABELS[label][0])


def accent(label: str, scheme: Scheme | None = None) -> QColor:
    """A label's colour as text (or an underline) on the scheme's base."""
    if (scheme or scheme_now()) == "dark":
        return QColor(_DARK_ACCENTS[label])
    return QColor(LABELS[label][1])


# A badge's colour follows its `tone` property, so a new result re-polishes it only when the
# tone changes (a style sheet set per result re-polishes the whole badge every time).
_BADGE_TONES = "\n".join(
    f'QLabel#badge[tone="{tone}"] {{ background: {colour}; }}'
    for tone, colour in {**STRATEGY_COLOURS, **CLASS_COLOURS}.items()
)

_ROLES: dict[Scheme, dict[str, str]] = {
    "light": {
        # text on the base, panels and windows
        "text": "#263238",
        "muted": "#546e7a",
        "faint": "#78909c",
        "good": "#2e7d32",
        "bad": "#c62828",
        "warn_ink": "#805f00",
        "info": "#1c4fa8",
        "link": "#1565c0",
        "term": "#7a3fd1",
        "focus": "#1e6fd9",
        "cursor": "#1e6fd9",
        "cursor_text": "#ffffff",
        "on_accent": "#ffffff",  # text on a label's accent used as a fill (the timing bar)
        # text on the light label fills (entities, the place, a traced word), in both schemes
        "ink": INK,
        "trace": "#ffe082",
        "flip": "#d84315",
        # a plan's first queries (priority 0: OpenClaw's)
        "first_fill": "#eadcff",
        "first_text": "#263238",
        # a confusion matrix: the diagonal (right), the rest (wrong)
        "hit": "#dcedc8",
        "hit_text": "#1b3d1e",
        "miss": "#ffcdd2",
        "miss_text": "#5f1313",
        # diffs: words removed and added; the sides of a comparison
        "removed": "#fbd3d0",
        "removed_text": "#b71c1c",
        "added": "#c8efcf",
        "added_text": "#1b5e20",
        "side_a": "#b71c1c",
        "side_a_fill": "#fdecea",
        "side_b": "#1b5e20",
        "side_b_fill": "#e3f6e5",
        "chip_a": "#b71c1c",
        "chip_b": "#1b5e20",
        # bars and marks
        "bar": "#90caf9",
        "tick": "#37474f",
        "shade": "#f5c96b",
        "chart_blue": "#3b6ea8",
        "chart_orange": "#d9822b",
        "chart_grey": "#9aa5b1",
        "chart_selected": "#dbe9fb",
        "chart_hover": "#f0f4f8",
        # cards (the batch report)
        "card": "#ffffff",
        "card_border": "#dde1e6",
        "clean": "#f3faf4",
        "clean_border": "#b7dfbf",
        "leak": "#fdf0f0",
        "leak_border": "#ef9a9a",
        # a word of the why strip, by the decision its removal flips: fill, text
        "why_strategy": "#ffe4c2",
        "why_strategy_text": "#8a4a00",
        "why_lint": "#c8f1ee",
        "why_lint_text": "#00574d",
        "why_contract": "#d6e6ff",
        "why_contract_text": "#1c4fa8",
        "why_task": "#e3e7ea",
        "why_task_text": "#37474f",
        "why_tool": "#ffd9e6",
        "why_tool_text": "#8e1246",
    },
    "dark": {
        "text": "#e3e8ec",
        "muted": "#9aabb5",
        "faint": "#7d8a93",
        "good": "#81c784",
        "bad": "#ef9a9a",
        "warn_ink": "#e6c35c",
        "info": "#9cc0ff",
        "link": "#82b1ff",
        "term": "#c5a3ff",
        "focus": "#5c9cff",
        "cursor": "#2f5f9e",
        "cursor_text": "#ffffff",
        "on_accent": INK,  # (the dark scheme's accents are light)
        "ink": INK,
        "trace": "#ffe082",
        "flip": "#ff8a65",
        "first_fill": "#3b2a5e",
        "first_text": "#eadcff",
        "hit": "#1f3a24",
        "hit_text": "#c8e6c9",
        "miss": "#4a1f22",
        "miss_text": "#ffcdd2",
        "removed": "#4a1f22",
        "removed_text": "#ffb4ab",
        "added": "#1f3a24",
        "added_text": "#b9f0c0",
        "side_a": "#ff8a80",
        "side_a_fill": "#3d1f1f",
        "side_b": "#81c784",
        "side_b_fill": "#1d3322",
        "chip_a": "#b71c1c",
        "chip_b": "#1b5e20",
        "bar": "#3f76b8",
        "tick": "#e3e8ec",
        "shade": "#8a6a22",
        "chart_blue": "#5b8fd0",
        "chart_orange": "#e39a4f",
        "chart_grey": "#6b767e",
        "chart_selected": "#27405f",
        "chart_hover": "#262c33",
        "card": "#23282e",
        "card_border": "#3a424b",
        "clean": "#1c2e20",
        "clean_border": "#2f5a38",
        "leak": "#3a1f21",
        "leak_border": "#8e3b40",
        "why_strategy": "#4a3214",
        "why_strategy_text": "#ffd49a",
        "why_lint": "#123d39",
        "why_lint_text": "#a7ece5",
        "why_contract": "#1f3a66",
        "why_contract_text": "#d6e6ff",
        "why_task": "#333b42",
        "why_task_text": "#e3e7ea",
        "why_tool": "#4a1f33",
        "why_tool_text": "#ffd9e6",
    },
}
"""The views' colours in each scheme, by role (the same roles in both)."""

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
"""The style sheet's colours in each scheme (the same names, so the same selectors); the
sheet has the views' roles (`_ROLES`) too."""


def colours(scheme: Scheme) -> dict[str, str]:
    """Every colour of a scheme by name: the style sheet's surfaces ("table", "panel", …), the
    views' roles, each label's `fill_<label>` and `accent_<label>`, each badge's
    `badge_<tone>` and the text on them (`badge_text`)."""
    labels = {f"fill_{name}": fill_colour for name, (fill_colour, _accent) in LABELS.items()}
    labels |= {f"accent_{name}": accent(name, scheme).name() for name in LABELS}
    badges = {f"badge_{tone}": c for tone, c in {**STRATEGY_COLOURS, **CLASS_COLOURS}.items()}
    return {
        **_COLOURS[scheme],
        **_ROLES[scheme],
        **labels,
        **badges,
        "badge_none": MUTED,
        "badge_text": BADGE_TEXT,
    }


def scheme_now() -> Scheme:
    """The scheme of the application's palette now: dark when its windows are."""
    window = QGuiApplication.palette().color(QPalette.ColorRole.Window)
    return "dark" if window.lightness() < 128 else "light"


def css(role: str, scheme: Scheme | None = None) -> str:
    """A role's colour as rich text and style sheets spell it ("#c62828"), in `scheme` (the
    one in force when None)."""
    return _ROLES[scheme or scheme_now()][role]


def colour(role: str, scheme: Scheme | None = None) -> QColor:
    """A role's colour in `scheme` (the one in force when None)."""
    return QColor(css(role, scheme))


def named_colour(name: str) -> QColor:
    """A colour given as a role ("chart_blue": the scheme's in force) or as a colour the same
    in both schemes (a strategy's "#7a3fd1", one of `SIGNAL_COLOURS`)."""
    return QColor(name) if name.startswith("#") else colour(name)


_SURFACES = ("table", "alternate", "panel", "window")
_ON_SURFACES = (
    "text",
    "muted",
    "good",
    "bad",
    "warn_ink",
    "info",
    "link",
    "term",
    "side_a",
    "side_b",
    *(f"accent_{name}" for name in LABELS),
)
CONTRAST_PAIRS: tuple[tuple[str, str], ...] = (
    *((text, surface) for text in _ON_SURFACES for surface in _SURFACES),
    *(("ink", f"fill_{name}") for name in LABELS),
    ("ink", "trace"),
    ("first_text", "first_fill"),
    ("hit_text", "hit"),
    ("miss_text", "miss"),
    ("removed_text", "removed"),
    ("added_text", "added"),
    ("side_a", "side_a_fill"),
    ("side_b", "side_b_fill"),
    ("badge_text", "chip_a"),
    ("badge_text", "chip_b"),
    ("badge_text", "badge_none"),
    *(("badge_text", f"badge_{tone}") for tone in {**STRATEGY_COLOURS, **CLASS_COLOURS}),
    *((f"why_{name}_text", f"why_{name}") for name in ("strategy", "lint", "contract", "task")),
    ("why_tool_text", "why_tool"),
    ("good", "proceed"),
    ("warn_ink", "again"),
    ("bad", "escalate"),
    ("warn_text", "warn"),
    ("banner_text", "banner"),
    ("demo_text", "demo"),
    ("title", "header"),
    ("title", "card"),
    ("text", "card"),
    ("muted", "card"),
    ("text", "clean"),
    ("good", "clean"),
    ("muted", "clean"),
    ("text", "leak"),
    ("bad", "leak"),
    ("muted", "leak"),
    ("text", "selection"),
    ("cursor_text", "cursor"),
    *(("on_accent", f"accent_{name}") for name in LABELS),
    ("text", "chart_selected"),
    ("text", "chart_hover"),
    ("link", "chart_hover"),
    ("status", "window"),
)
"""(text, fill) pairs of `colours` names that meet on screen: each must read (WCAG contrast
≥ 4.5) in both schemes."""
FAINT_PAIRS: tuple[tuple[str, str], ...] = tuple(("faint", surface) for surface in _SURFACES)
"""Text that is there but off (an intent flag off, a row below the fit threshold): like a
disabled control's, it needs no 4.5; it must still be seen (≥ 3)."""
MARK_PAIRS: tuple[tuple[str, str], ...] = tuple(
    ("focus", surface) for surface in (*_SURFACES, "header", "input")
)
"""Marks that are no text but must be seen where they are drawn (WCAG 1.4.11: ≥ 3): the
focus ring (`FocusRing`)."""

_SHEET = Template(
    """
QMainWindow, QWidget#central, QSplitter#body { background: $window; }
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
QLabel#placeholder { color: $muted; }
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
QLabel#closeCall, QLabel#closeSummary {
    background: $warn; color: $warn_text; border: 1px solid $warn_border; border-radius: 4px;
    padding: 1px 6px;
}
QFrame#leakCard {
    background: $card; border: 1px solid $card_border; border-radius: 8px; padding: 2px;
}
QFrame#leakCard[tone="clean"] { background: $clean; border: 1px solid $clean_border; }
QFrame#leakCard[tone="leak"] { background: $leak; border: 1px solid $leak_border; }
QFrame#leakCard[tone="clean-selected"] { background: $clean; border: 2px solid $focus; }
QFrame#leakCard[tone="leak-selected"] { background: $leak; border: 2px solid $focus; }
QLabel#leakCount { font-size: 22px; font-weight: 700; }
QLabel#leakCount[tone="clean"] { color: $good; }
QLabel#leakCount[tone="leak"] { color: $bad; }
QLabel#leakTitle { font-weight: 600; color: $text; }
QFrame#chartCard { background: $card; border: 1px solid $card_border; border-radius: 8px; }
QLabel#chartTitle { font-weight: 600; color: $title; }
QLabel#chartNote, QLabel#leakDetail { color: $muted; }
QLabel#batchHint { color: $muted; font-size: 14px; padding: 40px; }
QLabel#researchVerdict { border-radius: 6px; padding: 3px 8px; }
QLabel#researchVerdict[tone="proceed"] { background: $proceed; }
QLabel#researchVerdict[tone="research_again"] { background: $again; }
QLabel#researchVerdict[tone="proceed_weak"] { background: $again; }
QLabel#researchVerdict[tone="escalate"] { background: $escalate; }
QTableView, QTreeWidget, QPlainTextEdit#json, QTextBrowser#detail {
    background: $table; border: 1px solid $border; border-radius: 6px;
    gridline-color: $grid; alternate-background-color: $alternate;
}
QPlainTextEdit#json { font-family: "DejaVu Sans Mono", "Menlo", "Consolas", monospace; }
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
    named = {**_COLOURS[scheme], **_ROLES[scheme]}
    sizes = {name: round(px * scale) for name, px in _PIXELS.items()}
    sheet = _SHEET.substitute({**named, **sizes, "badge": MUTED, "tones": _BADGE_TONES})
    if points is not None:
        sheet = f"QWidget {{ font-size: {points:g}pt; }}\n" + sheet
    return sheet + _PRESENTER_SHEET.substitute(named) if presenter else sheet


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


_RING_WIDTH = 2
"""The focus ring's width in pixels."""


class FocusRing(QFocusFrame):
    """A ring in the theme's `focus` colour around a widget (`follow`): the one with the
    keyboard focus (`Theme` moves it). Every control, table and text field gets the same,
    plainly visible ring in both schemes (a style's own focus marks are faint, and some
    invisible in the dark)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("focusRing")

    def follow(self, widget: QWidget | None) -> None:
        """Ring `widget` (None: none). The ring becomes a sibling of the widget's."""
        # (None lets go of the widget: the stubs miss that the C++ takes a null pointer)
        self.setWidget(widget)  # type: ignore[arg-type]
        self._on_top()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        handled = super().eventFilter(watched, event)
        if watched is self.widget():
            self._on_top()  # (the frame follows the widget, and goes under it again)
        return handled

    def _on_top(self) -> None:
        """Over the widget, not under it as most styles stack a focus frame, and unmasked (a
        style masks all but its margin): drawn along the inside of the widget's edge, the ring
        would be hidden otherwise."""
        if self.widget() is not None and self.isVisible():
            self.clearMask()
            self.raise_()

    def paintEvent(self, event: QPaintEvent) -> None:
        """The ring along the inside of the widget's edge (over its border, if it has one):
        the frame's margin outside it may be cut off by the widget's parent."""
        del event
        style = self.style()
        across = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self)
        down = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameVMargin, None, self)
        half = _RING_WIDTH / 2
        ring = (
            self.rect().toRectF().adjusted(across + half, down + half, -across - half, -down - half)
        )
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(colour("focus"), _RING_WIDTH))
        painter.drawRoundedRect(ring, 3, 3)


class Theme(QObject):
    """The colours and type of a window: the application's palette and the window's style sheet
    in the scheme chosen ("system": the system's, followed when it changes), at the window's
    zoom, with presenter mode's large type or not.

    The palette is the application's (dialogs take it too, and widgets a style sheet polished
    take a new one only from there); under "system" in a light scheme it is left to Qt.

    Attributes:
        focus_ring: the `FocusRing` around the window's widget with the keyboard focus, when
            it came from the keyboard or the program (Tab, a shortcut), not a click: the mouse
            pointer already says where the analyst is.

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
        self._ring: FocusRing | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        self._apply()

    @property
    def focus_ring(self) -> FocusRing:
        """The ring (made again if it went with the parent of the widget it last ringed)."""
        if self._ring is None or not isValid(self._ring):
            self._ring = FocusRing(self._window)
        return self._ring

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        mine = new is not None and new.window() is self._window and new.isVisible()
        by_mouse = QGuiApplication.mouseButtons() != Qt.MouseButton.NoButton
        if mine and not by_mouse:
            self.focus_ring.follow(new)
        elif self._ring is not None and isValid(self._ring):
            self._ring.follow(None)

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
