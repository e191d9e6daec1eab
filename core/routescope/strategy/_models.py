"""Result models of the strategy router: every decision carries its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..rules import IntentName

__all__ = [
    "Action",
    "Entities",
    "EntityCandidate",
    "EntityKind",
    "ExampleNeighbour",
    "ExampleVote",
    "IntentFlags",
    "IntentName",
    "KeywordMatch",
    "PlaceHint",
    "QueryContext",
    "SanitizeEdit",
    "SanitizeRule",
    "Span",
    "Strategy",
    "StrategyDecision",
]

Strategy = Literal["general", "local", "tech"]
SanitizeRule = Literal[
    "whitespace",
    "site_operator",
    "banned_modifier",
    "repeated_phrase",
    "canonical_openclaw",
    "as_of",
    "truncate",
    "empty",
]
EntityKind = Literal[
    "openclaw", "known", "camel_case", "url", "domain", "place", "phrase", "acronym", "word"
]


# Plain slotted dataclasses: built by the thousand per second on the typing hot path, where a
# pydantic model costs several times more. `Inspection` (pydantic) validates and serializes them.


@dataclass(slots=True)
class Span:
    """Character offsets into `raw_text`, end exclusive (Python string indices)."""

    start: int
    end: int


@dataclass(slots=True)
class KeywordMatch:
    """One keyword of an intent's list found in the text."""

    intent: IntentName
    keyword: str
    text: str
    start: int
    end: int


@dataclass(slots=True)
class EntityCandidate:
    text: str
    kind: EntityKind
    start: int
    end: int
    score: float
    reason: str


@dataclass(slots=True)
class PlaceHint:
    text: str
    preposition: str
    start: int
    end: int
    rule: str
    preposition_start: int


@dataclass(slots=True)
class Entities:
    candidates: list[str]
    place_hint: str | None
    details: list[EntityCandidate]
    place: PlaceHint | None
    dropped: list[str]
    """Capitalized words that were considered and rejected, with the reason."""


@dataclass(slots=True)
class IntentFlags:
    tech: bool
    local: bool
    purchase: bool
    troubleshooting: bool
    time_sensitive: bool


@dataclass(slots=True)
class ExampleNeighbour:
    """A labelled example near the prompt: its text, cosine similarity, and whether it carries
    the flag voted on."""

    text: str
    similarity: float
    carries: bool


@dataclass(slots=True)
class ExampleVote:
    """One flag voted by the nearest labelled examples (`[intents.examples]`): the share of the
    `k` nearest that carry it, weighted by similarity, against the pack's thresholds."""

    intent: IntentName
    example_set: str
    share: float
    on: float
    off: float | None
    rules: bool
    """What the rules decided before the vote."""
    decided: bool
    """The flag after the vote: set at `share >= on`, cleared below `off`, else the rules'."""
    neighbours: list[ExampleNeighbour]
    """The `k` nearest examples, nearest first."""
    overruled: list[KeywordMatch] = field(default_factory=list)
    """The rule matches a vote below `off` set aside."""

    @property
    def reason(self) -> str:
        carrying = sum(1 for n in self.neighbours if n.carries)
        said = f"{carrying} of the {len(self.neighbours)} nearest {self.example_set} examples"
        share = f"share {self.share:.2f}"
        if self.decided and not self.rules:
            return f"{said} are {self.intent} ({share} ≥ on {self.on:.2f})"
        if self.rules and not self.decided:
            words = ", ".join(f'"{m.text}" @{m.start}–{m.end}' for m in self.overruled)
            overruled = f"rules overruled: {words}" if words else "rules overruled"
            return f"{said} are {self.intent} ({share} < off {self.off:.2f}): {overruled}"
        return f"{said} are {self.intent} ({share}): the rules' decision stands"


@dataclass(slots=True)
class QueryContext:
    raw_text: str
    user_goal: str
    entities: Entities
    intent: IntentFlags
    intent_matches: list[KeywordMatch]
    """Evidence for the flags; at most `MAX_MATCHES_PER_INTENT` per intent."""
    intent_match_counts: dict[IntentName, int]
    has_openclaw: bool
    openclaw_spans: list[Span]
    example_votes: list[ExampleVote] = field(default_factory=list)
    """The flags the nearest labelled examples voted on; empty without `[intents.examples]`."""


@dataclass(slots=True)
class StrategyDecision:
    strategy: Strategy
    rule: str
    reason: str


@dataclass(slots=True)
class SanitizeEdit:
    rule: SanitizeRule
    before: str
    after: str
    detail: str


@dataclass(slots=True)
class Action:
    query: str
    raw_query: str
    priority: int
    source: str
    """The pack rule that produced the query, e.g. `tech.docs` or `openclaw.queries[0]`."""
    edits: list[SanitizeEdit]
    tool: Literal["google_search"] = "google_search"
