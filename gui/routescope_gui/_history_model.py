"""The history model: the store of inspected prompts (`routescope.history.History`), opened in
a worker thread; the prompt the analyst settled on recorded — once it rested
`routescope.history.SETTLE_S`, or at once when it is run, left or another tab shown
(`commit`) — by the core's `Recorder`, which replaces a prefix paused on by the prompt it grew
into and never adds the latest row twice; searched, pinned, deleted and reopened off the UI
thread. Also the session files (saved and opened in worker threads) and the last session, shown
again at the next start.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.history import Entry, Facets, History, LastSession, Pending, Recorder
    from routescope.history import Session as SessionFile
    from routescope.toolsearch import Engines

__all__ = ["RECORD_DELAY_MS", "HistoryModel", "HistoryQuery"]

RECORD_DELAY_MS = round(routescope.history.SETTLE_S * 1000)
"""An inspection is recorded once the prompt has rested this long."""


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """What the history list shows: full text and exact filters (None: any)."""

    text: str = ""
    strategy: str | None = None
    lint_class: str | None = None
    top_tool: str | None = None
    pinned_only: bool = False


class HistoryModel(QObject):
    """The history store and the list of its entries the History view shows.

    Attributes:
        store: the `History` (None until `start` has opened it).
        query: the search the list follows.

    Signals:
        opened: emitted once the store is open; its `note` (or None) says whether it works.
        listed: emitted with the entries matching `query` and the store's `Facets`.
        request_opened: emitted with the `Request` of an entry reopened.
        failed: emitted with a one-line reason (an entry gone, history off).
        session_saved: emitted with a status line once a session file is written.
        session_opened: emitted with a status line and the file's warnings (a list of lines)
            once a session file's first request is opened (`request_opened` came first).
        session_failed: emitted with what failed ("Save session", "Open session") and a
            one-line reason.
    """

    opened = Signal(object)
    listed = Signal(object, object)
    request_opened = Signal(object)
    failed = Signal(str)
    session_saved = Signal(str)
    session_opened = Signal(str, list)
    session_failed = Signal(str, str)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        path: Path | None = None,
        delay_ms: int = RECORD_DELAY_MS,
        recorder: Recorder | None = None,
        engines: Engines | None = None,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request; `path` is the store's file
        (default: `history.sqlite3` in the user's data folder); `delay_ms`: how long the
        prompt rests before it is recorded; `recorder` decides what is recorded (default: the
        core's, settling after `delay_ms`); `engines`: the session's tool search engines (a
        prompt recorded with a catalog whose engine is loaded gets its top tool)."""
        super().__init__(parent)
        self._request = request
        self._path = path
        self.store: History | None = None
        self.query = HistoryQuery()
        self.recorder: Recorder = recorder or routescope.history.Recorder(settle_s=delay_ms / 1000)
        self._engines = engines
        self._offered: tuple[Request, Inspection] | None = None
        """The request last inspected, with its inspection."""
        self._unwritten: deque[Pending] = deque()
        """Handed over by the recorder, not written yet (the store opens, a write runs)."""
        self._starting = False
        self._open_lane = Lane()
        self._record_lane = Lane()
        self._write_lane = Lane()
        self._list_lane = Lane()
        self._save_lane = Lane()
        self._load_lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self._settle)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or any(lane.busy for lane in self._lanes)

    @property
    def _lanes(self) -> tuple[Lane, ...]:
        return (
            self._open_lane,
            self._record_lane,
            self._write_lane,
            self._list_lane,
            self._save_lane,
            self._load_lane,
        )

    @property
    def enabled(self) -> bool:
        return self.store is not None and self.store.enabled

    @property
    def note(self) -> str | None:
        return None if self.store is None else self.store.note

    def peek_last_prompt(self) -> str | None:
        """The last session's prompt, read now without opening the store (nor loading the
        routers): the window shows it before its first paint."""
        from routescope.history import peek_last_prompt

        return peek_last_prompt(self._path)

    def start(self) -> None:
        """Open the store in a worker thread (once)."""
        if self._starting or self.store is not None:
            return
        self._starting = True
        path = self._path

        def work() -> History:
            from routescope.history import History

            return History.open(path)

        self._open_lane.submit(work, self._opened, self.failed.emit)

    def _opened(self, store: History) -> None:
        self.store = store
        self.opened.emit(store.note)
        if self._unwritten:
            self._write(None)
        else:
            self.refresh()

    # -- recording -------------------------------------------------------------------------
    def record_soon(self, inspection: Inspection | None) -> None:
        """The request was inspected: record it once the prompt has rested (blank: nothing)."""
        if inspection is None:
            self._offered = None
            self.recorder.clear()
            self._timer.stop()
            return
        self._offered = (self._request(), inspection)
        self.recorder.offer(*self._offered)
        self._timer.start(self._timer.interval())

    def follow(self, field: str) -> None:
        """The request's `field` changed: a catalog that joined the prompt last inspected
        (the Tools tab opened) is recorded with it — its top tool, in the prompt's row."""
        offered, request = self._offered, self._request()
        if field != "catalog" or offered is None or request.catalog is None:
            return
        before, inspection = offered
        if before.catalog != request.catalog and before.replace(catalog=request.catalog) == request:
            self.record_soon(inspection)

    def commit(self) -> None:
        """Record the prompt now, settled or not: it was run, left, or another tab shown."""
        self._timer.stop()
        pending = self.recorder.take()
        if pending is not None:
            self._write(pending)

    def flush(self) -> None:
        """Record what waits now, on this thread (the window is closing)."""
        self._timer.stop()
        pending = self.recorder.take()
        if pending is not None:
            self._unwritten.append(pending)
        if self.store is not None:
            self._keep_all(self.store)

    def _settle(self) -> None:
        """The timer fired: record the prompt if it has rested (the recorder's clock says),
        else wait for the rest of the time."""
        pending = self.recorder.settled()
        if pending is not None:
            self._write(pending)
            return
        wait = self.recorder.wait_s()
        if wait is not None:
            self._timer.start(max(1, math.ceil(wait * 1000)))

    def _write(self, pending: Pending | None) -> None:
        """Record `pending` (and what waits before it) in a worker thread; once the store is
        open if it is not yet. Each job writes all that waits: a job replaced in the lane
        loses nothing."""
        if pending is not None:
            self._unwritten.append(pending)
        store = self.store
        if store is None:
            return
        self._record_lane.submit(
            lambda: self._keep_all(store), lambda _none: self.refresh(), self.failed.emit
        )

    def _keep_all(self, store: History) -> None:
        while True:
            try:
                pending = self._unwritten.popleft()
            except IndexError:  # (all written, here or by a flush on the UI thread)
                return
            self.recorder.keep(store, self._ranked(pending))

    def _ranked(self, pending: Pending) -> Pending:
        """`pending` with its catalog's ranking (its top tool), when the catalog's engine is
        loaded; as it is otherwise (the live inspection ranks no tools)."""
        catalog = pending.request.catalog
        if self._engines is None or catalog is None or pending.inspection.tools is not None:
            return pending
        engine = self._engines.cached(catalog)
        if engine is None:
            return pending
        try:
            inspection = routescope.inspect(pending.request, tools=engine)
        except routescope.RoutescopeError:
            return pending
        return dataclasses.replace(pending, inspection=inspection)

    # -- the list --------------------------------------------------------------------------
    def search(self, query: HistoryQuery) -> None:
        self.query = query
        self.refresh()

    def refresh(self) -> None:
        """List the entries matching `query` again (in a worker thread)."""
        store, query = self.store, self.query
        if store is None:
            return

        def work() -> tuple[list[Entry], Facets]:
            entries = store.search(
                query.text,
                strategy=query.strategy,
                lint_class=query.lint_class,
                top_tool=query.top_tool,
                pinned=True if query.pinned_only else None,
            )
            return entries, store.facets()

        self._list_lane.submit(work, lambda found: self.listed.emit(*found), self.failed.emit)

    def pin(self, entry_id: int, pinned: bool = True) -> None:
        store = self.store
        if store is not None:
            self._write_lane.submit(
                lambda: store.pin(entry_id, pinned), lambda _ok: self.refresh(), self.failed.emit
            )

    def delete(self, entry_id: int) -> None:
        store = self.store
        if store is not None:
            self._write_lane.submit(
                lambda: store.delete(entry_id), lambda _ok: self.refresh(), self.failed.emit
            )

    def reopen(self, entry_id: int) -> None:
        """Give back the entry's exact `Request` (`request_opened`), or say why not."""
        from routescope import RoutescopeError

        if self.store is None:
            return
        try:
            request = self.store.reopen(entry_id)
        except RoutescopeError as exc:
            self.failed.emit(str(exc))
            return
        self.request_opened.emit(request)

    # -- session files ---------------------------------------------------------------------
    def save_session(self, path: str | Path, inspection: Inspection) -> None:
        """Write the request and its `inspection` to a session file, off the UI thread."""
        request = self._request()

        def work() -> Path:
            return routescope.history.save_session(path, [(request, inspection)])

        self._save_lane.submit(
            work,
            lambda _path: self.session_saved.emit(f"session saved to {path}"),
            lambda reason: self.session_failed.emit("Save session", reason),
        )

    def open_session(self, path: str | Path) -> None:
        """Read a session file off the UI thread and open its first request (`request_opened`,
        then `session_opened` with the file's warnings)."""
        request = self._request()

        def work() -> SessionFile:
            history = routescope.history
            here = history.Fingerprints.of(request.rules, request.catalog)
            return history.open_session(path, here=here)

        def opened(found: SessionFile) -> None:
            if not found.entries:
                self.session_failed.emit("Open session", f"{path}: the session holds no request")
                return
            self.request_opened.emit(found.entries[0].request)
            self.session_opened.emit(f"session opened from {path}", found.warnings)

        self._load_lane.submit(
            work, opened, lambda reason: self.session_failed.emit("Open session", reason)
        )

    # -- the last session ------------------------------------------------------------------
    def last_session(self) -> LastSession | None:
        return None if self.store is None else self.store.last_session()

    def save_last_session(self, prompt: str, tab: str) -> bool:
        """Keep what the window shows (its `prompt`, the `tab` in front, and the request's
        catalog, rules and date when they are not the defaults) for the next start."""
        from routescope.history import LastSession

        if self.store is None:
            return False
        request = self._request()
        catalog = request.catalog
        last = LastSession(
            prompt=prompt,
            tab=tab,
            catalog=catalog.path if catalog is not None and not catalog.is_sample else None,
            rules=None if request.rules.is_builtin else request.rules.source,
            today=request.today if request.today != dt.date.today() else None,
        )
        return self.store.save_last_session(last)

    def close(self) -> None:
        """Record what is pending and close the store (the window is closing)."""
        self.flush()
        for lane in self._lanes:
            lane.cancel()
        if self.store is not None:
            self.store.close()
