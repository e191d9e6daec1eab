"""The tool search's settings and results: plain data, importable without numpy or tantivy."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, get_args

from .._errors import InputError

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
_STRATEGIES: tuple[str, ...] = get_args(SearchStrategy)
MAX_CANDIDATES = 100_000
"""The most tools one list (keyword, vector) may contribute to the fusion."""
MAX_BOOST = 1_000_000.0


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

    def __post_init__(self) -> None:
        """Refuse settings no search can use, with one line (`InputError`): a zero or negative
        k, candidates or RRF k, an unknown strategy, a boost that is not a finite number
        between 0 and 1,000,000 or names no keyword field."""
        if self.strategy not in _STRATEGIES:
            raise InputError(
                f"SearchSettings: strategy must be one of {', '.join(_STRATEGIES)}, "
                f"got {self.strategy!r}"
            )
        _check_count("k", self.k, 1, None)
        _check_count("candidates", self.candidates, 1, MAX_CANDIDATES)
        _check_count("rrf_k", self.rrf_k, 1, None)
        if not isinstance(self.explain, bool):
            raise InputError(f"SearchSettings: explain must be True or False, got {self.explain!r}")
        if self.boosts is not None:
            _check_boosts(self.boosts)


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


def _check_count(name: str, value: object, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            f"SearchSettings: {name} must be an integer, got {type(value).__name__} {value!r:.40}"
        )
    if value < low or (high is not None and value > high):
        limits = f"between {low:,} and {high:,}" if high is not None else f"at least {low}"
        raise InputError(f"SearchSettings: {name} must be {limits}, got {value:,}")


def _check_boosts(boosts: object) -> None:
    from ._canonical import default_boosts  # reads the canonical schema only when boosts are set

    if not isinstance(boosts, dict):
        raise InputError(
            f"SearchSettings: boosts must be a dict of field name to number, "
            f"got {type(boosts).__name__}"
        )
    fields = default_boosts()
    for name, value in boosts.items():
        if name not in fields:
            raise InputError(
                f"SearchSettings: boosts: unknown field {name!r:.60} "
                f"(the fields are {', '.join(fields)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(
                f"SearchSettings: boosts: {name} must be a number, got {type(value).__name__}"
            )
        if not math.isfinite(value) or not 0 <= value <= MAX_BOOST:
            raise InputError(
                f"SearchSettings: boosts: {name} must be a finite number between 0 and "
                f"{MAX_BOOST:,.0f}, got {value!r}"
            )
