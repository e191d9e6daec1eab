"""The insight model: "why this decision" for the live request — the words whose removal flips
a decision (`routescope.compare.counterfactuals`), the decisions that were close calls
(`close_calls`) and where an entity flows (`trace`).

Counterfactuals run every router once per word (with the embedding model, one query embedded
per word: some 0.3 s), so they run in a worker lane once the request has rested for
`INSIGHT_DELAY_MS`, while someone looks at the prompt (`set_enabled`); a newer request makes
the run under way stale. Close calls and traces are
arithmetic over the inspection the inspection model already made: they are computed at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.compare import CloseCall, Counterfactuals, Trace
    from routescope.toolsearch import Engines, ToolSearch, ToolSearchResult

__all__ = ["INSIGHT_DELAY_MS", "INSIGHT_MAX_CHARS", "InsightModel"]

INSIGHT_DELAY_MS = 300
"""Counterfactuals start once the request has not changed for this long."""
INSIGHT_MAX_CHARS = 20_000
"""Longer prompts get no counterfactuals: each of their first 200 words would cost a run of
every router over the whole text (some 0.8 s at this length, 4 s at 100,000 characters)."""


class InsightModel(QObject):
    """Why the routers decided what they did about the request.

    Attributes:
        result: the latest `Counterfactuals` of the request (None: blank prompt or an error).
        close_calls: the close calls of the latest inspection (with the ranking, when it is of
            the same prompt).
        trace_result: the trace of the entity asked for last (None: none asked, or no longer
            in the prompt).

    Signals:
        explained: emitted with the `Counterfactuals` of the request (None: blank prompt).
        stale: emitted when the request changed and its counterfactuals are being worked out,
            with the prompt they are for (None: not known yet, before the first request).
        failed: emitted with a one-line reason when they cannot be.
        close_calls_changed: emitted with the list of `CloseCall` of the current inspection.
        traced: emitted with the `Trace` of the entity asked for (None: cleared) and the
            prompt its spans point into.
    """

    explained = Signal(object)
    stale = Signal(object)
    failed = Signal(str)
    close_calls_changed = Signal(object)
    traced = Signal(object, str)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        engines: Engines,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request; `engines` the session's engines:
        once the one of the request's catalog is loaded, the top tool is watched too."""
        super().__init__(parent)
        self._request = request
        self._engines = engines
        self.result: Counterfactuals | None = None
        self.close_calls: list[CloseCall] = []
        self.trace_result: Trace | None = None
        self._inspection: Inspection | None = None
        self._ranking: ToolSearchResult | None = None
        self._entity = ""
        self._enabled = False
        self._closed = False
        self._explained_for: tuple[Request, ToolSearch | None] | None = None
        self._lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=INSIGHT_DELAY_MS)
        self._timer.timeout.connect(self._explain)

    @property
    def busy(self) -> bool:
        """Whether counterfactuals are under way or due once the request rests (after `close`,
        a run still ending in its thread is dropped: nothing is under way)."""
        return self._timer.isActive() or (self._lane.busy and not self._closed)

    def set_enabled(self, enabled: bool) -> None:
        """Work counterfactuals out while enabled (someone looks at the prompt); close calls
        and traces are cheap and always follow the inspection."""
        self._enabled = enabled
        if enabled:
            self._closed = False
            if self._explained_for is None:  # nothing worked out yet: once the request rests
                # (without building the request now: the window enables it before its first
                # paint, and the routers load after it)
                self.stale.emit(None)
                self._timer.start()
            else:
                self.follow("enabled")
            return
        self._timer.stop()
        self._lane.cancel()
        self._explained_for = None  # what is shown may go stale: work it out when enabled

    def follow(self, field: str) -> None:
        """The request's `field` changed (or "engine": the catalog's engine loaded): work the
        counterfactuals out again once it rests."""
        del field
        if not self._enabled or self._key() == self._explained_for:
            return
        self._lane.cancel()  # the run under way is for another request now
        self._explained_for = None
        self.stale.emit(self._request().text)
        self._timer.start()

    def _engine(self, request: Request) -> ToolSearch | None:
        """The engine of the request's catalog, when one is loaded (never loaded here: on the
        UI thread)."""
        catalog = request.catalog
        return None if catalog is None else self._engines.cached(catalog)

    def _key(self) -> tuple[Request, ToolSearch | None]:
        request = self._request()
        return request, self._engine(request)

    def _explain(self) -> None:
        key = self._key()
        if key == self._explained_for:
            return
        self._explained_for = key
        request, engine = key
        if not request.text.strip():
            self._lane.cancel()
            self._show(None)
            return
        if len(request.text) > INSIGHT_MAX_CHARS:
            self._lane.cancel()
            self._fail(
                f"the prompt is too long to try without each word ({len(request.text):,} "
                f"characters; up to {INSIGHT_MAX_CHARS:,})"
            )
            self._explained_for = key  # (not again until it changes)
            return

        def work() -> Counterfactuals:
            return routescope.compare.counterfactuals(request, engine)

        self._lane.submit(work, self._show, self._fail)

    def _show(self, result: Counterfactuals | None) -> None:
        if result is not None and result.text != self._request().text:
            return  # worked out for a prompt edited since (its run is stale: a newer one is due)
        self.result = result
        self.explained.emit(result)

    def _fail(self, message: str) -> None:
        self._explained_for = None
        self.result = None
        self.failed.emit(message)

    def close(self) -> None:
        """Stop (the window is closing): what is under way or due is dropped."""
        self.set_enabled(False)
        self._closed = True

    # -- close calls and traces, from the inspection ----------------------------------------
    def set_inspection(self, inspection: Inspection | None) -> None:
        """A new inspection of the request (None: blank prompt or an error)."""
        self._inspection = inspection
        self._update_close_calls()
        self._retrace()

    def set_ranking(self, ranking: ToolSearchResult | None) -> None:
        """A new ranking of the catalog's tools (it counts while it is of the prompt)."""
        self._ranking = ranking
        self._update_close_calls()
        if self._entity:
            self._retrace()

    def trace(self, entity: str) -> None:
        """Where `entity` (any words of the prompt) flows; "" clears the trace."""
        self._entity = " ".join(entity.split())
        self._retrace()

    def _full_inspection(self) -> Inspection | None:
        """The inspection with the ranking of its prompt, when there is one."""
        inspection, ranking = self._inspection, self._ranking
        if inspection is None:
            return None
        if ranking is not None and ranking.query == inspection.context.raw_text:
            return inspection.model_copy(update={"tools": ranking})
        return inspection

    def _update_close_calls(self) -> None:
        inspection = self._full_inspection()
        calls: list[CloseCall] = []
        if inspection is not None:
            rules = self._request().rules.load()
            if rules.name == inspection.rules:
                try:
                    calls = routescope.compare.close_calls(inspection, rules)
                except routescope.RoutescopeError:
                    calls = []
        if calls != self.close_calls:
            self.close_calls = calls
            self.close_calls_changed.emit(calls)

    def _retrace(self) -> None:
        inspection = self._full_inspection()
        found: Trace | None = None
        if inspection is not None and self._entity:
            try:
                found = routescope.compare.trace(inspection, self._entity)
            except routescope.RoutescopeError:
                found = None
            if found is not None and not found.mentions:
                found = None  # edited out of the prompt: nothing left to trace
        if found is None and self.trace_result is None:
            return
        self.trace_result = found
        text = inspection.context.raw_text if inspection is not None else ""
        self.traced.emit(found, text)
