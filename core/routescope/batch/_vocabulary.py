"""Does a rule pack's vocabulary fit a log? Two signs that it does not, counted over a results
file: the linter's anchors match nothing in nearly every prompt, or no intent flag comes on in
nearly every prompt. Each is a note that says what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .._outcome import Outcome

__all__ = ["FIT_SHARE", "MIN_PROMPTS", "VocabularyNote", "VocabularyTally"]

FIT_SHARE = 0.9
"""A vocabulary that matches nothing in this share of the prompts (or more) does not fit."""
MIN_PROMPTS = 20
"""Fewer prompts than this say nothing about a vocabulary: no note."""
NO_ANCHORS = "no anchors"
"""How the linter's rule says its anchors matched nothing ("vague: no anchors (total anchors
0)")."""
TOO_SHORT = "vague: tokens"
"""The linter's rule for a query too short to look at anchors ("vague: tokens 2 < 3")."""

LINTER_ADVICE = (
    "the linter's anchors are a code-search lexicon: point [linter] strong_anchors/weak_anchors "
    "at your codebase"
)


def intents_advice(labels: str | None) -> str:
    return (
        "the pack's intent keywords do not fit this traffic: label a sample of it (see "
        f"docs/quality.md) and try `routescope suggest --labels {labels or 'FILE'}`"
    )


@dataclass(frozen=True, slots=True)
class VocabularyNote:
    """`prompts` of `of` prompts where a vocabulary matched nothing, what that says, and what
    to do about it."""

    kind: Literal["linter", "intents"]
    prompts: int
    of: int
    message: str
    advice: str

    @property
    def share(self) -> float:
        return self.prompts / self.of if self.of else 0.0

    def text(self) -> str:
        return f"{self.message}: {self.advice}"


class VocabularyTally:
    """Counts, one outcome at a time, the prompts each vocabulary missed."""

    __slots__ = ("anchored", "no_anchors", "no_intents", "prompts")

    def __init__(self) -> None:
        self.prompts = 0
        self.no_intents = 0
        self.anchored = 0
        """Prompts whose linter rule looked at anchors (long enough; the rule recorded)."""
        self.no_anchors = 0

    def add(self, outcome: Outcome) -> None:
        self.add_decision(outcome.lint_rule, bool(outcome.intents))

    def add_decision(self, lint_rule: str | None, any_intent: bool) -> None:
        """Count one prompt from its linter rule (None: not recorded) and whether any intent
        flag came on (a judged set's predictions are counted so too)."""
        self.prompts += 1
        self.no_intents += not any_intent
        if lint_rule is not None and not lint_rule.startswith(TOO_SHORT):
            self.anchored += 1
            self.no_anchors += NO_ANCHORS in lint_rule

    def notes(self, labels: str | None = None) -> tuple[VocabularyNote, ...]:
        """The vocabularies that do not fit; `labels`: the labelled set to suggest from."""
        notes = []
        if self.anchored >= MIN_PROMPTS and self.no_anchors >= FIT_SHARE * self.anchored:
            notes.append(
                VocabularyNote(
                    "linter",
                    self.no_anchors,
                    self.anchored,
                    f"the linter's anchors match nothing in {self.no_anchors:,} of "
                    f"{self.anchored:,} prompts ({self.no_anchors / self.anchored:.1%})",
                    LINTER_ADVICE,
                )
            )
        if self.prompts >= MIN_PROMPTS and self.no_intents >= FIT_SHARE * self.prompts:
            notes.append(
                VocabularyNote(
                    "intents",
                    self.no_intents,
                    self.prompts,
                    f"no intent keyword fires in {self.no_intents:,} of {self.prompts:,} "
                    f"prompts ({self.no_intents / self.prompts:.1%})",
                    intents_advice(labels),
                )
            )
        return tuple(notes)
