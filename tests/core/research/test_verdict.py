"""The next step after research (`decide_next_step`): a function of the attempts' evidence and
of why the loop stopped. One table crosses every next step with every stop reason (a
combination the rules cannot produce is shown unreachable by the invariants below it)."""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from routescope.research._quality import (
    TRANSIENT,
    WEAK,
    NextStep,
    Scores,
    StopKind,
    StopReason,
    Thresholds,
    best_attempt,
    decide_next_step,
    meets_target,
    next_step,
)

MAX = 3
GOOD = Scores(0.8, 0.6, 0.7)
"""Meets the target."""
PARTIAL = Scores(0.5, 0.3, 0.4)
"""Something relevant read, below the target: weak (relevance < 0.6)."""
FAIR = Scores(0.65, 0.5, 0.5)
"""Below the target but not weak."""
HOPELESS = Scores(0.1, 0.0, 0.0)
"""Read, but nothing about the goal."""
NOTHING = Scores(0.0, 0.0, 0.0, fetched=0)
"""Nothing read."""


def stop(kind: StopKind | None, made: int) -> StopReason | None:
    if kind is None:
        return None
    text = {
        "target_reached": f"target reached in attempt {made}",
        "attempts_exhausted": f"{made} attempts made",
        "no_retry": f"evaluator: no retry after attempt {made}",
        "not_improving": f"score stopped improving in attempt {made}",
        "refused": f"the provider refused access (403) in attempt {made}",
        "deadline": f"run deadline of 60 s reached in attempt {made + 1}",
        "model_failed": "refiner failed (timeout): no further attempt",
        "model_refused": "refiner: the model refused access (401): check its key",
    }[kind]
    return StopReason(kind, text, made)


# (attempts, stop, grounding required, outcome, rule, words in the reason)
CASES: list[tuple[list[Scores], StopKind | None, bool, str, str, tuple[str, ...]]] = [
    # target_reached: only proceed
    ([GOOD], "target_reached", False, "proceed", "target_met", ("0.8 ≥ 0.7",)),
    ([PARTIAL, GOOD], "target_reached", True, "proceed", "target_met", ("best attempt 2",)),
    # attempts_exhausted: proceed with what was read, escalate without it
    ([PARTIAL] * 3, "attempts_exhausted", False, "proceed", "research_done", ("3 of 3", "prior")),
    ([FAIR] * 3, "attempts_exhausted", True, "escalate", "grounding_weak", ("weak evidence",)),
    ([NOTHING] * 3, "attempts_exhausted", False, "escalate", "nothing_read", ("no attempt left",)),
    ([HOPELESS] * 3, "attempts_exhausted", True, "escalate", "grounding_hopeless", ("all 3",)),
    # no_retry with attempts left: the reason names the stop (why no retry)
    ([PARTIAL], "no_retry", False, "proceed", "research_done", ("2 attempt(s) left", "evaluator")),
    ([FAIR], "no_retry", False, "proceed", "research_done", ("relying more on the model prior",)),
    ([PARTIAL], "no_retry", True, "escalate", "grounding_weak", ("no model prior",)),
    ([NOTHING], "no_retry", False, "escalate", "nothing_read", ("would not help",)),
    ([HOPELESS], "no_retry", True, "escalate", "grounding_hopeless", ("external evidence",)),
    # not_improving
    ([FAIR, PARTIAL], "not_improving", False, "proceed", "research_done", ("stopped improving",)),
    ([NOTHING, NOTHING], "not_improving", False, "escalate", "nothing_read", ("nothing read",)),
    ([HOPELESS] * 2, "not_improving", True, "escalate", "grounding_hopeless", ("all 2",)),
    # refused: a key problem is not fixed by researching again
    ([NOTHING], "refused", False, "escalate", "refused", ("refused access",)),
    ([PARTIAL, NOTHING], "refused", False, "proceed", "research_done", ("refused",)),
    ([HOPELESS, NOTHING], "refused", True, "escalate", "grounding_hopeless", ("all 2",)),
    # deadline: a passing reason, attempts left → research again
    ([], "deadline", False, "research_again", "nothing_read_retry", ("nothing read yet",)),
    ([PARTIAL], "deadline", False, "research_again", "stopped_early", ("another run",)),
    ([PARTIAL], "deadline", True, "research_again", "stopped_early", ("grounding the goal needs",)),
    ([HOPELESS], "deadline", True, "escalate", "grounding_hopeless", ("external evidence",)),
    # model_failed
    ([NOTHING], "model_failed", False, "research_again", "nothing_read_retry", ("refiner",)),
    ([PARTIAL], "model_failed", False, "research_again", "stopped_early", ("refiner failed",)),
    ([HOPELESS], "model_failed", True, "escalate", "grounding_hopeless", ("all 1",)),
    # model_refused: a key or quota problem escalates with its reason, whatever was read
    ([GOOD], "model_refused", False, "escalate", "model_refused", ("401", "relevance 0.8")),
    ([NOTHING], "model_refused", False, "escalate", "model_refused", ("nothing read",)),
    # not stopped yet (the planner asks between attempts)
    ([PARTIAL], None, False, "research_again", "stopped_early", ("not stopped yet",)),
    ([GOOD], None, False, "proceed", "target_met", ("0.7 ≥ 0.6",)),
]


@pytest.mark.parametrize(
    ("attempts", "kind", "grounding", "outcome", "rule", "words"),
    CASES,
    ids=[f"{c[1]}-{c[3]}-{c[4]}" for c in CASES],
)
def test_the_next_step_table(
    attempts: list[Scores],
    kind: StopKind | None,
    grounding: bool,
    outcome: str,
    rule: str,
    words: tuple[str, ...],
) -> None:
    step = decide_next_step(attempts, stop(kind, len(attempts)), MAX, requires_grounding=grounding)
    assert (step.outcome, step.rule) == (outcome, rule), step.reason
    for word in words:
        assert word in step.reason, step.reason


def test_the_table_reaches_every_step_and_every_stop() -> None:
    assert {c[3] for c in CASES} == {"proceed", "research_again", "escalate"}
    assert {c[1] for c in CASES} == {*get_args(StopKind), None}
    reached = {(c[1], c[3]) for c in CASES}
    for kind in get_args(StopKind):  # research again only after a passing stop
        assert ((kind, "research_again") in reached) == (kind in TRANSIENT)


def test_the_analysts_cases() -> None:
    nothing = decide_next_step([NOTHING], stop("attempts_exhausted", 1), 1)
    assert nothing.outcome == "escalate" and WEAK in nothing.warnings
    early = decide_next_step([PARTIAL], stop("no_retry", 1), 3)
    assert early.outcome != "research_again"
    assert "not tried: evaluator: no retry after attempt 1" in early.reason


def test_the_weak_warning_follows_the_best_attempt() -> None:
    assert decide_next_step([GOOD], stop("target_reached", 1), MAX).warnings == []
    # Short of the target, proceeding relies on the model prior: always warned.
    assert decide_next_step([FAIR], stop("no_retry", 1), MAX).warnings == [WEAK]
    assert decide_next_step([PARTIAL], stop("no_retry", 1), MAX).warnings == [WEAK]
    assert decide_next_step([], stop("deadline", 0), MAX).warnings == [WEAK]


def test_an_attempt_that_meets_the_target_is_best_whatever_it_scores() -> None:
    confident = Scores(0.9, 1.0, 0.5)  # scores 0.8, below the target's coverage
    target = Scores(0.7, 0.0, 0.6)  # scores 0.53
    assert best_attempt([confident, target]) == 1


def test_the_step_says_why_grounding_applies() -> None:
    why = "grounding required: the goal is time-sensitive ('today')"
    step = decide_next_step(
        [FAIR], stop("no_retry", 1), MAX, requires_grounding=True, grounding_reason=why
    )
    assert (step.outcome, step.rule, step.grounding) == ("escalate", "grounding_weak", why)
    assert why in step.reason
    plain = decide_next_step([FAIR], stop("no_retry", 1), MAX, grounding_reason="not required")
    assert (plain.outcome, plain.grounding) == ("proceed", "not required")


def test_next_step_counts_every_attempt_made_as_the_end() -> None:
    assert next_step([PARTIAL] * 3, 3).rule == "research_done"
    assert next_step([PARTIAL], 3).outcome == "research_again"


# -- invariants ------------------------------------------------------------------------------

_unit = st.floats(0.0, 1.0)
_scores = st.builds(Scores, _unit, _unit, _unit, st.integers(0, 5))
_kinds = st.sampled_from([*get_args(StopKind), None])


@given(
    attempts=st.lists(_scores, max_size=4),
    kind=_kinds,
    max_attempts=st.integers(1, 5),
    grounding=st.booleans(),
)
def test_decide_invariants(
    attempts: list[Scores], kind: StopKind | None, max_attempts: int, grounding: bool
) -> None:
    reason = stop(kind, len(attempts))
    step = decide_next_step(attempts, reason, max_attempts, requires_grounding=grounding)
    assert isinstance(step, NextStep) and step.reason.strip() and step.rule
    read = sum(a.fetched for a in attempts)
    thresholds = Thresholds()
    # Nothing read: never proceed.
    if read == 0:
        assert step.outcome != "proceed"
    # Proceed needs something read; research again only after a passing stop, attempts left.
    if step.outcome == "proceed":
        assert read > 0
    if step.outcome == "research_again":
        assert kind is None or kind in TRANSIENT
        assert len(attempts) < max_attempts
        assert not any(meets_target(a, thresholds) for a in attempts)
    # A stop with attempts left that is not researched again says why.
    if reason is not None and len(attempts) < max_attempts and step.rule == "research_done":
        assert reason.text in step.reason
    # Any attempt that meets the target means proceed (unless the model refuses access).
    if any(meets_target(a, thresholds) for a in attempts) and kind != "model_refused":
        assert step.outcome == "proceed" and step.rule == "target_met"
    if kind == "model_refused":
        assert (step.outcome, step.rule) == ("escalate", "model_refused")
    # Grounding required and no attempt meets the target: never proceed.
    met = any(meets_target(a, thresholds) for a in attempts)
    if kind == "model_refused":
        return
    if grounding and not met:
        assert step.outcome != "proceed"
    # A proceed short of the target is always warned; the warning follows the best attempt.
    best = best_attempt(attempts)
    weak = best is None or not meets_target(attempts[best], thresholds)
    assert (WEAK in step.warnings) == weak
    if step.outcome == "proceed":
        assert (step.rule == "target_met") != weak
    # A pure function.
    assert decide_next_step(attempts, reason, max_attempts, requires_grounding=grounding) == step


@given(attempts=st.lists(_scores, min_size=1, max_size=4), kind=_kinds)
def test_more_evidence_never_turns_proceed_into_escalate_without_grounding(
    attempts: list[Scores], kind: StopKind | None
) -> None:
    if kind == "model_refused":  # a key problem escalates whatever the evidence
        return
    before = decide_next_step(attempts, stop(kind, len(attempts)), 5)
    better = [Scores(1.0, 1.0, 1.0, 1), *attempts]
    after = decide_next_step(better, stop(kind, len(better)), 5)
    assert after.outcome == "proceed"
    if before.outcome == "proceed":
        assert after.outcome == "proceed"
