"""The light and dark themes: one set of selectors, two palettes, the system followed."""

import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from shiboken6 import isValid

from routescope_gui import _style
from routescope_gui._style import (
    CONTRAST_PAIRS,
    FAINT_PAIRS,
    MARK_PAIRS,
    STYLE_SHEET,
    Scheme,
    Theme,
    colour,
    colours,
    css,
    named_colour,
    palette,
    scheme_now,
    style_sheet,
)
from tests.gui._support import contrast


def selectors(sheet: str) -> list[str]:
    return re.findall(r"^([^\s{][^{]*)\{", sheet, flags=re.MULTILINE)


def test_both_schemes_style_the_same_selectors_in_other_colours() -> None:
    light, dark = style_sheet("light"), style_sheet("dark")
    assert selectors(light) == selectors(dark) and light != dark
    assert light == STYLE_SHEET and "$" not in light + dark
    assert "QLabel#badge" in light and "background: #1b1f24" in dark


def test_presenter_and_zoom_enlarge_the_type() -> None:
    sizes = re.compile(r"#(prompt|badge|reason)[^}]*font-size: (\d+)px")

    def largest(sheet: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for name, size in sizes.findall(sheet):
            found[name] = int(size)  # the later rule wins, as in Qt
        return found

    normal = largest(style_sheet("dark"))
    assert normal == {"prompt": 15, "badge": 18, "reason": 13}
    presenter = largest(style_sheet("dark", presenter=True))
    assert all(presenter[name] >= 2 * normal[name] for name in normal)
    zoomed = style_sheet("light", points=12, scale=2.0)
    assert zoomed.startswith("QWidget { font-size: 12pt; }")
    assert largest(zoomed) == {"prompt": 30, "badge": 36, "reason": 26}


@pytest.fixture
def app_palette(qapp: QApplication) -> Iterator[None]:
    """The application's palette as it was, whatever a test's theme set."""
    yield
    QGuiApplication.setPalette(QPalette())


def text(widget_palette: QPalette) -> str:
    return widget_palette.color(QPalette.ColorRole.Text).name()


def test_a_chosen_scheme_colours_every_widget(qtbot, window, app_palette) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("pizza near me")
    table = window.strategy_view.plan_table
    assert window.theme.choice == "system" and window.theme.scheme == "light"
    changed: list[str] = []
    window.theme.changed.connect(changed.append)
    window.theme.set_choice("dark")
    assert changed == ["dark"] and "#1b1f24" in window.styleSheet()
    assert text(QGuiApplication.palette()) == text(palette("dark"))
    qtbot.waitUntil(lambda: text(table.palette()) == text(palette("dark")))
    window.theme.set_choice("system")  # back to the system's light palette
    assert changed == ["dark", "light"] and "#f6f7f9" in window.styleSheet()
    assert text(QGuiApplication.palette()) == text(QPalette())
    with pytest.raises(ValueError, match="no theme 'sepia'"):
        window.theme.set_choice("sepia")


def test_the_system_scheme_is_followed(qtbot, window, app_palette, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    theme: Theme = window.theme
    monkeypatch.setattr(_style, "system_scheme", lambda: "dark")
    with qtbot.waitSignal(theme.changed) as blocker:
        QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert blocker.args == ["dark"] and "#1b1f24" in window.styleSheet()
    theme.set_choice("light")  # a chosen scheme stays when the system's changes
    monkeypatch.setattr(_style, "system_scheme", lambda: "light")
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert theme.scheme == "light" and "#f6f7f9" in window.styleSheet()
    theme.set_choice("system")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_reads_on_the_fill_it_meets(scheme: Scheme) -> None:
    named = colours(scheme)
    unreadable = [
        f"{text} {named[text]} on {fill} {named[fill]}: {contrast(named[text], named[fill]):.2f}"
        for text, fill in CONTRAST_PAIRS
        if contrast(named[text], named[fill]) < 4.5
    ]
    assert unreadable == []
    faint = [(t, f) for t, f in (*FAINT_PAIRS, *MARK_PAIRS) if contrast(named[t], named[f]) < 3]
    assert faint == []  # (text that is off, and the focus ring: seen, WCAG 1.4.11)


def test_both_schemes_name_the_same_roles() -> None:
    assert colours("light").keys() == colours("dark").keys()
    assert len(CONTRAST_PAIRS) > 100


def test_the_roles_follow_the_scheme_in_force(dark) -> None:  # type: ignore[no-untyped-def]
    assert scheme_now() == "dark"
    assert colour("bad") == QColor(colours("dark")["bad"]) != colour("bad", "light")
    assert css("text") == "#e3e8ec" and named_colour("#7a3fd1") == QColor("#7a3fd1")
    assert named_colour("chart_blue") == colour("chart_blue", "dark")


_HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
_NAMED = re.compile(r"\b(?:color|background(?:-color)?)\s*:\s*(?:white|black)\b")
_TEXT_TOKENS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
"""Tokens that hold a literal's text (from Python 3.12 an f-string's are apart)."""
_OWN_COLOURS = {
    "_style.py",  # the theme: every colour is named here
    "_rules_editor.py",  # (the rule editor's error line: left to the window-shell work)
}


def test_no_view_spells_a_colour_of_its_own() -> None:
    """Every colour a view shows comes from the theme (`_style`), so both schemes have it."""
    package = Path(_style.__file__).parent
    found = []
    for path in sorted(package.glob("*.py")):
        if path.name in _OWN_COLOURS:
            continue
        with tokenize.open(path) as source:
            for token in tokenize.generate_tokens(source.readline):
                if token.type in _TEXT_TOKENS and (
                    _HEX.search(token.string) or _NAMED.search(token.string)
                ):
                    found.append(f"{path.name}:{token.start[0]}: {token.string[:60]}")
    assert found == []


def test_the_focus_ring_follows_the_keyboard_and_outlives_a_pane(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.mouseRelease(window, Qt.MouseButton.LeftButton)  # (a press another test left)
    pane = QWidget(window.live)
    button = QPushButton("a control", pane)
    pane.show()
    button.setFocus(Qt.FocusReason.TabFocusReason)
    ring = window.theme.focus_ring
    qtbot.waitUntil(lambda: ring.widget() is button and ring.isVisible())
    assert ring.parentWidget() is pane  # (a sibling of the widget it rings)
    pane.deleteLater()  # the ring goes with it
    qtbot.waitUntil(lambda: not isValid(ring))
    window.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
    qtbot.waitUntil(lambda: window.theme.focus_ring.widget() is window.editor)
    assert window.theme.focus_ring.isVisible()
