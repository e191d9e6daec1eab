"""Hybrid tool search: keyword and vector lists, reciprocal-rank fusion, intent strategies and
rerank, with every signal of every hit kept for the explanation."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Literal

import numpy as np
import platformdirs

from ._canonical import canonical, default_boosts
from ._catalog import Catalog, Tool
from ._embed import Embedder, EmbedderError, VectorIndex, default_embedder
from ._keyword import KeywordHit, KeywordIndex, tokens
from ._models import (
    KeywordSignal,
    RrfTerm,
    SearchSettings,
    SearchStrategy,
    Signals,
    ToolHit,
    ToolSearchResult,
    VectorSignal,
)

__all__ = ["MAX_QUERY_CHARS", "ToolSearch", "cache_folder"]

MAX_QUERY_CHARS = 2_000
_FILE_DISCOVERY = re.compile(
    r"\b(?:find|locate|list|search for|look for|where is|where are|which)\b[^.?!]{0,40}\b"
    r"(?:file|files|folder|folders|directory|directories|path|paths)\b"
    r"|\b(?:file|files)\s+(?:named|called|matching)\b",
    re.IGNORECASE,
)
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


def cache_folder() -> Path:
    return Path(platformdirs.user_cache_dir("routescope")) / "toolsearch"


class ToolSearch:
    """A catalog made searchable: a Tantivy index and (when a model runs here) tool vectors."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        embedder: Embedder | None = None,
        cache: Path | None = None,
        semantic: bool = True,
    ) -> None:
        folder = cache or cache_folder()
        self.catalog = catalog
        self.canonical = canonical()
        self.keyword = KeywordIndex(catalog, folder)
        self.vector: VectorIndex | None = None
        self.semantic_status = "off"
        if semantic:
            try:
                self.vector = VectorIndex(catalog, embedder or default_embedder(), folder)
                self.semantic_status = "ready"
            except EmbedderError as exc:
                self.semantic_status = f"unavailable: {exc}"
        self._names = {tool.tool_name.lower(): i for i, tool in enumerate(catalog.tools)}
        self._rerank_words = [_rerank_words(tool) for tool in catalog.tools]
        self._tool_categories = [tool.category for tool in catalog.tools]
        self._tool_names = [tool.tool_name for tool in catalog.tools]
        self._categories = frozenset(self._tool_categories)

    def default_boosts(self) -> dict[str, float]:
        return default_boosts()

    def index_of(self, tool_name: str) -> int | None:
        """The catalog position of a tool, by name (case-insensitive)."""
        return self._names.get(tool_name.lower())

    # -- strategy ------------------------------------------------------------------------
    def _named_tool(self, query: str) -> str | None:
        for word in re.findall(r"[\w.\-]+", query.lower()):
            if word.strip(".") in self._names:
                return self.catalog.tools[self._names[word.strip(".")]].tool_name
        return None

    def choose_strategy(
        self, query: str, requested: SearchStrategy
    ) -> tuple[Literal["exact", "semantic", "hybrid"], str]:
        if requested != "auto":
            strategy, reason = requested, f"{requested} requested"
        elif (named := self._named_tool(query)) is not None:
            strategy, reason = "exact", f"the prompt names the tool {named}: keyword only"
        else:
            strategy, reason = "hybrid", "default: keyword and vector fused with RRF"
        if strategy != "exact" and self.vector is None:
            return "exact", f"{reason}; vector search {self.semantic_status}: keyword only"
        return strategy, reason

    def _category_filter(self, query: str) -> tuple[str | None, str]:
        values = self.canonical["intent"]["category_filter_values"]
        match = _FILE_DISCOVERY.search(query)
        if match and "file_discovery" in values and "file_discovery" in self._categories:
            return (
                "file_discovery",
                f"file discovery intent: “{match.group()}” @{match.start()}–{match.end()}",
            )
        return None, "no file-discovery intent"

    # -- search --------------------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray | None:
        if self.vector is None:
            return None
        vector: np.ndarray = self.vector.embedder.embed([query])[0]
        return vector

    def search(
        self,
        query: str,
        settings: SearchSettings | None = None,
        query_vector: np.ndarray | None = None,
    ) -> ToolSearchResult:
        """Rank the catalog's tools for `query`. `query_vector` may be given (embedded off the
        UI thread); otherwise the query is embedded here when the strategy needs it."""
        settings = settings or SearchSettings()
        timings: dict[str, float] = {}
        cut = len(query) > MAX_QUERY_CHARS
        if cut:  # a tool router reads the request, not a whole pasted document
            query = query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0] or query[:MAX_QUERY_CHARS]
        clock = time.perf_counter_ns
        strategy, reason = self.choose_strategy(query, settings.strategy)
        category, category_reason = self._category_filter(query)
        boosts = settings.boosts or self.default_boosts()
        t0 = clock()
        keyword_hits = (
            self.keyword.search(query, boosts, settings.candidates)
            if strategy != "semantic"
            else []
        )
        t1 = clock()
        timings["keyword"] = (t1 - t0) / 1000
        vector_hits: list[tuple[int, float]] = []
        if strategy != "exact" and self.vector is not None:
            if query_vector is None:
                query_vector = self.embed_query(query)
                timings["embed"] = (clock() - t1) / 1000
            t2 = clock()
            assert query_vector is not None
            vector_hits = self.vector.search(query_vector, settings.candidates)
            timings["vector"] = (clock() - t2) / 1000
        t3 = clock()
        results = self._fuse(query, keyword_hits, vector_hits, settings.rrf_k, category, settings.k)
        timings["fusion_rerank"] = (clock() - t3) / 1000
        if settings.explain:
            t4 = clock()
            explained = {h.tool_index: h for h in keyword_hits}
            for hit in results:
                keyword_hit = explained.get(self._names[hit.tool_name.lower()])
                if keyword_hit is not None:  # fills the dicts the hit's KeywordSignal shares
                    self.keyword.explain(keyword_hit, query, boosts)
            timings["explain"] = (clock() - t4) / 1000
        gap = results[0].score - results[1].score if len(results) > 1 else None
        if cut:
            reason += f" (query cut to its first {MAX_QUERY_CHARS:,} characters)"
        return ToolSearchResult(
            query=query,
            strategy=strategy,
            strategy_reason=reason,
            category_filter=category,
            category_filter_reason=category_reason,
            results=results,
            runner_up_gap=gap,
            semantic=self.semantic_status,
            timings_us=timings,
        )

    def _fuse(
        self,
        query: str,
        keyword_hits: list[KeywordHit],
        vector_hits: list[tuple[int, float]],
        rrf_k: int,
        category: str | None,
        limit: int,
    ) -> list[ToolHit]:
        """Score every candidate (floats only), then build the explained hits for the top
        `limit` and for any candidate tied with the last of them."""
        keyword = {h.tool_index: h for h in keyword_hits}
        vector = {index: (rank, sim) for rank, (index, sim) in enumerate(vector_hits, start=1)}
        query_terms = [t for t in dict.fromkeys(tokens(query)) if t not in _STOPWORDS]
        rerank = self.canonical["intent"]["rerank"]
        alignment, most = rerank["metadata_alignment_boost"], rerank["metadata_alignment_max_terms"]
        file_boost = rerank["file_discovery_boost"] if _FILE_DISCOVERY.search(query) else 0.0
        query_set = frozenset(query_terms)
        words, categories, names = self._rerank_words, self._tool_categories, self._tool_names
        scores: list[tuple[float, str, int]] = []
        for index in dict.fromkeys([*keyword, *vector]):
            tool_category = categories[index]
            if category is not None and tool_category != category:
                continue
            fused = 1.0 / (rrf_k + keyword[index].rank) if index in keyword else 0.0
            if index in vector:
                fused += 1.0 / (rrf_k + vector[index][0])
            boost = alignment * min(len(query_set & words[index]), most)
            if file_boost and tool_category == "file_discovery":
                boost += file_boost
            scores.append((-round(fused + boost, 12), names[index], index))
        scores.sort()
        cut = len(scores) if limit >= len(scores) else limit
        while 0 < cut < len(scores) and scores[cut][0] == scores[cut - 1][0]:
            cut += 1  # keep the whole tie at the boundary, so it can be reported
        hits = [
            self._hit(rank, index, keyword, vector, query_terms, rrf_k, file_boost)
            for rank, (_, _, index) in enumerate(scores[:cut], start=1)
        ]
        _mark_ties(hits)
        return hits[:limit]

    def _hit(
        self,
        rank: int,
        index: int,
        keyword: dict[int, KeywordHit],
        vector: dict[int, tuple[int, float]],
        query_terms: list[str],
        rrf_k: int,
        file_boost: float,
    ) -> ToolHit:
        tool = self.catalog.tools[index]
        rerank = self.canonical["intent"]["rerank"]
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
        words = self._rerank_words[index]
        aligned = [t for t in query_terms if t in words]
        boosts = {
            "metadata_alignment_boost": rerank["metadata_alignment_boost"]
            * min(len(aligned), rerank["metadata_alignment_max_terms"]),
            "file_discovery_boost": file_boost if tool.category == "file_discovery" else 0.0,
        }
        final = fused + sum(boosts.values())
        signals = Signals(keyword_signal, vector_signal, terms, fused, boosts, aligned, final)
        return ToolHit(rank, tool.tool_name, tool.category, final, signals)


def _rerank_words(tool: Tool) -> frozenset[str]:
    """The words of the rerank fields, lower-cased: routing keywords, intents, description,
    category."""
    fields = [*tool.routing_keywords, *tool.intents, tool.description, tool.category]
    return frozenset(tokens(" ".join(fields)))


def _mark_ties(hits: list[ToolHit]) -> None:
    by_score: dict[float, list[ToolHit]] = {}
    for hit in hits:
        by_score.setdefault(round(hit.score, 12), []).append(hit)
    for group in by_score.values():
        if len(group) > 1:
            names = [h.tool_name for h in group]
            for hit in group:
                hit.tied_with = [n for n in names if n != hit.tool_name]
