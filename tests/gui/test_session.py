import datetime as dt
import json
import threading
from pathlib import Path

import pytest

import routescope
from routescope.toolsearch import SearchSettings
from routescope_gui import Session
from routescope_gui._session import BACKGROUND_CHARS

SUITE = """\
# demo suite
suite: demo
router: strategy
today: 2030-07-04
cases:
  - id: right
    prompt: pizza near me
    expect: {strategy: local}
  - id: wrong
    prompt: How do I install FastAPI?
    expect:
      strategy: general   # wrong on purpose
"""


def record(signal) -> list[object]:  # type: ignore[no-untyped-def]
    seen: list[object] = []
    signal.connect(lambda *args: seen.append(args[0] if len(args) == 1 else args))
    return seen


def test_a_prompt_is_inspected_at_once_and_each_change_names_its_field(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    changed = record(session.changed)
    with qtbot.waitSignal(session.inspected) as blocker:
        session.set_text("latest news")
    assert blocker.args[0].actions[0].query == "latest news as of February 5, 2026"
    with qtbot.waitSignal(session.inspected) as blocker:
        session.set_today(dt.date(2030, 7, 4))
    assert blocker.args[0].actions[0].query == "latest news as of July 4, 2030"
    with qtbot.waitSignal(session.inspected):
        session.set_context(routescope.contract.parse_context({"preferences": {"risk": "low"}}))
    session.set_text("latest news")  # unchanged: nothing happens
    assert changed == ["text", "today", "context"]
    assert session.request.text == "latest news" and session.request.today == dt.date(2030, 7, 4)


def test_a_burst_of_changes_is_inspected_once_more_when_the_event_loop_comes_round(
    qtbot,  # type: ignore[no-untyped-def]
    session,
) -> None:
    inspected = record(session.inspected)
    for text in ("p", "pi", "piz", "pizza", "pizza near me"):
        session.set_text(text)
    assert [i.context.raw_text for i in inspected] == ["p"]  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: len(inspected) == 2)
    assert inspected[-1].context.raw_text == "pizza near me"  # type: ignore[attr-defined]
    assert inspected[-1].strategy == "local"  # type: ignore[attr-defined]


def test_blank_and_unusable_prompts(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.set_text("pizza")
    with qtbot.waitSignal(session.inspected) as blocker:
        session.set_text("   ")
    assert blocker.args == [None] and session.inspection is None
    with qtbot.waitSignal(session.failed) as blocker:
        session.set_text("\x00\x01")
    assert "empty" in blocker.args[0]


def test_a_large_prompt_is_inspected_off_the_ui_thread(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    threads: list[int] = []
    inspect = routescope.inspect

    def spy(request: routescope.Request) -> routescope.Inspection:
        threads.append(threading.get_ident())
        return inspect(request)

    monkeypatch.setattr(routescope, "inspect", spy)
    large = "install FastAPI now " * (BACKGROUND_CHARS // 10)
    with qtbot.waitSignal(session.inspected, timeout=20_000) as blocker:
        session.set_text(large)
    assert blocker.args[0].context.raw_text == large
    assert threads and threading.get_ident() not in threads


def test_a_stale_large_result_is_dropped(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    inspected = record(session.inspected)
    session.set_text("install FastAPI now " * (BACKGROUND_CHARS // 10))
    session.set_text("pizza near me")  # while the large prompt is in the works
    qtbot.waitUntil(lambda: not session.busy, timeout=20_000)
    assert [i.context.raw_text for i in inspected] == ["pizza near me"]  # type: ignore[attr-defined]
    assert session.inspection is not None and session.inspection.strategy == "local"


def test_open_request_replaces_every_input_at_once(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    changed = record(session.changed)
    request = routescope.Request.build("latest news", today=dt.date(2030, 7, 4))
    with qtbot.waitSignal(session.inspected) as blocker:
        session.open_request(request)
    assert changed == ["request"] and session.request == request
    assert blocker.args[0].actions[0].query == "latest news as of July 4, 2030"


def test_the_plan_steps_through_with_the_request_rules(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.set_text("Lend 100 USDC on Kamino")
    step = session.plan_progress()
    assert step is not None and step.next is not None and step.next.tool == "wallet_connect"
    for _ in range(3):
        with qtbot.waitSignal(session.plan_stepped):
            session.step_plan()
    step = session.plan_progress()
    assert step is not None and step.done and step.reason == "tool plan complete"
    session.reset_plan()
    assert session.plan_results == []
    session.set_text("Lend 200 USDC on Kamino")  # a new decision starts from its first step
    assert session.plan_results == []


# -- tool search --------------------------------------------------------------------------------


def ranked_session(qtbot, session: Session, text: str) -> Session:  # type: ignore[no-untyped-def]
    session.set_text(text)
    with qtbot.waitSignals([session.engine_ready, session.ranked], timeout=120_000):
        session.set_ranking_enabled(True)
    return session


def test_the_engine_loads_only_when_ranking_is_wanted(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.set_text("find files named config.yaml")
    assert session.engine is None and session.request.catalog is None
    ranked_session(qtbot, session, "find files named config.yaml")
    assert session.engine is not None and session.request.catalog is not None
    assert session.ranking is not None
    assert session.ranking.results[0].tool_name == "files.find"
    assert session.ranking.results[0].signals.vector is not None


def test_ranking_embeds_off_the_ui_thread_and_sliders_reuse_the_vector(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    ranked_session(qtbot, session, "what changed in my repo")
    engine = session.engine
    threads: list[int] = []
    embed = engine.embed_query

    def spy(text: str):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return embed(text)

    engine.embed_query = spy
    with qtbot.waitSignal(session.ranked, timeout=20_000):
        session.set_text("find files named config.yaml")
    assert len(threads) == 1 and threading.get_ident() not in threads
    with qtbot.waitSignal(session.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fusion="canonical", rrf_k=5))
    assert len(threads) == 1  # the query vector was reused
    terms = [t.k for hit in blocker.args[0].results for t in hit.signals.rrf]
    assert terms and all(k == 5 for k in terms)
    with qtbot.waitSignal(session.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(strategy="exact"))
    assert blocker.args[0].strategy == "exact"


def test_rows_are_ranked_unexplained_and_explained_when_opened(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    ranked_session(qtbot, session, "why is my container crashing after the deploy?")
    top = session.ranking.results[0]
    assert top.signals.keyword is not None and top.signals.keyword.fields == {}
    with qtbot.waitSignal(session.ranked, timeout=5_000) as blocker:
        session.explain_row(top.tool_name)
    assert blocker.args[0] is session.ranking and top.signals.keyword.fields
    with qtbot.assertNotEmitted(session.ranked):
        session.explain_row(top.tool_name)  # explained already
        session.explain_row("no.such.tool")


def test_why_not_runs_off_the_ui_thread(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ranked_session(qtbot, session, "find files named config.yaml")
    threads: list[int] = []
    why_not = routescope.toolsearch.why_not

    def spy(*args: object) -> object:
        threads.append(threading.get_ident())
        return why_not(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(routescope.toolsearch, "why_not", spy)
    with qtbot.waitSignal(session.explained, timeout=20_000) as blocker:
        session.set_pinned_tool("git.status")
    report = blocker.args[0]
    assert report.tool_name == "git.status" and "filter excludes" in report.reason
    assert threads and threading.get_ident() not in threads
    with qtbot.waitSignal(session.explained, timeout=20_000) as blocker:  # follows the prompt
        session.set_text("show me the git status")
    assert blocker.args[0].final_rank == 1


def test_open_a_json_catalog_or_say_why_not(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tools.json"
    tools = [
        {"tool_name": "pets.feed", "description": "Feed the cat", "routing_keywords": ["cat"]},
        {"tool_name": "pets.walk", "description": "Walk the dog", "routing_keywords": ["dog"]},
    ]
    path.write_text(json.dumps(tools), encoding="utf-8")
    session.set_text("feed my cat")
    session.set_ranking_enabled(True)  # starts loading the sample catalog
    ready = record(session.engine_ready)
    with qtbot.waitSignals([session.engine_ready, session.ranked], timeout=120_000):
        session.open_catalog(path)
    assert len(ready) == 1 and "2 tools from tools.json" in ready[0][0]  # type: ignore[index]
    assert "routescope-json format" in ready[0][0]  # type: ignore[index]
    assert session.ranking is not None and session.ranking.results[0].tool_name == "pets.feed"
    assert session.request.catalog is not None and session.request.catalog.path == str(path)
    with qtbot.waitSignal(session.ranked, timeout=120_000) as blocker:
        session.set_catalog(routescope.CatalogRef.sample())
    assert blocker.args[0].results[0].tool_name != "pets.feed"
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with qtbot.waitSignal(session.engine_failed, timeout=20_000) as failed:
        session.open_catalog(bad)
    assert failed.args[0].startswith("cannot load catalog")


def test_the_fusion_and_the_fit_threshold_reach_the_ranking(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    ranked_session(qtbot, session, "best ramen recipe with a soft egg")
    assert session.ranking is not None and session.ranking.fusion == "weighted"
    with qtbot.waitSignal(session.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fit_threshold=0.45))
    assert blocker.args[0].fits is False and "0.45" in blocker.args[0].fit_reason
    with qtbot.waitSignal(session.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fit_threshold=0.45, fusion="canonical"))
    assert blocker.args[0].fusion == "canonical" and blocker.args[0].results[0].signals.rrf
    with qtbot.assertNotEmitted(session.changed):  # equal settings: nothing to rank again
        session.set_search(SearchSettings(fit_threshold=0.45, fusion="canonical"))


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_CATALOGS = {  # path under examples/: (format, prompt, the tool it must rank first)
    "catalogs/openai-tools.json": ("openai-tools", "weather in Paris", "get_current_weather"),
    "catalogs/openai-functions.json": ("openai-functions", "refund my payment", "refund_payment"),
    "catalogs/mcp-tools-list.json": ("mcp", "move report.txt to the archive folder", "move_file"),
    "catalogs/anthropic-tools.json": ("anthropic", "merge the pull request", "merge_pull_request"),
    "catalogs/routescope.json": ("routescope-json", "export the query as CSV", "db.export"),
    "skills": ("skills", "show the logs of the api pod", "kube.logs"),
}


@pytest.mark.parametrize("path", EXAMPLE_CATALOGS)
def test_every_example_catalog_opens_and_ranks_a_prompt(qtbot, session, path: str) -> None:  # type: ignore[no-untyped-def]
    kind, prompt, best = EXAMPLE_CATALOGS[path]
    ready = record(session.engine_ready)
    session.set_text(prompt)
    session.open_catalog(EXAMPLES / path)
    with qtbot.waitSignal(session.ranked, timeout=120_000) as blocker:
        session.set_ranking_enabled(True)
    status, names, details = ready[0]  # type: ignore[misc]
    assert f"tools from {Path(path).name} · {kind} format ·" in status
    assert details.startswith(f"format {kind}: ") and best in names
    assert blocker.args[0].results[0].tool_name == best


# -- regression suites ----------------------------------------------------------------------------


def test_a_suite_runs_in_worker_threads_with_progress(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(session.suite_opened, timeout=20_000):
        session.open_suite(routescope.resources_root() / "fixtures" / "strategy.yaml")
    progress = record(session.suite_progress)
    with qtbot.waitSignal(session.suite_finished, timeout=60_000) as blocker:
        session.run_suite()
    result, changed = blocker.args
    assert result.failed == 0 and changed is None
    total = len(session.suite.cases)
    assert progress[0] == (0, total) and progress[-1] == (total, total)


def test_accept_a_golden_and_open_a_case(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    path.write_text(SUITE, encoding="utf-8")
    with qtbot.waitSignal(session.suite_opened, timeout=20_000):
        session.open_suite(path)
    with qtbot.waitSignal(session.suite_finished, timeout=20_000):
        session.run_suite()
    assert session.suite_result is not None and session.suite_result.failed == 1
    with qtbot.waitSignal(session.inspected, timeout=20_000):
        session.open_case("wrong")
    assert session.request == session.suite.cases[1].request(session.suite)
    assert session.request.today == dt.date(2030, 7, 4)
    accepted = record(session.goldens_accepted)
    with qtbot.waitSignal(session.suite_finished, timeout=20_000) as blocker:
        session.accept_golden("wrong")
    assert accepted == [("wrong", 1)]
    result, changed = blocker.args
    assert result.failed == 0 and changed == {"wrong"}
    text = path.read_text(encoding="utf-8")
    assert "strategy: tech" in text and "# demo suite" in text


def test_a_bad_suite_is_reported(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text("suite: x\n", encoding="utf-8")
    with qtbot.waitSignal(session.suite_failed, timeout=20_000) as blocker:
        session.open_suite(path)
    assert "cases" in blocker.args[0]


def test_a_session_starts_from_an_empty_prompt_with_the_built_in_rules(qtbot) -> None:  # type: ignore[no-untyped-def]
    session = Session()
    assert session.request.text == "" and session.request.catalog is None
    assert session.request.rules == routescope.RulesRef.builtin()
    with qtbot.waitSignal(session.inspected):
        session.set_text("history of jazz")
    assert session.inspection is not None and session.inspection.strategy == "general"
