"""Labelled cases joined to routed prompts: a batch's `Outcome`s scored against a labelled set.

A result is joined to a labelled case **by its prompt**: the same text once white space is
normalised (`prompt_key`). A labelled prompt the results do not hold is simply not joined; a
prompt the results hold several times is scored each time; a prompt labelled by several cases
is scored against each. An `Outcome` keeps no spans: the evidence of a decision names its rule
(the strategy rule, the linter rule) and nothing else, and a field the outcome does not hold (the
contract's agent and mode when the pack turns it off, the first tool when no catalog was
ranked) is not scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from .._outcome import Outcome
from ..rules import INTENTS
from ._labels import LabelledCase, Strategy
from ._metrics import Scorecard
from ._predict import Evidence, Prediction

__all__ = [
    "OutcomeScore",
    "OutcomeScorer",
    "decided_value",
    "expected_value",
    "prediction_of_outcome",
    "prompt_key",
    "score_outcomes",
]


def prompt_key(text: str) -> str:
    """What a prompt is joined by: its words, white space normalised to one space."""
    return " ".join(text.split())


def prediction_of_outcome(outcome: Outcome) -> Prediction:
    """The decision a result records, as a `Prediction` (evidence: the rules only)."""
    evidence: dict[str, tuple[Evidence, ...]] = {}
    if outcome.strategy_rule:
        evidence["strategy"] = (Evidence(outcome.strategy_rule, outcome.strategy, 0, 0),)
    if outcome.lint_rule:
        evidence["linter_class"] = (Evidence(outcome.lint_rule, outcome.lint_class, 0, 0),)
    unscored = frozenset(("agent", "mode")) if outcome.agent is None else frozenset()
    on = set(outcome.intents)
    return Prediction(
        flags={name: name in on for name in INTENTS},
        strategy=cast(Strategy, outcome.strategy),
        strategy_rule=outcome.strategy_rule or "",
        place_hint=outcome.place,
        entities=outcome.entities,
        linter_class=outcome.lint_class,
        agent=outcome.agent,
        mode=outcome.mode,
        top_tool=outcome.top_tool,
        ranked_tools=outcome.ranked,
        strategy_only=False,
        evidence=evidence,
        unscored=unscored,
    )


def expected_value(case: LabelledCase, name: str) -> object:
    """What the case labels a field (the strategy derived from the flags when not given)."""
    if name == "strategy":
        return case.labels.expected_strategy()
    value: object = getattr(case.labels, name)
    return list(value) if isinstance(value, tuple) else value


def decided_value(decided: Prediction, name: str) -> object:
    """What a decision holds for a field."""
    if name in INTENTS:
        return decided.flags[name]
    value: object = getattr(decided, name)
    return list(value) if isinstance(value, tuple) else value


@dataclass(slots=True)
class OutcomeScore:
    """A labelled set's scorecard over the results joined to it: the whole set and each part
    of a split set. `labelled`: cases in the set; `found`: those joined to at least one
    result; `joined`: results scored (a prompt held twice counts twice); `counts`: results
    joined, by case id."""

    whole: Scorecard
    parts: dict[str, Scorecard]
    labelled: int
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def found(self) -> int:
        return len(self.counts)

    @property
    def joined(self) -> int:
        return sum(self.counts.values())

    def to_json(self) -> dict[str, object]:
        """What `routescope score --json` gives, without the misses, with the join's counts."""
        return {
            **self.whole.to_json(misses=False),
            "parts": {name: card.to_json(misses=False) for name, card in self.parts.items()},
            "labelled": self.labelled,
            "found": self.found,
            "joined": self.joined,
        }


class OutcomeScorer:
    """Scores results as they stream by: `add` each outcome, then `result()`. Memory: the
    labelled set, and one case id per joined result in the scorecard's cells. `misses`: keep
    every wrong decision (a report, which never shows them, does not)."""

    def __init__(self, cases: Sequence[LabelledCase], *, misses: bool = True) -> None:
        self.cases = tuple(cases)
        self.keep_misses = misses
        self._by_prompt: dict[str, list[LabelledCase]] = {}
        for case in self.cases:
            self._by_prompt.setdefault(prompt_key(case.prompt), []).append(case)
        self.score = OutcomeScore(
            Scorecard(),
            {
                name: Scorecard()
                for name in sorted({c.part for c in self.cases if c.part is not None})
            },
            len(self.cases),
        )

    def cases_of(self, prompt: str) -> tuple[LabelledCase, ...]:
        """The labelled cases a prompt joins (none, most often)."""
        return tuple(self._by_prompt.get(prompt_key(prompt), ()))

    def add(self, outcome: Outcome) -> tuple[LabelledCase, ...]:
        """Score one result against the cases of its prompt; returns them."""
        cases = self._by_prompt.get(prompt_key(outcome.prompt))
        if not cases:
            return ()
        decided = prediction_of_outcome(outcome)
        score = self.score
        for case in cases:
            score.counts[case.id] = score.counts.get(case.id, 0) + 1
            cards = [score.whole]
            if case.part is not None:
                cards.append(score.parts[case.part])
            for card in cards:
                card.add(case, decided)
                if not self.keep_misses:
                    card.misses.clear()
        return tuple(cases)

    def result(self) -> OutcomeScore | None:
        """The score; None when no result joined a labelled case."""
        return self.score if self.score.counts else None


def score_outcomes(outcomes: Iterable[Outcome], labels: Sequence[LabelledCase]) -> Scorecard | None:
    """The scorecard of the outcomes joined to the labelled cases by prompt (misses kept, with
    the rules as their evidence); None when no outcome joins a case."""
    scorer = OutcomeScorer(labels)
    for outcome in outcomes:
        scorer.add(outcome)
    found = scorer.result()
    return None if found is None else found.whole
