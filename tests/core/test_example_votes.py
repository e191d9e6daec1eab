"""Intent flags voted by the nearest labelled examples (`[intents.examples]`, the built-in pack
`refined-semantic`), with the shipped embedding model: a vote sets a flag the rules left off and
clears one they set, each with its neighbours as evidence; off in `default` and `refined`."""

from __future__ import annotations

import datetime as dt
import json

import pytest

import routescope
from routescope import RulesRef, resources_root
from routescope._errors import RulePackError
from routescope._example_votes import example_set
from routescope.judge import read_labelled, score_set
from routescope.rules import builtin_rules_text, parse_rules
from tests._support import routescope_cli

TODAY = dt.date(2026, 11, 27)
EXAMPLES = resources_root() / "labelled" / "examples" / "public-tune.jsonl"
PUBLIC = resources_root() / "labelled" / "public" / "public.jsonl"


def _inspect(text: str, pack: str) -> routescope.Inspection:
    return routescope.inspect(text, today=TODAY, rules=RulesRef.named(pack).load())


def test_only_refined_semantic_votes() -> None:
    assert RulesRef.builtin().load().intents.examples is None
    assert RulesRef.named("refined").load().intents.examples is None
    voting = RulesRef.named("refined-semantic").load().intents.examples
    assert voting is not None and voting.set == "public-tune"
    assert set(voting.flags) == set(routescope.strategy.INTENTS)
    assert _inspect("who won the last super bowl", "refined").context.example_votes == []


def test_the_example_set_is_the_tuning_part_only() -> None:
    tune = {c.prompt for c in read_labelled(str(PUBLIC)) if c.part == "tune"}
    lines = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]
    assert {line["prompt"] for line in lines} == tune
    examples = example_set("public-tune")
    assert examples.vectors.shape == (len(lines), 384)


def test_a_vote_sets_a_flag_the_rules_left_off_and_says_why() -> None:
    text = "who won the last super bowl"
    assert not _inspect(text, "refined").context.intent.time_sensitive
    context = _inspect(text, "refined-semantic").context
    assert context.intent.time_sensitive
    vote = next(v for v in context.example_votes if v.intent == "time_sensitive")
    assert not vote.rules and vote.decided and vote.share >= vote.on
    assert len(vote.neighbours) == 11
    similarities = [n.similarity for n in vote.neighbours]
    assert similarities == sorted(similarities, reverse=True)
    assert "superbowl" in vote.neighbours[0].text and vote.neighbours[0].carries
    assert "of the 11 nearest public-tune examples are time_sensitive" in vote.reason
    match = next(m for m in context.intent_matches if m.intent == "time_sensitive")
    assert match.keyword.startswith("nearest examples") and (match.start, match.end) == (0, 27)


def test_a_vote_routes_and_the_route_cites_it() -> None:
    inspection = _inspect("get current observable value", "refined-semantic")
    assert inspection.strategy == "tech"
    assert "by vote:" in inspection.strategy_reason
    assert _inspect("get current observable value", "refined").strategy == "general"


def test_a_vote_below_off_clears_a_flag_the_rules_set() -> None:
    text = "A script of a Jigglypuff and Kirby in a boxing match"
    assert _inspect(text, "refined").context.intent.tech
    context = _inspect(text, "refined-semantic").context
    assert not context.intent.tech
    vote = next(v for v in context.example_votes if v.intent == "tech")
    assert vote.rules and not vote.decided and vote.off is not None and vote.share < vote.off
    assert [m.keyword for m in vote.overruled] == ["script"]
    assert not [m for m in context.intent_matches if m.intent == "tech"]
    assert "rules overruled" in vote.reason


def test_same_prompt_same_votes() -> None:
    text = "cheap flights to lisbon next week"
    first = _inspect(text, "refined-semantic").context
    second = _inspect(text, "refined-semantic").context
    assert first == second


def test_refined_semantic_keeps_every_built_in_strategy_case() -> None:
    pack = RulesRef.named("refined-semantic").load()
    suite = read_labelled(str(resources_root() / "fixtures" / "strategy.yaml"))
    card = score_set(suite, pack).whole
    assert card.strategy.accuracy == 1.0 and not card.misses


def test_a_bad_vote_or_set_is_one_clear_line() -> None:
    text = builtin_rules_text("refined-semantic")
    with pytest.raises(RulePackError, match="off must be below on"):
        parse_rules(text.replace("off = 0.25", "off = 0.9"), "bad.toml")
    missing = parse_rules(text.replace('set = "public-tune"', 'set = "nowhere"'), "missing.toml")
    with pytest.raises(RulePackError, match="example set 'nowhere' cannot be read") as caught:
        routescope.inspect("hello", today=TODAY, rules=missing)
    assert "\n" not in str(caught.value)


def test_the_cli_shows_the_votes() -> None:
    done = routescope_cli("inspect", "--rules", "refined-semantic", "get current observable value")
    assert done.returncode == 0, done.stderr
    assert "strategy  TECH" in done.stdout
    assert "● tech vote" in done.stdout
    assert "votes     ● 5 of the 7 nearest public-tune examples are tech" in done.stdout
