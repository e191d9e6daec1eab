"""The research model with the offline backends: research follows the prompt while the tab is
shown (a newer prompt cancels the run under way, and says so), a burst of typing starts one
run, a hidden tab does not research, reports are named by the core."""

import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import routescope
from routescope.research import ResearchSettings
from routescope.research._offline import OfflineDocument
from routescope_gui import Session
from routescope_gui._research_model import PROMPT_CHANGED, SETTINGS_CHANGED, TAB_HIDDEN
from tests._support import TODAY
from tests.core.research._fake_embedder import FakeEmbedder
from tests.gui._support import GOAL, Factory, record


@pytest.fixture
def factory() -> Factory:
    return Factory()


def research_session(tmp_path: Path, factory: Factory) -> Session:
    return Session(
        routescope.Request.build("", today=TODAY),
        cache=tmp_path,
        research_search=factory,
        reports=tmp_path / "reports",
    )


def test_a_new_prompt_cancels_the_run_under_way_and_says_why(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()  # holds the index build, so the first run is still under way
    session = research_session(tmp_path, Factory(gate))
    model = session.research
    model.set_enabled(True)
    finished = record(model.finished)
    with qtbot.waitSignal(model.started, timeout=5_000):
        session.set_text("event loop")
    assert model.running_goal == "event loop"
    with qtbot.waitSignal(model.cancelled) as cancelled:
        session.set_text(GOAL)
    assert cancelled.args == [PROMPT_CHANGED] and model.busy  # a new run once the prompt rests
    with qtbot.waitSignal(model.started, timeout=5_000):
        pass
    gate.set()
    qtbot.waitUntil(lambda: bool(finished), timeout=30_000)
    qtbot.waitUntil(lambda: not session.busy, timeout=30_000)
    assert [r.goal for r in finished] == [GOAL]  # type: ignore[attr-defined]
    assert model.result is finished[0]


def test_a_burst_of_typing_starts_one_run(qtbot, qloop, tmp_path: Path, factory: Factory) -> None:  # type: ignore[no-untyped-def]
    session = research_session(tmp_path, factory)
    model = session.research
    model.set_enabled(True)
    started = record(model.started)
    stale = record(model.stale)
    with qtbot.waitSignal(model.finished, timeout=30_000):
        for end in range(5, len(GOAL) + 1, 5):
            session.set_text(GOAL[:end])
        session.set_text(GOAL)
    assert started == [GOAL] and not stale  # offline research follows the prompt: never stale
    with qtbot.waitSignal(model.finished) as blocker:
        session.set_text("   ")  # blank: nothing to research
    assert blocker.args == [None] and model.result is None


def test_research_waits_while_the_tab_is_hidden(
    qtbot, qloop, tmp_path: Path, factory: Factory
) -> None:  # type: ignore[no-untyped-def]
    session = research_session(tmp_path, factory)
    model = session.research
    started = record(model.started)
    session.set_text(GOAL)
    assert not model.busy  # no run, and none due: nothing can start later
    assert not started and not factory.made
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        model.set_enabled(True)  # shown: the prompt is researched at once
    assert blocker.args[0].goal == GOAL and started == [GOAL]


def test_hiding_the_tab_cancels_an_offline_run(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    session = research_session(tmp_path, Factory(gate))
    model = session.research
    model.set_enabled(True)
    with qtbot.waitSignal(model.started, timeout=5_000):
        session.set_text(GOAL)
    with qtbot.waitSignal(model.cancelled) as cancelled:
        model.set_enabled(False)
    assert cancelled.args == [TAB_HIDDEN] and not model.busy
    gate.set()
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        model.set_enabled(True)  # nothing was shown for it: researched again
    assert blocker.args[0].goal == GOAL


def test_other_settings_cancel_the_run_and_research_again(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    gate = threading.Event()
    session = research_session(tmp_path, Factory(gate))
    model = session.research
    model.set_enabled(True)
    with qtbot.waitSignal(model.started, timeout=5_000):
        session.set_text(GOAL)
    with qtbot.waitSignal(model.cancelled) as cancelled:
        model.set_settings(ResearchSettings(max_attempts=1))
    assert cancelled.args == [SETTINGS_CHANGED] and model.live
    gate.set()
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        pass
    assert len(blocker.args[0].attempts) == 1


def test_a_report_is_saved_in_a_folder_the_core_names(
    qtbot, qloop, tmp_path: Path, factory
) -> None:  # type: ignore[no-untyped-def]
    session = research_session(tmp_path, factory)
    model = session.research
    assert model.save_report() is None  # nothing shown yet
    model.set_enabled(True)
    with qtbot.waitSignal(model.finished, timeout=30_000):
        session.set_text(GOAL)
    with qtbot.waitSignal(model.saved) as saved:
        path = model.save_report()
    assert path is not None and saved.args == [str(path)] and path.name == "report.md"
    assert path.parent.parent == tmp_path / "reports"
    assert re.fullmatch(r"\d{8}-\d{6}-asyncio-event-loop-in-a-thread", path.parent.name)
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    with qtbot.waitSignal(model.failed) as failed:
        assert model.save_report(blocked / "report") is None
    assert failed.args[0].startswith("cannot save the report in")


def test_closing_stops_the_passage_vectors_being_built_in_the_background(
    qtbot, qloop, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """The window researches on terms while the offline index's passage vectors are built in
    a thread; closing it stops that build (a thread left inside the model at exit aborted the
    bundle's self-test)."""

    class Slow(FakeEmbedder):
        def embed(self, texts: list[str]) -> np.ndarray:
            time.sleep(0.05)  # a long build: 40 batches
            return super().embed(texts)

    model_ = Slow()
    corpus = [
        OfflineDocument(
            f"https://docs.python.org/3/library/m{i}.html",
            f"m{i} — event loops {i}",
            f"Module {i} runs an asyncio event loop.\n\nIt also runs a thread {i}.",
            "stdlib",
        )
        for i in range(400)
    ]

    def search(cache: Path | None) -> routescope.research.OfflineSearch:
        made = routescope.research.OfflineSearch(
            cache, documents=corpus, key="slow", semantic=True, embedder=lambda: model_
        )
        made.wait_for_passages = False
        return made

    session = research_session(tmp_path, search)  # type: ignore[arg-type]
    session.research.set_enabled(True)
    with qtbot.waitSignal(session.research.finished, timeout=30_000):
        session.set_text(GOAL)
    qtbot.waitUntil(lambda: bool(model_.calls), timeout=30_000)
    session.close()
    assert not any(t.name == "passage-vectors" for t in threading.enumerate())
    assert len(model_.calls) < 40 and not list(tmp_path.rglob("passages-*"))
