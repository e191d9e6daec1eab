"""Presenter mode and demo scripts (issue 20 §2)."""

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from routescope_gui import MainWindow
from routescope_gui._editor import Legend
from routescope_gui._presenter import PRESENTER_ZOOM
from routescope_gui._window_state import SETTINGS

SCRIPT = """# Routescope in five minutes

# A local search
pizza near me
history of jazz
# Tech docs
How do I install FastAPI on Ubuntu?
"""


def focus(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)


def shown(window: MainWindow) -> dict[str, bool]:
    toolbar = window.settings_bar
    legend = window.findChild(Legend)
    assert legend is not None
    return {
        "menus": window.menuBar().isVisibleTo(window),
        "toolbar": toolbar.isVisibleTo(window),
        "status": window.statusBar().isVisibleTo(window),
        "context": window.splitter.widget(0).isVisibleTo(window),  # type: ignore[union-attr]
        "why": window.why_strip.isVisibleTo(window),
        "legend": legend.isVisibleTo(window),
        "views": window.views.tabBar().isVisibleTo(window),
        "prompt": window.editor.isVisibleTo(window),
        "decision": window.strategy_view.decision_panel.isVisibleTo(window),
        "task route": window.strategy_view.decision_panel.task.isVisibleTo(window),
        "panel": window.tabs.isVisibleTo(window),
    }


def test_f11_shows_the_prompt_the_decision_and_one_panel_in_large_type(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(1280, 900)  # tall enough for the legend
    window.set_prompt("pizza near me")
    before = shown(window)
    assert all(before.values())
    window.show_tab("Batch")
    zoom = window.zoom_steps
    badge = window.strategy_view.decision_panel.badge
    small = badge.font().pixelSize()
    focus(qtbot, window)
    qtbot.keyClick(window.editor, Qt.Key.Key_F11)
    assert window.presenter.on and window.presenter.action.isChecked()
    assert shown(window) == {
        **{name: False for name in before},
        "prompt": True,
        "decision": True,
        "panel": True,
    }
    assert window.views.currentWidget() is window.live  # from the Batch view
    assert window.zoom_steps == zoom + PRESENTER_ZOOM
    assert badge.font().pixelSize() >= 2 * small and badge.text() == "LOCAL"
    reason = window.strategy_view.decision_panel.reason
    assert reason.font().pixelSize() >= 24 and "intent.local" in reason.text()
    assert window.windowState() == Qt.WindowState.WindowNoState  # no window manager here
    # Esc leaves presenter mode; every part comes back, at the analyst's zoom.
    qtbot.keyClick(window.editor, Qt.Key.Key_Escape)
    assert not window.presenter.on and not window.presenter.action.isChecked()
    assert shown(window) == before
    assert window.zoom_steps == zoom and badge.font().pixelSize() == small


def test_esc_cancels_research_unless_presenting(window) -> None:  # type: ignore[no-untyped-def]
    cancel = window.cancel_research_action
    assert cancel.shortcut().toString() == "Esc"
    window.presenter.action.trigger()
    assert cancel.shortcut().isEmpty()
    assert [k.toString() for k in window.presenter.action.shortcuts()] == ["F11", "Esc"]
    window.presenter.action.trigger()
    assert cancel.shortcut().toString() == "Esc"
    assert [k.toString() for k in window.presenter.action.shortcuts()] == ["F11"]


def test_the_panel_is_chosen_from_the_menu_or_ctrl_digit(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("config")
    window.presenter.set_on(True)
    panels = {a.text(): a for a in window.presenter.panel_menu.actions()}
    assert list(panels) == ["Plan", "Linter", "Contract", "Tools", "Research", "Raw JSON"]
    assert panels["Plan"].isChecked()
    panels["Linter"].trigger()
    assert window.tabs.currentWidget() is window.linter_view
    assert window.linter_view.badge.text() == "VAGUE"
    focus(qtbot, window)  # the menu bar is hidden: its shortcuts still work
    qtbot.keyClick(window.editor, Qt.Key.Key_6, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.json_view and panels["Raw JSON"].isChecked()
    window.presenter.set_on(False)
    assert window.current_tab() == "Raw JSON"


def test_zooming_while_presenting_keeps_the_analysts_zoom(window, tool_cache) -> None:  # type: ignore[no-untyped-def]
    window.zoom(0)
    window.presenter.set_on(True)
    window.zoom_in_action.trigger()
    assert window.zoom_steps == PRESENTER_ZOOM + 1
    assert int(str(QSettings(*SETTINGS).value("window/zoom"))) == 1
    window.presenter.set_on(False)
    assert window.zoom_steps == 1
    window.zoom(0)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "talk.txt"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def test_a_demo_script_is_stepped_through_with_page_down_and_up(qtbot, window, script) -> None:  # type: ignore[no-untyped-def]
    badge = window.strategy_view.decision_panel.badge
    assert not window.demo_next_action.isEnabled() and not window.demo_label.isVisibleTo(window)
    window.set_prompt("line one\n" * 40)
    focus(qtbot, window)
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)  # no script: the editor's own key
    assert window.editor.textCursor().blockNumber() > 0
    window.show_tab("Regression")
    assert window.open_demo(script)
    assert window.views.currentWidget() is window.live
    assert window.editor.toPlainText() == "pizza near me"
    qtbot.waitUntil(lambda: badge.text() == "LOCAL")
    assert window.demo_label.isVisibleTo(window)
    assert window.demo_label.text() == "Demo 1/3 · A local search"
    window.presenter.set_on(True)
    focus(qtbot, window)  # the prompt has the focus: the script wins all the same
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)
    assert window.editor.toPlainText() == "history of jazz"
    qtbot.waitUntil(lambda: badge.text() == "GENERAL")
    assert window.demo_label.text() == "Demo 2/3"
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)  # the last one stays
    assert window.demo_label.text() == "Demo 3/3 · Tech docs"
    qtbot.waitUntil(lambda: badge.text() == "TECH")
    qtbot.keyClick(window.editor, Qt.Key.Key_PageUp)
    assert window.editor.toPlainText() == "history of jazz"
    assert window.demo_label.isVisibleTo(window)  # presenter mode keeps it


def test_a_script_that_cannot_be_used_is_said_and_the_current_one_kept(  # type: ignore[no-untyped-def]
    window, script, tmp_path: Path, monkeypatch
) -> None:
    told: list[tuple[str, str]] = []
    monkeypatch.setattr(
        window.dialogs, "tell", lambda title, message: told.append((title, message))
    )
    assert window.open_demo(script)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing to show\n", encoding="utf-8")
    assert not window.open_demo(empty)
    assert told == [
        (
            "Open demo script",
            f"{empty}: the demo script holds no prompt (only comments and blank lines)",
        )
    ]
    assert window.demo.script is not None and window.demo_label.text().startswith("Demo 1/3")
    monkeypatch.setattr(
        window.dialogs, "open_path", lambda _title, _filters, _start="": str(script)
    )
    window.open_demo_action.trigger()
    assert window.editor.toPlainText() == "pizza near me"


def test_the_presenter_needs_only_the_parts_it_changes(qtbot) -> None:  # type: ignore[no-untyped-def]
    """No `MainWindow`: a bare window, a live page, a splitter and an action are enough."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QLabel, QMainWindow, QSplitter, QWidget

    from routescope_gui._presenter import Presenter, PresenterParts
    from routescope_gui._style import Theme
    from routescope_gui._window_state import Zoom

    window = QMainWindow()
    qtbot.addWidget(window)
    live, body, aside = QWidget(), QSplitter(Qt.Orientation.Vertical), QLabel("aside")
    body.addWidget(QLabel("prompt"))
    body.addWidget(aside)
    window.setCentralWidget(live)
    cancel = QAction("Cancel", window)
    cancel.setShortcut("Esc")
    theme = Theme(window)
    shown: list[str] = []
    parts = PresenterParts(
        window=window,
        live=live,
        body=body,
        hidden=lambda: [aside],
        cancel_research=cancel,
        zoom=Zoom(window, theme),
        theme=theme,
        show_tab=shown.append,
        show_live=lambda: shown.append("live"),
    )
    presenter = Presenter(parts, ("Plan", "Linter"))
    window.show()
    presenter.set_on(True)
    assert shown == ["live"] and aside.isHidden() and cancel.shortcut().isEmpty()
    assert parts.zoom.steps == PRESENTER_ZOOM
    presenter.panel_menu.actions()[1].trigger()
    assert shown == ["live", "Linter"]
    presenter.set_on(False)
    assert not aside.isHidden() and cancel.shortcut().toString() == "Esc"
    assert parts.zoom.steps == 0


def test_every_menus_keys_work_while_presenting(qtbot, window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+Enter (Research ▸ Run) and F1 (Help) too, though the menu bar is hidden."""
    import routescope_gui._window

    runs: list[str] = []
    monkeypatch.setattr(window.session.research, "run", lambda: runs.append("run"))
    monkeypatch.setattr(routescope_gui._window, "show_help", lambda _w: runs.append("help"))
    window.set_prompt("asyncio event loop in a thread")
    window.presenter.set_on(True)
    focus(qtbot, window)
    qtbot.keyClick(window.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert runs == ["run"] and window.current_tab() == "Research"
    qtbot.keyClick(window.editor, Qt.Key.Key_F1)
    assert runs == ["run", "help"]
    assert window.presenter.on


def test_leaving_gives_every_splitter_its_sizes_back(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """Even when the panels shown meanwhile (Research, at the large type) squeezed the Context
    pane, and when the window comes back from full screen only after presenter mode ended."""
    window.resize(1024, 768)
    window.set_prompt("asyncio event loop in a thread")
    qtbot.wait(50)  # (layout passes run from the event loop)
    before = (window.splitter.sizes(), window.body.sizes())
    window.presenter.set_on(True)
    window.resize(1920, 1080)  # as full screen would
    window.show_tab("Research")
    window.splitter.setSizes([190, 1700])  # what a panel's large minimum width did
    window.presenter.set_on(False)
    qtbot.wait(50)
    window.resize(1024, 768)  # the window manager gives the size back, later
    qtbot.waitUntil(lambda: (window.splitter.sizes(), window.body.sizes()) == before)
    widths = window.splitter.sizes()
    qtbot.wait(50)
    assert window.splitter.sizes() == widths  # and they stay


def test_the_panels_columns_grow_with_the_type_within_the_panels_width(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    header = window.toolsearch_view.table.header()
    sized = range(header.count() - 1)  # the columns the view sizes (the last one stretches)
    widths = [header.sectionSize(column) for column in sized]
    window.resize(1920, 1080)
    window.presenter.set_on(True)
    ratio = window.font().pointSizeF() / (window.font().pointSizeF() - PRESENTER_ZOOM)
    grown = [header.sectionSize(column) for column in sized]
    assert all(abs(g - w * ratio) <= 1 and g > w for g, w in zip(grown, widths, strict=True))
    assert grown[3] >= header.fontMetrics().horizontalAdvance("Keyword")
    window.presenter.set_on(False)
    assert [header.sectionSize(column) for column in sized] == widths
    # a smaller screen: they grow as far as the panel's width lets every column show
    window.resize(1024, 768)
    window.presenter.set_on(True)
    grown = [header.sectionSize(column) for column in sized]
    assert all(g > w for g, w in zip(grown, widths, strict=True))
    assert sum(grown) <= window.live.width() * 0.85 + len(grown)
    window.presenter.set_on(False)
    assert [header.sectionSize(column) for column in sized] == widths


def test_the_demo_caption_goes_when_the_analyst_types_their_own_prompt(  # type: ignore[no-untyped-def]
    qtbot, window, script
) -> None:
    assert window.open_demo(script)
    assert window.demo_label.isVisibleTo(window)
    window.presenter.set_on(True)
    focus(qtbot, window)
    window.editor.selectAll()
    qtbot.keyClicks(window.editor, "asyncio event loop in a thread")
    assert not window.demo_label.isVisibleTo(window)
    qtbot.keyClick(window.editor, Qt.Key.Key_PageDown)  # the script goes on: its caption too
    assert window.editor.toPlainText() == "history of jazz"
    assert window.demo_label.isVisibleTo(window) and window.demo_label.text() == "Demo 2/3"


def test_the_prompt_takes_the_lines_of_large_type_its_text_needs(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(1024, 768)
    window.set_prompt("pizza near me")
    window.presenter.set_on(True)
    qtbot.wait(50)  # (the large type is laid out from the event loop)
    one_line = window.body.sizes()[0]
    assert window.editor.verticalScrollBar().maximum() == 0
    window.set_prompt("My GitHub Actions build failed after the upgrade, what changed? " * 2)
    qtbot.waitUntil(lambda: window.body.sizes()[0] > one_line)
    assert window.editor.verticalScrollBar().maximum() > 0  # (longer: it scrolls)
    window.set_prompt("My GitHub Actions build failed after the upgrade, what changed?")
    qtbot.waitUntil(lambda: window.editor.verticalScrollBar().maximum() == 0)
    assert window.body.sizes()[0] > one_line


def test_leaving_lays_the_window_out_as_it_was_at_once(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """No event loop turn needed: the views' tab bar has its room back (the live page does
    not cover it) and the splitters are where they were — a window closed right away keeps
    them so."""
    qtbot.wait(20)  # (laid out once)
    before = (window.live.geometry(), window.splitter.sizes(), window.body.sizes())
    window.presenter.action.trigger()
    window.presenter.action.trigger()
    assert (window.live.geometry(), window.splitter.sizes(), window.body.sizes()) == before
