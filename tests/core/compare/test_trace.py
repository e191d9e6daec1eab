"""Traces: where an entity flows through the decisions."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

import routescope
from routescope._json import to_json
from routescope.compare import trace
from routescope.toolsearch import ToolSearch, load_catalog
from tests._support import run

from ._prompts import prompts


def test_an_entity_in_the_tech_queries() -> None:
    found = run("How do I install OpenClaw on my server? see readme.md and the telemetry docs")
    flow = trace(found, "OpenClaw")
    assert (flow.kind, flow.candidate_rank, flow.plan_entity, flow.place) == (
        "openclaw",
        1,
        True,
        False,
    )
    assert [(m.start, m.end) for m in flow.mentions] == [(17, 25)]
    assert [q.source for q in flow.queries if q.where == "actions"] == [
        "openclaw.queries[0]",
        "openclaw.queries[1]",
        "tech.docs",
        "tech.github",
    ]
    for query in flow.queries:
        assert all(query.query[s.start : s.end].lower() == "openclaw" for s in query.spans)
    assert flow.tools is None


def test_an_anchor_that_is_not_a_candidate() -> None:
    found = run("see readme.md and the telemetry docs")
    flow = trace(found, "telemetry")
    assert flow.kind is None and flow.candidate_rank is None
    assert [(a.anchor, a.kind, a.start, a.end) for a in flow.anchors] == [
        ("telemetry", "strong", 22, 31)
    ]


def test_the_place_and_its_local_keyword() -> None:
    found = run("Best ramen near Denver, Colorado open tonight")
    flow = trace(found, "Denver")
    assert flow.place and flow.candidate_rank == 1
    assert [(i.intent, i.keyword) for i in flow.intents] == [("local", "near <place>")]
    assert [q.source for q in flow.queries] == ["local.first", "local.first"]
    assert {q.where for q in flow.queries} == {"actions", "task"}


def test_a_contract_rule_on_the_entity() -> None:
    flow = trace(run("stake 5 SOL on Kamino"), "kamino")
    assert [(r.rule, r.text) for r in flow.rules] == [("protocol", "Kamino")]
    assert flow.entity == "kamino" and flow.candidate_rank == 2


def test_a_candidate_object_and_bad_names() -> None:
    found = run("How do I install FastAPI on Ubuntu?")
    first = found.context.entities.details[0]
    assert trace(found, first).entity == first.text
    with pytest.raises(routescope.InputError):
        trace(found, "  ")
    nowhere = trace(found, "Django")
    assert nowhere.mentions == () and nowhere.queries == () and nowhere.candidate_rank is None


def test_tool_matches_when_tools_ran(tmp_path: Path) -> None:
    engine = ToolSearch(
        load_catalog(routescope.resources_root() / "catalog"), cache=tmp_path, semantic=False
    )
    found = run("show the git log", tools=engine)
    flow = trace(found, "git")
    assert flow.tools is not None and flow.tools[0].tool == "git.log"
    assert all(t.tool.startswith("git.") for t in flow.tools)
    assert flow.tools[0].words == ("git",) and "tool_name" in flow.tools[0].fields
    assert flow.tools[0].share is not None and flow.tools[0].share > 0
    assert '"tools"' in to_json(flow)


@settings(max_examples=60)
@given(prompts)
def test_every_candidate_traces_to_spans_of_its_text(text: str) -> None:
    found = run(text)
    for candidate in found.context.entities.details:
        flow = trace(found, candidate)
        assert flow.candidate_rank is not None
        for mention in flow.mentions:
            assert text[mention.start : mention.end] == mention.value
        for query in flow.queries:
            assert all(query.query[s.start : s.end] == s.value for s in query.spans)
