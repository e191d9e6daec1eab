"""Hybrid tool search: keyword and vector lists, reciprocal-rank fusion, intent strategies and
rerank, with every signal of every hit kept for the explanation."""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import platformdirs

from ._catalog import Catalog, Tool
from ._embed import Embedder, EmbedderError, VectorIndex, default_embedder
from ._keyword import KeywordHit, KeywordIndex, canonical, tokens

__all__ = [
    "KeywordSignal",
    "RrfTerm",
    "SearchSettings",
    "Signals",
    "ToolHit",
    "ToolSearch",
    "ToolSearchResult",
    "VectorSignal",
    "WhyNot",
    "why_not",
]

Strategy = Literal["auto", "exact", "semantic", "hybrid"]
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


@dataclass(slots=True)
class KeywordSignal:
    score: float
    """Tantivy BM25 with the field boosts."""
    rank: int
    fields: dict[str, float]
    """Per-field contributions (filled for the results returned)."""
    matched_terms: dict[str, list[str]]


@dataclass(slots=True)
class VectorSignal:
    similarity: float
    """Cosine similarity of the query and the tool's canonical template."""
    rank: int


@dataclass(slots=True)
class RrfTerm:
    source: Literal["keyword", "vector"]
    rank: int
    k: int
    value: float
    """1 / (k + rank)."""


@dataclass(slots=True)
class Signals:
    keyword: KeywordSignal | None
    vector: VectorSignal | None
    rrf: list[RrfTerm]
    fused: float
    boosts: dict[str, float]
    boost_terms: list[str]
    """Query terms found in the tool's routing keywords, intents, description or category."""
    final: float


@dataclass(slots=True)
class ToolHit:
    rank: int
    tool_name: str
    category: str
    score: float
    signals: Signals
    tied_with: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ToolSearchResult:
    query: str
    strategy: Literal["exact", "semantic", "hybrid"]
    strategy_reason: str
    category_filter: str | None
    category_filter_reason: str
    results: list[ToolHit]
    runner_up_gap: float | None
    semantic: str
    """"ready" or why vector search is off (then the search is keyword-only and says so)."""
    timings_us: dict[str, float]


@dataclass(slots=True)
class SearchSettings:
    strategy: Strategy = "auto"
    k: int = 10
    rrf_k: int = 60
    candidates: int = 20
    """How many tools each list (keyword, vector) contributes to the fusion."""
    boosts: dict[str, float] | None = None
    """Field boosts; None means the canonical ones (tool_name 5, intents 4, keywords 3,
    description 1)."""
    explain: bool = True
    """Fill each returned hit's per-field contributions from Tantivy's explanation."""


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
        started = time.perf_counter()
        self.keyword = KeywordIndex(catalog, folder)
        self.build_seconds = {"keyword": time.perf_counter() - started}
        self.vector: VectorIndex | None = None
        self.semantic_status = "off"
        if semantic:
            started = time.perf_counter()
            try:
                self.vector = VectorIndex(catalog, embedder or default_embedder(), folder)
                self.semantic_status = "ready"
            except EmbedderError as exc:
                self.semantic_status = f"unavailable: {exc}"
            self.build_seconds["vector"] = time.perf_counter() - started
        self._names = {tool.tool_name.lower(): i for i, tool in enumerate(catalog.tools)}
        self._rerank_words = [_rerank_words(tool) for tool in catalog.tools]
        self._tool_categories = [tool.category for tool in catalog.tools]
        self._tool_names = [tool.tool_name for tool in catalog.tools]
        self._categories = frozenset(self._tool_categories)

    def default_boosts(self) -> dict[str, float]:
        fields = self.canonical["keyword"]["fields"]
        return {f["name"]: float(f["boost"]) for f in fields if f["in_query_parser"]}

    # -- strategy ------------------------------------------------------------------------
    def _named_tool(self, query: str) -> str | None:
        for word in re.findall(r"[\w.\-]+", query.lower()):
            if word.strip(".") in self._names:
                return self.catalog.tools[self._names[word.strip(".")]].tool_name
        return None

    def choose_strategy(self, query: str, requested: Strategy) -> tuple[str, str]:
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
            strategy=strategy,  # type: ignore[arg-type]
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


@dataclass(slots=True)
class WhyNot:
    """Where one tool stands in each list for a query, and why it is not higher."""

    tool_name: str
    keyword_rank: int | None
    keyword_score: float | None
    vector_rank: int | None
    similarity: float | None
    final_rank: int | None
    reason: str


def why_not(
    search: ToolSearch,
    query: str,
    tool_name: str,
    settings: SearchSettings,
    query_vector: np.ndarray | None = None,
) -> WhyNot:
    """Rank one tool in the full keyword list, the full vector list and the fused list."""
    index = search._names.get(tool_name.lower())
    if index is None:
        return WhyNot(tool_name, None, None, None, None, None, "not in the catalog")
    boosts = settings.boosts or search.default_boosts()
    everything = len(search.catalog.tools)
    keyword = {h.tool_index: h for h in search.keyword.search(query, boosts, everything)}
    keyword_rank = keyword[index].rank if index in keyword else None
    keyword_score = keyword[index].score if index in keyword else None
    vector_rank = similarity = None
    if search.vector is not None and query_vector is not None:
        scores = search.vector.matrix @ query_vector
        similarity = float(scores[index])
        vector_rank = int((scores > scores[index]).sum()) + 1
    every = dataclasses.replace(settings, k=everything, explain=False)
    full = search.search(query, every, query_vector=query_vector)
    final_rank = next((h.rank for h in full.results if h.tool_name == tool_name), None)
    reasons = []
    if keyword_rank is None:
        reasons.append("no query term is in its indexed fields")
    elif keyword_rank > settings.candidates:
        reasons.append(f"keyword rank {keyword_rank} is outside the top {settings.candidates}")
    if vector_rank is not None and vector_rank > settings.candidates:
        reasons.append(f"vector rank {vector_rank} is outside the top {settings.candidates}")
    if full.category_filter and search.catalog.tools[index].category != full.category_filter:
        reasons.append(f"the {full.category_filter} filter excludes its category")
    if final_rank is not None and not reasons:
        reasons.append(f"fused rank {final_rank}: other tools have higher RRF + boosts")
    return WhyNot(
        tool_name,
        keyword_rank,
        keyword_score,
        vector_rank,
        similarity,
        final_rank,
        "; ".join(reasons) or "not ranked",
    )


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
