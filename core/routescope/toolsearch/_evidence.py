"""The weighted fusion's keyword signal: how much of the query a tool's words explain.

The keyword evidence says how much of the query the tool's words explain, and counts a word by
how much it can say: each query word (analyzed: English stems, identifiers split) has a
*weight*, its IDF over the catalog (a word few tools hold says more), times `INCIDENTAL` when
it is only inside a URL or file path, only in a request phrase ("help me", "give me", "I
need") or a number; and each tool a *match* for it, its BM25 for the word (Tantivy's, with the field
boosts: a name or intent counts more than a description) over the best tool's. Then

    keyword evidence = Σ weight · match / (sum of the query's KEYWORD_WORDS largest weights)

at most 1, where a word no tool holds (a name, a value) counts `UNHELD` of a rare word's weight
in the sum. A URL in the request also counts as the word "url", a file path as "file": evidence
for tools about URLs or files, where the URL's or the path's own words barely count.

A tool that matches the query's rarest words as well as any tool scores near 1; one
incidental word (a digit, a word of a path, a stemmed fragment) moves it little, however few
other tools match it. The previous rule (BM25 over the best BM25 of the query) gave the best
keyword match the whole keyword weight, whatever that match was worth. Each hit lists the words
that moved its keyword share and by how much (`KeywordSignal.terms`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from .._analysis import analyzed_terms, stems_to_words
from ._context import Context
from ._keyword import TermScores
from ._steps import MULTI_NEED_STEPS, split_steps

__all__ = [
    "INCIDENTAL",
    "KEYWORD_WORDS",
    "UNHELD",
    "KeywordEvidence",
    "QueryTerm",
    "query_terms",
]

KEYWORD_WORDS = 6
"""Keyword evidence is measured against the weight of the query's this many rarest words: a
tool that matches them as well as any tool does has full evidence (measured on BFCL's dev half:
4 to 8 within 0.005 of each other)."""
INCIDENTAL = 0.25
"""What a word counts, of its rarity, when it is only in a URL or path, a request phrase, a
number or a date or time format."""
UNHELD = 0.25
"""What a word no tool holds (a name, a place, a value: "ramen", "Denver") adds to the query's
weight, of the rarity of a word held by no tool: it explains nothing, and lowers every tool's
evidence alike (one matching word of a request made of such words is no full match). Measured
on BFCL's dev half: the ranking unchanged (±0.002), the "no tool fits" AUROC 0.764 → 0.776
(0.5: 0.778, and the scenario suite loses a case)."""
_URL = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"']+", re.IGNORECASE)
_EXTENSIONS = (
    "7z bak bat bin bmp c cfg conf cpp cs css csv db doc docx env exe flac gif go gz h htm html "
    "ico ini ipynb jar java jpeg jpg js json jsx key kt log lua m4a md mkv mov mp3 mp4 odt ogg "
    "pdf php pl png ppt pptx py r rar rb rs rtf scss sh sql sqlite svg swift tar tex tgz tif tiff "
    "toml ts tsv tsx txt wav webm webp xls xlsx xml yaml yml zip"
)
"""What makes a dotted word a file name (`report.pdf`), not an identifier (`web.fetch`)."""
_PATH = re.compile(
    rf"{_URL.pattern}"
    r"|(?<![\w/])(?:~|\.{1,2})?/[^\s<>\"']*[\w\-]"  # /root/pdf/report.pdf, ~/notes, ./x
    r"|\b[\w\-]+(?:\.[\w\-]+)*\.(?:"  # report.pdf, bill-2023.txt, a.b.json
    + "|".join(sorted(_EXTENSIONS.split(), key=lambda e: (-len(e), e)))
    + r")\b(?![\w\-.]\w)",
    re.IGNORECASE,
)
_KINDS = (("url", "a URL in the request"), ("file", "a file path in the request"))
"""The word a URL or a path in the request stands for: evidence for tools about URLs or files
(their own words count `INCIDENTAL`)."""
_REQUEST_PHRASE = re.compile(
    r"\b(?:help|assist|give|tell|show)(?=\s+(?:me|us)\b)"
    r"|(?<=\bi\s)(?:need|want|wish|would\s+like)\b"
    r"|(?<=\bwe\s)(?:need|want|would\s+like)\b",
    re.IGNORECASE,
)


_DATE_FORMAT = re.compile(
    r"(?<![\w%])(?=[YMDHhmsS]*(?:YY|yy|MM|DD|dd|HH|hh|mm|ss))"
    r"[yYmMdDhHsS]{1,4}(?:[-/:.T ]{1,2}[yYmMdDhHsS]{1,4})+(?![\w%])"
)
"""A date or time format written out (`YYYY-MM-DD HH:MM`, `dd/mm/yyyy`, `HH:mm:ss`): its
letters say how a value is written, not what the request wants (they count `INCIDENTAL`)."""


@dataclass(frozen=True, slots=True)
class QueryTerm:
    term: str
    """As the English analyzer makes it (`crash`)."""
    word: str
    """The query's word it came from (`crashing`)."""
    factor: float
    """1.0, or `INCIDENTAL`."""
    note: str
    """Why it counts less, or ""."""


def query_terms(query: str) -> list[QueryTerm]:
    """The query's distinct analyzed terms in order, each with its word and what it counts."""
    terms = list(dict.fromkeys(analyzed_terms(query)))
    words = stems_to_words(query)
    outside_paths = set(analyzed_terms(_PATH.sub(" ", query)))
    outside_requests = set(analyzed_terms(_REQUEST_PHRASE.sub(" ", query)))
    formats = _DATE_FORMAT.search(query) is not None
    outside_formats = set(analyzed_terms(_DATE_FORMAT.sub(" ", query))) if formats else set()
    found = []
    for term in terms:
        if term not in outside_paths:
            note = "in a URL or path"
        elif term not in outside_requests:
            note = "a request phrase"
        elif term.isdigit():
            note = "a number"
        elif formats and term not in outside_formats:
            note = "a date or time format"
        else:
            note = ""
        found.append(QueryTerm(term, words.get(term, term), INCIDENTAL if note else 1.0, note))
    known = {t.term for t in found}
    urls = [m.group() for m in _URL.finditer(query)]
    paths = [m.group() for m in _PATH.finditer(query) if not _URL.fullmatch(m.group())]
    for (kind, note), spans in zip(_KINDS, (urls, paths), strict=True):
        if spans and kind not in known:
            found.append(QueryTerm(kind, spans[0][:60], 1.0, note))
    return found


@dataclass(slots=True)
class KeywordEvidence:
    """The weighted fusion's keyword signal of one query over the whole catalog.

    A request that splits into `MULTI_NEED_STEPS` steps or more (`split_steps`: "book a flight to
    Lisbon, then find a hotel near the venue; compare the insurance options and check the
    weather there") is measured against the weight of its heaviest step's rarest words, not of
    the whole request's: the tool for one need is not diluted by the words of the others
    (issue 28)."""

    terms: list[QueryTerm]
    stats: list[TermScores]
    weights: list[float]
    """Per term: IDF over the catalog times its factor (0.0 when no tool holds it)."""
    mass: float
    """The sum of the `KEYWORD_WORDS` largest weights, a word no tool holds counted `UNHELD`
    (0.0: no word of the query is held); of the heaviest step when the request splits."""
    totals: np.ndarray
    """Per tool: Σ weight · match / mass, before the cap at 1."""
    steps: int = 1
    """How many steps the request split into (the mass is the heaviest one's)."""
    siblings: list[np.ndarray | None] = field(default_factory=list)
    """Per term: what it counts for each tool that holds it (aligned with `stats[i].tools`)
    against the tool's siblings — 1 where none of them holds it, less the more of them do; None
    when no holder has siblings (`SIBLING_RARITY`)."""

    def sibling_factor(self, position: int, tool: int) -> float:
        """What term `position` counts for `tool` against its siblings (1.0: not shared)."""
        factors = self.siblings[position] if position < len(self.siblings) else None
        if factors is None:
            return 1.0
        tools = self.stats[position].tools
        spot = int(np.searchsorted(tools, tool))
        return float(factors[spot]) if spot < len(tools) and int(tools[spot]) == tool else 1.0

    @classmethod
    def of(cls, ctx: Context, query: str, boosts: Mapping[str, float]) -> KeywordEvidence:
        terms = query_terms(query)
        tools = len(ctx.tools)
        stats = [ctx.keyword.term_scores(t.term, boosts) for t in terms]
        factors: list[np.ndarray | None] = [None] * len(stats)
        if SIBLING_RARITY > 0:
            ids, sizes, names = ctx.sibling_groups()
            if len(sizes):
                for position, scores in enumerate(stats):
                    named = np.asarray([scores.term in n for n in names], dtype=bool)
                    stats[position], factors[position] = _among_siblings(scores, ids, sizes, named)
        weights = [
            t.factor * math.log(1 + (tools - s.count + 0.5) / (s.count + 0.5))
            if s.count and s.best > 0
            else 0.0
            for t, s in zip(terms, stats, strict=True)
        ]
        unheld = UNHELD * math.log(1 + (tools + 0.5) / 0.5)
        counted = [
            weight if weight > 0 else unheld * t.factor
            for weight, t in zip(weights, terms, strict=True)
        ]
        mass = _mass(counted, weights, range(len(terms)))
        groups = step_groups(query, terms)
        step_masses = [m for group in groups if (m := _mass(counted, weights, group)) > 0]
        if mass > 0 and len(step_masses) >= MULTI_NEED_STEPS:
            mass = max(step_masses)
        totals = np.zeros(tools, dtype=np.float64)
        if mass > 0:
            for weight, scores in zip(weights, stats, strict=True):
                if weight > 0:
                    totals[scores.tools] += scores.scores * (weight / scores.best / mass)
        return cls(terms, stats, weights, mass, totals, max(1, len(groups)), factors)

    def ranked(self, limit: int) -> list[int]:
        """The `limit` tools with the most evidence (ties in catalog order)."""
        matched = np.flatnonzero(self.totals > 0)
        if len(matched) > limit:  # only the best `limit` need sorting (and any tied with them)
            values = self.totals[matched]
            floor = np.partition(values, len(values) - limit)[len(values) - limit]
            matched = matched[values >= floor]
        order = matched[np.argsort(-self.totals[matched], kind="stable")]
        return [int(i) for i in order[:limit]]

    def rank(self, tool: int) -> int:
        """The tool's place in `ranked` (tools of equal evidence in catalog order)."""
        value = self.totals[tool]
        above = int(np.count_nonzero(self.totals > value))
        return above + int(np.count_nonzero(self.totals[:tool] == value)) + 1

    def held(self, wanted: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per term of some weight, over the tools `wanted` (catalog positions, int64): (term
        position, whether each tool holds it, its BM25 for it: 0.0 where it does not)."""
        found: list[tuple[int, np.ndarray, np.ndarray]] = []
        if not len(wanted) or self.mass <= 0:
            return found
        for position, (weight, scores) in enumerate(zip(self.weights, self.stats, strict=True)):
            if weight <= 0:  # a term of some weight is held by some tool
                continue
            spots = np.minimum(np.searchsorted(scores.tools, wanted), len(scores.tools) - 1)
            holds = scores.tools[spots] == wanted
            found.append((position, holds, np.where(holds, scores.scores[spots], 0.0)))
        return found

    def raw(self, wanted: np.ndarray) -> np.ndarray:
        """Each wanted tool's evidence before the cap at 1 (the shares of its terms added in
        term order, as `parts` lists them), over arrays."""
        raw = np.zeros(len(wanted), dtype=np.float64)
        for position, _, bm25 in self.held(wanted):
            best = self.stats[position].best
            raw += bm25 * (self.weights[position] / best / self.mass)
        return raw

    def parts(self, tools: list[int]) -> list[list[tuple[int, float, float]]]:
        """Per tool: (term position, weight · match / mass, BM25) of each term it holds."""
        found: list[list[tuple[int, float, float]]] = [[] for _ in tools]
        for position, holds, bm25 in self.held(np.asarray(tools, dtype=np.int64)):
            weight, best = self.weights[position], self.stats[position].best
            for slot in np.flatnonzero(holds).tolist():
                value = float(bm25[slot])
                found[slot].append((position, weight * value / best / self.mass, value))
        return found


SIBLING_RARITY = 0.0
"""How much a word's rarity among a tool's siblings (the tools of its server: `git.log`,
`git.commit`, `git.status`) decides what the word counts for it: 0 not at all; 1 a word every
sibling holds ("commit" in a git server) counts next to nothing for them, so the word that
tells them apart (the action: "list", "log") decides; the server's own name ("git") is never
scaled. Off by measurement (`make eval`, tune parts, issue 28): at 0.5 it changes nothing on
LiveMCPBench (70 servers) and costs BFCL 0.004 of hit@1; at 0.5 with the server's name scaled
too it lifted LiveMCPBench by 0.02 but ranked `docker.logs` over `git.log` for "show the git
log"; grouping by a name's first word (`get…`, `calculate_…`) cost Seal-Tools and BFCL 0.01–0.02.
Each matched word says what it counted (`KeywordTerm.siblings`), so a catalog that gains from it
shows why."""


def _among_siblings(
    scores: TermScores, ids: np.ndarray, sizes: np.ndarray, named: np.ndarray
) -> tuple[TermScores, np.ndarray | None]:
    """The term's scores with each holder's share scaled by the term's rarity among that
    holder's siblings (its best kept: a match of a common sibling word counts less), and the
    factors; a word of the server's own name (`named`, per group) is not scaled."""
    if not scores.count:
        return scores, None
    group = ids[scores.tools]
    grouped = group >= 0
    if not grouped.any():
        return scores, None
    held = np.bincount(group[grouped], minlength=len(sizes))
    members = sizes[np.where(grouped, group, 0)].astype(np.float64)
    holders = held[np.where(grouped, group, 0)].astype(np.float64)
    rarity = np.log1p((members - holders + 0.5) / (holders + 0.5)) / np.log1p((members - 0.5) / 1.5)
    scaled = grouped & ~named[np.where(grouped, group, 0)]
    factor = np.where(scaled, 1.0 - SIBLING_RARITY + SIBLING_RARITY * np.minimum(rarity, 1.0), 1.0)
    adjusted = TermScores(scores.term, scores.tools, scores.scores * factor, scores.best)
    return adjusted, factor


def _mass(counted: list[float], weights: list[float], positions: Iterable[int]) -> float:
    """The weight of the `KEYWORD_WORDS` heaviest words among `positions` (0.0 when none of
    them is held by any tool)."""
    chosen = list(positions)
    if not any(weights[p] > 0 for p in chosen):
        return 0.0
    return sum(sorted((counted[p] for p in chosen), reverse=True)[:KEYWORD_WORDS])


def step_groups(query: str, terms: list[QueryTerm]) -> list[list[int]]:
    """The positions (in `terms`) of each step's terms, for a request that splits into steps;
    [] for one step. A term in several steps is in each of their groups."""
    steps = split_steps(query)
    if len(steps) < 2:
        return []
    where = {t.term: position for position, t in enumerate(terms)}
    groups = []
    for step in steps:
        own = dict.fromkeys(where[t.term] for t in query_terms(step.text) if t.term in where)
        if own:
            groups.append(list(own))
    return groups if len(groups) >= 2 else []
