"""The canonical fusion: the seed's pipeline exactly (`routing_search_canonical_v1`): Tantivy's
default tokenizer, reciprocal-rank fusion at k, the seed's rerank constants."""

from __future__ import annotations

from collections.abc import Mapping

from ._canonical import canonical
from ._context import Context
from ._fuser import Candidates, FusionInput, limited, mark_ties
from ._keyword import KeywordHit, tokens
from ._models import Fusion, KeywordSignal, RrfTerm, SearchSettings, Signals, ToolHit, VectorSignal

__all__ = ["CanonicalFusion"]

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


class CanonicalFusion:
    name: Fusion = "canonical"
    analyzed = False
    hybrid_reason = "keyword and vector fused with RRF"
    hybrid_finds_names = False
    fused_by = "RRF"
    multi_need_merge = False

    def keyword(
        self, ctx: Context, query: str, boosts: Mapping[str, float], limit: int
    ) -> Candidates:
        return Candidates(ctx.keyword.search(query, boosts, limit, analyzed=False))

    def fuse(self, ctx: Context, given: FusionInput) -> tuple[list[ToolHit], list[int]]:
        """Score every candidate (floats only), then build the explained hits for the top
        `k` and for any candidate tied with the last of them; with their catalog positions."""
        rrf_k, limit, category = given.settings.rrf_k, given.settings.k, given.category
        by_tool = {h.tool_index: h for h in given.keyword.hits}
        vector = {i: (rank, sim) for rank, (i, sim) in enumerate(given.vector_hits, start=1)}
        query_terms_ = [t for t in dict.fromkeys(tokens(given.query)) if t not in _STOPWORDS]
        rerank = ctx.canonical["intent"]["rerank"]
        alignment, most = rerank["metadata_alignment_boost"], rerank["metadata_alignment_max_terms"]
        file_boost = rerank["file_discovery_boost"] if given.file_discovery else 0.0
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
        cut = len(scores) if limit >= len(scores) else limited(scores, limit)
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

    def standing(
        self, ctx: Context, query: str, boosts: Mapping[str, float], tool: int
    ) -> tuple[int | None, float | None]:
        """By Tantivy's BM25, the whole catalog ranked."""
        hits = ctx.keyword.search(query, boosts, max(1, len(ctx.tools)), analyzed=False)
        found = next((h for h in hits if h.tool_index == tool), None)
        return (found.rank, found.score) if found is not None else (None, None)

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
