"""The evidence of a research attempt: which of the goal's terms each page read supports, and
the scores that follow from it. Heuristic (lexical matching, no model): every reason says so.

The goal is split into aspects (`GoalTerm`): content words, compounds (`left-pad`, `os.path`)
and the strategy router's multi-word entities. Each weighs by how rare it is: from its document
frequency in the searched corpus when the search can tell (`CorpusFrequencies`, the offline
index), and never more than `COMMON_WEIGHT` for a common English word (`best`, `near`, `open`,
`tonight`), so a page matching only incidental words is not about the goal.

`assess` matches the terms against each page read (title, then snippet, then body) and gives,
per page, the terms it supports (where, with a short excerpt) and its relevance: the weighted
share of the goal it supports. Per attempt: relevance (the best page, and the pages on
average), coverage (the weighted share of the goal supported by at least one page that is
about the goal: pages that are not do not lift it) and confidence (how many independent pages
about the goal agree on each term, scaled by relevance; low for a single source or host).

Pure and deterministic, linear in the text read (each page's text is cut at
`MAX_SOURCE_CHARS`)."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from .._analysis import COMPOUND_WORD, light_stem
from ..rules import default_rules
from ..strategy import extract

__all__ = [
    "ABOUT_GOAL",
    "COMMON_WEIGHT",
    "MAX_SOURCE_CHARS",
    "AttemptEvidence",
    "CorpusFrequencies",
    "GoalTerm",
    "Metric",
    "PageEvidence",
    "ScoreReason",
    "Source",
    "TermKind",
    "TermMatch",
    "Where",
    "assess",
    "goal_terms",
    "is_common",
    "lookup_words",
    "words",
]

TermKind = Literal["word", "entity", "phrase"]
"""`word`: a content word of the goal; `entity`: a word the strategy router marks as a name
(`PySide6`, `Denver`); `phrase`: several words that only count together (`left-pad`,
`os.path`, a multi-word entity)."""
Where = Literal["title", "snippet", "body"]
Metric = Literal["relevance", "coverage", "confidence", "retry"]

MAX_SOURCE_CHARS = 20_000
"""Text of one page that is matched; the rest is ignored."""
MAX_SOURCES = 50
ABOUT_GOAL = 0.5
"""A page at least this relevant, supporting two of the goal's key terms (its one key term when
it has only one), is about the goal."""
FULL_SHARE = 0.75
"""The weighted share of the goal at which a page counts as fully relevant: goals carry words
that a page answering them need not repeat."""
MAX_PHRASE_WEIGHT = 2.0
COMMON_WEIGHT = 0.3
"""The most a common English word weighs, however rare it is in the corpus."""
MIN_WEIGHT = 0.1
_GOOD_RELEVANCE = 0.7
_GOOD_COVERAGE = 0.6
_WEAK_RELEVANCE = 0.6
_OFF_TOPIC = 0.3
_EXCERPT = 60
"""Characters of context on each side of a match in an excerpt."""
_LABEL = "heuristic: "

_PARTS = re.compile(r"[._\-]")

_STOPWORD_TEXT = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own
    same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself
    please pls help hi hello hey thanks thank want wanted need needs trying try tried know
    tell show explain give let lets like way ways something anything thing things really
    actually maybe possible possibly someone somebody question questions ok okay
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English stopwords and request filler ("how do I", "please", "can you help me")."""

_COMMON_TEXT = """
    best better good great nice top new newest old latest recent current near nearby close
    open opening tonight today tomorrow yesterday now soon week weekend weekly month monthly
    year years day days daily night morning evening afternoon time times history
    easy easiest easily simple simplest simply quick quickly fast faster fastest slow free
    cheap cheapest small smaller large larger big bigger little long longer short high low
    first last next previous another different many much few several every whole main major
    minor general common usual typical basic advanced modern proper correct correctly properly
    important useful well right wrong real true full complete recommended
    afterwards afterward beforehand already almost anyway away back else enough everything
    everywhere instead later least less nearly perhaps quite rather since somewhere together
    whether yet etc also still even ever never always often sometimes usually without within
    across along among around
    work works working worked make makes making made get gets getting got go going goes gone
    use uses using used find finding found see seeing look looking keep keeping take taking
    put putting give giving say says said come coming call calling able begin bring change
    choose happen hold include learn leave live love meet mean move pay play reach remain seem
    stand stay talk think turn understand wait walk watch win
    one two three four five ten hundred thousand million second third
    people person man woman men women child children kid kids family friend friends home house
    world country city town place places area local nearest price prices cost costs
    buy buying sell selling deal deals review reviews rating ratings guide tutorial
    tips tip example examples beginner beginners step steps idea ideas stuff
    kind kinds part parts lot lots bit level levels case cases point
    today's tonight's near-me
"""
COMMON_WORDS = frozenset(_COMMON_TEXT.split())
"""Common English words: whatever they match says little about a page being on the goal."""


# ---------------------------------------------------------------------------------------------
# Words


def words(text: str) -> list[str]:
    """The words of `text`; a compound (`left-pad`, `os.path`, `node.js`) is one word."""
    return COMPOUND_WORD.findall(text)


def _parts(word: str) -> list[str]:
    """The parts of a compound; the word itself when it has none (`_`)."""
    return [part for part in _PARTS.split(word) if part] or [word]


def is_common(word: str) -> bool:
    """A stopword, a common English word, or a bare number or letter."""
    lower = word.lower()
    return (
        lower in STOPWORDS
        or lower in COMMON_WORDS
        or light_stem(lower) in _COMMON_STEMS
        or lower.isdigit()
        or len(lower) == 1
    )


_COMMON_STEMS = frozenset(light_stem(word) for word in COMMON_WORDS)


# ---------------------------------------------------------------------------------------------
# The goal's terms


@dataclass(frozen=True, slots=True)
class CorpusFrequencies:
    """How many documents of the searched corpus contain each word (lower-cased, as the index
    tokenises it), out of `documents`."""

    documents: int
    frequencies: Mapping[str, int] = field(default_factory=dict)

    def of(self, forms: Iterable[str]) -> int:
        """The most documents any of `forms` (spellings of one word) occurs in."""
        return max((self.frequencies.get(form, 0) for form in forms), default=0)


@dataclass(frozen=True, slots=True)
class GoalTerm:
    """One aspect of the goal that a page may support."""

    text: str
    """As the goal writes it (`Denver`, `event`, `left-pad`)."""
    kind: TermKind
    weight: float
    """How much it counts: rare terms weigh more, up to 1 for a word (a phrase weighs its
    words' sum, up to `MAX_PHRASE_WEIGHT`); common words at most `COMMON_WEIGHT`."""
    document_frequency: int | None = None
    """Documents of the searched corpus that contain it (for a phrase: the fewest of its
    words); None when the search cannot tell (web providers)."""
    common: bool = False
    """A common English word: never what makes a page about the goal."""
    stems: tuple[str, ...] = ()
    """What is matched: the stem of a word; the lower-cased words of a phrase, in order."""

    @property
    def findable(self) -> bool:
        """Some document of the corpus contains it (True when that is unknown)."""
        return self.document_frequency != 0

    @property
    def key(self) -> bool:
        """Not a common word: a page supporting it may be about the goal."""
        return not self.common

    @classmethod
    def make(
        cls, text: str, kind: TermKind, weight: float, document_frequency: int | None = None
    ) -> GoalTerm:
        """A term from what a prompt's inputs carry (`to_data`): what is matched and whether
        it is common follow from the text."""
        parts = text.split() if " " in text else _parts(text)
        top = 1.0
        if kind == "phrase" and len(parts) > 1:
            stems = tuple(part.lower() for part in parts)
            common = all(is_common(part) for part in parts)
            top = MAX_PHRASE_WEIGHT
        else:
            kind = "word" if kind == "phrase" else kind
            stems, common = (light_stem(text),), is_common(text)
        if common:
            top = COMMON_WEIGHT
        weight = round(min(top, max(MIN_WEIGHT, weight)), 3)
        return cls(text, kind, weight, document_frequency, common, stems)

    def to_data(self) -> dict[str, object]:
        """The term as a prompt's inputs carry it (`goal_terms`)."""
        return {
            "text": self.text,
            "kind": self.kind,
            "weight": self.weight,
            "document_frequency": self.document_frequency,
        }


def _forms(word: str) -> list[str]:
    """Spellings of a word as an index tokenises it: as written, its stem, stem + s / e."""
    lower = word.lower()
    base = light_stem(lower)
    return list(dict.fromkeys([lower, base, base + "s", base + "e", base + "es"]))


def _candidates(goal: str, entities: Sequence[str]) -> list[tuple[str, TermKind]]:
    """The goal's terms in order: multi-word entities as phrases (their words then not again),
    compounds as phrases, other content words (entity or not), without repeats."""
    entity_words = {light_stem(w) for entity in entities for w in words(entity)}
    terms: list[tuple[str, TermKind]] = []
    seen: set[str] = set()
    phrase_words: set[str] = set()
    for entity in entities:
        parts = [w for w in words(entity) if w.lower() not in STOPWORDS]
        if len(parts) > 1:
            key = " ".join(light_stem(w) for w in parts)
            if key not in seen:
                seen.add(key)
                terms.append((" ".join(parts), "phrase"))
                phrase_words.update(light_stem(w) for w in parts)
    for word in words(goal):
        lower = word.lower()
        if lower in STOPWORDS:
            continue
        parts = _parts(word)
        if len(parts) > 1 and not lower.replace(".", "").isdigit():
            key = " ".join(light_stem(p) for p in parts)
            if key not in seen:
                seen.add(key)
                terms.append((word, "phrase"))
            continue
        key = light_stem(word)
        if key in seen or key in phrase_words:
            continue
        seen.add(key)
        terms.append((word, "entity" if key in entity_words else "word"))
    return terms


@functools.lru_cache(maxsize=128)
def _goal_parts(goal: str) -> tuple[str, tuple[str, ...]]:
    """The strategy router's reading of the goal: its goal text and its entities (those made
    only of stopwords left out)."""
    context = extract(goal, default_rules())
    entities = tuple(
        entity
        for entity in context.entities.candidates
        if any(word.lower() not in STOPWORDS for word in words(entity))
    )
    return (context.user_goal or goal), entities


def lookup_words(goal: str) -> list[str]:
    """The words whose document frequencies `goal_terms` uses, as an index tokenises them."""
    text, entities = _goal_parts(goal)
    found: list[str] = []
    for term, _ in _candidates(text, entities):
        for part in term.split() if " " in term else _parts(term):
            found.extend(_forms(part))
    return list(dict.fromkeys(found))


def _rarity(frequency: int, documents: int) -> float:
    """An inverse document frequency scaled to (0, 1]: 1 for a word no document has."""
    documents = max(documents, 1)
    top = math.log((documents + 1) / 0.5)
    return math.log((documents + 1) / (frequency + 0.5)) / top


def goal_terms(goal: str, frequencies: CorpusFrequencies | None = None) -> tuple[GoalTerm, ...]:
    """The goal's aspects with their weights: the strategy router's goal text and entities
    (multi-word ones become phrases), weighed by `frequencies`, the corpus's document
    frequencies, when the search can tell them (`lookup_words` says which words)."""
    goal_text, entities = _goal_parts(goal)
    known = frequencies is not None and frequencies.documents > 0
    terms: list[GoalTerm] = []
    for text, kind in _candidates(goal_text, entities):
        parts = text.split() if " " in text else _parts(text)
        frequency: int | None = None
        rarities = [1.0] * len(parts)
        if frequencies is not None and known:
            found = [frequencies.of(_forms(part)) for part in parts]
            frequency = min(found)
            rarities = [_rarity(f, frequencies.documents) for f in found]
        rarities = [
            min(COMMON_WEIGHT, r) if is_common(part) else r
            for part, r in zip(parts, rarities, strict=True)
        ]
        # A phrase says as much as its words together.
        weight = sum(rarities) if kind == "phrase" else rarities[0] if rarities else 1.0
        terms.append(GoalTerm.make(text, kind, weight, frequency))
    return tuple(terms)


# ---------------------------------------------------------------------------------------------
# Pages


@dataclass(frozen=True, slots=True)
class Source:
    """One page read, as it is graded: `snippet` is the search result's (may be empty)."""

    url: str
    title: str = ""
    text: str = ""
    snippet: str = ""


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
        return _LABEL + "; ".join(reason.text for reason in self.reasons) + "."


@dataclass(slots=True)
class _Text:
    """The tokens of one part of a page: each stem's first position and count."""

    text: str
    first: dict[str, int]
    counts: Counter[str]
    lowered: str = ""


def _tokens(text: str) -> _Text:
    first: dict[str, int] = {}
    counts: Counter[str] = Counter()
    for match in COMPOUND_WORD.finditer(text):
        token = match.group()
        forms = [token]
        if "." in token or "-" in token or "_" in token:
            parts = _parts(token)
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


def _page(terms: Sequence[GoalTerm], source: Source, total: float) -> PageEvidence:
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
        reason = f"supports only common words ({_quoted(supports)})"
    else:
        reason = f"supports {_quoted(supports)}" + (
            f"; missing {_quoted(missing)}" if missing else ""
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
        reason=_LABEL + f"relevance {relevance:.2f}: " + reason,
    )


def _quoted(items: Iterable[str], limit: int = 6) -> str:
    shown = list(items)
    text = ", ".join(f"'{item}'" for item in shown[:limit])
    return text + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


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
    terms: Sequence[GoalTerm], sources: Sequence[Source], *, max_sources: int = 5
) -> AttemptEvidence:
    """The evidence of the pages read for the goal's `terms` (see the module's docstring).
    `max_sources` is how many pages an attempt may read: a weak attempt that read fewer asks
    for a retry."""
    readable = [s for s in list(sources)[:MAX_SOURCES] if s.title.strip() or s.text.strip()]
    terms = tuple(terms)
    total = sum(term.weight for term in terms)
    pages = tuple(_page(terms, source, total) for source in readable)
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

    retry, retry_why = _retry(
        terms,
        relevance,
        coverage,
        uncovered_terms,
        len(pages),
        max_sources,
        frequencies_known=any(term.document_frequency is not None for term in terms),
    )
    best_title = best.title or best.url
    best_key = [t for t in best.supports if t not in {x.text for x in terms if x.common}]
    relevance_text = (
        f"relevance {relevance:.1f}: the best page ('{_short(best_title)}') supports "
        f"{len(best.supports)} of {len(terms)} goal terms"
        + (f" ({_quoted(best.supports)})" if best.supports else "")
        + (" — only common words" if best.supports and not best_key else "")
        + f"; {len(about)} of {len(pages)} page(s) about the goal"
    )
    coverage_text = (
        f"coverage {coverage:.1f}: {len(covered)} of {len(terms)} terms supported by a page "
        "about the goal"
        + (f", missing {_quoted(uncovered)}" if uncovered else "")
        + (f" ({_quoted(unfindable)} in no document of the index)" if unfindable else "")
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
) -> tuple[bool, str]:
    """Whether another query may find better pages, and why."""
    if relevance >= _GOOD_RELEVANCE and coverage >= _GOOD_COVERAGE:
        return False, "no retry: the target is met"
    key = [term for term in uncovered if not term.common]
    findable = [term for term in key if term.findable]
    if key and not findable and frequencies_known:
        missing = [t.text for t in key]
        return False, (
            f"no retry: {_quoted(missing)} {_are(missing)} in no document of the index; "
            "another query cannot find " + ("it" if len(missing) == 1 else "them")
        )
    if frequencies_known and key:
        total = sum(term.weight for term in terms)
        lost = sum(term.weight for term in key if not term.findable)
        if total and (total - lost) / total / FULL_SHARE < ABOUT_GOAL:
            missing = [t.text for t in key if not t.findable]
            return False, (
                f"no retry: {_quoted(missing)} {_are(missing)} in no document of the index; "
                "no page of it can be about the goal"
            )
    if findable:
        return True, f"another query may find {_quoted(t.text for t in findable)}"
    if relevance < _WEAK_RELEVANCE and (pages < max(1, max_sources) or relevance < _OFF_TOPIC):
        return True, "another query may find more relevant pages"
    return False, "no retry: only common words are missing"
