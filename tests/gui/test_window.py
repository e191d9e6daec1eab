import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTreeWidgetItemIterator

from routescope_gui import MainWindow

TODAY = dt.date(2026, 2, 5)


@pytest.fixture
def window(qtbot, qloop):  # type: ignore[no-untyped-def]
    win = MainWindow()
    qtbot.addWidget(win)
    win.set_today(TODAY)
    win.show()
    return win


def tree_texts(win: MainWindow) -> list[str]:
    texts = []
    iterator = QTreeWidgetItemIterator(win.context_panel)
    while item := iterator.value():
        texts.append(" | ".join(item.text(c) for c in range(3)))
        iterator += 1
    return texts


def plan_rows(win: MainWindow) -> list[list[str]]:
    model = win.plan_model
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_typing_updates_every_panel(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    prompt = "How do I install FastAPI on Ubuntu?"
    qtbot.keyClicks(window.editor, prompt)
    qtbot.waitUntil(lambda: window.result is not None and window.result.context.raw_text == prompt)
    # Context: entities ranked, flags lit with evidence.
    texts = tree_texts(window)
    assert any("FastAPI" in t and "CamelCase" in t for t in texts)
    assert any(t.startswith("tech | ● on") and "“install” @9–16" in t for t in texts)
    # Strategy and the rule that chose it.
    assert window.strategy_panel.badge.text() == "TECH"
    assert "intent.tech" in window.strategy_panel.reason.text()
    # Plan table: raw and sanitized queries.
    rows = plan_rows(window)
    assert [r[3] for r in rows] == [
        "site:docs.* FastAPI (install OR docs OR getting started)",
        "site:github.com FastAPI README",
    ]
    # Highlights in the editor, with the evidence as tooltip text.
    labels = {h.label for h in window.editor.spans_at(prompt.index("FastAPI"))}
    assert labels == {"entity"}
    assert {h.label for h in window.editor.spans_at(prompt.index("install"))} == {"tech"}
    assert len(window.editor.extraSelections()) == 3
    # Timings per stage in the status bar, and the raw JSON.
    assert "extract" in window.statusBar().currentMessage()
    assert "µs" in window.statusBar().currentMessage()
    # The raw JSON is rendered when its tab is shown, and follows later edits while shown.
    assert window.json_view.toPlainText() == ""
    window.tabs.setCurrentWidget(window.json_view)
    assert '"strategy": "tech"' in window.json_view.toPlainText()
    window.set_prompt("pizza near me")
    assert '"strategy": "local"' in window.json_view.toPlainText()


def test_results_follow_every_edit(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("history of jazz")
    assert window.strategy_panel.badge.text() == "GENERAL"
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(window.editor, " near me")
    qtbot.waitUntil(lambda: window.strategy_panel.badge.text() == "LOCAL")
    window.editor.selectAll()
    qtbot.keyClick(window.editor, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: window.result is None)
    assert window.plan_model.rowCount() == 0
    assert window.editor.extraSelections() == []


def test_sanitize_edits_are_shown(window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("latest gaming engine news")
    rows = plan_rows(window)
    assert rows[0][4] == "latest news as of February 5, 2026"
    assert "banned_modifier" in rows[0][5] and "as_of" in rows[0][5]
    html = window.plan_model.index(0, 4).data(Qt.ItemDataRole.UserRole + 1)
    assert "line-through" in html and "as of February 5, 2026" in html


def test_today_control_reaches_the_router(window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("latest news")
    window.set_today(dt.date(2030, 7, 4))
    assert window.result is not None
    assert window.result.actions[0].query == "latest news as of July 4, 2030"


def test_rule_pack_from_a_file(tmp_path: Path, window) -> None:  # type: ignore[no-untyped-def]
    import routescope

    text = (routescope.resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    good = tmp_path / "mine.toml"
    good.write_text(
        text.replace('name = "default"', 'name = "mine"').replace(
            '"gaming engine"', '"free download"'
        ),
        encoding="utf-8",
    )
    window.set_prompt("free download of vlc")
    assert window.load_rules(str(good))
    assert window.result is not None and window.result.rules == "mine"
    assert window.result.actions[0].query == "of vlc"
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    assert not window.load_rules(str(bad))
    assert window.banner.isVisibleTo(window) and "bad.toml" in window.banner.text()
    assert window.inspector.rules.name == "mine"
    assert window.editor.toPlainText() == "free download of vlc"


def test_highlights_land_on_the_right_characters_after_emoji(window) -> None:  # type: ignore[no-untyped-def]
    prompt = "🚀🚀 install FastAPI"
    window.set_prompt(prompt)
    selections = window.editor.extraSelections()
    texts = {s.cursor.selectedText() for s in selections}
    assert {"install", "FastAPI"} <= texts


def test_large_prompts_are_inspected_off_the_ui_thread(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    prompt = "install FastAPI now " * 5_000
    window.set_prompt(prompt)
    qtbot.waitUntil(lambda: window.result is not None, timeout=10_000)
    assert window.result.context.raw_text == window.editor.toPlainText()


def test_screenshot_script_renders_the_window(tmp_path: Path) -> None:
    target = tmp_path / "window.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "routescope_gui",
            "--screenshot",
            str(target),
            "--today",
            "2026-02-05",
            "Best ramen near Denver, Colorado tonight",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert target.stat().st_size > 20_000


def test_no_display_says_how_to_use_the_cli() -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    done = subprocess.run(
        [sys.executable, "-m", "routescope_gui"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "routescope inspect" in done.stderr


def test_linter_tab_shows_class_arithmetic_and_expansion(window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("config")
    panel = window.linter_panel
    assert panel.badge.text() == "VAGUE"
    assert "tokens 1 &lt; 3" in panel.arithmetic.text() or "tokens 1 < 3" in panel.arithmetic.text()
    assert "agent.md" in panel.expansion.text() and "vague_default_boost" in panel.expansion.text()
    assert {h.label for h in window.editor.spans_at(0)} == {"anchor"}


def test_contract_tab_steps_through_the_plan(window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("Lend 100 USDC on Kamino")
    panel = window.contract_panel
    assert panel.decision is not None and panel.decision.mode == "execute"
    assert panel.step_label.text() == "next: wallet_connect"
    for _ in range(3):
        panel.step()
    assert panel.step_label.text() == "done — tool plan complete"
    assert not panel.step_button.isEnabled()
    panel.raw_toggle.setChecked(True)
    assert '"lend_execute"' in panel.raw.toPlainText()


def test_contract_context_is_editable_and_validated(window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("try again")
    panel = window.contract_panel
    panel.context_edit.setPlainText('{"last_action": {"tool": 5}}')
    assert "not used" in panel.context_status.text()
    assert window.inspector.context is None
    panel.context_edit.setPlainText(
        '{"last_action": {"tool": "lend_execute", "args": {"amount": 1}, "status": "cancelled"}}'
    )
    assert window.inspector.context is not None
    assert window.result is not None and window.result.decision is not None
    assert window.result.decision.tool_plan[-1].tool == "lend_execute"
    assert window.editor.toPlainText() == "try again"


def test_the_app_runs_on_the_qasync_loop_and_quits_cleanly() -> None:
    code = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from routescope_gui.app import main\n"
        "app = QApplication(['t'])\n"
        "QTimer.singleShot(300, app.quit)\n"
        "sys.exit(main(['install FastAPI']))\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
