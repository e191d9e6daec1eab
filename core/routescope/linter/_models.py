"""Result models of the query linter (seed 002)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["AnchorMatch", "AnchorsDetected", "Classification", "LintResult", "QueryClass"]

QueryClass = Literal["guided", "semi", "vague"]


@dataclass(slots=True)
class AnchorMatch:
    """One anchor found in the query: where, as what, and through which alias if any."""

    anchor: str
    kind: Literal["strong", "weak"]
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
    doc_intent: list[str]
    """Doc-intent terms found (they choose the doc boost over the default boost)."""
