"""Why this decision: the words whose removal flips a decision, worked out in a worker once the
prompt rests and marked in the strip and the prompt; traces of an entity clicked; close calls
beside the decisions they concern."""

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QToolTip

import routescope
from routescope.compare import CloseCall, TextSpan
from routescope.toolsearch import SearchSettings
from routescope_gui import MainWindow, Session
from routescope_gui._html import HTML_ROLE
from routescope_gui._insight_model import INSIGHT_MAX_CHARS
from routescope_gui._style import css
from routescope_gui._why_strip import CloseCallLine, WhyStrip, marked_html
from tests.gui._support import record

RAMEN = "Best ramen near Denver, Colorado open tonight"
CLOSE = "pizza near me how to install docker config"


@pytest.fixture(autouse=True)
def _stop_background_work(request: pytest.FixtureRequest) -> Iterator[None]:
    """A run still under way when a test ends must not report to its deleted session."""
    session = request.getfixturevalue("session") if "session" in request.fixturenames else None
    yield
    if session is not None:
        session.close()


def explained(qtbot, window: MainWindow, text: str):  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.insight.explained, timeout=20_000) as blocker:
        window.set_prompt(text)
    return blocker.args[0]


def test_the_words_that_matter_are_marked_in_the_strip_and_the_prompt(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    result = explained(qtbot, window, RAMEN)
    assert result.text == RAMEN
    assert [w.word for w in result.flipping()] == ["near", "Denver"]
    strip = window.why_strip
    assert strip.result is result and not strip.working
    near = [w.word for w in result.words].index("near")
    html = strip.words.text()
    assert f'href="w:{near}"' in html and ">near</a>" in html and "Colorado" in html
    assert "strategy local → general" in strip.tooltip_for(near)
    strip.words.linkHovered.emit(f"w:{near}")  # what hovering the word shows
    assert "strategy local → general" in QToolTip.text()
    assert "flips nothing" in strip.tooltip_for(0)
    assert strip.summary.text() == "2 of 7 words flip: strategy local → general"
    spans = window.editor.spans_at(RAMEN.index("near"))
    [mark] = [h for h in spans if h.label == "flip"]
    assert "without “near”" in mark.tooltip and "strategy local → general" in mark.tooltip
    # An edit makes the marks stale at once (they point into the old prompt).
    stale = record(window.session.insight.stale)
    window.set_prompt(RAMEN + " please")
    assert stale == [RAMEN + " please"] and strip.working and strip.result is None
    assert strip.summary.text() == "" and "near" not in strip.words.text()
    assert "working out" in strip.words.text()
    assert all(h.label != "flip" for h in window.editor.spans_at(RAMEN.index("near")))
    qtbot.waitUntil(lambda: not strip.working)
    assert strip.result is not None and strip.result.text == RAMEN + " please"
    assert any(h.label == "flip" for h in window.editor.spans_at(RAMEN.index("near")))


def test_a_blank_prompt_clears_the_strip(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    explained(qtbot, window, "pizza near me")
    assert explained(qtbot, window, "") is None
    strip = window.why_strip
    assert (
        strip.result is None
        and strip.summary.text() == ""
        and "type a prompt" in (strip.words.text())
    )
    assert window.editor.extraSelections() == []


def test_a_run_made_stale_by_an_edit_is_dropped(qtbot, session: Session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    insight = session.insight
    started, gate = threading.Event(), threading.Event()
    threads: list[int] = []
    counterfactuals = routescope.compare.counterfactuals

    def slow(request, tools=None):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        if request.text == "first prompt":
            started.set()
            assert gate.wait(30)
        return counterfactuals(request, tools)

    monkeypatch.setattr(routescope.compare, "counterfactuals", slow)
    seen = record(insight.explained)
    insight.set_enabled(True)  # (the window enables it while the live view is shown)
    session.set_text("first prompt")
    qtbot.waitUntil(started.is_set)
    session.set_text(RAMEN)  # the first run is stale now
    gate.set()
    qtbot.waitUntil(lambda: bool(seen) and not insight.busy)
    assert [r.text for r in seen] == [RAMEN]
    assert threading.get_ident() not in threads


def test_the_top_tool_is_watched_once_the_engine_is_loaded(qtbot, session: Session) -> None:  # type: ignore[no-untyped-def]
    insight, tools = session.insight, session.tools
    insight.set_enabled(True)
    session.set_text("find files named config.yaml")
    qtbot.waitUntil(lambda: insight.result is not None and not insight.busy, timeout=20_000)
    assert insight.result is not None and insight.result.baseline.top_tool is None
    with qtbot.waitSignals([tools.engine_ready, tools.ranked], timeout=120_000):
        tools.set_enabled(True)
    qtbot.waitUntil(
        lambda: insight.result is not None and insight.result.baseline.top_tool == "files.find",
        timeout=60_000,
    )
    assert insight.result is not None and insight.result.baseline.tool_fit == "fits"


def test_close_calls_are_shown_beside_their_decisions(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.insight.close_calls_changed) as blocker:
        window.set_prompt(CLOSE)
    calls = blocker.args[0]
    assert {c.decision for c in calls} == {"strategy", "lint.query_class"}
    assert not window.strategy_close.isHidden()
    assert "local wins by precedence" in window.strategy_close.text()
    assert window.strategy_close.isVisibleTo(window)  # under the badge, always in view
    assert len(window.lint_close.calls) == 2 and not window.lint_close.isHidden()
    assert window.lint_close.text().count("⚠") == 2
    assert "margin" in window.lint_close.toolTip()
    assert window.tools_close.isHidden()
    summary = window.why_strip.close_summary
    assert not summary.isHidden() and summary.text() == "⚠ 3 close calls: linter class, strategy"
    window.show_tab("Linter")
    assert window.lint_close.isVisibleTo(window)
    with qtbot.waitSignal(window.session.insight.close_calls_changed) as blocker:
        window.set_prompt("install docker")
    assert blocker.args[0] == []
    assert window.strategy_close.isHidden() and window.lint_close.isHidden()
    assert summary.isHidden()


def test_a_fit_threshold_close_to_the_best_score_is_a_close_call(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    session = window.session
    window.set_prompt("find files named config.yaml")
    with qtbot.waitSignal(session.tools.ranked, timeout=120_000) as blocker:
        window.show_tab("Tools")
    best = blocker.args[0].results[0].score
    with qtbot.waitSignal(session.insight.close_calls_changed, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fit_threshold=round(best * 1.05, 4)))
    assert "tools.fits" in {c.decision for c in blocker.args[0]}
    line = window.tools_close
    assert line.isVisibleTo(window) and "no tool fits: best score" in line.text()
    # A trace names the tools whose keyword fields an entity matched, and its linter anchors.
    with qtbot.waitSignal(session.insight.traced) as blocker:
        session.insight.trace("files")
    trace = blocker.args[0]
    assert trace.tools and trace.tools[0].tool == "files.find"
    assert "tools files.find #1" in window.why_strip.trace_line.text()
    with qtbot.waitSignal(session.insight.traced) as blocker:
        window.why_strip.trace_requested.emit("config.yaml")
    assert [a.anchor for a in blocker.args[0].anchors] == ["config"]
    assert "linter anchors: config (weak)" in window.why_strip.trace_line.text()


def test_an_entity_clicked_in_the_context_tree_is_traced(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt(RAMEN)
    tree = window.strategy_view.context_tree
    entities = tree.topLevelItem(0)
    assert entities is not None
    denver = entities.child(0)
    assert denver is not None and denver.text(1) == "Denver"
    insight = window.session.insight
    with qtbot.waitSignal(insight.traced) as blocker:
        row = tree.visualItemRect(denver)  # its left end: the window may be narrow
        qtbot.mouseClick(
            tree.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(row.left() + 4, row.center().y())
        )
    trace, text = blocker.args
    assert trace.entity == "Denver" and text == RAMEN and trace.place
    strip = window.why_strip
    assert strip.trace is trace and not strip.trace_line.isHidden()
    line = strip.trace_line.text()
    assert "trace “Denver”" in line and "place hint" in line and "plan queries #1" in line
    plan = window.strategy_view.plan_table.plan_model
    marked = plan.index(0, 4).data(HTML_ROLE)
    assert (
        marked is not None and "background-color:#ffe082" in marked and ">Denver</span>" in marked
    )
    assert {h.label for h in window.editor.spans_at(RAMEN.index("Denver"))} >= {"trace"}
    # It follows the edits, and goes once the entity is no longer in the prompt.
    with qtbot.waitSignal(insight.traced) as blocker:
        window.set_prompt("Denver ramen please")
    assert [m.value for m in blocker.args[0].mentions] == ["Denver"]
    assert {h.label for h in window.editor.spans_at(0)} >= {"trace"}
    with qtbot.waitSignal(insight.traced) as blocker:
        window.set_prompt("ramen please")
    assert blocker.args[0] is None and strip.trace_line.isHidden()
    assert plan.trace is None


def test_a_word_clicked_in_the_strip_is_traced_and_cleared(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    result = explained(qtbot, window, RAMEN)
    strip = window.why_strip
    colorado = [w.word for w in result.words].index("Colorado")
    with qtbot.waitSignal(window.session.insight.traced) as blocker:
        strip.words.linkActivated.emit(f"w:{colorado}")
    assert blocker.args[0].entity == "Colorado"
    assert blocker.args[0].candidate_rank == 2
    with qtbot.waitSignal(window.session.insight.traced) as blocker:
        strip.trace_line.linkActivated.emit("clear")
    assert blocker.args[0] is None and strip.trace_line.isHidden()
    assert all(h.label != "trace" for h in window.editor.spans_at(RAMEN.index("Colorado")))


def test_a_long_prompt_shows_the_words_around_those_that_matter(qtbot) -> None:  # type: ignore[no-untyped-def]
    text = "Please tell me about " + "the history of jazz and blues " * 6 + "near Denver"
    strip = WhyStrip()
    qtbot.addWidget(strip)
    marks = record(strip.marks_changed)
    result = routescope.compare.counterfactuals(text)
    strip.show_result(result)
    shown = strip.words.text()
    assert " … " in shown and ">near</a>" in shown and "Please" not in shown
    layer, highlights, marked_text = marks[-1]  # type: ignore[misc]
    assert layer == "why" and marked_text == text
    assert {text[h.start : h.end] for h in highlights} == {w.word for w in result.flipping()}
    strip.show_error("boom")
    assert "cannot say why: boom" in strip.words.text()


def test_a_late_result_for_an_older_prompt_is_not_shown(qtbot) -> None:  # type: ignore[no-untyped-def]
    strip = WhyStrip()
    qtbot.addWidget(strip)
    marks = record(strip.marks_changed)
    first = routescope.compare.counterfactuals(RAMEN)
    strip.show_result(first)
    assert ">near</a>" in strip.words.text()
    strip.mark_stale("find files named config.yaml")  # the prompt changed: the words go
    assert strip.working and strip.result is None and "near" not in strip.words.text()
    assert strip.summary.text() == "" and marks[-1] == ("why", [], "")
    strip.show_result(first)  # the old prompt's result, late: dropped
    assert strip.working and strip.result is None and "near" not in strip.words.text()
    assert marks[-1] == ("why", [], "")
    second = routescope.compare.counterfactuals("find files named config.yaml")
    strip.show_result(second)
    assert (
        strip.result is second and not strip.working and ">config.yaml</a>" in (strip.words.text())
    )


def test_the_model_drops_a_result_that_is_not_of_the_prompt(  # type: ignore[no-untyped-def]
    qtbot, window, monkeypatch
) -> None:
    counterfactuals = routescope.compare.counterfactuals
    monkeypatch.setattr(
        routescope.compare, "counterfactuals", lambda _request, _tools=None: counterfactuals(RAMEN)
    )
    insight, strip = window.session.insight, window.why_strip
    seen = record(insight.explained)
    stale = record(insight.stale)
    window.set_prompt("find files named config.yaml")
    assert stale[-1] == "find files named config.yaml" and strip.working
    qtbot.waitUntil(lambda: not insight.busy, timeout=20_000)
    assert seen == [] and insight.result is None
    assert strip.working and "Denver" not in strip.words.text()


def test_both_counts_of_a_long_prompt_agree(qtbot) -> None:  # type: ignore[no-untyped-def]
    strip = WhyStrip()
    qtbot.addWidget(strip)
    text = "the history of jazz and blues " * 50  # 300 words: the first 200 are tried
    result = routescope.compare.counterfactuals(text)
    assert result.words_total == 300 and len(result.words) == 200 and not result.flipping()
    strip.show_result(result)
    assert strip.words.text() == "none of the first 200 words (of 300) flips a decision"
    assert strip.summary.text() == ""  # said once
    short = routescope.compare.counterfactuals("the history of jazz")
    strip.show_result(short)
    assert strip.summary.text() == "none of 4 words flips a decision"
    one = routescope.compare.counterfactuals("jazz")
    strip.show_result(one)
    assert "the only word" in strip.words.text() and strip.summary.text() == ""


def test_marked_html_escapes_and_skips_spans_of_another_text() -> None:
    text = "a <b> & c"
    spans = [TextSpan(2, 5, "<b>"), TextSpan(8, 9, "c"), TextSpan(0, 1, "z")]
    assert marked_html(text, spans, "color:red") == (
        'a <span style="color:red">&lt;b&gt;</span> &amp; <span style="color:red">c</span>'
    )


def test_a_close_call_line_shows_only_its_decisions(qtbot) -> None:  # type: ignore[no-untyped-def]
    line = CloseCallLine(("tools.fits", "tools.top"))
    qtbot.addWidget(line)
    calls = [
        CloseCall("strategy", "local", "m", 1, "t", 1, 0, "tech", "strategy detail"),
        CloseCall("tools.top", "a", "score", 0.5, "runner-up b", 0.49, 0.01, "b", "a over b"),
    ]
    line.show_calls(calls)
    assert line.calls == [calls[1]] and line.text() == "⚠ close call — a over b"
    assert "top tool: score 0.5 against runner-up b 0.49 (margin +0.01) → would be b" in (
        line.toolTip()
    )
    line.show_calls(calls[:1])
    assert line.isHidden() and line.text() == ""


def test_counterfactuals_wait_while_the_live_view_is_hidden(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    insight = window.session.insight
    window.show_tab("Compare")
    window.set_prompt(RAMEN)
    assert not insight.busy and insight.result is None  # nobody looks at the prompt
    assert window.strategy_view.decision_panel.badge.text() == "LOCAL"  # inspected all the same
    with qtbot.waitSignal(insight.explained, timeout=20_000) as blocker:
        window.show_tab("Plan")
    assert blocker.args[0].text == RAMEN


def test_a_prompt_too_long_gets_no_counterfactuals(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    long = "install docker " * (INSIGHT_MAX_CHARS // 15 + 1)
    with qtbot.waitSignal(window.session.insight.failed, timeout=20_000) as blocker:
        window.set_prompt(long)
    assert "too long" in blocker.args[0]
    assert "cannot say why" in window.why_strip.words.text() and not window.why_strip.working


def test_the_words_work_from_the_keyboard(qtbot) -> None:  # type: ignore[no-untyped-def]
    strip = WhyStrip()
    qtbot.addWidget(strip)
    strip.resize(900, 60)
    strip.show()
    qtbot.waitExposed(strip)
    result = routescope.compare.counterfactuals(RAMEN)
    strip.show_result(result)
    words = [w.word for w in result.words]
    traced = record(strip.trace_requested)
    strip.activateWindow()
    strip.words.setFocus()
    qtbot.waitUntil(strip.words.hasFocus)
    assert strip.current == words.index("near")  # the first word that matters
    assert "background-color:" + css("cursor") in strip.words.text()
    assert "strategy local → general" in strip.words.accessibleDescription()
    qtbot.keyClick(strip.words, Qt.Key.Key_Right)
    assert strip.current == words.index("Denver")
    qtbot.keyClick(strip.words, Qt.Key.Key_Return)
    qtbot.keyClick(strip.words, Qt.Key.Key_End)
    assert strip.current == len(words) - 1
    qtbot.keyClick(strip.words, Qt.Key.Key_Home)
    qtbot.keyClick(strip.words, Qt.Key.Key_Space)
    assert traced == ["Denver", "Best"]
    qtbot.keyClick(strip.words, Qt.Key.Key_Escape)  # no trace shown: Esc is not the strip's
    assert traced == ["Denver", "Best"]
    strip.show_trace(routescope.compare.trace(routescope.inspect(RAMEN), "Denver"), RAMEN)
    qtbot.keyClick(strip.words, Qt.Key.Key_Escape)  # a trace shown: Esc clears it
    assert traced == ["Denver", "Best", ""]


def test_tab_reaches_the_words_then_the_context_and_enter_traces(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    explained(qtbot, window, RAMEN)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.mouseRelease(window, Qt.MouseButton.LeftButton)  # (a press another test left)
    window.editor.setFocus()
    qtbot.waitUntil(window.editor.hasFocus)
    qtbot.keyClick(window.editor, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.why_strip.words
    ring = window.theme.focus_ring
    assert ring.widget() is window.why_strip.words and ring.isVisible()  # by the keyboard
    qtbot.keyClick(window.why_strip.words, Qt.Key.Key_Tab)
    tree = window.strategy_view.context_tree
    assert QApplication.focusWidget() is tree and ring.widget() is tree
    entities = tree.topLevelItem(0)
    assert entities is not None and entities.child(0) is not None
    tree.setCurrentItem(entities.child(0))  # Denver (as the arrow keys would get there)
    insight = window.session.insight
    with qtbot.waitSignal(insight.traced) as blocker:
        qtbot.keyClick(tree, Qt.Key.Key_Return)
    assert blocker.args[0].entity == "Denver"
    tree.setCurrentItem(entities.child(1))
    with qtbot.waitSignal(insight.traced) as blocker:
        qtbot.keyClick(tree, Qt.Key.Key_Space)
    assert blocker.args[0].entity == "Colorado"
    qtbot.mouseClick(window.editor.viewport(), Qt.MouseButton.LeftButton)  # the mouse: no ring
    qtbot.waitUntil(window.editor.hasFocus)
    assert ring.widget() is None or not ring.isVisible()
