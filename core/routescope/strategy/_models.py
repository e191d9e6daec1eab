"""Result models of the strategy router: every decision carries its evidence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..rules import IntentName

__all__ = [
    "Action",
    "Entities",
    "EntityCandidate",
    "EntityKind",
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
