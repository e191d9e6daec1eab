"""The evidence of one page read: which of the goal's terms it supports (title, then snippet,
then body; where, with a short excerpt) and its relevance, the weighted share of the goal it
supports. Heuristic (lexical matching, no model): every reason says so.

Pure and deterministic, linear in the text read (each page's text is cut at
`MAX_SOURCE_CHARS`)."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .._analysis import COMPOUND_WORD, light_stem
from ..optimise._goal_terms import GoalTerm, compound_parts

__all__ = [
    "ABOUT_GOAL",
    "ASPECT_ANSWERED",
    "FULL_SHARE",
    "LABEL",
    "MAX_SOURCE_CHARS",
    "SEMANTIC_HIGH",
    "SEMANTIC_LOW",
    "SEMANTIC_WEIGHT",
    "PageEvidence",
    "Source",
    "TermMatch",
    "Where",
    "page_evidence",
    "quoted",
    "semantic_relevance",
]

Where = Literal["title", "snippet", "body"]

MAX_SOURCE_CHARS = 20_000
"""Text of one page that is matched; the rest is ignored."""
ABOUT_GOAL = 0.5
"""A page at least this relevant, supporting two of the goal's key terms (its one key term when
it has only one), is about the goal."""
FULL_SHARE = 0.75
"""The weighted share of the goal at which a page counts as fully relevant: goals carry words
that a page answering them need not repeat."""
SEMANTIC_LOW = 0.25
"""A passage this near the goal (cosine, all-MiniLM-L6-v2) or less says nothing for it."""
SEMANTIC_HIGH = 0.6
"""A passage this near the goal or nearer answers it in other words: semantic relevance 1."""
SEMANTIC_WEIGHT = 0.85
"""A page's relevance is this share of its semantic relevance and the rest of its terms'."""
ASPECT_ANSWERED = 0.45
"""An aspect of the goal whose nearest passage on a page is this near is answered there."""
_EXCERPT = 60
"""Characters of context on each side of a match in an excerpt."""
LABEL = "heuristic: "
_TOKENISED = 64
"""Parts of pages whose tokens are kept (a run reads at most 15 pages, each in 3 parts)."""


@dataclass(frozen=True, slots=True)
class Source:
    """One page read, as it is graded: `snippet` is the search result's (may be empty); the
    embedding model's reading when there is one (`_semantic`): the cosine of the goal and the
    page's nearest passage, that passage, and per aspect of the goal its nearest passage's
    cosine."""

    url: str
    title: str = ""
    text: str = ""
    snippet: str = ""
    similarity: float | None = None
    passage: str = ""
    aspect_similarities: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class TermMatch:
    """Where a page supports a goal term, with a short excerpt around the first match."""

    term: str
    where: Where
    excerpt: str
    count: int = 1
    """How often the term occurs in that part of the page (title, snippet or body)."""


@dataclass(frozen=True, slots=True)
class PageEvidence:
    """Which goal terms one page read supports, and how relevant that makes it."""

    url: str
    title: str
    relevance: float
    """The weighted share of the goal the page supports (a match in the title counts fully,
    in the snippet or body a little less) over `FULL_SHARE`, halved when it supports only one
    of the goal's key terms; in [0, 1], two decimals."""
    about_goal: bool
    """`relevance` ≥ `ABOUT_GOAL`: only such pages count for coverage and confidence."""
    supports: tuple[str, ...]
    """The goal terms (`GoalTerm.text`) the page contains, in the goal's order."""
    missing: tuple[str, ...]
    """The goal terms it does not contain."""
    matches: tuple[TermMatch, ...]
    """One per supported term: where and an excerpt."""
    reason: str
    """One line, labelled heuristic."""
    term_relevance: float | None = None
    """The weighted share of the goal's terms the page supports (what `relevance` is without
    the embedding model); None when `relevance` is that already."""
    similarity: float | None = None
    """The cosine of the goal and the page's nearest passage (None: no embedding model)."""
    semantic_relevance: float | None = None
    """`similarity` from `SEMANTIC_LOW` (0) to `SEMANTIC_HIGH` (1)."""
    passage: str = ""
    """The page's passage nearest the goal."""
    answers: tuple[str, ...] = ()
    """The goal's aspects the page answers (its nearest passage ≥ `ASPECT_ANSWERED`)."""
    aspect_scores: tuple[float, ...] = ()
    """Per aspect of the goal, how near the page's nearest passage comes (cosine)."""

    @property
    def rank_score(self) -> float:
        """How the findings rank the page: `relevance` before its meaning is clipped to
        [0, 1] and rounded — the same weights, so two pages past `SEMANTIC_HIGH` (or below
        `SEMANTIC_LOW`) still rank by their nearest passage, as the embedding model alone
        ranks them, and their terms only break near ties."""
        if self.similarity is None or self.term_relevance is None:
            return self.relevance
        meaning = (self.similarity - SEMANTIC_LOW) / (SEMANTIC_HIGH - SEMANTIC_LOW)
        return SEMANTIC_WEIGHT * meaning + (1 - SEMANTIC_WEIGHT) * self.term_relevance


def semantic_relevance(similarity: float) -> float:
    """A cosine as relevance: 0 at `SEMANTIC_LOW` or below, 1 at `SEMANTIC_HIGH` or above."""
    span = SEMANTIC_HIGH - SEMANTIC_LOW
    return round(min(1.0, max(0.0, (similarity - SEMANTIC_LOW) / span)), 2)


@dataclass(slots=True)
class _Text:
    """The tokens of one part of a page: each stem's first position and count."""

    text: str
    first: dict[str, int]
    counts: Counter[str]
    lowered: str = ""


@functools.lru_cache(maxsize=_TOKENISED)
def _tokens(text: str) -> _Text:
    """The tokens of `text`, kept for the pages read lately: every attempt and the evaluator
    grade the same pages again (the result is only read, but for `lowered`, set once)."""
    first: dict[str, int] = {}
    counts: Counter[str] = Counter()
    for match in COMPOUND_WORD.finditer(text):
        token = match.group()
        forms = [token]
        if "." in token or "-" in token or "_" in token:
            parts = compound_parts(token)
            forms += parts if len(parts) > 1 else []
        for form in forms:
            key = light_stem(form)
            counts[key] += 1
            if key not in first:
                first[key] = match.start()
    return _Text(text, first, counts)


def _phrase(term: GoalTerm) -> re.Pattern[str]:
    joined = r"[\W_]*".join(re.escape(part) for part in term.stems)
    return re.compile(rf"(?<![^\W_]){joined}(?![^\W_])")


def _excerpt(text: str, start: int, end: int) -> str:
    left = max(0, start - _EXCERPT)
    right = min(len(text), end + _EXCERPT)
    window = " ".join(text[left:right].split())
    return ("…" if left > 0 else "") + window + ("…" if right < len(text) else "")


def _find(term: GoalTerm, part: _Text) -> tuple[int, int, int] | None:
    """(start, end, count) of the term in one part of a page, or None."""
    if term.kind == "phrase":
        if not part.lowered:
            part.lowered = part.text.lower()
        found = list(_phrase(term).finditer(part.lowered))
        if not found:
            return None
        return found[0].start(), found[0].end(), len(found)
    key = term.stems[0]
    if key not in part.first:
        return None
    start = part.first[key]
    token = COMPOUND_WORD.match(part.text, start)
    return start, token.end() if token else start + len(key), part.counts[key]


_PLACE = {"title": 1.0, "snippet": 0.9}


def _place(where: Where, count: int) -> float:
    """How much a match counts by where it is: a body match more the more often it occurs."""
    if where != "body":
        return _PLACE[where]
    return 0.6 if count <= 1 else 0.7 if count == 2 else 0.8


def page_evidence(
    terms: Sequence[GoalTerm],
    source: Source,
    total: float,
    aspects: Sequence[str] = (),
) -> PageEvidence:
    """The page's evidence for the goal's `terms` (and, when the source carries the embedding
    model's reading, for the goal's `aspects`)."""
    lexical = _term_evidence(terms, source, total)
    if source.similarity is None:
        return lexical
    return _with_semantics(lexical, source, aspects)


def _with_semantics(page: PageEvidence, source: Source, aspects: Sequence[str]) -> PageEvidence:
    """The page's relevance from its passages' nearness to the goal and its terms; the goal's
    aspects it answers."""
    similarity = float(source.similarity or 0.0)
    semantic = semantic_relevance(similarity)
    relevance = round(SEMANTIC_WEIGHT * semantic + (1 - SEMANTIC_WEIGHT) * page.relevance, 2)
    scores = tuple(source.aspect_similarities) or (similarity,)
    named = tuple(aspects) if len(aspects) == len(scores) else ("the goal",) * len(scores)
    answers = tuple(a for a, score in zip(named, scores, strict=True) if score >= ASPECT_ANSWERED)
    about = relevance >= ABOUT_GOAL and semantic > 0
    passage = " ".join(source.passage.split())
    said = (
        f"nearest passage {similarity:.2f} ('{passage[:90]}')" if passage else f"{similarity:.2f}"
    )
    terms = page.reason.removeprefix(LABEL).split(": ", 1)[-1]
    terms = terms.removesuffix("; about the goal").removesuffix("; not about the goal")
    reason = (
        f"{LABEL}relevance {relevance:.2f}: meaning {semantic:.2f} (goal vs {said}), terms "
        f"{page.relevance:.2f} ({terms})"
    )
    if len(scores) > 1:
        reason += f"; answers {len(answers)} of {len(scores)} aspects"
    reason += f"; {'about' if about else 'not about'} the goal"
    return replace(
        page,
        relevance=relevance,
        about_goal=about,
        reason=reason,
        term_relevance=page.relevance,
        similarity=round(similarity, 3),
        semantic_relevance=semantic,
        passage=passage,
        answers=answers,
        aspect_scores=tuple(round(x, 3) for x in scores),
    )


def _term_evidence(terms: Sequence[GoalTerm], source: Source, total: float) -> PageEvidence:
    parts: list[tuple[Where, _Text]] = [
        ("title", _tokens(source.title)),
        ("snippet", _tokens(source.snippet)),
        ("body", _tokens(source.text[:MAX_SOURCE_CHARS])),
    ]
    matches: list[TermMatch] = []
    got = 0.0
    for term in terms:
        for where, part in parts:
            found = _find(term, part)
            if found is None:
                continue
            start, end, count = found
            excerpt = _excerpt(part.text, start, end) if where == "body" else part.text
            matches.append(TermMatch(term.text, where, excerpt[: 2 * _EXCERPT + 80], count))
            got += term.weight * _place(where, count)
            break
    share = got / total if total else 0.0
    supports = tuple(match.term for match in matches)
    missing = tuple(term.text for term in terms if term.text not in supports)
    key = [t.text for t in terms if t.text in supports and t.key]
    needed = min(2, sum(t.key for t in terms)) or 1
    broad = len(key) >= needed
    # One key word of several is what an incidental page shares with the goal.
    relevance = round(min(1.0, share / FULL_SHARE) * (1.0 if broad else 0.5), 2)
    about = broad and relevance >= ABOUT_GOAL
    if not supports:
        reason = "supports no goal term"
    elif not key:
        reason = f"supports only common words ({quoted(supports)})"
    else:
        reason = f"supports {quoted(supports)}" + (
            f"; missing {quoted(missing)}" if missing else ""
        )
        if not broad:
            reason += f"; only {len(key)} of the goal's key terms"
    reason += f"; {'about' if about else 'not about'} the goal"
    return PageEvidence(
        url=source.url,
        title=source.title,
        relevance=relevance,
        about_goal=about,
        supports=supports,
        missing=missing,
        matches=tuple(matches),
        reason=LABEL + f"relevance {relevance:.2f}: " + reason,
    )


def quoted(items: Iterable[str], limit: int = 6) -> str:
    shown = list(items)
    text = ", ".join(f"'{item}'" for item in shown[:limit])
    return text + (f" and {len(shown) - limit} more" if len(shown) > limit else "")
