"""The refiner's new words (`_suggest`): names the nearest documents use, not the goal's."""

from __future__ import annotations

from pathlib import Path

from routescope.research import Attempt
from routescope.research._semantic import PassageIndex, Semantics
from routescope.research._suggest import MAX_SUGGESTED, suggested_words
from tests.core.research._attempts import graded_attempt
from tests.core.research._fake_embedder import FakeEmbedder

GOAL = "find the name of the computer I am running on"


def attempt(pages: list[tuple[str, str, str, float]]) -> Attempt:
    return graded_attempt(
        GOAL,
        [(url, title, passage, cosine, passage) for url, title, passage, cosine in pages],
        query="find name computer running",
        scores=(0.3, 0.1, 0.2, 0.2),
        should_retry=True,
        aspects=[GOAL],
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
