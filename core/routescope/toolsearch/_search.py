"""Hybrid tool search: keyword and vector lists fused, intent strategies and rerank, with every
signal of every hit kept for the explanation.

Two fusions. `canonical` is the seed's pipeline exactly (`routing_search_canonical_v1`: the
default tokenizer, reciprocal-rank fusion, rerank constants). `weighted` (the default, chosen
by `make eval`) keeps each list's confidence: final = vector_weight·cosine +
keyword_weight·BM25/best BM25 (English-analyzed keywords), and its boosts are on that scale, so
no constant overrides the signals; each hit's `shares` add up to its score."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from pathlib import Path
from typing import Literal

import numpy as np
import platformdirs

from .._cache import cache_dir, discard
from .._errors import InputError
from ._canonical import canonical, default_boosts
from ._catalog import Catalog, Tool
from ._embed import (
    Embedder,
    EmbedderError,
    ProgressCallback,
    VectorIndex,
    default_embedder,
    redact_url,
)
from ._keyword import KeywordHit, KeywordIndex, analyzed_terms, stems_to_words, tokens
from ._models import (
    CALIBRATED_FIT_THRESHOLDS,
    KeywordSignal,
    RrfTerm,
    SearchSettings,
    SearchStrategy,
    Signals,
    StepResult,
    ToolHit,
    ToolSearchResult,
    VectorSignal,
)
from ._steps import split_steps

__all__ = ["MAX_QUERY_CHARS", "ToolSearch", "cache_folder"]

MAX_QUERY_CHARS = 2_000
VECTOR_RETRY_S = 60.0
"""After the tool vectors could not be built, how long searches run keyword-only before the
next attempt (a long-running GUI recovers when the endpoint comes back)."""
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


_IDENTIFIER = re.compile(r"[._\-\d]|[a-z][A-Z]")
"""A tool name no sentence uses as a plain word (`get_weather`, `fs.read`, `getWeather`):
under weighted fusion only such a name sends `auto` to keyword-only; a name like `search`
or `open` is a common word, and the hybrid search sees the name match anyway."""
_STEP_VECTORS = 64
"""Step vectors kept: typing on after "…, then" embeds only the step that changed."""
_WEIGHTED_ALIGNMENT = 0.01
"""Weighted fusion: per query term (stemmed) in the tool's keywords, intents, description or
category, at most `metadata_alignment_max_terms` of them: a tie-breaker, a tenth of a typical
gap between a right and a wrong tool's cosine."""
_WEIGHTED_FILE_DISCOVERY = 0.05


def cache_folder() -> Path:
    return Path(platformdirs.user_cache_dir("routescope")) / "toolsearch"


class ToolSearch:
    """A catalog made searchable: a Tantivy index and (when a model runs here) tool vectors.

    The tool vectors are built on the first search that needs them (`vector`, or
    `ensure_vectors()` to do it ahead, e.g. off a UI thread): an exact search never embeds
    the catalog. `progress(done, total)` hears about that build. When the catalog cannot be
    embedded, or one query cannot, the search runs keyword-only and says so
    (`ToolSearchResult.semantic`, `strategy_reason`). `cache_status` is "ok" or why a
    temporary cache folder is used; `notes` lists, one line each, what happened to the caches
    (a temporary folder, a corrupt index or vector file rebuilt).
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        embedder: Embedder | None = None,
        cache: Path | None = None,
        semantic: bool = True,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.catalog = catalog
        self.canonical = canonical()
        self.cache = cache_dir(Path(cache) if cache is not None else cache_folder())
        self.cache_status = self.cache.note or "ok"
        self.keyword = KeywordIndex(catalog, self.cache)
        self.notes: list[str] = list(self.keyword.notes)
        self.progress = progress
        self._vector: VectorIndex | None = None
        self._embedder: Embedder | None = None
        self._vector_failed_at: float | None = None
        self._vector_lock = threading.RLock()
        self.semantic_status = "off"
        if semantic:
            try:
                self._embedder = embedder or default_embedder()
                self.semantic_status = "ready"
            except EmbedderError as exc:
                self.semantic_status = f"unavailable: {exc}"
        self._exact_names = {tool.tool_name: i for i, tool in enumerate(catalog.tools)}
        self._names: dict[str, int] = {}
        for i, tool in enumerate(catalog.tools):  # the first of a case-insensitive clash wins
            self._names.setdefault(tool.tool_name.lower(), i)
        self._rerank_words = [_rerank_words(tool) for tool in catalog.tools]
        self._stemmed_words: list[frozenset[str]] | None = None
        self._step_vectors: dict[str, np.ndarray] = {}
        self._step_lock = threading.Lock()
        self._tool_categories = [tool.category for tool in catalog.tools]
        self._tool_names = [tool.tool_name for tool in catalog.tools]
        self._categories = frozenset(self._tool_categories)

    # -- tool vectors, built on first need -----------------------------------------------
    @property
    def vector(self) -> VectorIndex | None:
        """The tool vectors, built (or read from the cache) on first access; None when vector
        search is off or unavailable (`semantic_status` says why)."""
        if self._vector is None and self._embedder is not None:
            return self.ensure_vectors()
        return self._vector

    @vector.setter
    def vector(self, index: VectorIndex | None) -> None:
        self._vector = index

    @property
    def vectors_pending(self) -> bool:
        """True while the tool vectors have not been built or read yet (the next non-exact
        search does it)."""
        return self._vector is None and self._embedder is not None

    def ensure_vectors(self) -> VectorIndex | None:
        """Build or read the tool vectors now (thread-safe); None when they cannot be, with
        `semantic_status` saying why (tried again after `VECTOR_RETRY_S`)."""
        with self._vector_lock:
            if self._vector is not None or self._embedder is None:
                return self._vector
            failed = self._vector_failed_at
            if failed is not None and time.monotonic() - failed < VECTOR_RETRY_S:
                return None
            try:
                index = VectorIndex(
                    self.catalog, self._embedder, self.cache, progress=self.progress
                )
            except EmbedderError as exc:
                self._vector_failed_at = time.monotonic()
                self.semantic_status = f"unavailable: {exc}"
                return None
            self.notes.extend(index.notes)
            self._vector, self._vector_failed_at = index, None
            self.semantic_status = "ready"
            return index

    def default_boosts(self) -> dict[str, float]:
        return default_boosts()

    def index_of(self, tool_name: str) -> int | None:
        """The catalog position of a tool, by name (exact, else case-insensitive)."""
        exact = self._exact_names.get(tool_name)
        return exact if exact is not None else self._names.get(tool_name.lower())

    # -- strategy ------------------------------------------------------------------------
    def _named_tool(self, query: str, identifiers_only: bool = False) -> str | None:
        for word in re.findall(r"[\w.\-]+", query.lower()):
            if word.strip(".") in self._names:
                name = self.catalog.tools[self._names[word.strip(".")]].tool_name
                if not identifiers_only or _IDENTIFIER.search(name):
                    return name
        return None

    def choose_strategy(
        self, query: str, requested: SearchStrategy, fusion: str = "canonical"
    ) -> tuple[Literal["exact", "semantic", "hybrid"], str]:
        if requested != "auto":
            strategy, reason = requested, f"{requested} requested"
        elif (named := self._named_tool(query, fusion == "weighted")) is not None:
            strategy, reason = "exact", f"the prompt names the tool {named}: keyword only"
        elif fusion == "weighted":
            strategy, reason = "hybrid", "default: keyword and vector, scores weighted"
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
        """The query vector, or None when vector search is off or the query cannot be embedded
        (the search then runs keyword-only and says why). Never raises `EmbedderError`."""
        if self.vector is None:
            return None
        vector, _ = self._query_vector(query, None)
        return vector

    def _query_vector(
        self, query: str, given: np.ndarray | None
    ) -> tuple[np.ndarray | None, str | None]:
        """A usable query vector (given or embedded now), or None and why not."""
        index = self._vector
        if index is None:
            return None, self.semantic_status
        try:
            if given is None:
                rows = index.embedder.embed([query])
                if not isinstance(rows, np.ndarray) or rows.ndim != 2 or len(rows) != 1:
                    raise EmbedderError(
                        f"embedding model {redact_url(index.embedder.model_id)} did not return "
                        "one vector for the query"
                    )
                given = rows[0]
            return index.check_query(given), None
        except EmbedderError as exc:
            width = getattr(index.embedder, "dimension", None)
            if isinstance(width, int) and width != index.width and index.path is not None:
                # the model behind the same id changed width: the cached vectors are stale
                with self._vector_lock:
                    if self._vector is index:
                        if index.path.parent == self.cache.write:
                            discard(index.path)
                        self._vector = None
                return None, f"{exc}; the tool vectors are rebuilt on the next search"
            return None, str(exc)

    def search(
        self,
        query: str,
        settings: SearchSettings | None = None,
        query_vector: np.ndarray | None = None,
    ) -> ToolSearchResult:
        """Rank the catalog's tools for `query`. `query_vector` may be given (embedded off the
        UI thread); otherwise the query is embedded here when the strategy needs it. A query
        that cannot be embedded is searched keyword-only, and the result says why."""
        if not isinstance(query, str):
            raise InputError(f"a search query is text, not {type(query).__name__}")
        settings = settings or SearchSettings()
        if not isinstance(settings, SearchSettings):
            raise InputError(f"settings must be SearchSettings, not {type(settings).__name__}")
        timings: dict[str, float] = {}
        cut = len(query) > MAX_QUERY_CHARS
        if cut:  # a tool router reads the request, not a whole pasted document
            query = query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0] or query[:MAX_QUERY_CHARS]
        clock = time.perf_counter_ns
        weighted = settings.fusion == "weighted"
        strategy, reason = self.choose_strategy(query, settings.strategy, settings.fusion)
        semantic = self.semantic_status
        category, category_reason = self._category_filter(query)
        boosts = settings.boosts or self.default_boosts()
        t0 = clock()
        keyword_hits = (
            self.keyword.search(query, boosts, settings.candidates, analyzed=weighted)
            if strategy != "semantic"
            else []
        )
        t1 = clock()
        timings["keyword"] = (t1 - t0) / 1000
        vector_hits: list[tuple[int, float]] = []
        similarities: np.ndarray | None = None
        index = self._vector
        if strategy != "exact" and index is not None:
            vector, problem = self._query_vector(query, query_vector)
            if query_vector is None:
                timings["embed"] = (clock() - t1) / 1000
            if vector is None:
                reason += f"; the query could not be embedded ({problem}): keyword only"
                semantic = f"unavailable for this search: {problem}"
                if strategy == "semantic":
                    t0 = clock()
                    keyword_hits = self.keyword.search(
                        query, boosts, settings.candidates, analyzed=weighted
                    )
                    timings["keyword"] += (clock() - t0) / 1000
                strategy = "exact"
            else:
                t2 = clock()
                similarities = index.similarities(vector)
                vector_hits = index.search(vector, settings.candidates, similarities)
                timings["vector"] = (clock() - t2) / 1000
        t3 = clock()
        if weighted:
            results, indices = self._fuse_weighted(
                query, keyword_hits, vector_hits, similarities, strategy, category, settings
            )
        else:
            results, indices = self._fuse(
                query, keyword_hits, vector_hits, settings.rrf_k, category, settings.k
            )
        timings["fusion_rerank"] = (clock() - t3) / 1000
        if settings.explain:
            t4 = clock()
            explained = {h.tool_index: h for h in keyword_hits}
            for tool_index in indices:
                keyword_hit = explained.get(tool_index)
                if keyword_hit is not None:  # fills the dicts the hit's KeywordSignal shares
                    self.keyword.explain(keyword_hit, query, boosts, analyzed=weighted)
            timings["explain"] = (clock() - t4) / 1000
        gap = results[0].score - results[1].score if len(results) > 1 else None
        if cut:
            reason += f" (query cut to its first {MAX_QUERY_CHARS:,} characters)"
        steps: list[StepResult] = []
        if settings.split_steps:
            t5 = clock()
            steps = self._search_steps(query, settings)
            timings["steps"] = (clock() - t5) / 1000
        threshold = settings.fit_threshold
        calibrated = threshold is None
        if threshold is None:
            threshold = CALIBRATED_FIT_THRESHOLDS[settings.fusion]
        fits, fit_reason = _fit(results, threshold, calibrated)
        return ToolSearchResult(
            query=query,
            strategy=strategy,
            strategy_reason=reason,
            category_filter=category,
            category_filter_reason=category_reason,
            results=results,
            runner_up_gap=gap,
            semantic=semantic,
            timings_us=timings,
            fusion=settings.fusion,
            fits=fits,
            fit_reason=fit_reason,
            fit_threshold=threshold,
            steps=steps,
        )

    def explain_hit(
        self, result: ToolSearchResult, hit: ToolHit, settings: SearchSettings | None = None
    ) -> None:
        """Fill a hit's per-field keyword contributions and matched words, for a search run
        with `explain=False`: a view explains a row when it is shown or asked for. `settings`:
        those of the search (their boosts); a hit explained already is left as it is."""
        signal = hit.signals.keyword
        index = self.index_of(hit.tool_name)
        if signal is None or signal.fields or index is None:
            return
        settings = settings or SearchSettings(fusion=result.fusion)
        boosts = settings.boosts or self.default_boosts()
        keyword_hit = KeywordHit(
            index,
            signal.score,
            signal.rank,
            signal.fields,
            signal.matched_terms,
            self.keyword.address_of(index),
        )
        self.keyword.explain(
            keyword_hit, result.query, boosts, analyzed=result.fusion == "weighted"
        )

    def _search_steps(self, query: str, settings: SearchSettings) -> list[StepResult]:
        """Each step of a request that needs several tools, searched alone (its vector
        embedded here, kept for the next keystroke); [] when the request is one step."""
        steps = split_steps(query)
        if len(steps) < 2:
            return []
        # a step's hits are listed by name and score; their fields are not shown
        alone = dataclasses.replace(settings, split_steps=False, explain=False)
        results = []
        for step in steps:
            found = self.search(step.text, alone, query_vector=self._step_vector(step.text))
            results.append(StepResult(step, found.results, found.fits, found.fit_reason))
        return results

    def _step_vector(self, text: str) -> np.ndarray | None:
        with self._step_lock:
            known = self._step_vectors.pop(text, None)
        if known is None:
            known = self.embed_query(text)
            if known is None:
                return None
        with self._step_lock:
            self._step_vectors[text] = known  # most recent last
            while len(self._step_vectors) > _STEP_VECTORS:
                del self._step_vectors[next(iter(self._step_vectors))]
        return known

    def _stemmed(self) -> list[frozenset[str]]:
        """The rerank fields' words as the English analyzer makes them, per tool (made once)."""
        if self._stemmed_words is None:
            self._stemmed_words = [_stemmed_rerank_words(tool) for tool in self.catalog.tools]
        return self._stemmed_words

    def _fuse_weighted(
        self,
        query: str,
        keyword_hits: list[KeywordHit],
        vector_hits: list[tuple[int, float]],
        similarities: np.ndarray | None,
        strategy: str,
        category: str | None,
        settings: SearchSettings,
    ) -> tuple[list[ToolHit], list[int]]:
        """Weighted fusion: every candidate of either list scored on both signals (its cosine
        is known even when it was not in the vector list), the boosts on the same scale. The
        candidates are scored with plain numbers; the shares are kept for the hits returned."""
        keyword = {h.tool_index: h for h in keyword_hits}
        best_keyword = keyword_hits[0].score if keyword_hits else 0.0
        both = strategy == "hybrid"
        weight_k = settings.keyword_weight if both else 1.0
        weight_v = settings.vector_weight if both else 1.0
        uses_keyword = strategy != "semantic" and best_keyword > 0
        sims = similarities if strategy != "exact" else None
        terms = list(dict.fromkeys(analyzed_terms(query)))
        term_set = frozenset(terms)
        most = self.canonical["intent"]["rerank"]["metadata_alignment_max_terms"]
        file_boost = _WEIGHTED_FILE_DISCOVERY if _FILE_DISCOVERY.search(query) else 0.0
        words = self._stemmed()
        tools = self.catalog.tools

        def shares_of(index: int) -> dict[str, float]:
            shares: dict[str, float] = {}  # in this order, so that sum(shares) is `final`
            if uses_keyword:
                hit = keyword.get(index)
                shares["keyword"] = weight_k * (hit.score / best_keyword if hit else 0.0)
            if sims is not None:
                shares["vector"] = weight_v * max(0.0, float(sims[index]))
            aligned = min(len(term_set & words[index]), most)
            shares["metadata_alignment_boost"] = _WEIGHTED_ALIGNMENT * aligned
            on_topic = tools[index].category == "file_discovery"
            shares["file_discovery_boost"] = file_boost if on_topic else 0.0
            return shares

        candidates = [
            index
            for index in dict.fromkeys([*keyword, *(i for i, _ in vector_hits)])
            if category is None or tools[index].category == category
        ]
        cosines = sims[candidates].tolist() if sims is not None else [0.0] * len(candidates)
        scored: list[tuple[float, str, int]] = []
        for index, cosine in zip(candidates, cosines, strict=True):
            # the sum of `shares_of(index)` in its order (an absent share adds 0.0: the same)
            hit = keyword.get(index)
            final = weight_k * (hit.score / best_keyword) if uses_keyword and hit else 0.0
            final += weight_v * max(0.0, cosine) if sims is not None else 0.0
            final += _WEIGHTED_ALIGNMENT * min(len(term_set & words[index]), most)
            final += file_boost if tools[index].category == "file_discovery" else 0.0
            scored.append((-round(final, 12), tools[index].tool_name, index))
        scored.sort()
        limit = settings.k
        cut = min(limit, len(scored))
        while 0 < cut < len(scored) and scored[cut][0] == scored[cut - 1][0]:
            cut += 1
        top = [index for _, _, index in scored[:cut]]
        ranks = self._vector_ranks(sims, top, vector_hits)
        words_of = stems_to_words(query) if top else {}
        hits = []
        for rank, (negative, name, index) in enumerate(scored[:cut], start=1):
            shares = shares_of(index)
            hit = keyword.get(index)
            signals = Signals(
                KeywordSignal(hit.score, hit.rank, hit.fields, hit.matched_terms) if hit else None,
                VectorSignal(float(sims[index]), ranks[index]) if sims is not None else None,
                [],
                shares.get("keyword", 0.0) + shares.get("vector", 0.0),
                {k: v for k, v in shares.items() if k.endswith("_boost")},
                [words_of.get(t, t) for t in terms if t in words[index]][:most],
                -negative,
                shares,
                "weighted",
            )
            hits.append(ToolHit(rank, name, tools[index].category, -negative, signals))
        _mark_ties(hits)
        return hits[:limit], top[:limit]

    @staticmethod
    def _vector_ranks(
        sims: np.ndarray | None, indices: list[int], vector_hits: list[tuple[int, float]]
    ) -> dict[int, int]:
        """Each tool's rank among all cosine similarities (those outside the vector list
        counted in one pass)."""
        if sims is None:
            return {}
        ranks = {index: rank for rank, (index, _) in enumerate(vector_hits, start=1)}
        missing = [index for index in indices if index not in ranks]
        for index in missing:
            ranks[index] = int(np.count_nonzero(sims > sims[index])) + 1
        return ranks

    def _fuse(
        self,
        query: str,
        keyword_hits: list[KeywordHit],
        vector_hits: list[tuple[int, float]],
        rrf_k: int,
        category: str | None,
        limit: int,
    ) -> tuple[list[ToolHit], list[int]]:
        """Score every candidate (floats only), then build the explained hits for the top
        `limit` and for any candidate tied with the last of them; with their catalog
        positions."""
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
        return hits[:limit], [index for _, _, index in scores[: min(cut, limit)]]

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
        shares = {t.source: t.value for t in terms} | boosts
        signals = Signals(
            keyword_signal, vector_signal, terms, fused, boosts, aligned, final, shares
        )
        return ToolHit(rank, tool.tool_name, tool.category, final, signals)


def _rerank_words(tool: Tool) -> frozenset[str]:
    """The words of the rerank fields, lower-cased: routing keywords, intents, description,
    category."""
    fields = [*tool.routing_keywords, *tool.intents, tool.description, tool.category]
    return frozenset(tokens(" ".join(fields)))


def _stemmed_rerank_words(tool: Tool) -> frozenset[str]:
    fields = [*tool.routing_keywords, *tool.intents, tool.description, tool.category]
    return frozenset(analyzed_terms(" ".join(fields)))


def _fit(results: list[ToolHit], threshold: float, calibrated: bool) -> tuple[bool, str]:
    """Whether the best hit fits: its score against the threshold, said with both numbers."""
    if not results:
        return False, "no tool matched at all"
    best = results[0].score
    if threshold <= 0:
        return True, f"best score {best:.3f}; fit threshold off"
    which = "calibrated fit threshold" if calibrated else "fit threshold"
    if best >= threshold:
        return True, f"best score {best:.3f} ≥ {which} {threshold:.3f}"
    return False, f"no tool fits: best score {best:.3f} < {which} {threshold:.3f}"


def _mark_ties(hits: list[ToolHit]) -> None:
    by_score: dict[float, list[ToolHit]] = {}
    for hit in hits:
        by_score.setdefault(round(hit.score, 12), []).append(hit)
    for group in by_score.values():
        if len(group) > 1:
            names = [h.tool_name for h in group]
            for hit in group:
                hit.tied_with = [n for n in names if n != hit.tool_name]
