"""The tool search's settings and results: plain data, importable without numpy or tantivy."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "KeywordSignal",
    "RrfTerm",
    "SearchSettings",
    "SearchStrategy",
    "Signals",
    "ToolHit",
    "ToolSearchResult",
    "VectorSignal",
    "WhyNot",
]

SearchStrategy = Literal["auto", "exact", "semantic", "hybrid"]


@dataclass(slots=True)
class KeywordSignal:
    score: float
    """Tantivy BM25 with the field boosts."""
    rank: int
    fields: dict[str, float]
    """Per-field contributions (filled for the results returned)."""
    matched_terms: dict[str, list[str]]


@dataclass(slots=True)
class VectorSignal:
    similarity: float
    """Cosine similarity of the query and the tool's canonical template."""
    rank: int


@dataclass(slots=True)
class RrfTerm:
    source: Literal["keyword", "vector"]
    rank: int
    k: int
    value: float
    """1 / (k + rank)."""


@dataclass(slots=True)
class Signals:
    keyword: KeywordSignal | None
    vector: VectorSignal | None
    rrf: list[RrfTerm]
    fused: float
    boosts: dict[str, float]
    boost_terms: list[str]
    """Query terms found in the tool's routing keywords, intents, description or category."""
    final: float


@dataclass(slots=True)
class ToolHit:
    rank: int
    tool_name: str
    category: str
    score: float
    signals: Signals
    tied_with: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ToolSearchResult:
    query: str
    strategy: Literal["exact", "semantic", "hybrid"]
    strategy_reason: str
    category_filter: str | None
    category_filter_reason: str
    results: list[ToolHit]
    runner_up_gap: float | None
    semantic: str
    """"ready" or why vector search is off (then the search is keyword-only and says so)."""
    timings_us: dict[str, float]


@dataclass(slots=True)
class SearchSettings:
    strategy: SearchStrategy = "auto"
    k: int = 10
    rrf_k: int = 60
    candidates: int = 20
    """How many tools each list (keyword, vector) contributes to the fusion."""
    boosts: dict[str, float] | None = None
    """Field boosts; None means the canonical ones (tool_name 5, intents 4, keywords 3,
    description 1)."""
    explain: bool = True
    """Fill each returned hit's per-field contributions from Tantivy's explanation."""


@dataclass(slots=True)
class WhyNot:
    """Where one tool stands in each list for a query, and why it is not higher."""

    tool_name: str
    keyword_rank: int | None
    keyword_score: float | None
    vector_rank: int | None
    similarity: float | None
    final_rank: int | None
    reason: str
