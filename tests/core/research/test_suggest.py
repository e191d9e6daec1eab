"""The refiner's new words (`_suggest`): names the nearest documents use, not the goal's."""

from __future__ import annotations

from pathlib import Path

from routescope.optimise._goal_terms import goal_terms
from routescope.research import Attempt, PageRead
from routescope.research._evidence import assess
from routescope.research._models import SearchHit
from routescope.research._page_evidence import Source
from routescope.research._semantic import PassageIndex, Semantics
from routescope.research._suggest import MAX_SUGGESTED, suggested_words
from tests.core.research._fake_embedder import FakeEmbedder

GOAL = "find the name of the computer I am running on"


def attempt(pages: list[tuple[str, str, str, float]]) -> Attempt:
    sources = [
        Source(url, title, passage, "", cosine, passage, (cosine,))
        for url, title, passage, cosine in pages
    ]
    return Attempt(
        index=0,
        query="find name computer running",
        query_source="optimiser",
        provider="offline",
        status=200,
        error=None,
        results=[
            SearchHit(url=u, title=t, snippet="", rank=1, provider="x") for u, t, _, _ in pages
        ],
        pages=[PageRead(u, True, "offline-index", 200, None, t, p) for u, t, p, _ in pages],
        evaluation=None,
        evaluator_error=None,
        relevance=0.3,
        confidence=0.1,
        coverage=0.2,
        should_retry=True,
        score=0.2,
        duration_ms=1.0,
        evidence=assess(goal_terms(GOAL), sources, aspects=[GOAL]),
    )


def test_new_words_come_from_the_nearest_passages_and_titles() -> None:
    tried = attempt(
        [
            (
                "https://a/platform",
                "platform — Retrieve platform data",
                "node(): Returns the computer's network name",
                0.7,
            ),
            (
                "https://a/doctest",
                "doctest — Test examples",
                "testmod(): Test examples in docstrings",
                0.2,
            ),
        ]
    )
    words = suggested_words(GOAL, [tried])
    assert words[:2] == ["node", "platform"]  # nearest first
    assert "name" not in words and "computer" not in words  # the goal's own words
    assert len(words) <= MAX_SUGGESTED


def test_the_embedding_models_neighbours_not_read_yet_suggest_words(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    documents = [
        (
            "https://a/socket",
            "socket — Low-level networking",
            "gethostname() -- return the current hostname",
        ),
        ("https://a/json", "json — JSON", "dumps(): Serialize an object"),
    ]
    vectors = PassageIndex(
        tmp_path, "k" * 32, lambda: documents, embedder=lambda: embedder, model_id="fake-64"
    ).open()
    words = suggested_words(GOAL, [], Semantics(GOAL, embedder, vectors))
    assert words[:2] == ["gethostname", "socket"]
