"""`Outcome`: one shape for what the routers decided. A lean run of the stages (the batch's,
the counterfactuals') gives the outcome a full run (`inspect()`) gives, field by field; the
record and the row read back into the same outcome."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import routescope
from routescope import RulePack
from routescope._errors import RecordError
from routescope._outcome import FIELDS, Outcome
from routescope._stages import STAGES, run_stages
from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog

from .batch._logs import prompts, suite_prompts

TODAY = dt.date(2026, 2, 5)
CATALOG = Path(str(routescope.resources_root())) / "catalog"


def _lean(text: str, rules: RulePack, *args: object) -> Outcome:
    return Outcome.of(run_stages(text, TODAY, rules, None, *args, lean=True))


def test_a_lean_run_decides_what_inspect_decides_for_every_suite_prompt(rules: RulePack) -> None:
    texts = suite_prompts() + prompts(60, 50) + prompts(20, 500, seed=2)
    assert len(texts) > 150
    for text in texts:
        lean = _lean(text, rules)
        full = routescope.inspect(text, today=TODAY, rules=rules).outcome
        assert lean == full
        assert lean.to_record("s", 1, timings=False) == full.to_record("s", 1, timings=False)
        record = lean.to_record("s", 1)
        assert list(record) == list(FIELDS)
        assert json.loads(json.dumps(record)) == record  # plain JSON values
        assert Outcome.from_record(record) == lean


def test_with_a_catalog_the_tool_fields_equal_the_inspections(
    rules: RulePack, tmp_path: Path
) -> None:
    engine = ToolSearch(load_catalog(CATALOG), cache=tmp_path, semantic=False)
    settings = SearchSettings(k=3, explain=False, split_steps=False)
    for text in suite_prompts()[:40]:
        lean = _lean(text, rules, engine, settings)
        request = routescope.Request(text, TODAY, search=settings)
        assert lean == routescope.inspect(request, tools=engine).outcome
        assert lean.tools is not None and len(lean.tools) <= 3
        assert lean.timings_us is not None and "tools" in lean.timings_us


def test_a_lean_run_drops_explanations_the_caller_asked_for_without_changing_the_ranking(
    rules: RulePack, tmp_path: Path
) -> None:
    engine = ToolSearch(load_catalog(CATALOG), cache=tmp_path, semantic=False)
    explained = SearchSettings(k=3, explain=True, split_steps=True)
    for text in suite_prompts()[:20]:
        full = run_stages(text, TODAY, rules, None, engine, explained)
        lean = run_stages(text, TODAY, rules, None, engine, explained, lean=True)
        assert full.task is not None and lean.task is None
        assert Outcome.of(lean) == Outcome.of(full)


def test_fields_say_what_the_routers_decided(rules: RulePack) -> None:
    record = _lean("Best ramen near Denver this weekend", rules).to_record()
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
    assert "source" not in record
    assert _lean("x y z", rules).to_record(timings=False)["timings_us"] is None


def test_a_pack_that_disables_the_contract_gives_a_null_contract(rules: RulePack) -> None:
    off = rules.model_copy(
        update={"contract": rules.contract.model_copy(update={"enabled": False})}
    )
    outcome = _lean("try again", off)
    assert outcome.to_record()["contract"] is None
    assert outcome.agent is None and outcome.contract_tools is None


def test_the_row_has_one_column_per_nested_field_and_reads_back(rules: RulePack) -> None:
    outcome = _lean("install FastAPI", rules)
    record = outcome.to_record("a", 3)
    flat = outcome.to_row("a", 3)
    assert flat == Outcome.row_of_record(record)
    assert flat["today"] == TODAY
    assert flat["contract_agent"] == record["contract"]["agent"]
    assert flat["contract_tools"] == record["contract"]["tools"]
    assert flat["timings_us_total"] == record["timings_us"]["total"]
    assert flat["timings_us_tools"] is None
    assert "contract" not in flat and "timings_us" not in flat
    assert Outcome.from_row(flat) == outcome
    assert Outcome.record_of_row(dict(flat))["contract"] == record["contract"]


@pytest.mark.parametrize("text", ["\u2028 line separator \u2029", "tab\tand \x1b escape"])
def test_odd_characters_survive_into_the_record(rules: RulePack, text: str) -> None:
    assert _lean(text, rules).to_record()["prompt"] == text


def test_equal_outcomes_ignore_timings(rules: RulePack) -> None:
    first, second = _lean("install FastAPI", rules), _lean("install FastAPI", rules)
    assert first == second and hash(first) == hash(second)
    assert first.timings_us is not None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"strategy": None}, "field 'strategy' must be a string, not null"),
        ({"intents": "tech"}, "field 'intents' must be a list of strings"),
        ({"has_openclaw": "no"}, "field 'has_openclaw' must be true or false, not a string"),
        ({"contract": {"agent": "a"}}, "contract: missing field 'mode'"),
        ({"top_score": "high"}, "field 'top_score' must be a number or null, not a string"),
        ({"timings_us": {"total": -1}}, "must map stages to microseconds (at 'total')"),
    ],
)
def test_a_record_that_is_not_an_outcome_names_its_field(
    rules: RulePack, change: dict[str, object], message: str
) -> None:
    record = _lean("install FastAPI", rules).to_record("a", 1) | change
    with pytest.raises(RecordError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Outcome.from_record(record)
