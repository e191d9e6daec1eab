"""The task router: the model or the heuristic picks chat / browse / research and the goal; the
searches always come from the strategy pipeline."""

import asyncio
import datetime as dt
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import routescope
from routescope.cli import main
from routescope.llm import JsonAnswer
from routescope.llm._scripted import ScriptedChat
from routescope.task import classify, classify_heuristic

TODAY = dt.date(2026, 2, 5)


def test_the_heuristic_routes_and_the_strategy_router_plans() -> None:
    task = classify_heuristic("Best ramen near Denver, Colorado open tonight", today=TODAY)
    assert (task.route, task.source, task.strategy) == ("browse", "heuristic", "local")
    assert task.actions and all("site:" not in a.query for a in task.actions)
    chat = classify_heuristic("write me a haiku about autumn", today=TODAY)
    assert (chat.route, chat.actions) == ("chat", [])


def test_model_actions_are_discarded_and_openclaw_stays_gated() -> None:
    reply = json.dumps(
        {
            "route": "browse",
            "user_goal": "How do I install OpenClaw on my server?",
            "reason": "docs",
            "actions": [{"tool": "google_search", "query": "site:evil.example OpenClaw"}],
        }
    )
    task = asyncio.run(
        classify("install openclaw?", llm=ScriptedChat(lambda *_: reply), today=TODAY)
    )
    assert task.source == "llm" and task.strategy == "tech"
    assert [a.query for a in task.actions][:2] == [
        "site:docs.openclaw.ai OpenClaw",
        "site:github.com/openclaw OpenClaw",
    ]
    assert all("evil.example" not in a.query for a in task.actions)


def test_a_failing_model_falls_back_to_the_heuristic() -> None:
    failing = ScriptedChat(lambda *_: JsonAnswer(None, "timeout"))
    task = asyncio.run(classify("Latest FastAPI release notes", llm=failing, today=TODAY))
    assert task.source == "heuristic (model answer not used: timeout)"
    assert task.route == "browse"
    assert any("as of February 5, 2026" in a.query for a in task.actions)


def test_the_task_is_part_of_every_inspection(capsys: pytest.CaptureFixture[str]) -> None:
    """The library, `inspect --json` and `schema inspection` carry the same `task`."""
    text = "Best ramen near Denver, Colorado open tonight"
    inspection = routescope.inspect(text, today=TODAY)
    assert inspection.task == classify_heuristic(text, today=TODAY)
    assert inspection.task.route == "browse" and inspection.task.actions
    assert "task" in inspection.timings_us
    assert main(["inspect", "--json", "--no-tools", "--today", TODAY.isoformat(), text]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["task"] == json.loads(inspection.model_dump_json())["task"]
    assert main(["schema", "inspection"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "task" in schema["properties"] and "task" in schema["required"]


def test_an_inspection_reuses_its_plan_for_the_task_with_the_same_decision() -> None:
    """`inspect` hands the task router its own extraction, route and plan (one pipeline run per
    keystroke, not two): the decision is the one the task router makes on its own."""
    suite = routescope.resources_root() / "fixtures" / "strategy.yaml"
    prompts = [case.prompt for case in routescope.regress.load_suite(suite).cases]
    prompts += ["  Best ramen near Denver tonight  ", "write me a haiku about autumn", "hi"]
    for text in prompts:
        assert routescope.inspect(text, today=TODAY).task == classify_heuristic(text, today=TODAY)


@pytest.mark.parametrize(
    "text",
    [
        "compare A and B",
        "A VS. B",
        "pros & cons of tabs",
        "Trade-offs of Rust",
        "best practices for logging",
        "ver\u017fus",  # ſ matches s case-insensitively
        "no research words here",
        "crossword: bestiary",
    ],
)
def test_the_research_shortcut_matches_what_the_pattern_matches(text: str) -> None:
    from routescope.task._heuristic import _RESEARCH, _research_words

    found, expected = _research_words(text), _RESEARCH.search(text)
    assert (found and found.group()) == (expected and expected.group())


@given(
    st.text(
        alphabet=st.sampled_from(list("bestcomparingvs.ersutradofp &-_ BCVTP\u017f\u212a1")),
        max_size=40,
    )
)
def test_the_research_shortcut_never_misses_a_match(text: str) -> None:
    from routescope.task._heuristic import _RESEARCH, _research_words

    found, expected = _research_words(text), _RESEARCH.search(text)
    assert (found and found.group()) == (expected and expected.group())


def test_the_route_alone_is_the_specs_route() -> None:
    from routescope.rules import default_rules
    from routescope.strategy import extract
    from routescope.task import heuristic_route, heuristic_task_spec

    suite = routescope.resources_root() / "fixtures" / "strategy.yaml"
    prompts = [case.prompt for case in routescope.regress.load_suite(suite).cases]
    prompts += ["compare tabs vs spaces near me", "pros & cons of Rust", "hi"]
    for text in prompts:
        context = extract(text, default_rules())
        assert heuristic_route(text, context) == heuristic_task_spec(text, context).route


def test_a_prompt_long_matched_keyword_is_cut_in_the_reason() -> None:
    """`make bench`'s scaling shapes: "near Denver Denver …" is one local match as long as the
    prompt, and the reason quoting it whole broke the spec's 2,000 characters."""
    result = routescope.inspect("near " + "Denver " * 2000)
    reason = result.task.reason
    assert result.task.route == "browse" and len(reason) < 400
    assert "'near Denver Denver" in reason and "…'" in reason


def test_a_research_route_shows_the_optimisers_first_query() -> None:
    """Issue 27 §5: the task router plans a research route's search with the research
    optimiser (the seed's strategy searches stay beside it)."""
    from routescope.optimise import first_query
    from routescope.research._heuristic import HeuristicModel, OptimiserInput

    goal = "compare FastAPI vs Flask for a REST API"
    task = routescope.inspect(goal, today=dt.date(2026, 11, 27)).task
    assert task.route == "research" and task.actions  # (the seed's searches)
    first = task.research_query
    assert first is not None and first == first_query(goal)
    assert first.query == "compare FastAPI vs Flask REST API Python"
    assert "entities 'FastAPI', 'Flask'" in first.reason
    assert "'Python' from the language" in first.reason
    assert "fastapi.tiangolo.com" in first.expected_domains
    # Deep research's heuristic optimiser searches exactly that first.
    planned = HeuristicModel().plan_query(OptimiserInput(goal=goal))
    assert (planned.query, planned.reason) == (first.query, first.reason)
    for other in ("best ramen near Denver", "tell me a joke"):
        assert routescope.inspect(other, today=dt.date(2026, 11, 27)).task.research_query is None


def test_the_research_query_is_in_the_json_and_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    goal = "pros and cons of SQLite vs PostgreSQL"
    assert main(["inspect", "--today", "2026-11-27", "--json", goal]) == 0
    task = json.loads(capsys.readouterr().out)["task"]
    assert task["route"] == "research" and task["research_query"]["query"].startswith("pros cons")
    assert main(["inspect", "--today", "2026-11-27", goal]) == 0
    assert "research searches first: " + task["research_query"]["query"] in capsys.readouterr().out
