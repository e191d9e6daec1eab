"""The Compare view in the real window: A (the live prompt) beside B, the outcome rows with the
changed decisions highlighted, flags, queries with their changed words, the contract, tool
ranks with their movement; a suite under both packs whose cases open live."""

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

import routescope
from routescope_gui import MainWindow
from routescope_gui._compare_common import OUTCOME_COLUMNS
from routescope_gui._compare_view import CompareView
from routescope_gui._html import HTML_ROLE
from tests.gui.test_compare_model import A, B, other_pack

PNG = b"\x89PNG\r\n\x1a\n"


def compare_tab(window: MainWindow, *, tools: bool = False) -> CompareView:
    view = window.compare_view
    view.rank_tools.setChecked(tools)
    window.tab_actions[8].trigger()  # View ▸ Compare (Ctrl+9)
    assert window.views.currentWidget() is view
    return view


def cells(view: CompareView, row: int) -> list[str]:
    return [view.outcome.item(row, c).text() for c in range(len(OUTCOME_COLUMNS))]


def test_two_prompts_side_by_side(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt(A)
    view = compare_tab(window)
    assert view.a_editor.toPlainText() == A  # A is the live prompt
    with qtbot.waitSignal(window.session.compare.compared, timeout=20_000):
        qtbot.keyClicks(view.b_editor, B)
    comparison = view.result
    assert comparison is not None and comparison.b.text == B
    assert "differ in:" in view.summary.text() and "strategy" in view.summary.text()
    assert cells(view, 0)[:2] == ["tech", "vague"] and cells(view, 1)[:2] == ["general", "vague"]
    assert view.changed_columns() == ["strategy", "task_route"]
    assert "no tool search" in view.a_caption.text()
    # The words that set a flag that flipped are underlined in A's and B's prompt.
    [a_mark] = view.a_editor.extraSelections()
    assert a_mark.cursor.selectedText() == "install"
    assert [m.cursor.selectedText() for m in view.b_editor.extraSelections()] == ["this week"]
    # The queries side by side, the changed words marked.
    kinds = [view.queries.item(r, 0).text() for r in range(view.queries.rowCount())]
    assert "−" in kinds and "+" in kinds
    removed = kinds.index("−")
    markup = view.queries.item(removed, 2).data(HTML_ROLE)
    assert "line-through" in markup and "OpenClaw" in markup
    assert view.queries.item(removed, 3).text() == "—"
    added = view.queries.item(kinds.index("+"), 3).data(HTML_ROLE)
    assert "#c8efcf" in added and ">news</span>" in added
    # The flags that flipped, with the words that set them.
    rows = {}
    for top in range(view.changes.topLevelItemCount()):
        group = view.changes.topLevelItem(top)
        for child in range(group.childCount()):
            item = group.child(child)
            rows[item.text(0)] = (item.text(1), item.text(2))
    assert rows["intent.tech"] == ("● on — “install”", "○ off")
    assert rows["intent.time_sensitive"] == ("○ off", "● on — “this week”")
    assert rows["strategy_rule"] == ("intent.tech", "default")
    assert view.tools.rowCount() == 0 and "No tool search" in view.tools_note.text()


def test_a_is_the_live_prompt_both_ways(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = compare_tab(window)
    view.a_editor.setPlainText("pizza near me")
    assert window.editor.toPlainText() == "pizza near me"
    assert window.session.request.text == "pizza near me"
    window.set_prompt("history of jazz")
    assert view.a_editor.toPlainText() == "history of jazz"
    with qtbot.waitSignal(window.session.compare.compared, timeout=20_000):
        view.set_text_b("history of jazz near me")
    assert view.result is not None and view.changed_columns() == ["strategy", "task_route"]


def test_tool_ranks_move_between_a_and_b(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt(A)
    view = compare_tab(window, tools=True)
    with qtbot.waitSignal(window.session.compare.compared, timeout=120_000):
        view.set_text_b(B)
    comparison = view.result
    assert comparison is not None and comparison.tools is not None
    assert view.tools.rowCount() == len(comparison.tools)
    moves = {
        view.tools.item(r, 2).text(): view.tools.item(r, 3).text()
        for r in range(view.tools.rowCount())
    }
    for move in comparison.tools:
        expected = {
            "up": f"↑{move.delta}",
            "down": f"↓{-(move.delta or 0)}",
            "same": "=",
        }.get(move.movement, move.movement)
        assert moves[move.tool] == expected
    assert "new" in moves.values() and "dropped" in moves.values()
    assert "the sample catalog" in view.a_caption.text()
    assert "top_tool" in view.changed_columns() or "tool_fit" in view.changed_columns()


def test_a_rule_pack_for_b_and_a_suite_under_both(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("Best ramen in Denver tonight")
    view = compare_tab(window)
    assert not view.suite_button.isEnabled()  # B is another prompt: a suite has its own
    compare = window.session.compare
    with qtbot.waitSignal(compare.compared, timeout=20_000) as blocker:
        assert compare.set_rules_b(other_pack(tmp_path))  # what the file dialog does
    assert blocker.args[0] is not None and view.mode.currentData() == "rules"
    assert view.b_stack.currentIndex() == 1 and "other (other.toml)" in view.b_file.text()
    assert view.suite_button.isEnabled()
    assert cells(view, 0)[0] == "general" and cells(view, 1)[0] == "local"
    assert "other (" in view.b_caption.text()
    with qtbot.waitSignal(compare.suite_compared, timeout=60_000):
        compare.run_suite(routescope.resources_root() / "fixtures" / "strategy.yaml")
    assert view.pages.currentWidget() is view.suite_page
    result = view.suite_result
    assert result is not None and view.suite_cases.rowCount() == len(result.differ) > 0
    assert "differ" in view.suite_summary.text()
    assert view.suite_cases.currentRow() == 0 and view.suite_detail.text().startswith(
        result.differ[0].id
    )
    case = result.differ[0]
    item = view.suite_cases.item(0, 0)
    assert item is not None and item.text() == case.id
    rect = view.suite_cases.visualItemRect(item)
    where = QPoint(rect.left() + 4, rect.center().y())
    viewport = view.suite_cases.viewport()
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=where)  # as a mouse does
        qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=where)
    assert window.views.currentWidget() is window.live
    assert window.session.request.text == case.prompt
    assert window.editor.toPlainText() == case.prompt


def test_an_error_is_one_line_in_the_view(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("find files")
    view = compare_tab(window)
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with qtbot.waitSignal(window.session.compare.failed, timeout=120_000):
        window.session.compare.set_catalog_b(broken)
    assert view.mode.currentData() == "catalog" and not view.rank_tools.isEnabled()
    assert view.status.text().startswith("cannot compare:") and "broken.json" in view.status.text()
    bad = tmp_path / "bad.yaml"
    bad.write_text("suite: x\n", encoding="utf-8")
    with qtbot.waitSignal(window.session.compare.suite_failed, timeout=20_000):
        window.session.compare.run_suite(bad)
    assert "cannot run the suite" in view.suite_summary.text()


def test_screenshot_of_the_compare_tab(tmp_path: Path) -> None:
    target = tmp_path / "compare.png"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "routescope_gui",
            "--screenshot",
            str(target),
            "--tab",
            "Compare",
            "--compare-b",
            B,
            "--today",
            "2026-02-05",
            A,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG and target.stat().st_size > 20_000


def test_flag_words_are_underlined_after_an_emoji(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("🚀🚀 install docker")
    view = compare_tab(window)
    with qtbot.waitSignal(window.session.compare.compared, timeout=20_000):
        view.set_text_b("🚀🚀 docker news this week")
    assert [m.cursor.selectedText() for m in view.a_editor.extraSelections()] == ["install"]
    assert [m.cursor.selectedText() for m in view.b_editor.extraSelections()] == ["this week"]


def test_a_follows_the_live_prompt_once_the_view_is_shown(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.show()
    view = window.compare_view
    assert not view.isVisible()
    window.set_prompt("pizza near me")
    assert view.a_editor.toPlainText() == ""  # hidden: not laid out again at each keystroke
    compare_tab(window)
    assert view.a_editor.toPlainText() == "pizza near me"
