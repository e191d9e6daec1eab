import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication

import routescope
from routescope.research import (
    Attempt,
    DeepResearchResult,
    NextStep,
    OfflineDocument,
    OfflineSearch,
    PageRead,
    ResearchQuality,
)
from routescope_gui import MainWindow, Session
from routescope_gui._research_view import ResearchView
from tests._support import TODAY

CORPUS = (
    OfflineDocument(
        url="https://docs.python.org/3/library/asyncio-eventloop.html",
        title="asyncio — Event Loop",
        body="The event loop is the core of every asyncio application. An event loop runs in "
        "a thread: run_coroutine_threadsafe submits a coroutine to the event loop of another "
        "thread, and call_soon_threadsafe schedules a callback from a thread.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.python.org/3/library/threading.html",
        title="threading — Thread-based parallelism",
        body="A thread runs a callable; an asyncio event loop may run in a thread of its own.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://pypi.org/project/ramenkit/",
        title="ramenkit 1.0 — Noodle recipes",
        body="Recipes for noodle soup: broth, tare and toppings.",
        kind="package",
    ),
)
GOAL = "asyncio event loop in a thread"


class Factory:
    """Makes the offline search over `CORPUS`; its index build waits for `gate` when given."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.made: list[Path | None] = []
        self.gate = gate

    def __call__(self, cache: Path | None) -> OfflineSearch:
        self.made.append(cache)
        if self.gate is None:
            return OfflineSearch(cache, documents=CORPUS)
        gate = self.gate

        def documents() -> Iterator[OfflineDocument]:
            assert gate.wait(30)
            yield from CORPUS

        return OfflineSearch(cache, documents=documents, key="gated-corpus")


def record(signal) -> list[object]:  # type: ignore[no-untyped-def]
    seen: list[object] = []
    signal.connect(lambda *args: seen.append(args[0] if len(args) == 1 else args))
    return seen


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


def test_a_prompt_typed_with_the_research_tab_shown_is_researched(
    qtbot,  # type: ignore[no-untyped-def]
    research_window: MainWindow,
    factory: Factory,
    tmp_path: Path,
) -> None:
    window, session = research_window, research_window.session
    window.show_tab("Research")
    started = record(session.research_started)
    with qtbot.waitSignal(session.research_finished, timeout=30_000) as blocker:
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
    assert "next step:" in view.summary.text() and result.termination_reason in (
        view.summary.text()
    )
    view.copy_button.click()
    assert QGuiApplication.clipboard().text().startswith(f"# Research: {GOAL}")
    qtbot.waitUntil(lambda: not session.busy)
    assert len(factory.made) == 1  # the backend is made once


def test_a_new_prompt_cancels_the_run_under_way(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()  # holds the index build, so the first run is still under way
    factory = Factory(gate)
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=factory
    )
    session.set_research_enabled(True)
    finished = record(session.research_finished)
    with qtbot.waitSignal(session.research_started, timeout=5_000):
        session.set_text("event loop")
    with qtbot.waitSignal(session.research_started, timeout=5_000):
        session.set_text(GOAL)
    assert session.busy and not finished
    gate.set()
    qtbot.waitUntil(lambda: bool(finished), timeout=30_000)
    qtbot.waitUntil(lambda: not session.busy, timeout=30_000)
    assert [r.goal for r in finished] == [GOAL]  # type: ignore[attr-defined]
    assert session.research is finished[0]


def test_a_burst_of_typing_starts_one_run(qtbot, qloop, tmp_path: Path, factory: Factory) -> None:  # type: ignore[no-untyped-def]
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=factory
    )
    session.set_research_enabled(True)
    started = record(session.research_started)
    with qtbot.waitSignal(session.research_finished, timeout=30_000):
        for end in range(5, len(GOAL) + 1, 5):
            session.set_text(GOAL[:end])
        session.set_text(GOAL)
    assert started == [GOAL]
    with qtbot.waitSignal(session.research_finished) as blocker:
        session.set_text("   ")  # blank: nothing to research
    assert blocker.args == [None] and session.research is None


def test_the_hidden_tab_does_not_research(
    qtbot,  # type: ignore[no-untyped-def]
    research_window: MainWindow,
    factory: Factory,
) -> None:
    window, session = research_window, research_window.session
    started = record(session.research_started)
    window.set_prompt(GOAL)
    qtbot.wait(500)  # past the debounce
    assert not started and not factory.made and not session.busy
    with qtbot.waitSignal(session.research_finished, timeout=30_000):
        window.show_tab("Research")  # shown: the prompt is researched at once
    window.show_tab("Plan")
    window.set_prompt("event loop")
    qtbot.wait(500)
    assert started == [GOAL]
    assert window.research_view.result is not None and window.research_view.result.goal == GOAL


def test_the_view_renders_a_run(qtbot) -> None:  # type: ignore[no-untyped-def]
    pages = [
        PageRead("https://docs.example.org/a", True, "allowlist", 200, None, "A page", "text"),
        PageRead("http://127.0.0.1/admin", False, "private address", None, None),
        PageRead("https://slow.example.org/", True, "default", None, "timed out"),
    ]
    attempts = [
        _attempt(0, "loop thread", "optimiser", pages, 0.4, 0.5, 0.3, 0.39),
        _attempt(1, "asyncio loop thread", "refiner", pages[:1], 0.8, 0.7, 0.6, 0.72),
    ]
    result = DeepResearchResult(
        goal=GOAL,
        findings=[],
        quality=ResearchQuality("asyncio loop thread", 0.8, 0.7, 0.6, 2, "heuristic: fine"),
        attempts=attempts,
        best=1,
        warnings=["web research weak; relying more on model prior"],
        termination_reason="target reached in attempt 2",
        next_step=NextStep("escalate", "grounding required"),
        web_calls=2,
        pages_fetched=2,
        model="heuristic",
    )
    view = ResearchView()
    qtbot.addWidget(view)
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
        results=[],
        pages=pages,
        evaluation=None,
        evaluator_error=None,
        relevance=relevance,
        confidence=confidence,
        coverage=coverage,
        should_retry=index == 0,
        score=score,
        duration_ms=3.0,
    )


def test_closing_the_window_mid_run_cancels_it(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=Factory(gate)
    )
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("Research")
    finished = record(session.research_finished)
    with qtbot.waitSignal(session.research_started, timeout=5_000):
        window.set_prompt(GOAL)
    window.close()
    assert not session.busy
    gate.set()  # the worker sees it was cancelled and ends without a result
    qtbot.waitUntil(lambda: all(task.done() for task in asyncio.all_tasks(qloop)), timeout=30_000)
    assert not finished and session.research is None
