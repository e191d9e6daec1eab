"""The history model: the store of inspected prompts (`routescope.history.History`), opened in
a worker thread; each inspection recorded about a second after the last keystroke (the store
folds repeats into one entry); searched, pinned, deleted and reopened off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.history import Entry, Facets, History, LastSession

__all__ = ["RECORD_DELAY_MS", "HistoryModel", "HistoryQuery"]

RECORD_DELAY_MS = 1000
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
    """

    opened = Signal(object)
    listed = Signal(object, object)
    request_opened = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        path: Path | None = None,
        delay_ms: int = RECORD_DELAY_MS,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request; `path` is the store's file
        (default: `history.sqlite3` in the user's data folder)."""
        super().__init__(parent)
        self._request = request
        self._path = path
        self.store: History | None = None
        self.query = HistoryQuery()
        self._pending: tuple[Request, Inspection] | None = None
        self._starting = False
        self._open_lane = Lane()
        self._write_lane = Lane()
        self._list_lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self._record_now)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or any(
            lane.busy for lane in (self._open_lane, self._write_lane, self._list_lane)
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
        if self._pending is not None and not self._timer.isActive():
            self._record_now()
        else:
            self.refresh()

    # -- recording -------------------------------------------------------------------------
    def record_soon(self, inspection: Inspection | None) -> None:
        """The request was inspected: record it once the prompt has rested (blank: nothing)."""
        if inspection is None:
            self._pending = None
            self._timer.stop()
            return
        self._pending = (self._request(), inspection)
        self._timer.start()

    def flush(self) -> None:
        """Record the pending inspection now (the window is closing)."""
        self._timer.stop()
        if self._pending is not None and self.store is not None:
            request, inspection = self._pending
            self._pending = None
            self.store.record(request, inspection)

    def _record_now(self) -> None:
        store = self.store
        if store is None or self._pending is None:
            return  # recorded once the store is open
        request, inspection = self._pending
        self._pending = None
        self._write_lane.submit(
            lambda: store.record(request, inspection), lambda _e: self.refresh(), self.failed.emit
        )

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

    # -- the last session ------------------------------------------------------------------
    def last_session(self) -> LastSession | None:
        return None if self.store is None else self.store.last_session()

    def save_last_session(self, session: LastSession) -> bool:
        return self.store is not None and self.store.save_last_session(session)

    def close(self) -> None:
        """Record what is pending and close the store (the window is closing)."""
        self.flush()
        for lane in (self._open_lane, self._write_lane, self._list_lane):
            lane.cancel()
        if self.store is not None:
            self.store.close()
