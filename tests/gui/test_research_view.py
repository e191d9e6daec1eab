"""The Research tab: the view renders a run (rows, verdict, the detail pane), never shows one
prompt's result as another's, marks stale runs, keeps its layout when the header grows; in the
window, offline research follows the prompt while the tab is shown."""

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication

import routescope
from routescope.research import Attempt, DeepResearchResult, NextStep, PageRead, ResearchSettings
from routescope.research._models import SearchHit
from routescope.research._records import ResearchQuality
from routescope_gui import MainWindow, Session
from routescope_gui._research_model import BY_YOU
from routescope_gui._research_view import OUTCOME_TONES, ResearchView
from routescope_gui._style import colour, css
from tests._support import TODAY
from tests.gui._support import GOAL, Factory, contrast, record

PAGES = [
    PageRead("https://docs.example.org/a", True, "allowlist", 200, None, "A page", "text"),
    PageRead("http://127.0.0.1/admin", False, "private address", None, None),
    PageRead("https://slow.example.org/", True, "default", None, "timed out"),
]


@pytest.fixture
def factory() -> Factory:
    return Factory()


@pytest.fixture
def research_window(qtbot, qloop, tmp_path: Path, factory: Factory) -> MainWindow:  # type: ignore[no-untyped-def]
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=factory
    )
    win = MainWindow(session)
    qtbot.addWidget(win)
    win.show()
    return win


@pytest.fixture
def view(qtbot) -> ResearchView:  # type: ignore[no-untyped-def]
    shown = ResearchView()
    qtbot.addWidget(shown)
    return shown


def _attempt(
    index: int,
    query: str,
    source: str,
    pages: list[PageRead],
    relevance: float,
    confidence: float,
    coverage: float,
    score: float,
) -> Attempt:
    return Attempt(
        index=index,
        query=query,
        query_source=source,
        provider="offline",
        status=200,
        error=None,
        results=[
            SearchHit(url=p.url, title=p.title, snippet=f"snippet of {p.url}", rank=1, provider="x")
            for p in pages
        ],
        pages=pages,
        evaluation=None,
        evaluator_error="heuristic: 1 of 3 pages read; the goal's terms thread, loop found",
        relevance=relevance,
        confidence=confidence,
        coverage=coverage,
        should_retry=index == 0,
        score=score,
        duration_ms=3.0,
    )


def _result(goal: str = GOAL, outcome: str = "escalate") -> DeepResearchResult:
    attempts = [
        _attempt(0, "loop thread", "optimiser", PAGES, 0.4, 0.5, 0.3, 0.39),
        _attempt(1, "asyncio loop thread", "refiner", PAGES[:1], 0.8, 0.7, 0.6, 0.72),
    ]
    return DeepResearchResult(
        goal=goal,
        findings=[],
        quality=ResearchQuality("asyncio loop thread", 0.8, 0.7, 0.6, 2, "heuristic: fine"),
        attempts=attempts,
        best=1,
        warnings=["web research weak; relying more on model prior"],
        termination_reason="target reached in attempt 2",
        next_step=NextStep(outcome, "grounding required"),  # type: ignore[arg-type]
        web_calls=2,
        pages_fetched=2,
        model="heuristic",
    )


def test_a_prompt_typed_with_the_research_tab_shown_is_researched(
    qtbot,  # type: ignore[no-untyped-def]
    research_window: MainWindow,
    factory: Factory,
    tmp_path: Path,
) -> None:
    window, model = research_window, research_window.session.research
    window.show_tab("Research")
    started = record(model.started)
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        window.set_prompt(GOAL)
    result = blocker.args[0]
    assert isinstance(result, DeepResearchResult) and result.goal == GOAL
    assert started == [GOAL] and factory.made == [tmp_path / "research"]
    view = window.research_view
    assert view.result is result and result.attempts
    assert view.table.topLevelItemCount() == len(result.attempts)
    assert result.best is not None
    best = view.table.topLevelItem(result.best)
    assert best is not None and best.text(0).endswith("★") and best.font(0).bold()
    assert best.text(1) == result.attempts[result.best].query
    pages = [best.child(i) for i in range(best.childCount())]
    assert pages and all(p is not None and p.text(2) == "allowed · offline-index" for p in pages)
    assert "docs.python.org" in best.child(0).toolTip(1)  # type: ignore[union-attr]
    summary = view.summary.text()
    assert "next step:" in summary and result.termination_reason in summary
    # The best attempt is spelled out under the table at once: its reasons, not in a tooltip.
    detail = view.detail.toPlainText()
    assert f"Attempt {result.best + 1} ★ the best" in detail
    evidence = result.attempts[result.best].evidence
    assert evidence is not None and evidence.reasons
    assert all(f"{r.metric} " in detail and r.text in detail for r in evidence.reasons)
    assert "goal terms covered: " + ", ".join(evidence.covered) in detail
    view.table.setCurrentItem(pages[0])
    page = evidence.pages[0]
    assert pages[0] is not None and pages[0].toolTip(1) == page.url
    detail = view.detail.toPlainText()
    assert page.url in detail and page.title in detail  # the full URL, the title
    assert "policy: allowed · offline-index" in detail
    assert f"evidence: relevance {page.relevance:.2f}" in detail
    assert "supports: " + ", ".join(page.supports) in detail and page.reason in detail
    assert pages[0].text(4) == f"{page.relevance:.1f}"  # the page's relevance, in its row
    view.copy_button.click()
    assert QGuiApplication.clipboard().text().startswith(f"# Research: {GOAL}")
    qtbot.waitUntil(lambda: not window.session.busy)
    assert len(factory.made) == 1  # the backend is made once


def test_the_hidden_tab_does_not_research(
    qtbot,  # type: ignore[no-untyped-def]
    research_window: MainWindow,
    factory: Factory,
) -> None:
    window, model = research_window, research_window.session.research
    started = record(model.started)
    window.set_prompt(GOAL)
    assert not model.busy  # no run, and none due: nothing starts later either
    assert not started and not factory.made
    with qtbot.waitSignal(model.finished, timeout=30_000):
        window.show_tab("Research")  # shown: the prompt is researched at once
    window.show_tab("Plan")
    window.set_prompt("event loop")
    assert not model.busy and started == [GOAL]
    assert window.research_view.result is not None and window.research_view.result.goal == GOAL


def test_the_view_renders_a_run(view: ResearchView) -> None:
    result = _result()
    view.show_running(GOAL)
    assert "researching" in view.status.text() and not view.copy_button.isEnabled()
    view.show_result(result)
    table = view.table
    first, second = table.topLevelItem(0), table.topLevelItem(1)
    assert first is not None and second is not None
    assert [first.text(c) for c in range(8)] == [
        "1",
        "loop thread",
        "optimiser",
        "offline · 200",
        "0.4",
        "0.5",
        "0.3",
        "0.39",
    ]
    assert second.text(0) == "2 ★" and second.font(0).bold() and not first.font(0).bold()
    rows = [first.child(i) for i in range(first.childCount())]
    assert [(r.text(2), r.text(3)) for r in rows if r is not None] == [
        ("allowed · allowlist", "200 · 4 chars"),
        ("blocked · private address", "not fetched"),
        ("allowed · default", "timed out"),
    ]
    summary = view.summary.text()
    assert "escalate" in summary and "grounding required" in summary
    assert "web research weak" in summary and "target reached in attempt 2" in summary
    assert "heuristic" in view.status.text()
    first.setExpanded(True)
    view.show_result(result)  # a new run keeps the open attempts open
    assert first.isExpanded()
    view.copy_button.click()
    report = QGuiApplication.clipboard().text()
    assert "| 2 ★ | asyncio loop thread | refiner |" in report
    view.show_error("offline index: disk full")
    assert "disk full" in view.status.text() and view.error == "offline index: disk full"
    view.show_result(None)
    assert table.topLevelItemCount() == 0 and not view.copy_button.isEnabled()
    assert view.detail.toPlainText() == ""


@pytest.mark.parametrize("outcome", ["proceed", "research_again", "escalate"])
def test_the_verdict_is_the_cores_coloured_by_its_outcome(view: ResearchView, outcome: str) -> None:
    view.show_result(_result(outcome=outcome))
    summary = view.summary.text()
    tone = css(OUTCOME_TONES[outcome])
    assert f"color:{tone}'>next step: <b>{outcome.replace('_', ' ')}</b>" in summary
    assert f"color:{tone}'>stopped: target reached in attempt 2" in summary
    assert view.summary.property("tone") == outcome


def test_a_weak_proceed_is_amber_not_green(view: ResearchView) -> None:
    result = _result(outcome="proceed")
    weak = dataclasses.replace(
        result,
        next_step=NextStep("proceed", "relying more on the model prior", warnings=["weak"]),
    )
    view.show_result(weak)
    assert f"color:{css(OUTCOME_TONES['proceed_weak'])}'>next step: <b>proceed</b>" in (
        view.summary.text()
    )
    assert view.summary.property("tone") == "proceed_weak"


def test_the_detail_pane_spells_out_the_selected_attempt_or_page(view: ResearchView) -> None:
    view.show_result(_result())
    detail = view.detail.toPlainText()
    assert detail.startswith("Attempt 2 ★ the best — asyncio loop thread")
    assert "reasons: heuristic: 1 of 3 pages read; the goal's terms thread, loop found" in detail
    assert "relevance 0.80 · confidence 0.70 · coverage 0.60 → score 0.72" in detail
    first = view.table.topLevelItem(0)
    assert first is not None
    blocked = first.child(1)
    view.table.setCurrentItem(blocked)
    detail = view.detail.toPlainText()
    assert "http://127.0.0.1/admin" in detail and "policy: blocked · private address" in detail
    assert (
        "outcome: not fetched" in detail and "snippet: snippet of http://127.0.0.1/admin" in detail
    )
    assert "from attempt 1: loop thread" in detail
    view.table.setCurrentItem(first)
    assert view.detail.toPlainText().startswith("Attempt 1 — loop thread")


def test_fields_the_pane_does_not_know_are_shown_as_they_are(view: ResearchView) -> None:
    @dataclasses.dataclass(frozen=True)
    class JudgedPage(PageRead):
        supports: tuple[str, ...] = ()
        relevance: float = 0.0

    page = JudgedPage(
        "https://docs.example.org/a", True, "allowlist", 200, None, "A page", "text",
        supports=("asyncio", "thread"), relevance=0.75,
    )  # fmt: skip
    result = _result()
    result.attempts[1].pages[:] = [page]
    view.show_result(result)
    best = view.table.topLevelItem(1)
    assert best is not None
    view.table.setCurrentItem(best.child(0))
    detail = view.detail.toPlainText()
    assert "supports: asyncio, thread" in detail and "relevance: 0.75" in detail


def test_a_new_run_greys_out_the_previous_result_and_labels_it(view: ResearchView) -> None:
    view.resize(1000, 600)
    view.show()
    view.show_result(_result(goal="Best ramen near Denver"))
    QCoreApplication.sendPostedEvents()
    assert not view.dimmed and not view.caption.isVisibleTo(view)
    table = view.table.geometry()
    view.show_running(GOAL)
    QCoreApplication.sendPostedEvents()
    assert "researching <b>«asyncio event loop in a thread»</b>" in view.status.text()
    assert view.dimmed and view.caption.isVisibleTo(view)
    assert view.table.geometry() == table  # the label is drawn over the table: nothing moves
    assert view.table.rect().contains(view.caption.geometry())
    assert "previous run, for <b>«Best ramen near Denver»</b>" in view.caption.text()
    view.show_cancelled(BY_YOU)  # Esc before the first attempt: still greyed out and labelled
    assert view.status.text() == f"research cancelled by you — <b>«{GOAL}»</b>"
    assert view.dimmed and "«Best ramen near Denver»" in view.caption.text()
    assert not view.cancel_button.isEnabled()
    view.show_running(GOAL)
    view.add_attempt(_result().attempts[0])  # the first attempt replaces what was on screen
    assert not view.dimmed and not view.caption.isVisibleTo(view)
    assert view.table.topLevelItemCount() == 1 and view.summary.text() == ""
    assert view.result is None and not view.copy_button.isEnabled()
    view.show_cancelled(BY_YOU)
    assert f"1 attempt of the cancelled run for <b>«{GOAL}»</b>" in view.caption.text()
    view.show_running("event loop")
    assert view.dimmed and f"previous run, for <b>«{GOAL}»</b>" in view.caption.text()


def test_a_stale_run_says_for_which_prompt_and_offers_to_rerun_or_cancel(
    qtbot,  # type: ignore[no-untyped-def]
    view: ResearchView,
) -> None:
    view.show_running(GOAL)
    assert not view.stale_bar.isVisibleTo(view)
    view.show_stale(GOAL)
    assert view.stale_bar.isVisibleTo(view)
    assert f"started for <b>«{GOAL}»</b>" in view.stale_label.text()
    assert view.stale_cancel_button.isVisibleTo(view)
    with qtbot.waitSignal(view.cancel_requested):
        view.stale_cancel_button.click()
    with qtbot.waitSignal(view.run_requested):
        view.rerun_button.click()
    view.show_result(_result())  # finished, still for the old prompt
    assert f"this result is for <b>«{GOAL}»</b>" in view.stale_label.text()
    assert not view.stale_cancel_button.isVisibleTo(view) and view.rerun_button.isVisibleTo(view)
    view.show_stale("")
    assert not view.stale_bar.isVisibleTo(view)


def test_a_longer_header_wraps_and_the_splitter_stays(research_window: MainWindow) -> None:
    window, view = research_window, research_window.research_view
    window.show_tab("Research")
    QCoreApplication.sendPostedEvents()
    sizes, narrowest = window.splitter.sizes(), view.minimumSizeHint().width()
    long_host = "http://searxng.research-cluster.internal.example.org:8888"
    window.set_research_settings(ResearchSettings(search="searxng", searxng_url=long_host))
    QCoreApplication.sendPostedEvents()
    assert "searxng.research-cluster.internal.example.org" in view.backends.text()
    assert view.minimumSizeHint().width() == narrowest
    assert window.splitter.sizes() == sizes


def test_closing_the_window_mid_run_cancels_it(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=Factory(gate)
    )
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("Research")
    finished = record(session.research.finished)
    with qtbot.waitSignal(session.research.started, timeout=5_000):
        window.set_prompt(GOAL)
    window.close()
    assert not session.busy
    gate.set()  # the worker sees it was cancelled and ends without a result
    qtbot.waitUntil(lambda: all(task.done() for task in asyncio.all_tasks(qloop)), timeout=30_000)
    assert not finished and session.research.result is None


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_score_s_digits_stand_whole_beside_its_bar(  # type: ignore[no-untyped-def]
    qtbot, view: ResearchView, request, scheme: str
) -> None:
    if scheme == "dark":
        request.getfixturevalue("dark")
    view.resize(1000, 500)
    view.show()
    view.show_result(_result(outcome="proceed"))
    table = view.table
    row = table.topLevelItem(1)
    assert row is not None and row.text(7) == "0.72"
    cell = table.visualItemRect(row)
    left = table.header().sectionViewportPosition(7)
    cell.setLeft(left)
    cell.setWidth(table.columnWidth(7))
    image = table.viewport().grab().toImage()
    bar = colour("bar").rgb()
    bar_columns = [
        x
        for x in range(cell.left(), cell.right())
        if any(image.pixel(x, y) == bar for y in range(cell.top(), cell.bottom()))
    ]
    digits = table.fontMetrics().horizontalAdvance("0.72")
    assert bar_columns and min(bar_columns) > left + digits  # the bar starts after the digits
    base = image.pixelColor(cell.left() + 1, cell.top() + 1)
    inked = [
        (x, y)
        for x in range(left, left + digits + 4)
        for y in range(cell.top(), cell.bottom())
        if contrast(image.pixelColor(x, y), base) > 3
    ]
    assert inked  # the digits are drawn, in a colour that stands out on the row
    assert min(y for _x, y in inked) > cell.top() and max(y for _x, y in inked) < cell.bottom()


def test_the_verdict_says_which_grounding_applied_and_why(view: ResearchView) -> None:
    grounding = routescope.research.derive_grounding("today's price of gold per ounce")
    result = dataclasses.replace(_result(), grounding=grounding)
    view.show_result(result)
    summary = view.summary.text()
    assert "grounding <b>required</b> (from the goal)" in summary
    assert "<b>&#x27;price&#x27;</b>" in summary  # the goal's words behind it, in bold
    assert css("warn_ink") in summary.split("grounding <b>")[0].rsplit("<span", 1)[1]
    # An escalation's reason does not say again what the grounding line says.
    needs = "grounding required: the goal is price or purchase ('price')"
    step = NextStep("escalate", f"relevance below 0.3 in all 1 attempts ({needs})", grounding=needs)
    view.show_result(dataclasses.replace(result, next_step=step))
    assert "relevance below 0.3 in all 1 attempts</span>" in view.summary.text()
    assert view.summary.text().count("price or purchase") == 1
    view.show_result(dataclasses.replace(_result(), next_step=step))  # no grounding line
    assert "in all 1 attempts (grounding required: the goal is price" in view.summary.text()
    waived = routescope.research.derive_grounding("today's price of gold", override=False)
    view.show_result(dataclasses.replace(_result(), grounding=waived))
    assert "grounding <b>not required</b> (set by you)" in view.summary.text()
    assert "the goal alone would need it" in view.summary.text()


def test_the_grounding_toggle_follows_the_settings_and_asks_for_a_change(
    view: ResearchView,
) -> None:
    asked = record(view.grounding_changed)
    view.show_backends(ResearchSettings(grounding="required"))
    assert view.grounding.currentData() == "required" and asked == []  # shown, not asked
    view.grounding.setCurrentIndex(view.grounding.findData("not_required"))
    view.grounding.activated.emit(view.grounding.currentIndex())
    assert asked == ["not_required"]
    assert [view.grounding.itemData(i) for i in range(view.grounding.count())] == [
        "auto",
        "required",
        "not_required",
    ]


def test_the_window_toggle_reruns_the_prompt_with_grounding_required(
    qtbot,  # type: ignore[no-untyped-def]
    research_window: MainWindow,
) -> None:
    window, model = research_window, research_window.session.research
    window.show_tab("Research")
    with qtbot.waitSignal(model.finished, timeout=30_000) as first:
        window.set_prompt(GOAL)
    assert first.args[0].grounding.source == "goal"
    view = window.research_view
    view.grounding.setCurrentIndex(view.grounding.findData("required"))
    with qtbot.waitSignal(model.finished, timeout=30_000) as second:
        view.grounding.activated.emit(view.grounding.currentIndex())
    result = second.args[0]
    assert (result.grounding.required, result.grounding.source) == (True, "setting")
    assert model.settings is not None and model.settings.grounding == "required"
    assert "grounding <b>required</b> (set by you)" in view.summary.text()


def _semantic_result() -> DeepResearchResult:
    from routescope.optimise._goal_terms import goal_terms
    from routescope.research._evidence import assess
    from routescope.research._page_evidence import Source
    from routescope.research._records import Finding

    goal = "save a dict to disk and reopen it later"
    aspects = ["save a dict to disk", "reopen it later"]
    sources = [
        Source(
            PAGES[0].url, "A page", "text", "", 0.62, "shelve(): a persistent dict", (0.6, 0.55)
        ),
    ]
    evidence = assess(goal_terms(goal), sources, aspects=aspects)
    first = dataclasses.replace(_result().attempts[0], evidence=evidence)
    second = _result().attempts[1]
    why = "kept: the page read nearest the goal in meaning"
    finding = Finding(PAGES[0].url, "A page", "", 0, evidence.pages[0], why)
    return dataclasses.replace(
        _result(),
        attempts=[first, second],
        findings=[finding],
        notes=["the best page ('A page') was read in attempt 1, not in the best attempt (2)"],
    )


def test_the_findings_show_the_best_pages_across_attempts_with_their_meaning(
    view: ResearchView,
) -> None:
    result = _semantic_result()
    view.show_result(result)
    assert view.findings.topLevelItemCount() == 1
    row = view.findings.topLevelItem(0)
    assert row is not None
    assert [row.text(c) for c in range(7)][:3] == ["1", "A page", "1"]  # not the best attempt
    assert row.text(4) == "1.00" and row.text(6).startswith("2 of 2:")
    assert "not the best attempt" in row.toolTip(2)
    assert row.toolTip(0) == "kept: the page read nearest the goal in meaning"  # why kept
    assert "was read in attempt 1, not in the best attempt" in view.summary.text()
    view.findings.setCurrentItem(row)
    detail = view.detail.toPlainText()
    assert "meaning: 1.00" in detail and "shelve(): a persistent dict" in detail
    assert "answers: save a dict to disk, reopen it later" in detail
    view.show_result(None)
    assert view.findings.topLevelItemCount() == 0


def test_a_long_verdict_scrolls_past_its_lines_and_a_short_one_takes_its_height(
    qtbot, view: ResearchView
) -> None:  # type: ignore[no-untyped-def]
    from routescope_gui._research_view import VERDICT_LINES

    view.resize(700, 600)
    view.show()
    view.show_result(_result())
    line = view.summary.fontMetrics().lineSpacing()
    qtbot.waitUntil(lambda: view.summary_box.height() > 0)
    short = view.summary_box.height()
    assert short < VERDICT_LINES * line + 6 and not view.summary_box.verticalScrollBar().maximum()
    # An escalation with many warnings: the box stops at its lines, the rest scrolls, and the
    # attempts keep their room.
    many = [f"warning number {n} about the pages read" for n in range(12)]
    view.show_result(dataclasses.replace(_result(), warnings=many))
    qtbot.waitUntil(lambda: view.summary_box.height() == VERDICT_LINES * line + 6)
    assert view.summary_box.verticalScrollBar().maximum() > 0
    assert view.summary.heightForWidth(view.summary_box.viewport().width()) > 10 * line
    view.show_result(None)
    assert view.summary_box.height() == 0
