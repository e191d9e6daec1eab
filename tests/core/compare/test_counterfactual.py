"""Counterfactuals: each word removed in turn, every deterministic router run again."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings

import routescope
from routescope import Request, RulesRef
from routescope._json import to_json
from routescope.compare import Counterfactuals, Decisions, Flip, counterfactuals
from routescope.compare._counterfactual import flips
from routescope.compare._words import without_word
from routescope.toolsearch import ToolSearch, load_catalog
from tests._support import TODAY

from ._prompts import prompts, texts


def request(text: str, **changes: object) -> Request:
    return Request.build(text, today=TODAY).replace(**changes)


def flipped(found: Counterfactuals) -> dict[str, list[tuple[str, object, object]]]:
    return {
        effect.word: [(f.decision, f.before, f.after) for f in effect.flips]
        for effect in found.flipping()
    }


@pytest.fixture(scope="module")
def engine() -> Iterator[ToolSearch]:
    """The sample catalog, keyword-only (no embedding model), its index in a temporary folder."""
    with tempfile.TemporaryDirectory() as folder:
        yield ToolSearch(
            load_catalog(routescope.resources_root() / "catalog"),
            cache=Path(folder),
            semantic=False,
        )


def test_seed_local_prompt_near_and_the_place_make_it_local() -> None:
    found = counterfactuals(request("Best ramen near Denver, Colorado open tonight"))
    assert found.baseline.strategy == "local"
    assert flipped(found) == {
        "near": [("strategy", "local", "general")],
        "Denver": [("strategy", "local", "general")],
    }
    near = next(e for e in found.words if e.word == "near")
    assert (near.start, near.end) == (11, 15)
    assert found.words_total == 7 and len(found.words) == 7 and found.notes == ()


def test_seed_tech_prompt_install_makes_it_tech() -> None:
    found = counterfactuals(request("How do I install OpenClaw on my server?"))
    assert found.baseline.strategy == "tech"
    assert flipped(found) == {"install": [("strategy", "tech", "general")]}


def test_contract_and_task_flips_are_reported() -> None:
    found = flipped(counterfactuals(request("stake 5 SOL on Kamino now")))
    assert ("agent", "staking", "knowledge") in found["stake"]
    assert ("task_route", "browse", "chat") in found["now"]


def test_linter_class_flip() -> None:
    found = flipped(counterfactuals(request("run the failing tests")))
    assert found["tests"] == [("lint_class", "semi", "vague")]


def test_top_tool_flips_with_a_catalog(engine: ToolSearch) -> None:
    found = counterfactuals(request("show the git log"), engine)
    assert found.baseline.top_tool == "git.log" and found.baseline.tool_fit == "fits"
    assert flipped(found)["git"] == [("top_tool", "git.log", "docker.logs")]


def test_the_only_word_is_not_removed() -> None:
    found = counterfactuals(request("FastAPI"))
    assert found.words == () and found.words_total == 1
    assert "only word" in found.notes[0]


def test_max_words_limits_the_runs() -> None:
    found = counterfactuals(request("one two three four five"), max_words=2)
    assert [e.word for e in found.words] == ["one", "two"]
    assert found.words_total == 5 and "first 2 of 5" in found.notes[0]
    with pytest.raises(routescope.InputError):
        counterfactuals(request("one two"), max_words=-1)


def test_a_text_is_a_request_with_the_builtin_pack() -> None:
    assert flipped(counterfactuals("How do I install FastAPI?")) == flipped(
        counterfactuals(request("How do I install FastAPI?"))
    )
    with pytest.raises(routescope.InputError):
        counterfactuals("   ")


def test_a_rule_pack_is_used(tmp_path: Path) -> None:
    text = routescope.resources_root().joinpath("rules", "default.toml").read_text("utf-8")
    text = text.replace('local = ["near me"', 'local = ["ramen", "near me"')
    pack = RulesRef.from_text(text, "ramen.toml")
    found = counterfactuals(request("Best ramen near Denver, Colorado", rules=pack))
    # Local twice over (the keyword and the place): no single word flips it now.
    assert "strategy" not in {f.decision for e in found.words for f in e.flips}


def test_json_shape() -> None:
    data = to_json(counterfactuals(request("pizza near me")))
    for key in ('"baseline"', '"words"', '"flips"', '"cut_start"', '"words_total"', '"notes"'):
        assert key in data


@settings(max_examples=60)
@given(texts)
def test_spans_are_within_the_prompt(text: str) -> None:
    found = counterfactuals(request(text))
    for effect in found.words:
        assert 0 <= effect.cut_start <= effect.start < effect.end <= effect.cut_end <= len(text)
        assert text[effect.start : effect.end] == effect.word
    assert [e.start for e in found.words] == sorted(e.start for e in found.words)
    assert len(found.words) <= found.words_total


@settings(max_examples=60)
@given(prompts)
def test_each_removal_is_what_a_full_run_gives(text: str) -> None:
    """The flips of each word are exactly the differences between the full inspection of the
    prompt and the full inspection of the prompt without that word."""
    req = request(text)
    found = counterfactuals(req)
    assert found.baseline == Decisions.of(routescope.inspect(req).outcome)
    for effect in found.words:
        variant = without_word(text, (effect.cut_start, effect.cut_end))
        again = Decisions.of(routescope.inspect(req.replace(text=variant)).outcome)
        assert effect.flips == flips(found.baseline, again)


@settings(max_examples=20)
@given(prompts)
def test_each_removal_with_tools_is_what_a_full_run_gives(engine: ToolSearch, text: str) -> None:
    req = request(text)
    found = counterfactuals(req, engine)
    assert found.baseline == Decisions.of(routescope.inspect(req, tools=engine).outcome)
    for effect in found.words:
        variant = without_word(text, (effect.cut_start, effect.cut_end))
        again = Decisions.of(routescope.inspect(req.replace(text=variant), tools=engine).outcome)
        assert effect.flips == flips(found.baseline, again)


def test_flips_lists_what_differs_in_order() -> None:
    before = Decisions.of(routescope.inspect(request("pizza near me")).outcome)
    after = Decisions.of(routescope.inspect(request("How do I install FastAPI?")).outcome)
    assert flips(before, before) == ()
    assert flips(before, after)[0] == Flip("strategy", "local", "tech")
