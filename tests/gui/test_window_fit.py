"""Window-level fit: focus, zoom, the banner's room, the status bar's timings (issue 19 §1)."""

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from routescope_gui import MainWindow
from routescope_gui._window import _SETTINGS


def test_shortcuts_focus_the_prompt_from_any_view(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    for key in (Qt.Key.Key_L, Qt.Key.Key_F6):
        window.show_tab("Batch")
        window.batch_view.setFocus()
        modifier = (
            Qt.KeyboardModifier.ControlModifier
            if key == Qt.Key.Key_L
            else Qt.KeyboardModifier.NoModifier
        )
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        qtbot.keyClick(window.batch_view, key, modifier)
        qtbot.waitUntil(lambda: window.editor.hasFocus())
        assert window.views.currentWidget() is window.live
    window.show_tab("Plan")
    window.strategy_view.context_tree.setFocus()
    window.focus_prompt_action.trigger()
    assert window.editor.hasFocus()


def test_zoom_scales_the_window_font_and_is_remembered(qtbot, window, tool_cache) -> None:  # type: ignore[no-untyped-def]
    base = window.font().pointSizeF()
    window.zoom_in_action.trigger()
    window.zoom_in_action.trigger()
    assert window.font().pointSizeF() == base + 2
    assert window.editor.font().pointSizeF() >= base + 2 or window.zoom_steps == 2
    window.zoom_out_action.trigger()
    assert window.zoom_steps == 1
    again = MainWindow(cache=tool_cache)
    qtbot.addWidget(again)
    assert again.zoom_steps == 1 and again.font().pointSizeF() == base + 1
    window.zoom_reset_action.trigger()
    assert window.font().pointSizeF() == base
    assert int(str(QSettings(*_SETTINGS).value("window/zoom"))) == 0


def test_the_banner_takes_room_inside_the_window(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # At its least height, as on a 768-px screen (the walk saw 720 grow to 743 px).
    least = max(window.minimumSizeHint().height(), 400)
    window.resize(1280, least)
    qtbot.waitUntil(lambda: window.height() == least)
    size = window.size()
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    assert not window.open_rules(bad)
    qtbot.waitUntil(lambda: window.banner.isVisible())
    QApplication.processEvents()
    assert window.size() == size
    window.builtin_rules_action.trigger()
    qtbot.waitUntil(lambda: not window.banner.isVisible())
    QApplication.processEvents()
    assert window.size() == size


def test_timings_stay_when_a_message_is_shown(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("pizza near me")
    qtbot.waitUntil(lambda: "µs" in window.timings_label.text())
    window.statusBar().showMessage("Open a rule pack")  # what a menu's hint does
    assert "µs" in window.timings_label.text() and window.timings_label.isVisible()
