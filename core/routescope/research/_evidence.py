"""The evidence of a research attempt: what the pages it read support of the goal's terms
(`_goal_terms`, page by page in `_page_evidence`), and the grade that follows. Heuristic
(lexical matching, no model): every reason says so.

`assess` gives, per attempt: relevance (the best page, and the pages on average), coverage
(the weighted share of the goal supported by at least one page that is about the goal: pages
that are not do not lift it) and confidence (how many independent pages about the goal agree
on each term, scaled by relevance; low for a single source or host), and whether another query
may find better pages.

Pure and deterministic, linear in the text read (each page's text is cut at
`MAX_SOURCE_CHARS`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from ..optimise._goal_terms import GoalTerm
from ._page_evidence import (
    ABOUT_GOAL,
    ASPECT_ANSWERED,
    FULL_SHARE,
    LABEL,
    MAX_SOURCE_CHARS,
    PageEvidence,
    Source,
    page_evidence,
    quoted,
    semantic_relevance,
)

__all__ = [
    "AttemptEvidence",
    "Metric",
    "ScoreReason",
    "assess",
]

Metric = Literal["relevance", "coverage", "confidence", "retry"]

MAX_SOURCES = 50
_GOOD_RELEVANCE = 0.7
_GOOD_COVERAGE = 0.6
_WEAK_RELEVANCE = 0.6
_OFF_TOPIC = 0.3
_NAMED_UNKNOWN_CAP = 0.5
"""Relevance and coverage at most, when the goal names something no document mentions, or
something no page read is about that only a handful of documents mention in passing."""
_IN_PASSING = 5
"""A named thing in at most this many documents, none of the pages read titled with it, is
mentioned in passing: the index does not document it (`Scipy`, `Flask` in a README)."""


@dataclass(frozen=True, slots=True)
class ScoreReason:
    """One reason of a grade, as data: which metric, its value, the sentence."""

    metric: Metric
    value: float | None
    text: str


@dataclass(frozen=True, slots=True)
class AttemptEvidence:
    """What the pages of one attempt support of the goal, and the grade that follows."""

    terms: tuple[GoalTerm, ...]
    pages: tuple[PageEvidence, ...]
    """One per page read (with text), in result order."""
    covered: tuple[str, ...]
    """Goal terms supported by at least one page about the goal."""
    uncovered: tuple[str, ...]
    unfindable: tuple[str, ...]
    """Uncovered terms that no document of the corpus contains (known only offline)."""
    relevance: float
    coverage: float
    confidence: float
    should_retry: bool
    reasons: tuple[ScoreReason, ...]
    """Relevance, coverage, confidence and retry, in that order; each labelled heuristic."""

    @property
    def pages_read(self) -> int:
        return len(self.pages)

    @property
    def pages_about_goal(self) -> int:
        return sum(page.about_goal for page in self.pages)

    @property
    def best_page(self) -> PageEvidence | None:
        """The most relevant page (the first of equals)."""
        return max(self.pages, key=lambda page: page.relevance, default=None)

    def summary(self) -> str:
        """The reasons as one line, labelled heuristic."""
        return LABEL + "; ".join(reason.text for reason in self.reasons) + "."


def _score(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return round(min(1.0, max(0.0, value)), 1)


def _host(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return host.removeprefix("www.")


def assess(
    terms: Sequence[GoalTerm],
    sources: Sequence[Source],
    *,
    max_sources: int = 5,
    aspects: Sequence[str] = (),
) -> AttemptEvidence:
    """The evidence of the pages read for the goal's `terms` and, when the sources carry the
    embedding model's reading, its `aspects` (see the module's docstring). `max_sources` is how
    many pages an attempt may read: a weak attempt that read fewer asks for a retry."""
    readable = [s for s in list(sources)[:MAX_SOURCES] if s.title.strip() or s.text.strip()]
    terms = tuple(terms)
    total = sum(term.weight for term in terms)
    pages = tuple(page_evidence(terms, source, total, aspects) for source in readable)
    if not pages or not terms:
        why = "no readable page" if not pages else "the goal has no content words"
        reasons = (
            ScoreReason("relevance", 0.0, f"relevance 0.0: {why}"),
            ScoreReason("coverage", 0.0, "coverage 0.0: nothing to grade"),
            ScoreReason("confidence", 0.0, "confidence 0.0: nothing to grade"),
            ScoreReason("retry", None, "another query may find readable pages"),
        )
        return AttemptEvidence(
            terms=terms,
            pages=pages,
            covered=(),
            uncovered=tuple(term.text for term in terms),
            unfindable=(),
            relevance=0.0,
            coverage=0.0,
            confidence=0.0,
            should_retry=not pages or len(pages) < max(1, max_sources),
            reasons=reasons,
        )
    best = max(pages, key=lambda page: page.relevance)
    mean = sum(page.relevance for page in pages) / len(pages)
    relevance = _score(0.75 * best.relevance + 0.25 * mean)

    about = [page for page in pages if page.about_goal]
    support = {term.text: sum(term.text in page.supports for page in about) for term in terms}
    covered = tuple(term.text for term in terms if support[term.text])
    uncovered_terms = [term for term in terms if not support[term.text]]
    uncovered = tuple(term.text for term in uncovered_terms)
    unfindable = tuple(term.text for term in uncovered_terms if not term.findable)
    coverage = _score(sum(term.weight for term in terms if support[term.text]) / total)
    semantic = all(page.similarity is not None for page in pages)
    answered: tuple[str, ...] = ()
    if semantic:
        coverage, answered = _aspect_coverage(about, aspects)

    hosts = sorted({_host(page.url) or page.url for page in about})
    agreement = sum(term.weight * (1 - 0.5 ** support[term.text]) for term in terms) / total
    raw = agreement * (0.5 + 0.5 * relevance) * (1.0 if len(hosts) > 1 else 0.8)
    texts = [len(s.text[:MAX_SOURCE_CHARS]) for s in readable if s.url in {p.url for p in about}]
    thin = bool(texts) and sum(texts) / len(texts) < 400
    if thin:
        raw *= 0.6
    single = len(about) <= 1 or len(hosts) <= 1
    if single:
        raw = min(raw, 0.4)
    confidence = _score(min(raw, 0.9))

    named = [t.text for t in terms if t.named and not t.findable and t.document_frequency == 0]
    passing = _in_passing(terms, pages)
    if named or passing:  # the goal names something no page here documents: none can answer it
        relevance = min(relevance, _NAMED_UNKNOWN_CAP)
        coverage = min(coverage, _NAMED_UNKNOWN_CAP)
    retry, retry_why = _retry(
        terms,
        relevance,
        coverage,
        uncovered_terms,
        len(pages),
        max_sources,
        frequencies_known=any(term.document_frequency is not None for term in terms),
        semantic=semantic,
    )
    best_title = best.title or best.url
    best_key = [t for t in best.supports if t not in {x.text for x in terms if x.common}]
    unknown = (
        f"; the goal names {quoted(named)}, in no document of the index: capped at "
        f"{_NAMED_UNKNOWN_CAP:.1f}"
        if named
        else f"; the goal names {quoted(passing)}, which no page read is about and at most "
        f"{_IN_PASSING} documents of the index mention: capped at {_NAMED_UNKNOWN_CAP:.1f}"
        if passing
        else ""
    )
    relevance_text = (
        f"relevance {relevance:.1f}: the best page ('{_short(best_title)}') supports "
        f"{len(best.supports)} of {len(terms)} goal terms"
        + (f" ({quoted(best.supports)})" if best.supports else "")
        + (" — only common words" if best.supports and not best_key else "")
        + f"; {len(about)} of {len(pages)} page(s) about the goal"
        + unknown
    )
    coverage_text = (
        f"coverage {coverage:.1f}: {len(covered)} of {len(terms)} terms supported by a page "
        "about the goal"
        + (f", missing {quoted(uncovered)}" if uncovered else "")
        + (f" ({quoted(unfindable)} in no document of the index)" if unfindable else "")
    )
    if semantic:
        count = max(1, len(aspects))
        coverage_text = (
            f"coverage {coverage:.1f}: {len(answered)} of {count} aspect(s) of the goal "
            "answered by a page about the goal"
            + (f" ({quoted(answered)})" if answered and count > 1 else "")
            + f"; terms: {len(covered)} of {len(terms)} supported"
            + (f" ({quoted(unfindable)} in no document of the index)" if unfindable else "")
        )
    agreed = [term.text for term in terms if support[term.text] >= 2]
    confidence_text = (
        f"confidence {confidence:.1f}: {len(about)} page(s) about the goal from "
        f"{len(hosts)} host(s), {len(agreed)} term(s) confirmed by two or more"
        + ("; thin text" if thin else "")
        + ("; capped for a single source" if single else "")
    )
    return AttemptEvidence(
        terms=terms,
        pages=pages,
        covered=covered,
        uncovered=uncovered,
        unfindable=unfindable,
        relevance=relevance,
        coverage=coverage,
        confidence=confidence,
        should_retry=retry,
        reasons=(
            ScoreReason("relevance", relevance, relevance_text),
            ScoreReason("coverage", coverage, coverage_text),
            ScoreReason("confidence", confidence, confidence_text),
            ScoreReason("retry", None, retry_why),
        ),
    )


def _in_passing(terms: Sequence[GoalTerm], pages: Sequence[PageEvidence]) -> list[str]:
    """The words the goal names a thing with (a library, a product: `GoalTerm.named`; not an
    acronym such as DNS, which documents use in passing) that at most `_IN_PASSING` documents
    of the index mention and no page read has in its title."""
    titled = {m.term for page in pages for m in page.matches if m.where == "title"}
    return [
        t.text
        for t in terms
        if t.named
        and " " not in t.text
        and not t.common
        and not t.text.isupper()
        and t.document_frequency is not None
        and 0 < t.document_frequency <= _IN_PASSING
        and t.text not in titled
    ]


def _aspect_coverage(
    about: Sequence[PageEvidence], aspects: Sequence[str]
) -> tuple[float, tuple[str, ...]]:
    """How much of the goal the pages about it answer: per aspect, the nearest passage among
    them (relevance from its cosine), averaged; and the aspects answered."""
    count = max(1, len(aspects), *(len(page.aspect_scores) for page in about))
    if not about:
        return 0.0, ()
    best = [
        max((page.aspect_scores[i] for page in about if i < len(page.aspect_scores)), default=0.0)
        for i in range(count)
    ]
    named = list(aspects) if len(aspects) == count else [f"aspect {i + 1}" for i in range(count)]
    answered = tuple(a for a, score in zip(named, best, strict=True) if score >= ASPECT_ANSWERED)
    value = sum(semantic_relevance(score) for score in best) / count
    return _score(value), answered


def _short(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _are(items: Sequence[str]) -> str:
    return "is" if len(items) == 1 else "are"


def _retry(
    terms: Sequence[GoalTerm],
    relevance: float,
    coverage: float,
    uncovered: Sequence[GoalTerm],
    pages: int,
    max_sources: int,
    *,
    frequencies_known: bool,
    semantic: bool = False,
) -> tuple[bool, str]:
    """Whether another query may find better pages, and why. With the embedding model's
    reading, a goal whose terms are all covered may still be answered in other words."""
    if relevance >= _GOOD_RELEVANCE and coverage >= _GOOD_COVERAGE:
        return False, "no retry: the target is met"
    key = [term for term in uncovered if not term.common]
    findable = [term for term in key if term.findable]
    if key and not findable and frequencies_known:
        missing = [t.text for t in key]
        return False, (
            f"no retry: {quoted(missing)} {_are(missing)} in no document of the index; "
            "another query cannot find " + ("it" if len(missing) == 1 else "them")
        )
    if frequencies_known and key:
        total = sum(term.weight for term in terms)
        lost = sum(term.weight for term in key if not term.findable)
        if total and (total - lost) / total / FULL_SHARE < ABOUT_GOAL:
            missing = [t.text for t in key if not t.findable]
            return False, (
                f"no retry: {quoted(missing)} {_are(missing)} in no document of the index; "
                "no page of it can be about the goal"
            )
    if findable:
        return True, f"another query may find {quoted(t.text for t in findable)}"
    if relevance < _WEAK_RELEVANCE and (pages < max(1, max_sources) or relevance < _OFF_TOPIC):
        return True, "another query may find more relevant pages"
    if semantic:
        return True, "another query in the documents' own words may find a page that answers it"
    return False, "no retry: only common words are missing"
