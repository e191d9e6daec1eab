"""The tools model: the catalog's engine loads off the UI thread when the ranking is first
wanted, rankings follow the prompt and the settings, rows are explained when opened, why-not."""

import json
import threading
from pathlib import Path

import pytest

import routescope
from routescope.toolsearch import SearchSettings
from routescope_gui import Session
from routescope_gui._tools_model import ToolsModel
from tests.gui._support import record


def ranked(qtbot, session: Session, text: str) -> ToolsModel:  # type: ignore[no-untyped-def]
    """The session's tools model, its engine loaded and `text` ranked."""
    tools = session.tools
    session.set_text(text)
    with qtbot.waitSignals([tools.engine_ready, tools.ranked], timeout=120_000):
        tools.set_enabled(True)
    return tools


def test_the_engine_loads_only_when_ranking_is_wanted(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.set_text("find files named config.yaml")
    assert session.tools.engine is None and session.request.catalog is None
    tools = ranked(qtbot, session, "find files named config.yaml")
    assert tools.engine is not None and session.request.catalog is not None
    assert tools.ranking is not None
    assert tools.ranking.results[0].tool_name == "files.find"
    assert tools.ranking.results[0].signals.vector is not None


def test_ranking_embeds_off_the_ui_thread_and_sliders_reuse_the_vector(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    tools = ranked(qtbot, session, "what changed in my repo")
    engine = tools.engine
    assert engine is not None
    threads: list[int] = []
    embed = engine.embed_query

    def spy(text: str):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return embed(text)

    engine.embed_query = spy
    with qtbot.waitSignal(tools.ranked, timeout=20_000):
        session.set_text("find files named config.yaml")
    assert len(threads) == 1 and threading.get_ident() not in threads
    with qtbot.waitSignal(tools.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fusion="canonical", rrf_k=5))
    assert len(threads) == 1  # the query vector was reused
    terms = [t.k for hit in blocker.args[0].results for t in hit.signals.rrf]
    assert terms and all(k == 5 for k in terms)
    with qtbot.waitSignal(tools.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(strategy="exact"))
    assert blocker.args[0].strategy == "exact"


def test_rows_are_ranked_unexplained_and_explained_when_opened(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    tools = ranked(qtbot, session, "why is my container crashing after the deploy?")
    assert tools.ranking is not None
    top = tools.ranking.results[0]
    assert top.signals.keyword is not None and top.signals.keyword.fields == {}
    with qtbot.waitSignal(tools.ranked, timeout=5_000) as blocker:
        tools.explain_row(top.tool_name)
    assert blocker.args[0] is tools.ranking and top.signals.keyword.fields
    with qtbot.assertNotEmitted(tools.ranked):
        tools.explain_row(top.tool_name)  # explained already
        tools.explain_row("no.such.tool")


def test_why_not_runs_off_the_ui_thread(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    tools = ranked(qtbot, session, "find files named config.yaml")
    threads: list[int] = []
    why_not = routescope.toolsearch.why_not

    def spy(*args: object) -> object:
        threads.append(threading.get_ident())
        return why_not(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(routescope.toolsearch, "why_not", spy)
    with qtbot.waitSignal(tools.explained, timeout=20_000) as blocker:
        tools.set_pinned_tool("git.status")
    report = blocker.args[0]
    assert report.tool_name == "git.status" and "filter excludes" in report.reason
    assert threads and threading.get_ident() not in threads
    with qtbot.waitSignal(tools.explained, timeout=20_000) as blocker:  # follows the prompt
        session.set_text("show me the git status")
    assert blocker.args[0].final_rank == 1


def test_open_a_json_catalog_or_say_why_not(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tools.json"
    tools = [
        {"tool_name": "pets.feed", "description": "Feed the cat", "routing_keywords": ["cat"]},
        {"tool_name": "pets.walk", "description": "Walk the dog", "routing_keywords": ["dog"]},
    ]
    path.write_text(json.dumps(tools), encoding="utf-8")
    tools = session.tools
    session.set_text("feed my cat")
    tools.set_enabled(True)  # starts loading the sample catalog
    ready = record(tools.engine_ready)
    changed = record(session.changed)
    with qtbot.waitSignals([tools.engine_ready, tools.ranked], timeout=120_000):
        tools.open_catalog(path)
    assert len(ready) == 1 and "2 tools from tools.json" in ready[0][0]  # type: ignore[index]
    assert "routescope-json format" in ready[0][0]  # type: ignore[index]
    assert tools.ranking is not None and tools.ranking.results[0].tool_name == "pets.feed"
    assert session.request.catalog is not None and session.request.catalog.path == str(path)
    assert changed == ["catalog"]  # the catalog loaded is the request's
    with qtbot.waitSignal(tools.ranked, timeout=120_000) as blocker:
        session.set_catalog(routescope.CatalogRef.sample())
    assert blocker.args[0].results[0].tool_name != "pets.feed"
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with qtbot.waitSignal(tools.engine_failed, timeout=20_000) as failed:
        tools.open_catalog(bad)
    assert failed.args[0].startswith("cannot load catalog")


def test_the_fusion_and_the_fit_threshold_reach_the_ranking(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    tools = ranked(qtbot, session, "best ramen recipe with a soft egg")
    assert tools.ranking is not None and tools.ranking.fusion == "weighted"
    with qtbot.waitSignal(tools.ranked, timeout=20_000) as blocker:
        session.set_search(SearchSettings(fit_threshold=0.45))
    assert blocker.args[0].fits is False and "0.45" in blocker.args[0].fit_reason
    with qtbot.waitSignal(tools.ranked, timeout=20_000) as blocker:
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
    tools = session.tools
    ready = record(tools.engine_ready)
    session.set_text(prompt)
    tools.open_catalog(EXAMPLES / path)
    with qtbot.waitSignal(tools.ranked, timeout=120_000) as blocker:
        tools.set_enabled(True)
    status, names, details = ready[0]  # type: ignore[misc]
    assert f"tools from {Path(path).name} · {kind} format ·" in status
    assert details.startswith(f"format {kind}: ") and best in names
    assert blocker.args[0].results[0].tool_name == best


# -- regression suites ----------------------------------------------------------------------------
