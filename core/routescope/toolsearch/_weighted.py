"""The weighted fusion (the default, chosen by `make eval`): the signals added on one scale,

    final = vector weight · cosine + keyword weight · keyword evidence + boosts

each hit's `shares` adding up to its score. The keyword evidence is `_evidence`'s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._canonical import canonical
from ._context import Context, Similarities
from ._evidence import INCIDENTAL, KEYWORD_WORDS, UNHELD, KeywordEvidence, QueryTerm, query_terms
from ._fuser import Candidates, FusionInput, limited, mark_ties, vector_ranks
from ._keyword import KeywordHit
from ._models import (
    Fusion,
    KeywordSignal,
    KeywordTerm,
    SearchSettings,
    Signals,
    ToolHit,
    VectorSignal,
)

__all__ = ["WEIGHTED_ALIGNMENT", "WEIGHTED_FILE_DISCOVERY", "WeightedFusion"]

WEIGHTED_ALIGNMENT = 0.01
"""Weighted fusion: per query term (stemmed) in the tool's keywords, intents, description or
category, at most `metadata_alignment_max_terms` of them: a tie-breaker, a tenth of a typical
gap between a right and a wrong tool's cosine."""
WEIGHTED_FILE_DISCOVERY = 0.05
_MARGIN = 1e-9
"""How far below the k-th best score (computed over arrays) a candidate is still scored one by
one: rounding to 12 places, or adding in another order, moves a score far less."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the fusion of one query adds up: the signals the strategy uses and their weights,
    the query's terms, and the boosts."""

    evidence: KeywordEvidence | None
    """The keyword side (None: semantic)."""
    sims: Similarities | None
    """The vector side (None: exact)."""
    weight_k: float
    weight_v: float
    terms: list[QueryTerm]
    term_set: frozenset[str]
    most: int
    """The most query terms the alignment boost counts."""
    file_boost: float

    @classmethod
    def of(cls, ctx: Context, given: FusionInput) -> _Plan:
        strategy, settings = given.strategy, given.settings
        evidence = given.keyword.evidence if strategy != "semantic" else None
        both = strategy == "hybrid"  # one signal alone counts whole
        terms = evidence.terms if evidence is not None else query_terms(given.query)
        return cls(
            evidence,
            given.similarities if strategy != "exact" else None,
            settings.keyword_weight if both else 1.0,
            settings.vector_weight if both else 1.0,
            terms,
            frozenset(t.term for t in terms),
            ctx.canonical["intent"]["rerank"]["metadata_alignment_max_terms"],
            WEIGHTED_FILE_DISCOVERY if given.file_discovery else 0.0,
        )

    def weights(self) -> dict[str, float]:
        """The weight of each signal in use (vector first, as the hits list them)."""
        used = (
            ("vector", self.weight_v, self.sims is not None),
            ("keyword", self.weight_k, self.evidence is not None),
        )
        return {name: weight for name, weight, on in used if on}


@dataclass(slots=True)
class _Scored:
    """One candidate scored and explained: its shares in the order they add up to `final`."""

    shares: dict[str, float]
    split: list[tuple[int, float, float]]
    """(term position, keyword share, BM25) of each term it holds."""
    raw: float
    """Its keyword evidence before the cap at 1."""
    cosine: float
    final: float


def _candidates(ctx: Context, given: FusionInput) -> list[int]:
    """The tools either list proposes (keyword list first), once each, in the category."""
    proposed = [*(h.tool_index for h in given.keyword.hits), *(i for i, _ in given.vector_hits)]
    categories, category = ctx.categories, given.category
    return [
        index
        for index in dict.fromkeys(proposed)
        if category is None or categories[index] == category
    ]


def _keyword_part(plan: _Plan, candidates: list[int]) -> np.ndarray:
    """Each candidate's keyword share, over arrays (its evidence, at most 1, times the keyword
    weight: what `_score` adds up term by term)."""
    evidence = plan.evidence
    if evidence is None:
        return np.zeros(len(candidates), dtype=np.float64)
    raw = evidence.raw(np.asarray(candidates, dtype=np.int64))
    capped: np.ndarray = plan.weight_k * np.minimum(raw, 1.0)
    return capped


def _contenders(
    ctx: Context, plan: _Plan, candidates: list[int], cosines: list[float], limit: int
) -> list[int]:
    """The candidates (their positions in `candidates`, in order) that may be among the top
    `limit` hits or tied with the last of them: every candidate's score computed over arrays,
    those within `_MARGIN` of the k-th best kept, to be scored and explained one by one. The
    others score below every kept one, rounded or not."""
    count = len(candidates)
    if count <= limit:
        return list(range(count))
    final = _keyword_part(plan, candidates)
    if plan.sims is not None:
        cosine = np.asarray(cosines, dtype=np.float64)
        final += plan.weight_v * np.where(cosine > 0.0, cosine, 0.0)
    wanted = np.asarray(candidates, dtype=np.int64)
    held = np.zeros(count, dtype=np.int64)  # how many query terms each candidate's words hold
    for term in plan.term_set:
        holders = ctx.holders(term)
        if len(holders):
            spots = np.minimum(np.searchsorted(holders, wanted), len(holders) - 1)
            held += holders[spots] == wanted
    final += WEIGHTED_ALIGNMENT * np.minimum(held, plan.most).astype(np.float64)
    if plan.file_boost:
        categories = ctx.categories
        final += np.asarray(
            [plan.file_boost if categories[i] == "file_discovery" else 0.0 for i in candidates]
        )
    if not np.isfinite(final).all():
        return list(range(count))
    kth = np.partition(final, count - limit)[count - limit]
    return np.flatnonzero(final >= kth - _MARGIN).tolist()


def _score(
    plan: _Plan, held: list[tuple[int, float, float]], words: frozenset[str], cosine: float
) -> tuple[dict[str, float], list[tuple[int, float, float]], float]:
    """One candidate's shares (in this order, so that their sum is its score), its keyword
    share per term and its raw keyword evidence; the file boost is the caller's."""
    shares: dict[str, float] = {}
    split: list[tuple[int, float, float]] = []
    raw = 0.0
    if plan.evidence is not None:
        raw = sum(value for _, value, _ in held)
        scale = plan.weight_k / raw if raw > 1 else plan.weight_k
        split = [(term, value * scale, bm25) for term, value, bm25 in held]
        shares["keyword"] = sum(share for _, share, _ in split)
    if plan.sims is not None:
        shares["vector"] = plan.weight_v * max(0.0, cosine)
    aligned = min(len(plan.term_set & words), plan.most)
    shares["metadata_alignment_boost"] = WEIGHTED_ALIGNMENT * aligned
    return shares, split, raw


def _scored(
    ctx: Context, plan: _Plan, candidates: list[int], cosines: list[float], chosen: list[int]
) -> dict[int, _Scored]:
    """The chosen candidates (positions in `candidates`) scored one by one, by catalog
    position."""
    evidence, words = plan.evidence, ctx.stemmed_words()
    parts = (
        evidence.parts([candidates[slot] for slot in chosen])
        if evidence is not None
        else [[] for _ in chosen]
    )
    found: dict[int, _Scored] = {}
    for position, held in zip(chosen, parts, strict=True):
        index = candidates[position]
        cosine = cosines[position] if cosines else 0.0
        shares, split, raw = _score(plan, held, words[index], cosine)
        on_topic = ctx.categories[index] == "file_discovery"
        shares["file_discovery_boost"] = plan.file_boost if on_topic else 0.0
        final = 0.0
        for value in shares.values():
            final += value
        found[index] = _Scored(shares, split, raw, cosine, final)
    return found


def _keyword_signal(
    plan: _Plan, index: int, scored: _Scored, listed: dict[int, int]
) -> KeywordSignal | None:
    """The hit's keyword signal: its BM25, its rank, its evidence and the words it comes from
    (None when it holds no query word)."""
    evidence, terms = plan.evidence, plan.terms
    if evidence is None or not scored.split:
        return None
    siblings = [evidence.sibling_factor(position, index) for position, _, _ in scored.split]
    return KeywordSignal(  # Tantivy's BM25 as it gave it: before the siblings' factor
        sum(bm25 / f for (_, _, bm25), f in zip(scored.split, siblings, strict=True)),
        listed[index] if index in listed else evidence.rank(index),
        {},
        {},
        evidence=min(1.0, scored.raw),
        terms=[
            KeywordTerm(
                terms[position].word,
                terms[position].term,
                evidence.weights[position],
                bm25 / evidence.stats[position].best,
                share,
                evidence.stats[position].count,
                terms[position].note,
                factor,
            )
            for (position, share, bm25), factor in zip(scored.split, siblings, strict=True)
        ],
    )


class WeightedFusion:
    name: Fusion = "weighted"
    analyzed = True
    hybrid_reason = "keyword and vector, scores weighted"
    hybrid_finds_names = True
    fused_by = "weighted cosine and keyword evidence"
    multi_need_merge = True

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

    def fuse(self, ctx: Context, given: FusionInput) -> tuple[list[ToolHit], list[int]]:
        """Every candidate of either list scored on both signals (its cosine and its keyword
        evidence are known even when it was not in that list), the boosts on the same scale."""
        plan, limit = _Plan.of(ctx, given), given.settings.k
        candidates = _candidates(ctx, given)
        cosines: list[float] = (
            np.asarray(plan.sims[candidates], dtype=np.float64).tolist()
            if plan.sims is not None and candidates
            else []
        )
        chosen = _contenders(ctx, plan, candidates, cosines, limit)
        scored = _scored(ctx, plan, candidates, cosines, chosen)
        order = sorted((-round(s.final, 12), ctx.names[i], i) for i, s in scored.items())
        cut = limited(order, limit)
        top = [index for _, _, index in order[:cut]]
        hits = self._hits(ctx, plan, given, scored, top)
        mark_ties(hits)
        return hits[:limit], top[:limit]

    @staticmethod
    def _hits(
        ctx: Context, plan: _Plan, given: FusionInput, scored: dict[int, _Scored], top: list[int]
    ) -> list[ToolHit]:
        """The explained hits of the tools in `top`, best first."""
        ranks = vector_ranks(plan.sims, top, given.vector_hits)
        listed = {h.tool_index: h.rank for h in given.keyword.hits}
        weights, words = plan.weights(), ctx.stemmed_words()
        hits = []
        for rank, index in enumerate(top, start=1):
            done = scored[index]
            shares, score = done.shares, round(done.final, 12)  # the score the ranking sorted
            signals = Signals(
                _keyword_signal(plan, index, done, listed),
                VectorSignal(done.cosine, ranks[index]) if plan.sims is not None else None,
                [],
                shares.get("keyword", 0.0) + shares.get("vector", 0.0),
                {k: v for k, v in shares.items() if k.endswith("_boost")},
                [t.word for t in plan.terms if t.term in words[index]][: plan.most],
                score,
                shares,
                "weighted",
                dict(weights),
            )
            hits.append(ToolHit(rank, ctx.names[index], ctx.tools[index].category, score, signals))
        return hits

    def standing(
        self, ctx: Context, query: str, boosts: Mapping[str, float], tool: int
    ) -> tuple[int | None, float | None]:
        """By keyword evidence (0–1), the whole catalog ranked."""
        evidence = KeywordEvidence.of(ctx, query, boosts)
        if evidence.totals[tool] <= 0:
            return None, None
        listed = evidence.ranked(len(ctx.tools))
        return listed.index(tool) + 1, min(1.0, float(evidence.totals[tool]))

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
