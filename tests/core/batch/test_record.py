"""The batch's record is what `inspect()` gives: built straight from the router calls, it
equals the record built from the `Inspection` of the same request, field by field."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import routescope
from routescope import RulePack
from routescope.batch import FIELDS, STAGES, flat_record, record_from_inspection, route_record
from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog

from ._logs import prompts, suite_prompts

TODAY = dt.date(2026, 2, 5)
CATALOG = Path(str(routescope.resources_root())) / "catalog"


def _without_timings(record: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in record.items() if k != "timings_us"}


def test_the_record_of_every_suite_prompt_equals_the_inspections(rules: RulePack) -> None:
    texts = suite_prompts() + prompts(60, 50) + prompts(20, 500, seed=2)
    assert len(texts) > 150
    for text in texts:
        fast = route_record(text, TODAY, rules)
        slow = record_from_inspection(routescope.inspect(text, today=TODAY, rules=rules), "s", 1)
        assert {"source": "s", "line": 1, **_without_timings(fast)} == _without_timings(slow)
        assert list(slow) == list(FIELDS)
        assert json.loads(json.dumps(fast)) == fast  # plain JSON values


def test_with_a_catalog_the_tool_fields_equal_the_inspections(
    rules: RulePack, tmp_path: Path
) -> None:
    engine = ToolSearch(load_catalog(CATALOG), cache=tmp_path, semantic=False)
    settings = SearchSettings(k=3, explain=False, split_steps=False)
    for text in suite_prompts()[:40]:
        fast = route_record(text, TODAY, rules, engine, settings)
        request = routescope.Request(text, TODAY, search=settings)
        slow = record_from_inspection(routescope.inspect(request, tools=engine), "s", 1)
        assert {"source": "s", "line": 1, **_without_timings(fast)} == _without_timings(slow)
        assert fast["tools"] is not None and len(fast["tools"]) <= 3
        assert fast["timings_us"] is not None and "tools" in fast["timings_us"]


def test_fields_say_what_the_routers_decided(rules: RulePack) -> None:
    record = route_record("Best ramen near Denver this weekend", TODAY, rules)
    assert record["strategy"] == "local"
    assert record["intents"] == ["local", "purchase", "time_sensitive"]
    assert record["place"] == "Denver"
    assert record["queries"][0].startswith("Best ramen near Denver")
    assert record["contract"] is not None and record["contract"]["tools"]
    assert record["task_route"] == "browse"
    assert (record["tools"], record["top_tool"], record["top_score"], record["tool_fits"]) == (
        None,
        None,
        None,
        None,
    )
    assert set(record["timings_us"]) == set(STAGES) - {"tools"}
    assert route_record("x y z", TODAY, rules, timings=False)["timings_us"] is None


def test_a_pack_that_disables_the_contract_gives_a_null_contract(rules: RulePack) -> None:
    off = rules.model_copy(
        update={"contract": rules.contract.model_copy(update={"enabled": False})}
    )
    assert route_record("try again", TODAY, off)["contract"] is None


def test_the_flat_record_has_one_column_per_nested_field(rules: RulePack) -> None:
    record = {"source": "a", "line": 3, **route_record("install FastAPI", TODAY, rules)}
    flat = flat_record(record)
    assert flat["today"] == TODAY
    assert flat["contract_agent"] == record["contract"]["agent"]
    assert flat["contract_tools"] == record["contract"]["tools"]
    assert flat["timings_us_total"] == record["timings_us"]["total"]
    assert flat["timings_us_tools"] is None
    assert "contract" not in flat and "timings_us" not in flat


@pytest.mark.parametrize("text", ["\u2028 line separator \u2029", "tab\tand \x1b escape"])
def test_odd_characters_survive_into_the_record(rules: RulePack, text: str) -> None:
    assert route_record(text, TODAY, rules)["prompt"] == text
