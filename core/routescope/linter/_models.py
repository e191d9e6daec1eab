"""Result models of the query linter (seed 002)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "AnchorKind",
    "AnchorMatch",
    "AnchorsDetected",
    "Classification",
    "LintResult",
    "QueryClass",
]

QueryClass = Literal["guided", "semi", "vague"]
AnchorKind = Literal["strong", "weak"]


@dataclass(slots=True)
class AnchorMatch:
    """One anchor found in the query: where, as what, and through which alias if any."""

    anchor: str
    kind: AnchorKind
    text: str
    start: int
    end: int
    alias: str | None = None


@dataclass(slots=True)
class AnchorsDetected:
    strong: list[str]
    weak: list[str]
    aliases_matched: list[str]


@dataclass(slots=True)
class Classification:
    """The arithmetic behind the class: counts, thresholds and the rule that decided."""

    tokens: int
    strong: int
    weak: int
    total_anchors: int
    rule: str


@dataclass(slots=True)
class LintResult:
    query: str
    query_class: QueryClass
    changed: bool
    expanded_query: str
    changes: dict[str, list[str]]
    """`{"added_strong": [...], "reasons": [...]}` when the query was expanded, else `{}`."""
    anchors_detected: AnchorsDetected
    classification: Classification
    evidence: list[AnchorMatch]
    """Where the anchors are: the first `MAX_EVIDENCE_PER_KIND` matches of each kind."""
    doc_intent: list[str]
    """Doc-intent terms found (they choose the doc boost over the default boost)."""
    evidence_counts: dict[AnchorKind, int] = field(default_factory=dict)
    """Anchor matches of each kind in the whole query, `evidence` holding the first of them."""
