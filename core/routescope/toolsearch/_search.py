"""Hybrid tool search: keyword and vector lists fused, intent strategies and rerank, with every
signal of every hit kept for the explanation.

Two fusions (`_fusion`): `canonical` is the seed's pipeline exactly (`routing_search_canonical_v1`:
the default tokenizer, reciprocal-rank fusion, rerank constants). `weighted` (the default, chosen
by `make eval`) adds the signals on one scale: final = vector_weight·cosine +
keyword_weight·keyword evidence + boosts, the evidence counting each query word by how much it
can say; each hit's `shares` add up to its score."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import platformdirs

from .._cache import cache_dir, discard
from .._errors import InputError
from ._canonical import canonical, default_boosts
from ._catalog import Catalog
from ._context import Context
from ._embed import Embedder, EmbedderError, default_embedder, redact_url
from ._fit_model import FitJudgement, fit_inputs, load_fit_model
from ._fuser import Candidates, Fuser, FusionInput
from ._fusion import FUSERS
from ._keyword import KeywordHit, KeywordIndex
from ._models import (
    CALIBRATED_FIT_THRESHOLDS,
    FIT_VECTOR_SHARE,
    FIT_WORDS,
    SearchSettings,
    SearchStrategy,
    StepResult,
    ToolHit,
    ToolSearchResult,
)
from ._step_search import StepSearch
from ._steps import merge_step_tools, split_steps
from ._strategy import Strategy, ToolNames, auto_strategy, category_filter, file_discovery
from ._vectors import ProgressCallback, VectorIndex, VectorScores

__all__ = ["MAX_QUERY_CHARS", "PREFETCH_BATCH", "QUERY_VECTORS", "ToolSearch", "cache_folder"]

MAX_QUERY_CHARS = 2_000
PREFETCH_BATCH = 64
"""Prompts embedded in one call by `ToolSearch.prefetch` (MiniLM: 3.3 ms a prompt in batches
of 64 against 4.3 ms one by one, issue 28)."""
QUERY_VECTORS = 4_096
"""Query vectors an engine keeps (prompts and steps, the most recent): a prompt seen again, or
typed on, is not embedded again (4,096 × 384 floats: 6 MB)."""
VECTOR_RETRY_S = 60.0
"""After the tool vectors could not be built, how long searches run keyword-only before the
next attempt (a long-running GUI recovers when the endpoint comes back)."""


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
        self._names = ToolNames(catalog.tools)
        self._steps = StepSearch()
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_lock = threading.Lock()
        self._categories = frozenset(tool.category for tool in catalog.tools)
        self._fusion = Context(catalog.tools, self.keyword, self.canonical)

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
        return self._names.index_of(tool_name)

    def choose_strategy(
        self, query: str, requested: SearchStrategy, fusion: str = "canonical"
    ) -> tuple[Strategy, str]:
        """The strategy of a search and why: the one requested, or what `auto` means for the
        query under the fusion; keyword only while the tool vectors cannot be had."""
        if requested != "auto":
            strategy, reason = requested, f"{requested} requested"
        else:
            strategy, reason = auto_strategy(query, self._names, FUSERS[fusion])
        if strategy != "exact" and self.vector is None:
            return "exact", f"{reason}; vector search {self.semantic_status}: keyword only"
        return strategy, reason

    # -- search --------------------------------------------------------------------------
    def embed_query(self, query: str) -> np.ndarray | None:
        """The query vector, or None when vector search is off or the query cannot be embedded
        (the search then runs keyword-only and says why). Never raises `EmbedderError`."""
        if self.vector is None:
            return None
        vector, _ = self._query_vector(query, None)
        return vector

    def prefetch(self, queries: Sequence[str]) -> int:
        """Embed many prompts ahead of their searches, in batches (`PREFETCH_BATCH`, by length:
        a batch is padded to its longest text), with the steps of those that split: their
        searches then find the vectors kept (`QUERY_VECTORS` of them, the most recent). A prompt
        seen before is not embedded again (logs repeat). Returns how many texts were embedded;
        0 when vector search is off, or when the model fails (each search then says why)."""
        index = self.vector
        if index is None:
            return 0
        wanted: dict[str, None] = {}
        for query in queries:
            if not isinstance(query, str):
                continue
            text = _cut(query)
            wanted[text] = None
            for step in split_steps(text):
                wanted[step.text] = None
        with self._query_lock:
            missing = [t for t in wanted if t not in self._query_vectors]
        missing.sort(key=len)
        done = 0
        for start in range(0, len(missing), PREFETCH_BATCH):
            texts = missing[start : start + PREFETCH_BATCH]
            try:
                rows = index.embedder.embed(texts)
                if not isinstance(rows, np.ndarray) or rows.shape[:1] != (len(texts),):
                    return done
                vectors = [index.check_query(row) for row in rows]
            except EmbedderError:
                return done
            with self._query_lock:
                for text, vector in zip(texts, vectors, strict=True):
                    self._keep_vector(text, vector)
            done += len(texts)
        return done

    def _keep_vector(self, text: str, vector: np.ndarray) -> None:
        """Keep a query's vector, most recent last (call with `_query_lock` held)."""
        self._query_vectors[text] = vector
        self._query_vectors.move_to_end(text)
        while len(self._query_vectors) > QUERY_VECTORS:
            self._query_vectors.popitem(last=False)

    def _query_vector(
        self, query: str, given: np.ndarray | None
    ) -> tuple[np.ndarray | None, str | None]:
        """A usable query vector (given, kept from before, or embedded now), or None and why
        not."""
        index = self._vector
        if index is None:
            return None, self.semantic_status
        if given is None:
            with self._query_lock:
                known = self._query_vectors.get(query)
                if known is not None:
                    self._query_vectors.move_to_end(query)
                    return known, None
        try:
            if given is None:
                rows = index.embedder.embed([query])
                if not isinstance(rows, np.ndarray) or rows.ndim != 2 or len(rows) != 1:
                    raise EmbedderError(
                        f"embedding model {redact_url(index.embedder.model_id)} did not return "
                        "one vector for the query"
                    )
                vector = index.check_query(rows[0])
                with self._query_lock:
                    self._keep_vector(query, vector)
                return vector, None
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
                with self._query_lock:
                    self._query_vectors.clear()
                return None, f"{exc}; the tool vectors are rebuilt on the next search"
            return None, str(exc)

    def search(
        self,
        query: str,
        settings: SearchSettings | None = None,
        query_vector: np.ndarray | None = None,
        *,
        fit_model: bool = True,
    ) -> ToolSearchResult:
        """Rank the catalog's tools for `query`. `query_vector` may be given (embedded off the
        UI thread); otherwise the query is embedded here when the strategy needs it. A query
        that cannot be embedded is searched keyword-only, and the result says why.
        `fit_model`: False judges "no tool fits" by the rule before the fit model (a request's
        steps are judged so: their verdicts place tools in the ranking)."""
        settings = _checked(query, settings)
        timings: dict[str, float] = {}
        cut = len(query) > MAX_QUERY_CHARS
        query = _cut(query)  # a tool router reads the request, not a whole pasted document
        clock = time.perf_counter_ns
        fuser = FUSERS[settings.fusion]
        strategy, reason = self.choose_strategy(query, settings.strategy, settings.fusion)
        semantic = self.semantic_status
        category, category_reason = category_filter(query, self.canonical, self._categories)
        boosts = settings.boosts or self.default_boosts()
        keyword, similarities, strategy, problem, vector = self._lists(
            query, settings, boosts, strategy, query_vector, timings
        )
        if problem is not None:
            reason += f"; the query could not be embedded ({problem}): keyword only"
            semantic = f"unavailable for this search: {problem}"
        vector_hits = similarities.hits if similarities is not None else []
        given = FusionInput(
            query,
            keyword,
            vector_hits,
            similarities,
            strategy,
            category,
            file_discovery(query),
            settings,
        )
        t3 = clock()
        results, indices = fuser.fuse(self._fusion, given)
        timings["fusion_rerank"] = (clock() - t3) / 1000
        if settings.explain:
            t4 = clock()
            self._explain(query, results, indices, boosts, fuser)
            timings["explain"] = (clock() - t4) / 1000
        if cut:
            reason += f" (query cut to its first {MAX_QUERY_CHARS:,} characters)"
        steps: list[StepResult] = []
        if settings.split_steps:
            t5 = clock()
            steps = self._steps.run(query, settings, self.embed_query, self._step_search)
            timings["steps"] = (clock() - t5) / 1000
        threshold = settings.fit_threshold
        calibrated = threshold is None
        if threshold is None:
            threshold = CALIBRATED_FIT_THRESHOLDS[settings.fusion]
        judged: list[FitJudgement] = []

        def judge() -> FitJudgement | None:  # only for what the rule accepts: it only refuses
            if not fit_model or settings.fusion != "weighted":
                return None
            found = self._judge(query, results, similarities, vector, keyword)
            judged.extend([found] if found is not None else [])
            return found

        fits, fit_reason, corroborated = _fit(
            results, threshold, calibrated, settings.fusion, judge
        )
        whole = [(hit.tool_name, hit.score) for hit in results] if steps else []
        gap = results[0].score - results[1].score if len(results) > 1 else None
        results, merge = merge_step_tools(results, steps, settings.k, fuser.multi_need_merge)
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
            fit_corroboration=corroborated,
            fit_model=judged[0].as_json() if judged else {},
            steps=steps,
            with_steps=[hit.tool_name for hit in results],
            whole_request=whole,
            merge=merge,
            formula=fuser.formula(settings),
        )

    def _lists(
        self,
        query: str,
        settings: SearchSettings,
        boosts: Mapping[str, float],
        strategy: Strategy,
        query_vector: np.ndarray | None,
        timings: dict[str, float],
    ) -> tuple[Candidates, VectorScores | None, Strategy, str | None, np.ndarray | None]:
        """The keyword side's candidates and the vector side's scores (None: not used), the
        strategy that ran, why the query could not be embedded (None: it was, or it did not
        need to be), and its vector. The time each side took goes into `timings`."""
        fuser = FUSERS[settings.fusion]
        clock = time.perf_counter_ns
        t0 = clock()
        keyword = (
            fuser.keyword(self._fusion, query, boosts, settings.candidates)
            if strategy != "semantic"
            else Candidates([])
        )
        t1 = clock()
        timings["keyword"] = (t1 - t0) / 1000
        index = self._vector
        if strategy == "exact" or index is None:
            return keyword, None, strategy, None, None
        vector, problem = self._query_vector(query, query_vector)
        if query_vector is None:
            timings["embed"] = (clock() - t1) / 1000
        if vector is None:
            if strategy == "semantic":  # keyword only after all: the keyword side is needed
                t0 = clock()
                keyword = fuser.keyword(self._fusion, query, boosts, settings.candidates)
                timings["keyword"] += (clock() - t0) / 1000
            return keyword, None, "exact", problem, None
        t2 = clock()
        similarities = index.query(vector, settings.candidates)
        timings["vector"] = (clock() - t2) / 1000
        return keyword, similarities, strategy, None, vector

    def _step_search(
        self, query: str, settings: SearchSettings, vector: np.ndarray | None
    ) -> ToolSearchResult:
        """A step searched alone, judged by the rule before the fit model."""
        return self.search(query, settings, vector, fit_model=False)

    def _judge(
        self,
        query: str,
        results: list[ToolHit],
        similarities: VectorScores | None,
        vector: np.ndarray | None,
        keyword: Candidates,
    ) -> FitJudgement | None:
        """The fit model's verdict on the whole request's ranking (None: no model for this
        embedding model, no vector, nothing ranked)."""
        index = self._vector
        if not results or similarities is None or vector is None or index is None:
            return None
        model = load_fit_model()
        if isinstance(model, str) or model.model_id != index.embedder.model_id:
            return None
        if len(vector) != len(model.request_weights):
            return None
        hits = similarities.hits
        best = (hits[0][1] if hits else 0.0, hits[1][1] if len(hits) > 1 else 0.0)
        terms = keyword.evidence.terms if keyword.evidence is not None else None
        inputs = fit_inputs(query, results, best, index.mean_similarity(vector), terms)
        return model.judge(vector, inputs)

    def _explain(
        self,
        query: str,
        results: list[ToolHit],
        indices: list[int],
        boosts: Mapping[str, float],
        fuser: Fuser,
    ) -> None:
        """Fill the per-field keyword contributions and matched words of each hit."""
        for tool_index, hit in zip(indices, results, strict=False):
            signal = hit.signals.keyword
            if signal is not None:  # fills the dicts the hit's KeywordSignal holds
                keyword_hit = KeywordHit(
                    tool_index, signal.score, signal.rank, signal.fields, signal.matched_terms
                )
                if not fuser.analyzed:  # only the default tokenizer's hits have an address
                    keyword_hit.address = self.keyword.address_of(tool_index)
                self.keyword.explain(keyword_hit, query, boosts, analyzed=fuser.analyzed)

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
        analyzed = FUSERS[result.fusion].analyzed
        keyword_hit = KeywordHit(
            index,
            signal.score,
            signal.rank,
            signal.fields,
            signal.matched_terms,
            None if analyzed else self.keyword.address_of(index),
        )
        self.keyword.explain(keyword_hit, _query_of(result, hit), boosts, analyzed=analyzed)

    def keyword_standing(
        self, query: str, settings: SearchSettings, tool_index: int
    ) -> tuple[int | None, float | None]:
        """A tool's rank and score in the fusion's full keyword list for `query` (None, None
        when it matches no query word): weighted, by keyword evidence (0–1); canonical, by
        Tantivy's BM25."""
        boosts = settings.boosts or self.default_boosts()
        return FUSERS[settings.fusion].standing(self._fusion, query, boosts, tool_index)


def _query_of(result: ToolSearchResult, hit: ToolHit) -> str:
    """The text a hit was scored against: its step's, for a step's best tool that only the step
    search ranked (its signals are that search's); else the whole request."""
    whole = {name for name, _ in result.whole_request}
    if hit.step is not None and 0 < hit.step <= len(result.steps) and hit.tool_name not in whole:
        return result.steps[hit.step - 1].step.text
    return result.query


def _cut(query: str) -> str:
    """The query as searched: at most its first `MAX_QUERY_CHARS`, cut at a space."""
    if len(query) <= MAX_QUERY_CHARS:
        return query
    return query[:MAX_QUERY_CHARS].rsplit(" ", 1)[0] or query[:MAX_QUERY_CHARS]


def _checked(query: object, settings: object) -> SearchSettings:
    """The search's settings (the defaults for None), once the query is text and they are
    settings."""
    if not isinstance(query, str):
        raise InputError(f"a search query is text, not {type(query).__name__}")
    settings = settings or SearchSettings()
    if not isinstance(settings, SearchSettings):
        raise InputError(f"settings must be SearchSettings, not {type(settings).__name__}")
    return settings


def _fit(
    results: list[ToolHit],
    threshold: float,
    calibrated: bool,
    fusion: str,
    judge: Callable[[], FitJudgement | None] | None = None,
) -> tuple[bool, str, str]:
    """Whether the best hit fits, in parts, each said with its number and threshold: its score
    against the threshold; (weighted fusion) corroborated by two matched words or a vector
    share; and where the fit model judged, the model's fit against its threshold. Returns the
    verdict, the reason, and what corroborates it (or why nothing does) with the model's parts."""
    if not results:
        return False, "no tool matched at all", ""
    best = results[0].score
    if threshold <= 0:
        return True, f"best score {best:.3f}; fit threshold off", ""
    which = "calibrated fit threshold" if calibrated else "fit threshold"
    if best < threshold:
        return False, f"no tool fits: best score {best:.3f} < {which} {threshold:.3f}", ""
    passed = f"best score {best:.3f} ≥ {which} {threshold:.3f}"
    if fusion != "weighted":
        return True, passed, ""
    corroborated, said = corroboration(results[0])
    if not corroborated:
        return False, f"no tool fits: {passed} but not corroborated ({said})", said
    passed = f"{passed}, corroborated by {said}"
    judged = judge() if judge is not None else None
    if judged is None:
        return True, passed, said
    said = f"{said}; {judged.said()}"
    if judged.fits:
        return True, f"{passed}; {judged.short()}", said
    return False, f"no tool fits: {passed}, but {judged.short()}", said


def corroboration(hit: ToolHit) -> tuple[bool, str]:
    """Whether a hit's fit is corroborated (`FIT_WORDS` matched words, or a vector share of
    `FIT_VECTOR_SHARE`), and what says so, or what falls short."""
    signals = hit.signals
    terms = signals.keyword.terms if signals.keyword is not None else []
    words = list(dict.fromkeys(t.word for t in terms if not t.note))
    share = signals.shares.get("vector", 0.0)
    matched = f"{len(words)} matched word{'' if len(words) == 1 else 's'}" + (
        f": {', '.join(words[:4])}" if words else ""
    )
    if len(words) >= FIT_WORDS:
        return True, matched
    if share >= FIT_VECTOR_SHARE:
        return True, f"vector share {share:.3f} ≥ {FIT_VECTOR_SHARE:g}"
    return False, f"{matched}; vector share {share:.3f} < {FIT_VECTOR_SHARE:g}"
