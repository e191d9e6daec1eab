"""Research quality (seed 003): how an attempt scores, which attempt is best, why the loop
stopped and what comes next (the stack hint a goal implies is the optimiser's:
`routescope.optimise`). Pure functions; every decision says why.

The next step (`decide_next_step`) is a function of the attempts' evidence and of why the loop
stopped:

- **proceed** needs something read. Either the best attempt meets the target (relevance and
  coverage at or above the good thresholds), or — on a goal that does not need external
  grounding — the loop has no further research to offer (every attempt made, the model judged
  another query would not help, the score stopped improving, the provider refused access after
  pages were read): the planner goes on with what was found, always warned ("relying more on
  model prior") since the best attempt missed the target.
- **research again** only when the loop stopped for a passing reason with attempts left (the
  run deadline, a model that failed): another run may do better. Never after a stop that says
  another query would not help.
- **escalate** when nothing at all was read and the loop cannot do better, when the provider
  refused access before anything was read, or when grounding is required (`_grounding`: the
  goal is time-sensitive, local or about a price, or the user said so) and no attempt met the
  target (the seed's "route to Snitch"): no model prior holds current, local or price facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "NextStep",
    "Rule",
    "Scores",
    "StopKind",
    "StopReason",
    "Thresholds",
    "best_attempt",
    "decide_next_step",
    "meets_target",
    "next_step",
    "score",
]

Outcome = Literal["proceed", "research_again", "escalate"]

StopKind = Literal[
    "target_reached",
    "attempts_exhausted",
    "no_retry",
    "not_improving",
    "refused",
    "deadline",
    "model_failed",
    "model_refused",
]
"""Why the research loop stopped:

- `target_reached`: the latest attempt met the good thresholds.
- `attempts_exhausted`: every allowed attempt was made.
- `no_retry`: the evaluator or the refiner judged that another query would not help (or the
  refiner could only propose the same query again).
- `not_improving`: the latest attempt scored no better than an earlier one.
- `refused`: the provider refused access (401/403): every further search fails alike.
- `deadline`: the run's deadline came first.
- `model_failed`: the model did not answer the refiner's prompt.
- `model_refused`: the model refused access (401/403) or its quota is used up: every further
  call fails alike."""

TRANSIENT: frozenset[StopKind] = frozenset({"deadline", "model_failed"})
"""Stops that say nothing about the research itself: another run may do better."""

Rule = Literal[
    "target_met",
    "nothing_read_retry",
    "refused",
    "nothing_read",
    "grounding_hopeless",
    "grounding_weak",
    "model_refused",
    "stopped_early",
    "research_done",
]
"""Which rule of `decide_next_step` chose the next step."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The seed's thresholds: lenient to start with ("refine based on experience")."""

    weak_relevance: float = 0.6
    """Below this an attempt is weak: another query may find better pages."""
    good_relevance: float = 0.7
    good_coverage: float = 0.6
    """At or above both, research is good enough: no further attempts."""
    hopeless_relevance: float = 0.3
    """Below this in every attempt, and grounding is required: escalate, whatever stopped the
    loop (another run will not find what no attempt came near)."""


@dataclass(frozen=True, slots=True)
class Scores:
    """One attempt's evaluation. `fetched` is how many pages it read: an attempt that read
    nothing scores 0 whatever an evaluator says."""

    relevance: float
    confidence: float
    coverage: float
    fetched: int = 1


@dataclass(frozen=True, slots=True)
class StopReason:
    """Why the loop stopped: the kind (`StopKind`), the sentence shown, and after which attempt
    (1-based; 0 when none was made)."""

    kind: StopKind
    text: str
    attempt: int = 0


def score(scores: Scores) -> float:
    """0.5·relevance + 0.3·coverage + 0.2·confidence, or 0 when nothing was fetched."""
    if scores.fetched <= 0:
        return 0.0
    return round(0.5 * scores.relevance + 0.3 * scores.coverage + 0.2 * scores.confidence, 4)


def meets_target(scores: Scores, thresholds: Thresholds = Thresholds()) -> bool:
    """Something was read, and relevance and coverage are at or above the good thresholds."""
    return (
        scores.fetched > 0
        and scores.relevance >= thresholds.good_relevance
        and scores.coverage >= thresholds.good_coverage
    )


def best_attempt(attempts: Sequence[Scores], thresholds: Thresholds = Thresholds()) -> int | None:
    """The index of the best attempt: one that meets the target before one that does not,
    then the highest score, then higher relevance, then earlier."""
    if not attempts:
        return None
    ranked = sorted(
        range(len(attempts)),
        key=lambda i: (
            not meets_target(attempts[i], thresholds),
            -score(attempts[i]),
            -_relevance(attempts[i]),
            i,
        ),
    )
    return ranked[0]


def _relevance(scores: Scores) -> float:
    return scores.relevance if scores.fetched > 0 else 0.0


@dataclass(frozen=True, slots=True)
class NextStep:
    """What the planner does after research, the rule that chose it and why (one sentence
    that names the stop when research ended with attempts left), and the warnings."""

    outcome: Outcome
    reason: str
    warnings: list[str] = field(default_factory=list)
    rule: Rule | None = None
    grounding: str = ""
    """Whether grounding applied and why (one sentence; empty when not told)."""

    def reason_without_grounding(self) -> str:
        """The reason, for a report or a view that says the grounding on a line of its own:
        without the grounding sentence it quotes in brackets."""
        return self.reason.replace(f" ({self.grounding})", "") if self.grounding else self.reason


WEAK = "web research weak; relying more on model prior"


def _weak(best: Scores | None, thresholds: Thresholds) -> bool:
    """The best attempt missed the target: whatever comes next relies on the model prior."""
    return best is None or not meets_target(best, thresholds)


def decide_next_step(
    attempts: Sequence[Scores],
    stop: StopReason | None,
    max_attempts: int,
    *,
    requires_grounding: bool = False,
    thresholds: Thresholds = Thresholds(),
    grounding_reason: str = "",
) -> NextStep:
    """The next step from the attempts' evidence and why the loop stopped (None: it has not
    stopped, the planner asks between attempts). See the module's docstring for the rules;
    the weak-research warning is there whenever the best attempt missed the target (read
    nothing, or relevance or coverage below the good thresholds). `grounding_reason` says why
    grounding is (or is not) required; the step carries it and an escalation for it names it."""
    index = best_attempt(attempts, thresholds)
    best = attempts[index] if index is not None else None
    warnings = [WEAK] if _weak(best, thresholds) else []
    made = len(attempts)
    left = max(0, max_attempts - made)
    read = sum(max(0, a.fetched) for a in attempts)
    stopped = f"stopped: {stop.text}" if stop is not None else "not stopped yet"
    transient = stop is None or stop.kind in TRANSIENT

    def step(outcome: Outcome, rule: Rule, reason: str) -> NextStep:
        return NextStep(outcome, reason, warnings, rule, grounding_reason)

    if stop is not None and stop.kind == "model_refused":
        found = (
            f"the evidence so far: best attempt {index + 1}, relevance {best.relevance:.1f}, "
            f"coverage {best.coverage:.1f}"
            if best is not None and index is not None and read
            else "nothing read"
        )
        return step(
            "escalate",
            "model_refused",
            f"{stop.text}; {found}: fix the model's access before relying on research",
        )
    if best is not None and index is not None and meets_target(best, thresholds):
        return step(
            "proceed",
            "target_met",
            f"best attempt {index + 1}: relevance {best.relevance:.1f} ≥ "
            f"{thresholds.good_relevance:g} and coverage {best.coverage:.1f} ≥ "
            f"{thresholds.good_coverage:g}",
        )
    if read == 0:
        if transient and left:
            return step(
                "research_again",
                "nothing_read_retry",
                f"nothing read yet in {made} attempt(s), {left} left ({stopped}): "
                "another run may read pages",
            )
        if stop is not None and stop.kind == "refused":
            return step(
                "escalate",
                "refused",
                f"nothing read: the provider refused access ({stop.text}); every search fails "
                "alike until its key or the provider changes",
            )
        return step(
            "escalate",
            "nothing_read",
            f"nothing read in {made} attempt(s) ({stopped}); "
            + (
                "no attempt left"
                if not left
                else f"{left} attempt(s) left but the loop judged another search would not help"
            )
            + ": nothing to rely on",
        )
    assert best is not None and index is not None
    scores = (
        f"best attempt {index + 1}: relevance {best.relevance:.1f}, coverage "
        f"{best.coverage:.1f} — below {thresholds.good_relevance:g} / "
        f"{thresholds.good_coverage:g}"
    )
    if requires_grounding:
        return _grounding_step(attempts, scores, left, stopped, transient, thresholds, step)
    if transient and left:
        return step(
            "research_again",
            "stopped_early",
            f"{scores}; {left} attempt(s) left ({stopped}): another run may do better",
        )
    why = (
        f"{made} of {max_attempts} attempts made"
        if not left
        else f"{left} attempt(s) left, not tried: {stop.text if stop else 'no reason'}"
    )
    return step(
        "proceed",
        "research_done",
        f"{scores}; no more research: {why}; relying more on the model prior",
    )


def _grounding_step(
    attempts: Sequence[Scores],
    scores: str,
    left: int,
    stopped: str,
    transient: bool,
    thresholds: Thresholds,
    step: Callable[[Outcome, Rule, str], NextStep],
) -> NextStep:
    """The next step when grounding is required and no attempt met the target: escalate, or
    research again after a passing stop when some attempt came near the goal."""
    needs = step("escalate", "grounding_weak", "").grounding
    if all(_relevance(a) < thresholds.hopeless_relevance for a in attempts):
        return step(
            "escalate",
            "grounding_hopeless",
            f"relevance below {thresholds.hopeless_relevance:g} in all {len(attempts)} attempts "
            "and the task requires external evidence" + (f" ({needs})" if needs else ""),
        )
    if transient and left:
        return step(
            "research_again",
            "stopped_early",
            f"{scores}; {left} attempt(s) left ({stopped}): another run may find the grounding "
            "the goal needs" + (f" ({needs})" if needs else ""),
        )
    return step(
        "escalate",
        "grounding_weak",
        f"{scores}; {needs or 'the task requires external evidence'}: weak evidence is not "
        "enough, and no model prior holds current, local or price facts",
    )


def next_step(
    attempts: Sequence[Scores],
    max_attempts: int,
    *,
    stop: StopReason | None = None,
    requires_grounding: bool = False,
    thresholds: Thresholds = Thresholds(),
    grounding_reason: str = "",
) -> NextStep:
    """`decide_next_step`, with the stop as a keyword. Without a stop every attempt made counts
    as the end of research (`attempts_exhausted`) and fewer as a loop still running."""
    if stop is None and attempts and len(attempts) >= max_attempts:
        stop = StopReason("attempts_exhausted", f"{len(attempts)} attempts made", len(attempts))
    return decide_next_step(
        attempts,
        stop,
        max_attempts,
        requires_grounding=requires_grounding,
        thresholds=thresholds,
        grounding_reason=grounding_reason,
    )
