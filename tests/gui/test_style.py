"""The light and dark themes: one set of selectors, two palettes, the system followed."""

import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from routescope_gui import _style
from routescope_gui._style import STYLE_SHEET, Theme, palette, style_sheet


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
