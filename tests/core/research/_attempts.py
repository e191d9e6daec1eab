"""A graded attempt for research tests: pages read, their evidence assessed by the real
`assess` with the cosines the embedding model would give them."""

from __future__ import annotations

from collections.abc import Sequence

from routescope.optimise._goal_terms import goal_terms
from routescope.research import Attempt, PageRead
from routescope.research._evidence import assess
from routescope.research._models import SearchHit
from routescope.research._page_evidence import Source

Page = tuple[str, str, str, float | None, str]
"""A page read: URL, title, text, the cosine of its nearest passage to the goal (None: no
embedding model) and that passage."""


def graded_attempt(
    goal: str,
    pages: Sequence[Page],
    *,
    index: int = 0,
    query: str = "",
    scores: tuple[float, float, float, float] = (0.5, 0.5, 0.5, 0.5),
    should_retry: bool = False,
    aspects: Sequence[str] | None = None,
) -> Attempt:
    """An attempt of `goal` that read `pages`, with `scores` (relevance, confidence, coverage,
    score) and its evidence; `aspects` gives each page its cosine for every aspect."""
    sources = [
        Source(url, title, text, "", cosine, passage, () if aspects is None else (cosine or 0.0,))
        for url, title, text, cosine, passage in pages
    ]
    relevance, confidence, coverage, score = scores
    return Attempt(
        index=index,
        query=query or f"query {index}",
        query_source="optimiser",
        provider="offline",
        status=200,
        error=None,
        results=[SearchHit(url=u, title=t, snippet="", rank=1, provider="x") for u, t, *_ in pages],
        pages=[PageRead(u, True, "offline-index", 200, None, t, x) for u, t, x, *_ in pages],
        evaluation=None,
        evaluator_error=None,
        relevance=relevance,
        confidence=confidence,
        coverage=coverage,
        should_retry=should_retry,
        score=score,
        duration_ms=1.0,
        evidence=assess(goal_terms(goal), sources, aspects=tuple(aspects or ())),
    )
