"""The findings of a run (`_result._findings`): the pages read nearest the goal in meaning are
always kept, the rest are the pages with the most of the goal's terms, each says why, and a page
an earlier attempt read is never lost. Pages are graded by the real evidence (`assess`) with
given cosines, as the embedding model would give them."""

from __future__ import annotations

import pytest

from routescope.research import Attempt
from routescope.research._result import KEPT_BY_MEANING, _findings
from tests.core.research._attempts import graded_attempt

GOAL = "find the host name of this machine"
TERMS = "host name machine"
"""A page with these words holds every goal term but `find`."""


def _attempt(index: int, pages: list[tuple[str, float | None, str]]) -> Attempt:
    """An attempt of `GOAL` that read `pages`: (URL, cosine of its nearest passage or None
    without the embedding model, its text)."""
    graded = [
        (url, url.rsplit("/", 1)[-1], text, cosine, "a passage" if cosine else "")
        for url, cosine, text in pages
    ]
    return graded_attempt(GOAL, graded, index=index)


def _read(index: int, pages: list[tuple[str, float]], score: float) -> Attempt:
    """An attempt of "find the host name" that read pages of one same text, with their
    cosines."""
    graded = [(url, url, "text about it", cosine, "a passage") for url, cosine in pages]
    goal = "find the host name"
    return graded_attempt(goal, graded, index=index, scores=(score,) * 4, aspects=[goal])


def test_the_nearest_pages_in_meaning_are_kept_and_the_rest_hold_the_most_goal_terms() -> None:
    """Two pages nearest the goal in meaning, though they hold no goal term, and of the others
    the three with the most goal terms — not the next nearest in meaning."""
    first = _attempt(
        0,
        [
            ("https://a.org/nearest", 0.58, "gethostname returns this computer's label"),
            ("https://a.org/near", 0.55, "the computer's network label"),
            ("https://a.org/third", 0.50, "unrelated words about computers"),
        ],
    )
    second = _attempt(
        1,
        [
            ("https://a.org/fourth", 0.48, "more unrelated words"),
            ("https://a.org/terms", 0.30, f"{TERMS} {TERMS}"),
            ("https://a.org/some", 0.28, "host name"),
            ("https://a.org/one", 0.27, "machine"),
        ],
    )
    assert KEPT_BY_MEANING == 2
    findings = _findings([first, second], best=1, limit=5)
    urls = {f.url for f in findings}
    assert urls == {
        "https://a.org/nearest",
        "https://a.org/near",
        "https://a.org/terms",
        "https://a.org/some",
        "https://a.org/one",
    }
    assert "https://a.org/third" not in urls and "https://a.org/fourth" not in urls
    shown = [f.url for f in findings]
    scores = {p.url: p.rank_score for a in (first, second) for p in a.evidence.pages}  # type: ignore[union-attr]
    assert shown == sorted(shown, key=lambda url: -scores[url])  # shown by relevance
    why = {f.url: f.why for f in findings}
    assert why["https://a.org/nearest"] == (
        "kept: one of the 2 pages read nearest the goal in meaning"
    )
    assert why["https://a.org/terms"] == (
        "kept: among the other pages read, one with the most of the goal's terms"
    )
    assert {f.attempt for f in findings if f.url.endswith(("terms", "some", "one"))} == {1}
    assert next(f for f in findings if f.url.endswith("nearest")).attempt == 0  # never lost


def test_fewer_pages_than_the_limit_are_all_kept() -> None:
    attempt = _attempt(0, [("https://a.org/x", 0.4, "host"), ("https://a.org/y", 0.2, "name")])
    findings = _findings([attempt], best=0, limit=5)
    assert {f.url for f in findings} == {"https://a.org/x", "https://a.org/y"}
    assert all(f.why.startswith("kept: one of the 2 pages read nearest") for f in findings)
    (only,) = _findings([attempt], best=0, limit=1)
    assert only.url == "https://a.org/x"
    assert only.why == "kept: the page read nearest the goal in meaning"


def test_without_the_embedding_model_the_findings_are_the_pages_with_the_most_goal_terms() -> None:
    attempt = _attempt(
        0,
        [
            ("https://a.org/none", None, "nothing of it"),
            ("https://a.org/all", None, TERMS),
            ("https://a.org/half", None, "host name"),
        ],
    )
    findings = _findings([attempt], best=0, limit=2)
    assert [f.url for f in findings] == ["https://a.org/all", "https://a.org/half"]
    assert {f.why for f in findings} == {
        "kept: among the pages read, one with the most of the goal's terms"
    }


def test_the_findings_keep_a_page_an_earlier_attempt_read() -> None:
    first = _read(0, [("https://a.org/answer", 0.45), ("https://a.org/x", 0.1)], 0.5)
    second = _read(1, [("https://a.org/y", 0.35), ("https://a.org/x", 0.3)], 0.6)
    findings = _findings([first, second], best=1, limit=5)
    assert [f.url for f in findings] == [
        "https://a.org/answer",
        "https://a.org/y",
        "https://a.org/x",
    ]
    assert findings[0].attempt == 0 and findings[2].attempt == 1  # where it read best


def test_the_findings_rank_by_meaning_unclipped_and_terms_break_near_ties() -> None:
    """Past cosine 0.6 a page's relevance is 1 whatever its cosine: the findings still rank
    such pages by their nearest passage, as the embedding model alone does (the relevance
    shown stays the clipped one), and a page's terms only break near ties."""
    near, nearer = ("https://a.org/near", 0.62), ("https://a.org/nearer", 0.75)
    attempt = _read(0, [near, nearer], 0.8)
    pages = {p.url: p for p in attempt.evidence.pages} if attempt.evidence else {}
    assert pages[near[0]].relevance == pages[nearer[0]].relevance  # clipped alike
    assert pages[nearer[0]].rank_score > pages[near[0]].rank_score
    assert [f.url for f in _findings([attempt], best=0, limit=5)] == [nearer[0], near[0]]
    tie = _read(1, [("https://a.org/plain", 0.5)], 0.5)
    page = tie.evidence.pages[0] if tie.evidence else None
    assert page is not None and page.term_relevance is not None and page.similarity is not None
    meaning = (page.similarity - 0.25) / 0.35
    assert page.rank_score == pytest.approx(0.85 * meaning + 0.15 * page.term_relevance)
