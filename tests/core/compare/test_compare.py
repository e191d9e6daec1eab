"""A and B side by side: the structured diff of two inspections."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings

import routescope
from routescope import Request, RulesRef
from routescope._json import to_json
from routescope.compare import Comparison, compare, compare_requests
from routescope.compare._compare import compare_inspections
from routescope.toolsearch import ToolSearch, load_catalog
from tests._support import TODAY

from ._prompts import prompts

CATALOG = routescope.resources_root() / "catalog"


def request(text: str, **changes: object) -> Request:
    return Request.build(text, today=TODAY).replace(**changes)


def changes(comparison: Comparison) -> dict[str, tuple[object, object]]:
    return {c.field: (c.a, c.b) for c in comparison.changes}


def pack(old: str, new: str, name: str = "other") -> RulesRef:
    text = routescope.resources_root().joinpath("rules", "default.toml").read_text("utf-8")
    assert old in text
    text = text.replace(old, new).replace('name = "default"', f'name = "{name}"')
    return RulesRef.from_text(text, f"{name}.toml")


@pytest.fixture(scope="module")
def engine() -> Iterator[ToolSearch]:
    with tempfile.TemporaryDirectory() as folder:
        yield ToolSearch(load_catalog(CATALOG), cache=Path(folder), semantic=False)


@settings(max_examples=80)
@given(prompts)
def test_a_prompt_against_itself_has_no_changes(text: str) -> None:
    req = request(text)
    same = compare_requests(req, req, None, None)  # two runs: the timings differ, nothing else
    assert not same.changed and same.sections == ()
    assert same.changes == () and same.flags == () and same.calls == ()
    assert all(q.kind == "same" and not q.removed and not q.added for q in same.queries)
    assert [q.a for q in same.queries] == [a.query for a in routescope.inspect(req).actions]
    assert same.tools is None
    assert same.a == same.b


@settings(max_examples=15)
@given(prompts)
def test_a_prompt_against_itself_with_tools_has_no_changes(engine: ToolSearch, text: str) -> None:
    found = routescope.inspect(request(text), tools=engine)
    same = compare_inspections(found, found)
    assert not same.changed
    assert same.tools is not None and all(t.movement == "same" for t in same.tools)


@settings(max_examples=60)
@given(prompts, prompts)
def test_every_change_is_a_real_difference(a: str, b: str) -> None:
    first, second = routescope.inspect(request(a)), routescope.inspect(request(b))
    diff = compare_inspections(first, second)
    assert all(c.a != c.b for c in diff.changes)
    listed = diff.changes or diff.flags or diff.calls or any(q.kind != "same" for q in diff.queries)
    assert diff.changed == bool(listed) == bool(diff.sections)
    if first.strategy != second.strategy:
        assert changes(diff)["strategy"] == (first.strategy, second.strategy)
    # Every query of each side is in exactly one row, in its own order.
    assert [q.a for q in diff.queries if q.a is not None] == [x.query for x in first.actions]
    assert sorted(q.index_b for q in diff.queries if q.index_b is not None) == list(
        range(len(second.actions))
    )
    for row in diff.queries:
        assert all(row.a is not None and row.a[s.start : s.end] == s.value for s in row.removed)
        assert all(row.b is not None and row.b[s.start : s.end] == s.value for s in row.added)


def test_two_prompts_near_and_in() -> None:
    diff = compare(
        request("Best ramen near Denver, Colorado open tonight"),
        request("Best ramen in Denver, Colorado open tonight"),
    )
    assert diff.changed and diff.sections == ("strategy", "task")
    assert changes(diff)["strategy"] == ("local", "general")
    assert changes(diff)["strategy_rule"] == ("intent.local", "default")
    (flip,) = diff.flags
    assert (flip.flag, flip.a, flip.b) == ("local", True, False)
    assert [s.value for s in flip.evidence_a] == ["near Denver, Colorado"]
    first = diff.queries[0]
    assert first.kind == "changed"
    assert (first.source_a, first.source_b) == ("local.first", "general.first")
    assert "near" in [s.value for s in first.removed]
    assert "in" in [s.value for s in first.added]
    assert diff.a.outcome.strategy == "local" and diff.b.outcome.strategy == "general"
    assert diff.a.rules == "default" and not diff.a.tools


def test_same_rule_rows_show_changed_words_only() -> None:
    diff = compare(request("How do I install FastAPI?"), request("How do I install Django?"))
    assert diff.sections == ("strategy",)
    assert changes(diff)["context.entities.candidates"] == (["FastAPI"], ["Django"])
    docs = diff.queries[0]
    assert docs.kind == "changed" and docs.source_a == docs.source_b == "tech.docs"
    assert [s.value for s in docs.removed] == ["FastAPI"]
    assert [s.value for s in docs.added] == ["Django"]
    assert docs.a is not None and docs.a[docs.removed[0].start :].startswith("FastAPI")


def test_one_prompt_under_two_rule_packs() -> None:
    other = pack(
        'always_prepositions = ["near", "around"]', 'always_prepositions = ["around"]', "strict"
    )
    text = "Best ramen near Denver, Colorado open tonight"
    diff = compare(request(text), request(text, rules=other))
    assert changes(diff)["strategy"] == ("local", "general")
    assert changes(diff)["context.entities.place_hint"] == ("Denver, Colorado", None)
    assert diff.a.rules == "default" and diff.b.rules == "strict (strict.toml)"
    assert diff.a.text == diff.b.text == text


def test_linter_and_contract_sections() -> None:
    diff = compare(request("stake 5 SOL on Kamino"), request("show lend pools readme.md"))
    assert diff.sections == ("strategy", "lint", "contract")
    assert changes(diff)["decision.agent"] == ("staking", "lending")
    assert changes(diff)["lint.query_class"] == ("vague", "semi")
    assert changes(diff)["lint.anchors_detected.strong"] == ([], ["readme.md"])
    assert [(c.kind, c.tool, c.index_a, c.index_b) for c in diff.calls] == [
        ("changed", "wallet_balance", 1, 1),
        ("removed", "stake_execute", 2, None),
        ("added", "lend_execute", None, 2),
    ]
    assert diff.calls[0].args_a == {"token": "SOL"} and diff.calls[0].args_b == {}
    assert diff.calls[1].args_a == {"amount": 5.0, "token": "SOL", "protocol": "kamino"}


def test_contract_disabled_on_one_side() -> None:
    off = pack("enabled = true", "enabled = false", "nocontract")
    diff = compare(request("stake 5 SOL"), request("stake 5 SOL", rules=off))
    assert changes(diff)["decision.agent"] == ("staking", None)
    assert all(c.kind == "removed" for c in diff.calls)
    assert diff.b.outcome.agent is None


def test_tool_ranks_move(engine: ToolSearch) -> None:
    diff = compare(request("show the git log"), request("show the git diff"), tools=engine)
    assert diff.tools is not None and "tools" in diff.sections
    moves = {m.tool: m for m in diff.tools}
    assert moves["git.diff"].movement == "up" and moves["git.diff"].rank_b == 1
    assert moves["git.log"].movement == "down"
    assert moves["git.diff"].delta == moves["git.diff"].rank_a - 1  # type: ignore[operator]
    assert changes(diff)["tools.top"] == ("git.log", "git.diff")
    assert diff.a.tools and diff.a.catalog == str(CATALOG)
    assert [m.rank_b for m in diff.tools if m.rank_b is not None] == list(
        range(1, 1 + sum(m.rank_b is not None for m in diff.tools))
    )


def test_tools_on_one_side_only(engine: ToolSearch) -> None:
    a = routescope.inspect(request("show the git log"))
    b = routescope.inspect(request("show the git log"), tools=engine)
    diff = compare_inspections(a, b)
    assert diff.tools is not None and all(m.movement == "new" for m in diff.tools)
    assert changes(diff)["tools.top"] == (None, "git.log")


def test_json_round_trips() -> None:
    diff = compare(request("pizza near me"), request("pizza near Austin"))
    data = json.loads(to_json(diff))
    assert set(data) == {
        "a",
        "b",
        "changed",
        "sections",
        "changes",
        "flags",
        "queries",
        "calls",
        "tools",
    }
    assert set(data["a"]) == {"text", "rules", "outcome", "tools", "catalog"}
    assert set(data["a"]["outcome"]) == {
        "strategy",
        "lint_class",
        "agent",
        "mode",
        "task_route",
        "top_tool",
        "tool_fit",
    }
    row = data["queries"][0]
    assert set(row) == {
        "kind",
        "a",
        "b",
        "source_a",
        "source_b",
        "index_a",
        "index_b",
        "removed",
        "added",
    }


def test_a_text_is_a_request_of_today() -> None:
    diff = compare("pizza near me", "pizza near me")
    assert not diff.changed


def test_a_text_beside_a_request_takes_its_other_inputs() -> None:
    other = pack(
        'always_prepositions = ["near", "around"]', 'always_prepositions = ["around"]', "strict"
    )
    req = request("ramen near Denver", rules=other)
    diff = compare(req, "ramen around Denver")
    assert diff.a.rules == diff.b.rules == "strict (strict.toml)"
    assert changes(diff)["strategy"] == ("general", "local")
    assert compare("ramen around Denver", req).b.rules == "strict (strict.toml)"
