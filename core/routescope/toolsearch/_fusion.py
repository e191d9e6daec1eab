"""The two fusions of the tool search behind one interface (`FUSERS[settings.fusion]`): which
tools the keyword side proposes, how a query's keyword and vector signals become one ranking,
each hit's shares (they add up to its score), and the formula in words (`formula(settings)`,
for views).

`canonical` is the seed's pipeline exactly (`routing_search_canonical_v1`): Tantivy's default
tokenizer, reciprocal-rank fusion at k, the seed's rerank constants.

`weighted` (the default, chosen by `make eval`) adds the signals on one scale:

    final = vector weight · cosine + keyword weight · keyword evidence + boosts

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .._analysis import analyzed_terms, stems_to_words, tokens
from ._canonical import canonical
from ._catalog import Tool
from ._keyword import KeywordHit, KeywordIndex, TermScores
from ._models import (
    Fusion,
    KeywordSignal,
    KeywordTerm,
    RrfTerm,
    SearchSettings,
    Signals,
    ToolHit,
    VectorSignal,
)

__all__ = [
    "FUSERS",
    "INCIDENTAL",
    "KEYWORD_WORDS",
    "UNHELD",
    "Candidates",
    "Context",
    "Fuser",
    "KeywordEvidence",
    "QueryTerm",
    "formula",
    "query_terms",
]

KEYWORD_WORDS = 6
"""Keyword evidence is measured against the weight of the query's this many rarest words: a
tool that matches them as well as any tool does has full evidence (measured on BFCL's dev half:
4 to 8 within 0.005 of each other)."""
INCIDENTAL = 0.25
"""What a word counts, of its rarity, when it is only in a URL or path, a request phrase or a
number."""
UNHELD = 0.25
"""What a word no tool holds (a name, a place, a value: "ramen", "Denver") adds to the query's
weight, of the rarity of a word held by no tool: it explains nothing, and lowers every tool's
evidence alike (one matching word of a request made of such words is no full match). Measured
on BFCL's dev half: the ranking unchanged (±0.002), the "no tool fits" AUROC 0.764 → 0.776
(0.5: 0.778, and the scenario suite loses a case)."""
WEIGHTED_ALIGNMENT = 0.01
"""Weighted fusion: per query term (stemmed) in the tool's keywords, intents, description or
category, at most `metadata_alignment_max_terms` of them: a tie-breaker, a tenth of a typical
gap between a right and a wrong tool's cosine."""
WEIGHTED_FILE_DISCOVERY = 0.05
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "my",
        "me",
        "i",
        "it",
        "this",
        "that",
        "what",
        "how",
        "do",
        "does",
        "with",
        "from",
        "by",
        "at",
        "as",
        "can",
        "you",
        "please",
    ]
)
"""The canonical rerank's stop words (the seed's alignment ignores them)."""
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


class Similarities(Protocol):
    """A query's cosine to every tool, read by tool position: `similarities[i]` (a float) or
    `similarities[[i, j, …]]` (an array, in that order); `similarities > value` for counting
    a rank. A numpy array is one; so is a lazily rescored index's answer."""

    def __getitem__(self, index: Any, /) -> Any: ...

    def __gt__(self, value: float, /) -> Any: ...


_NONE = np.zeros(0, dtype=np.int64)


@dataclass(slots=True)
class Context:
    """What the fusions read of one engine: the catalog, its keyword index, the canonical
    values and the rerank words of each tool."""

    tools: Sequence[Tool]
    keyword: KeywordIndex
    canonical: Mapping[str, Any]
    rerank_words: list[frozenset[str]]
    """The rerank fields' words, lower-cased (canonical)."""
    stemmed_words: Callable[[], list[frozenset[str]]]
    """The rerank fields' words as the English analyzer makes them (weighted; made once)."""
    names: list[str] = field(init=False)
    categories: list[str] = field(init=False)
    _holders: dict[str, np.ndarray] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.names = [tool.tool_name for tool in self.tools]
        self.categories = [tool.category for tool in self.tools]

    def holders(self, term: str) -> np.ndarray:
        """The tools (catalog positions, ascending) whose `stemmed_words` hold `term`: one
        lookup per query word, where reading each candidate's words one by one costs a cache
        miss or more per candidate (made once)."""
        if self._holders is None:
            found: dict[str, list[int]] = {}
            for index, words in enumerate(self.stemmed_words()):
                for word in words:
                    found.setdefault(word, []).append(index)
            self._holders = {w: np.asarray(t, dtype=np.int64) for w, t in found.items()}
        return self._holders.get(term, _NONE)


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
    found = []
    for term in terms:
        if term not in outside_paths:
            note = "in a URL or path"
        elif term not in outside_requests:
            note = "a request phrase"
        elif term.isdigit():
            note = "a number"
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
    """The weighted fusion's keyword signal of one query over the whole catalog."""

    terms: list[QueryTerm]
    stats: list[TermScores]
    weights: list[float]
    """Per term: IDF over the catalog times its factor (0.0 when no tool holds it)."""
    mass: float
    """The sum of the `KEYWORD_WORDS` largest weights, a word no tool holds counted `UNHELD`
    (0.0: no word of the query is held)."""
    totals: np.ndarray
    """Per tool: Σ weight · match / mass, before the cap at 1."""

    @classmethod
    def of(cls, ctx: Context, query: str, boosts: Mapping[str, float]) -> KeywordEvidence:
        terms = query_terms(query)
        tools = len(ctx.tools)
        stats = [ctx.keyword.term_scores(t.term, boosts) for t in terms]
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
        mass = sum(sorted(counted, reverse=True)[:KEYWORD_WORDS]) if any(weights) else 0.0
        totals = np.zeros(tools, dtype=np.float64)
        if mass > 0:
            for weight, scores in zip(weights, stats, strict=True):
                if weight > 0:
                    totals[scores.tools] += scores.scores * (weight / scores.best / mass)
        return cls(terms, stats, weights, mass, totals)

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

    def parts(self, tools: list[int]) -> list[list[tuple[int, float, float]]]:
        """Per tool: (term position, weight · match / mass, BM25) of each term it holds."""
        found: list[list[tuple[int, float, float]]] = [[] for _ in tools]
        for position, holds, bm25 in self.held(np.asarray(tools, dtype=np.int64)):
            weight, best = self.weights[position], self.stats[position].best
            for slot in np.flatnonzero(holds).tolist():
                value = float(bm25[slot])
                found[slot].append((position, weight * value / best / self.mass, value))
        return found


@dataclass(slots=True)
class Candidates:
    """What the keyword side proposes: its list (the tools Tantivy or the evidence ranks
    highest), and for the weighted fusion the evidence of every tool."""

    hits: list[KeywordHit]
    evidence: KeywordEvidence | None = None


class Fuser(Protocol):
    name: Fusion

    def keyword(
        self, ctx: Context, query: str, boosts: Mapping[str, float], limit: int
    ) -> Candidates: ...

    def fuse(
        self,
        ctx: Context,
        query: str,
        keyword: Candidates,
        vector_hits: list[tuple[int, float]],
        similarities: Similarities | None,
        strategy: str,
        category: str | None,
        file_discovery: bool,
        settings: SearchSettings,
    ) -> tuple[list[ToolHit], list[int]]:
        """The ranked hits (the top `settings.k`, explained) and their catalog positions."""
        ...

    def formula(self, settings: SearchSettings) -> str: ...


def _limited(scored: list[tuple[float, str, int]], limit: int) -> int:
    """How many of the sorted candidates to build hits for: `limit`, and any tied with the
    last of them (so that the tie can be reported)."""
    cut = min(limit, len(scored))
    while 0 < cut < len(scored) and scored[cut][0] == scored[cut - 1][0]:
        cut += 1
    return cut


def _vector_ranks(
    sims: Similarities | None, indices: list[int], vector_hits: list[tuple[int, float]]
) -> dict[int, int]:
    """Each tool's rank among all cosine similarities (those outside the vector list
    counted one by one)."""
    if sims is None:
        return {}
    ranks = {index: rank for rank, (index, _) in enumerate(vector_hits, start=1)}
    for index in indices:
        if index not in ranks:
            ranks[index] = int(np.count_nonzero(sims > sims[index])) + 1
    return ranks


def mark_ties(hits: list[ToolHit]) -> None:
    by_score: dict[float, list[ToolHit]] = {}
    for hit in hits:
        by_score.setdefault(round(hit.score, 12), []).append(hit)
    for group in by_score.values():
        if len(group) > 1:
            names = [h.tool_name for h in group]
            for hit in group:
                hit.tied_with = [n for n in names if n != hit.tool_name]


_MARGIN = 1e-9
"""How far below the k-th best score (computed over arrays) a candidate is still scored one by
one: rounding to 12 places, or adding in another order, moves a score far less."""


def _contenders(
    ctx: Context,
    candidates: list[int],
    evidence: KeywordEvidence | None,
    cosines: list[float],
    term_set: frozenset[str],
    words: list[frozenset[str]],
    settings: SearchSettings,
    weight_k: float,
    weight_v: float,
    most: int,
    file_boost: float,
    vector: bool,
) -> list[int]:
    """The candidates (their positions in `candidates`, in order) that may be among the top
    `k` hits or tied with the last of them: every candidate's score computed over arrays, those
    within `_MARGIN` of the k-th best kept, to be scored and explained one by one. The others
    score below every kept one, rounded or not."""
    count, limit = len(candidates), settings.k
    if count <= limit:
        return list(range(count))
    final = np.zeros(count, dtype=np.float64)
    if evidence is not None:
        raw = np.zeros(count, dtype=np.float64)
        values = []
        for position, _, bm25 in evidence.held(np.asarray(candidates, dtype=np.int64)):
            value = evidence.weights[position] * bm25 / evidence.stats[position].best
            value /= evidence.mass
            raw += value
            values.append(value)
        scale = np.full(count, weight_k, dtype=np.float64)
        over = raw > 1
        scale[over] = weight_k / raw[over]
        for value in values:
            final += value * scale
    if vector:
        cosine = np.asarray(cosines, dtype=np.float64)
        final += weight_v * np.where(cosine > 0.0, cosine, 0.0)
    wanted = np.asarray(candidates, dtype=np.int64)
    held = np.zeros(count, dtype=np.int64)  # how many query terms each candidate's words hold
    for term in term_set:
        holders = ctx.holders(term)
        if len(holders):
            spots = np.minimum(np.searchsorted(holders, wanted), len(holders) - 1)
            held += holders[spots] == wanted
    final += WEIGHTED_ALIGNMENT * np.minimum(held, most).astype(np.float64)
    if file_boost:
        categories = ctx.categories
        final += np.asarray(
            [file_boost if categories[i] == "file_discovery" else 0.0 for i in candidates]
        )
    if not np.isfinite(final).all():
        return list(range(count))
    kth = np.partition(final, count - limit)[count - limit]
    return np.flatnonzero(final >= kth - _MARGIN).tolist()


class WeightedFusion:
    name: Fusion = "weighted"

    def keyword(
        self, ctx: Context, query: str, boosts: Mapping[str, float], limit: int
    ) -> Candidates:
        evidence = KeywordEvidence.of(ctx, query, boosts)
        ranked = evidence.ranked(max(1, limit))
        # each tool's BM25 summed over the terms it holds, in term order (as `sum` adds them)
        total = np.zeros(len(ranked), dtype=np.float64)
        holds_any = np.zeros(len(ranked), dtype=bool)
        for _, holds, bm25 in evidence.held(np.asarray(ranked, dtype=np.int64)):
            total += bm25
            holds_any |= holds
        hits = [
            KeywordHit(index, score if held else 0, rank, {}, {})
            for rank, (index, score, held) in enumerate(
                zip(ranked, total.tolist(), holds_any.tolist(), strict=True), start=1
            )
        ]
        return Candidates(hits, evidence)

    def fuse(
        self,
        ctx: Context,
        query: str,
        keyword: Candidates,
        vector_hits: list[tuple[int, float]],
        similarities: Similarities | None,
        strategy: str,
        category: str | None,
        file_discovery: bool,
        settings: SearchSettings,
    ) -> tuple[list[ToolHit], list[int]]:
        """Every candidate of either list scored on both signals (its cosine and its keyword
        evidence are known even when it was not in that list), the boosts on the same scale."""
        evidence = keyword.evidence if strategy != "semantic" else None
        both = strategy == "hybrid"
        weight_k = settings.keyword_weight if both else 1.0
        weight_v = settings.vector_weight if both else 1.0
        sims = similarities if strategy != "exact" else None
        terms = evidence.terms if evidence is not None else query_terms(query)
        term_set = frozenset(t.term for t in terms)
        most = ctx.canonical["intent"]["rerank"]["metadata_alignment_max_terms"]
        file_boost = WEIGHTED_FILE_DISCOVERY if file_discovery else 0.0
        words = ctx.stemmed_words()
        categories = ctx.categories
        proposed = [*(h.tool_index for h in keyword.hits), *(i for i, _ in vector_hits)]
        candidates = [
            index
            for index in dict.fromkeys(proposed)
            if category is None or categories[index] == category
        ]
        cosines: list[float] = (
            np.asarray(sims[candidates], dtype=np.float64).tolist()
            if sims is not None and candidates
            else []
        )
        chosen = _contenders(
            ctx,
            candidates,
            evidence,
            cosines,
            term_set,
            words,
            settings,
            weight_k,
            weight_v,
            most,
            file_boost,
            sims is not None,
        )
        parts = (
            evidence.parts([candidates[slot] for slot in chosen])
            if evidence is not None
            else [[] for _ in chosen]
        )
        scored: list[tuple[float, str, int]] = []
        shares_of: dict[int, dict[str, float]] = {}
        term_shares: dict[int, list[tuple[int, float, float]]] = {}
        raws: dict[int, float] = {}
        for position, held in zip(chosen, parts, strict=True):
            index = candidates[position]
            shares: dict[str, float] = {}  # in this order, so that sum(shares) is `final`
            if evidence is not None:
                raw = raws[index] = sum(value for _, value, _ in held)
                scale = weight_k / raw if raw > 1 else weight_k
                split = [(term, value * scale, bm25) for term, value, bm25 in held]
                shares["keyword"] = sum(share for _, share, _ in split)
                term_shares[index] = split
            if sims is not None:
                shares["vector"] = weight_v * max(0.0, cosines[position])
            aligned = min(len(term_set & words[index]), most)
            shares["metadata_alignment_boost"] = WEIGHTED_ALIGNMENT * aligned
            on_topic = categories[index] == "file_discovery"
            shares["file_discovery_boost"] = file_boost if on_topic else 0.0
            final = 0.0
            for value in shares.values():
                final += value
            shares_of[index] = shares
            scored.append((-round(final, 12), ctx.names[index], index))
        scored.sort()
        cut = _limited(scored, settings.k)
        top = [index for _, _, index in scored[:cut]]
        ranks = _vector_ranks(sims, top, vector_hits)
        listed = {h.tool_index: h.rank for h in keyword.hits}
        cosine_of = {candidates[slot]: cosines[slot] for slot in chosen} if cosines else {}
        weights = {
            name: weight
            for name, weight, used in (
                ("vector", weight_v, sims is not None),
                ("keyword", weight_k, evidence is not None),
            )
            if used
        }
        hits = []
        for rank, (negative, name, index) in enumerate(scored[:cut], start=1):
            shares = shares_of[index]
            keyword_signal = None
            if evidence is not None and term_shares[index]:
                split = term_shares[index]
                keyword_signal = KeywordSignal(
                    sum(bm25 for _, _, bm25 in split),
                    listed[index] if index in listed else evidence.rank(index),
                    {},
                    {},
                    evidence=min(1.0, raws[index]),
                    terms=[
                        KeywordTerm(
                            terms[position].word,
                            terms[position].term,
                            evidence.weights[position],
                            bm25 / evidence.stats[position].best,
                            share,
                            evidence.stats[position].count,
                            terms[position].note,
                        )
                        for position, share, bm25 in split
                    ],
                )
            signals = Signals(
                keyword_signal,
                VectorSignal(cosine_of[index], ranks[index]) if sims is not None else None,
                [],
                shares.get("keyword", 0.0) + shares.get("vector", 0.0),
                {k: v for k, v in shares.items() if k.endswith("_boost")},
                [t.word for t in terms if t.term in words[index]][:most],
                -negative,
                shares,
                "weighted",
                dict(weights),
            )
            hits.append(ToolHit(rank, name, ctx.tools[index].category, -negative, signals))
        mark_ties(hits)
        return hits[: settings.k], top[: settings.k]

    def formula(self, settings: SearchSettings) -> str:
        return (
            f"final = {settings.vector_weight:g} · cosine + {settings.keyword_weight:g} · keyword "
            f"evidence + boosts (alignment {WEIGHTED_ALIGNMENT:g} per query word in the tool's "
            "keywords, intents, description or category, at most "
            f"{canonical()['intent']['rerank']['metadata_alignment_max_terms']}; file discovery "
            f"{WEIGHTED_FILE_DISCOVERY:g}). Keyword evidence = Σ weight · match over the query's "
            f"words ÷ the weight of its {KEYWORD_WORDS} rarest words (a word no tool holds "
            f"counting {UNHELD:g}), at most 1: a word's weight "
            "is its IDF over the catalog (a word few tools hold says more), "
            f"{INCIDENTAL:g} of it when the word is only in a URL or path, a request phrase or a "
            "number (a URL or a path also counts as the word url or file); a tool's match is "
            "its BM25 for the word (field boosts included) over the best tool's."
        )


class CanonicalFusion:
    name: Fusion = "canonical"

    def keyword(
        self, ctx: Context, query: str, boosts: Mapping[str, float], limit: int
    ) -> Candidates:
        return Candidates(ctx.keyword.search(query, boosts, limit, analyzed=False))

    def fuse(
        self,
        ctx: Context,
        query: str,
        keyword: Candidates,
        vector_hits: list[tuple[int, float]],
        similarities: Similarities | None,
        strategy: str,
        category: str | None,
        file_discovery: bool,
        settings: SearchSettings,
    ) -> tuple[list[ToolHit], list[int]]:
        """Score every candidate (floats only), then build the explained hits for the top
        `k` and for any candidate tied with the last of them; with their catalog positions."""
        rrf_k, limit = settings.rrf_k, settings.k
        by_tool = {h.tool_index: h for h in keyword.hits}
        vector = {index: (rank, sim) for rank, (index, sim) in enumerate(vector_hits, start=1)}
        query_terms_ = [t for t in dict.fromkeys(tokens(query)) if t not in _STOPWORDS]
        rerank = ctx.canonical["intent"]["rerank"]
        alignment, most = rerank["metadata_alignment_boost"], rerank["metadata_alignment_max_terms"]
        file_boost = rerank["file_discovery_boost"] if file_discovery else 0.0
        query_set = frozenset(query_terms_)
        words, categories, names = ctx.rerank_words, ctx.categories, ctx.names
        scores: list[tuple[float, str, int]] = []
        for index in dict.fromkeys([*by_tool, *vector]):
            tool_category = categories[index]
            if category is not None and tool_category != category:
                continue
            fused = 1.0 / (rrf_k + by_tool[index].rank) if index in by_tool else 0.0
            if index in vector:
                fused += 1.0 / (rrf_k + vector[index][0])
            boost = alignment * min(len(query_set & words[index]), most)
            if file_boost and tool_category == "file_discovery":
                boost += file_boost
            scores.append((-round(fused + boost, 12), names[index], index))
        scores.sort()
        cut = len(scores) if limit >= len(scores) else _limited(scores, limit)
        hits = [
            self._hit(ctx, rank, index, by_tool, vector, query_terms_, rrf_k, file_boost)
            for rank, (_, _, index) in enumerate(scores[:cut], start=1)
        ]
        mark_ties(hits)
        return hits[:limit], [index for _, _, index in scores[: min(cut, limit)]]

    @staticmethod
    def _hit(
        ctx: Context,
        rank: int,
        index: int,
        keyword: dict[int, KeywordHit],
        vector: dict[int, tuple[int, float]],
        query_terms_: list[str],
        rrf_k: int,
        file_boost: float,
    ) -> ToolHit:
        tool = ctx.tools[index]
        rerank = ctx.canonical["intent"]["rerank"]
        terms: list[RrfTerm] = []
        keyword_signal = vector_signal = None
        if index in keyword:
            hit = keyword[index]
            keyword_signal = KeywordSignal(hit.score, hit.rank, hit.fields, hit.matched_terms)
            terms.append(RrfTerm("keyword", hit.rank, rrf_k, 1.0 / (rrf_k + hit.rank)))
        if index in vector:
            vector_rank, similarity = vector[index]
            vector_signal = VectorSignal(similarity, vector_rank)
            terms.append(RrfTerm("vector", vector_rank, rrf_k, 1.0 / (rrf_k + vector_rank)))
        fused = sum(t.value for t in terms)
        words = ctx.rerank_words[index]
        aligned = [t for t in query_terms_ if t in words]
        boosts = {
            "metadata_alignment_boost": rerank["metadata_alignment_boost"]
            * min(len(aligned), rerank["metadata_alignment_max_terms"]),
            "file_discovery_boost": file_boost if tool.category == "file_discovery" else 0.0,
        }
        final = fused + sum(boosts.values())
        shares = {t.source: t.value for t in terms} | boosts
        signals = Signals(
            keyword_signal, vector_signal, terms, fused, boosts, aligned, final, shares
        )
        return ToolHit(rank, tool.tool_name, tool.category, final, signals)

    def formula(self, settings: SearchSettings) -> str:
        rerank = canonical()["intent"]["rerank"]
        return (
            f"final = Σ 1/({settings.rrf_k} + rank) over the keyword list (BM25, Tantivy's "
            "default tokenizer) and the vector list (cosine), + the seed's rerank boosts "
            f"({rerank['metadata_alignment_boost']:g} per query word in the tool's keywords, "
            "intents, description or category, at most "
            f"{rerank['metadata_alignment_max_terms']}; file discovery "
            f"{rerank['file_discovery_boost']:g})."
        )


FUSERS: dict[str, Fuser] = {"weighted": WeightedFusion(), "canonical": CanonicalFusion()}
"""The fusion of each `SearchSettings.fusion`."""


def formula(settings: SearchSettings) -> str:
    """How the settings' fusion scores a tool, in words, with their numbers."""
    return FUSERS[settings.fusion].formula(settings)
