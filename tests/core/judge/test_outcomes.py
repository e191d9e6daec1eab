"""Results joined to labelled cases by prompt: the decision an `Outcome` records, scored."""

from __future__ import annotations

import dataclasses
import datetime as dt

import routescope
from routescope import Outcome
from routescope.judge import (
    OutcomeScorer,
    predict,
    prediction_of_outcome,
    prompt_key,
    score_outcomes,
    score_set,
    verdicts,
)
from routescope.rules import default_rules

from .test_metrics import CASES, case

TODAY = dt.date(2026, 11, 27)


def outcome(prompt: str) -> Outcome:
    return routescope.inspect(prompt, today=TODAY).outcome


def test_an_outcome_decides_what_the_routers_decide_with_its_rules_as_evidence() -> None:
    for labelled in CASES:
        decided = prediction_of_outcome(outcome(labelled.prompt))
        routed = predict(labelled, default_rules())
        assert decided.flags == routed.flags
        assert (decided.strategy, decided.place_hint) == (routed.strategy, routed.place_hint)
        assert (decided.entities, decided.linter_class) == (routed.entities, routed.linter_class)
        assert (decided.agent, decided.mode) == (routed.agent, routed.mode)
        (why,) = decided.evidence["strategy"]
        assert why.rule == routed.strategy_rule and why.end == 0  # a rule, no span
        assert decided.evidence["linter_class"][0].rule.startswith(decided.linter_class)
        assert "local" not in decided.evidence  # no keyword is recorded


def test_outcomes_score_as_the_routers_score_on_the_same_prompts() -> None:
    joined = score_outcomes([outcome(c.prompt) for c in CASES], CASES)
    routed = score_set(CASES, default_rules()).whole
    assert joined is not None
    assert joined.to_json(misses=False) == routed.to_json(misses=False)
    assert {(m.case, m.field) for m in joined.misses} == {(m.case, m.field) for m in routed.misses}


def test_prompts_join_by_their_words_duplicates_count_and_the_rest_is_left_out() -> None:
    stylist = next(c for c in CASES if c.id == "stylist")
    spaced = outcome("  Find me a hair stylist\n in   Fremont, CA ")
    assert prompt_key(spaced.prompt) == prompt_key(stylist.prompt)
    scorer = OutcomeScorer(CASES)
    assert scorer.add(spaced) == (stylist,)
    assert scorer.add(spaced) == (stylist,)
    assert scorer.add(outcome("an unlabelled prompt about kittens")) == ()
    result = scorer.result()
    assert result is not None
    assert (result.labelled, result.found, result.joined) == (5, 1, 2)
    assert result.whole.cases == 2 and result.whole.flags["local"].fn == ["stylist", "stylist"]
    assert set(result.parts) == {"heldout", "tune"} and result.parts["tune"].cases == 0
    data = result.to_json()
    assert "misses" not in data and (data["labelled"], data["found"], data["joined"]) == (5, 1, 2)
    assert {"flags", "macro_f1", "strategy", "place", "entities", "parts"} <= set(data)


def test_nothing_joined_is_no_scorecard() -> None:
    assert score_outcomes([outcome("kittens")], CASES) is None
    assert OutcomeScorer(CASES).result() is None


def test_fields_an_outcome_does_not_hold_are_not_scored() -> None:
    labelled = case("x", "How do I install FastAPI?", tech=True, agent="main", top_tool="web")
    routed = outcome(labelled.prompt)
    assert routed.agent is not None and not routed.ranked
    assert "agent" in verdicts(labelled, prediction_of_outcome(routed))
    contract_off = dataclasses.replace(routed, agent=None, mode=None, contract_tools=None)
    fields = verdicts(labelled, prediction_of_outcome(contract_off))
    assert "agent" not in fields and "top_tool" not in fields
    assert fields["tech"] is None  # right


def test_verdicts_name_each_scored_field_right_or_wrong() -> None:
    stylist = next(c for c in CASES if c.id == "stylist")
    fields = verdicts(stylist, prediction_of_outcome(outcome(stylist.prompt)))
    assert list(fields) == ["local", "strategy", "place_hint"]
    wrong = fields["local"]
    assert wrong is not None and (wrong.expected, wrong.got) == (True, False)
    assert fields["place_hint"] is None
