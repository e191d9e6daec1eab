"""The tool-search model: the engine of the request's catalog, the ranking of its tools for the
prompt, and "why not this tool?".

Everything slow runs in worker lanes: loading a catalog and its engine (the tool vectors read or
built there), embedding the query, ranking and explaining the pinned tool. Tools are ranked
only while someone looks at the ranking (`set_enabled`); the engine loads the first time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    import numpy as np

    from routescope import CatalogRef, Request
    from routescope.toolsearch import Engines, SearchSettings, ToolSearch, ToolSearchResult, WhyNot

__all__ = ["ToolsModel"]


class ToolsModel(QObject):
    """The engine of the request's catalog, the ranking for the prompt and why-not.

    Attributes:
        engine: the tool-search engine of the request's catalog, once loaded.
        ranking: the latest `ToolSearchResult` for the prompt.
        why_not: the latest `WhyNot` of the pinned tool; pinned_tool: its name ("" none).

    Signals:
        engine_loading: emitted with a catalog's name when its engine starts loading.
        engine_ready: emitted with (a status line naming the catalog's format and the entries
            skipped, the tool names, the details: why that format, what was skipped) when an
            engine is loaded.
        engine_failed: emitted with a one-line reason when a catalog or ranking fails.
        ranked: emitted with the `ToolSearchResult` of the prompt (None: blank prompt).
        explained: emitted with the `WhyNot` of the pinned tool (None: no tool pinned).
        catalog_loaded: emitted with the `CatalogRef` of a catalog whose engine loaded, before
            `engine_ready` (the session makes it the request's catalog).
    """

    engine_loading = Signal(str)
    engine_ready = Signal(str, object, str)
    engine_failed = Signal(str)
    ranked = Signal(object)
    explained = Signal(object)
    catalog_loaded = Signal(object)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        engines: Engines,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request; `engines` the session's engines,
        one per catalog (shared with the compare and insight models)."""
        super().__init__(parent)
        self._request = request
        self._engines = engines
        self.engine: ToolSearch | None = None
        self._engine_for: CatalogRef | None = None
        self.ranking: ToolSearchResult | None = None
        self.why_not: WhyNot | None = None
        self.pinned_tool = ""
        self._enabled = False
        self._ranked_for: tuple[str, SearchSettings, ToolSearch] | None = None
        self._query_vector: tuple[str, np.ndarray | None] | None = None
        self._engine_lane = Lane()
        self._rank_lane = Lane()
        self._explain_lane = Lane()

    @property
    def busy(self) -> bool:
        """Whether an engine is loading, or a ranking or an explanation is under way."""
        return any(lane.busy for lane in (self._engine_lane, self._rank_lane, self._explain_lane))

    def follow(self, field: str) -> None:
        """The request's `field` changed: rank again, or load another catalog's engine."""
        request = self._request()
        if field in ("text", "search"):
            self._rank()
        elif field == "catalog" and request.catalog is not None:
            self._load_engine(request.catalog)
        elif field == "request":
            if request.catalog is not None and request.catalog != self._engine_for:
                self._load_engine(request.catalog)
            else:
                self._rank()

    def set_enabled(self, enabled: bool) -> None:
        """Rank tools for the prompt while enabled (someone looks at the ranking). The first
        time, the engine of the request's catalog, or of the sample catalog, loads."""
        self._enabled = enabled
        if not enabled:
            self._rank_lane.cancel()
            self._explain_lane.cancel()
            self._ranked_for = None  # what is shown may go stale: rank again when enabled
            return
        if self.engine is not None:
            self._rank()
        elif not self._engine_lane.busy:
            catalog = self._request().catalog
            if catalog is None:
                self.open_catalog(None)
            else:
                self._load_engine(catalog)

    def open_catalog(self, path: str | Path | None) -> None:
        """Load a catalog (a folder of SKILL.md files, or a JSON file in any format the core
        reads: OpenAI tools or functions, MCP tools/list, Anthropic, Routescope's; None: the
        sample) and its engine off the UI thread, then rank its tools."""
        engines = self._engines
        self.engine_loading.emit(Path(path).name if path else "the sample catalog")

        def load() -> tuple[CatalogRef, ToolSearch]:
            folder = Path(path) if path else routescope.CatalogRef.sample_path()
            # Loaded once: its reference and its engine.
            catalog = routescope.toolsearch.load_catalog(folder.resolve())
            return routescope.CatalogRef.of(catalog), _ready(engines.of(catalog))

        self._engine_lane.submit(load, self._engine_loaded, self._engine_failed)

    def _load_engine(self, catalog: CatalogRef) -> None:
        engines = self._engines
        self.engine_loading.emit(Path(catalog.path).name)
        self._engine_lane.submit(
            lambda: (catalog, _ready(engines.get(catalog))),
            self._engine_loaded,
            self._engine_failed,
        )

    def _engine_loaded(self, loaded: tuple[CatalogRef, ToolSearch]) -> None:
        catalog, engine = loaded
        self.engine, self._engine_for = engine, catalog
        self._query_vector = self._ranked_for = None
        if self._request().catalog != catalog:
            self.catalog_loaded.emit(catalog)
        notes = "".join(f" · {note}" for note in engine.notes)
        self.engine_ready.emit(
            f"{engine.catalog.summary()} · vectors: {engine.semantic_status}{notes}",
            tuple(sorted(tool.tool_name for tool in engine.catalog.tools)),
            engine.catalog.details(),
        )
        self._rank()

    def _engine_failed(self, message: str) -> None:
        self.engine_failed.emit(f"cannot load catalog: {message}")

    def explain_row(self, tool_name: str) -> None:
        """Fill one ranked tool's per-field keyword explanation (a row the analyst opened),
        then show the ranking again. Quick (a few Tantivy explanations): on the UI thread."""
        engine, ranking = self.engine, self.ranking
        if engine is None or ranking is None:
            return
        hit = next((h for h in ranking.results if h.tool_name == tool_name), None)
        keyword = hit.signals.keyword if hit is not None else None
        if hit is None or keyword is None or keyword.fields:
            return
        try:
            engine.explain_hit(ranking, hit, self._request().search)
        except routescope.RoutescopeError as exc:
            self.engine_failed.emit(f"cannot explain {tool_name}: {exc}")
            return
        if keyword.fields:  # else nothing more to show: no loop of requests
            self.ranked.emit(ranking)

    def set_pinned_tool(self, name: str) -> None:
        """Explain where one tool stands for the prompt ("why not this tool?")."""
        name = name.strip()
        if name == self.pinned_tool:
            return
        self.pinned_tool = name
        self._explain()

    def _rank(self) -> None:
        """Rank the catalog for the prompt, and explain the pinned tool, off the UI thread."""
        engine, request = self.engine, self._request()
        if not self._enabled or engine is None:
            return
        text, settings, pinned = request.text, request.search, self.pinned_tool
        if self._ranked_for == (text, settings, engine):
            return
        self._ranked_for = (text, settings, engine)
        self._explain_lane.cancel()
        if not text.strip():
            self._rank_lane.cancel()
            self._show_ranking(_Ranked(text, None, None, None))
            return
        known = self._known_vector(text)

        def rank() -> _Ranked:
            vector = known if known is not None else _embed(engine, text)
            # Rows are explained when the analyst opens them (`explain_row`), not all at once.
            unexplained = dataclasses.replace(settings, explain=False)
            ranking = engine.search(text, unexplained, query_vector=vector)
            explanation = (
                routescope.toolsearch.why_not(engine, text, pinned, settings, vector)
                if pinned
                else None
            )
            return _Ranked(text, vector, ranking, explanation)

        self._rank_lane.submit(rank, self._show_ranking, self._rank_failed)

    def _explain(self) -> None:
        engine, request, pinned = self.engine, self._request(), self.pinned_tool
        if engine is None or not self._enabled or not pinned or not request.text.strip():
            self._explain_lane.cancel()
            self._show_why_not(None)
            return
        text, settings = request.text, request.search
        known = self._known_vector(text)

        def explain() -> WhyNot:
            vector = known if known is not None else _embed(engine, text)
            return routescope.toolsearch.why_not(engine, text, pinned, settings, vector)

        self._explain_lane.submit(explain, self._show_why_not, self._rank_failed)

    def _known_vector(self, text: str) -> np.ndarray | None:
        """The query vector of `text` if it is embedded already: moving a slider re-ranks
        without embedding again."""
        known = self._query_vector
        return known[1] if known is not None and known[0] == text else None

    def _show_ranking(self, ranked: _Ranked) -> None:
        if ranked.ranking is not None:
            self._query_vector = (ranked.text, ranked.vector)
        self.ranking = ranked.ranking
        self.ranked.emit(ranked.ranking)
        self._show_why_not(ranked.why_not)

    def _show_why_not(self, why_not: WhyNot | None) -> None:
        self.why_not = why_not
        self.explained.emit(why_not)

    def _rank_failed(self, message: str) -> None:
        self._ranked_for = None
        self.engine_failed.emit(f"cannot rank: {message}")


@dataclass(frozen=True, slots=True)
class _Ranked:
    """What one ranking job found: for the text, its query vector, the ranking, why-not."""

    text: str
    vector: np.ndarray | None
    ranking: ToolSearchResult | None
    why_not: WhyNot | None


def _ready(engine: ToolSearch) -> ToolSearch:
    """The engine with its tool vectors read or built here, in the worker: the first ranking on
    the UI thread must not embed the whole catalog (a kept engine has them already)."""
    engine.ensure_vectors()
    return engine


def _embed(engine: ToolSearch, text: str) -> np.ndarray | None:
    """The query vector, or None when the engine runs keyword-only."""
    return engine.embed_query(text) if engine.vector is not None else None
