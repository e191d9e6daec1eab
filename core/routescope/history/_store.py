"""The history store: every inspected prompt, its `Request` and a summary of its result, in
SQLite (`History`), plus the window's last session.

`History` is what is kept: recording, reading, pinning and the window's state. What lies below
is in its own modules: the tables (`_schema`), the rows as Python (`_rows`), the SQL of a
search (`_query`), and the file itself, opened so that nothing raises, with its journal and its
recovery (`_connection.Store`, the base of `History`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from .._errors import HistoryError, one_line
from .._request import Request
from ._codec import Summary, context_json, rebuild_request, search_json
from ._connection import BUSY_TIMEOUT_S, Store
from ._judgments import JudgedSets
from ._peek import default_history_path
from ._query import facet_counts, search_source
from ._rows import E_COLUMNS, ENTRY_COLUMNS, RECORD, Entry, Facets, LastSession, entry_of

if TYPE_CHECKING:
    from .._inspect import Inspection

__all__ = ["MAX_ENTRIES", "MAX_STORED_CHARS", "History"]

MAX_ENTRIES = 200_000
"""Past this many entries the oldest unpinned ones are dropped (checked on open and every
`_PRUNE_EVERY` records)."""
MAX_STORED_CHARS = 1_000_000
"""A prompt or context longer than this is inspected but not kept in the history."""
_PRUNE_EVERY = 1_000


class History(JudgedSets, Store):
    """The history of inspected prompts (one SQLite file; its layout is in `_schema`, its
    journal and recovery in `_connection`).

    `History.open()` never raises: `enabled` says whether the history works, `note` why not
    (or what was repaired). The window calls `record` after each (debounced) inspection;
    the same request again updates its entry's `last_seen` and `count`."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = BUSY_TIMEOUT_S,
        max_entries: int = MAX_ENTRIES,
        fts: bool | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        read_only: bool = False,
    ) -> None:
        """Use `History.open`: this sets the fields only."""
        super().__init__(
            path, busy_timeout=busy_timeout, fts=fts, synchronous=synchronous, read_only=read_only
        )
        self._clock = clock
        self._max_entries = max_entries
        self._since_prune = 0

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = BUSY_TIMEOUT_S,
        max_entries: int = MAX_ENTRIES,
        fts: bool | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        read_only: bool = False,
    ) -> History:
        """Open (or start) the history at `path` (default: `default_history_path()`).
        `clock` gives the time of each record (seconds since the epoch); `fts=False` makes a
        new store without FTS5 (search by LIKE); `synchronous="FULL"` waits for the disk on
        every record (survives a power cut too, at a cost `bench_history.py` measures).
        `read_only=True` only reads an existing store (the command line): nothing is created,
        repaired, moved aside or trimmed; a missing, foreign or damaged file leaves it off,
        `note` saying what is there, and a change (`record`, `pin`, …) is skipped."""
        history = cls(
            Path(path) if path is not None else default_history_path(),
            clock=clock,
            busy_timeout=busy_timeout,
            max_entries=max_entries,
            fts=fts,
            synchronous=synchronous,
            read_only=read_only,
        )
        history._start()
        return history

    def _opened(self) -> None:
        """On every open (and reopen after a repair), trim what a past session left over."""
        if not self.read_only:
            self._make_judgments()
            self._prune()

    # -- recording -------------------------------------------------------------------------

    def record(self, request: Request, inspection: Inspection) -> Entry | None:
        """Keep an inspected request: a new entry, or the same request's entry with `count`
        raised and `last_seen` now. None when history is off or the prompt is too long to
        keep (`note` says why)."""
        if not self.enabled:
            return None
        try:
            entry = self._record(request, inspection)
        except (UnicodeEncodeError, ValueError) as exc:  # a lone surrogate, a number not JSON
            self.note = one_line(f"not kept in the history: {exc}", 200)
            return None
        if entry is not None:
            self._since_prune += 1
            if self._since_prune >= _PRUNE_EVERY:
                self._prune()
        return entry

    def _record(self, request: Request, inspection: Inspection) -> Entry | None:
        context = context_json(request.context)
        if len(request.text) > MAX_STORED_CHARS or len(context or "") > MAX_STORED_CHARS:
            self.note = (
                f"not kept in the history: the prompt or its context is longer than "
                f"{MAX_STORED_CHARS:,} characters"
            )
            return None
        summary = Summary.of(inspection.outcome)
        catalog = request.catalog
        now = self._clock()
        values = (
            request.fingerprint(),
            request.text,
            request.today.isoformat(),
            request.rules.digest,
            request.rules.source,
            None if catalog is None else catalog.path,
            None if catalog is None else catalog.digest,
            None if catalog is None else catalog.model,
            search_json(request.search),
            context,
            summary.strategy,
            summary.lint_class,
            summary.top_tool,
            summary.agent,  # (the column keeps its first name)
            summary.task_route,
            now,
            now,
        )

        def action(db: sqlite3.Connection) -> Entry:
            with self._write(db):
                db.execute(
                    "INSERT INTO rule_packs (digest, text) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (request.rules.digest, request.rules.text),
                )
                row = db.execute(RECORD, values).fetchone()
            return entry_of(row)

        entry: Entry | None = self._run(action, None, "recording the prompt")
        return entry

    def _prune(self) -> None:
        """Drop the oldest unpinned entries past `max_entries`, and packs no entry uses."""
        self._since_prune = 0

        def action(db: sqlite3.Connection) -> None:
            (total,) = db.execute("SELECT count(*) FROM entries").fetchone()
            extra = total - self._max_entries
            if extra <= 0:
                return
            with self._write(db):
                db.execute(
                    "DELETE FROM entries WHERE id IN (SELECT id FROM entries WHERE NOT pinned "
                    "ORDER BY seq LIMIT ?)",
                    (extra,),
                )
                _drop_unused_packs(db)

        self._run(action, None, "trimming the history")

    # -- reading ---------------------------------------------------------------------------

    def search(
        self,
        query: str = "",
        *,
        strategy: str | None = None,
        lint_class: str | None = None,
        top_tool: str | None = None,
        pinned: bool | None = None,
        rules: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[Entry]:
        """Entries newest first: every word of `query` must start a word of the prompt
        (case and accents ignored; `jazz hist` finds "History of jazz"), the filters must
        match exactly (`top_tool=""` finds entries without a tool; `rules` is a rule pack's
        digest or its source as recorded, `default.toml` for the built-in one)."""
        source, params, order = search_source(
            self.fts, query, strategy, lint_class, top_tool, pinned, rules
        )
        sql = f"SELECT {E_COLUMNS} {source} ORDER BY {order} LIMIT ? OFFSET ?"
        rows = self._run(
            lambda db: db.execute(sql, (*params, max(0, limit), max(0, offset))).fetchall(),
            [],
            "searching the history",
        )
        return [entry_of(row) for row in rows]

    def count(
        self,
        query: str = "",
        *,
        strategy: str | None = None,
        lint_class: str | None = None,
        top_tool: str | None = None,
        pinned: bool | None = None,
        rules: str | None = None,
    ) -> int:
        """How many entries `search` would find without a limit."""
        source, params, _order = search_source(
            self.fts, query, strategy, lint_class, top_tool, pinned, rules
        )
        found: int = self._run(
            lambda db: db.execute(f"SELECT count(*) {source}", params).fetchone()[0],
            0,
            "counting the history",
        )
        return found

    def get(self, entry_id: int) -> Entry | None:
        """One entry by id (None when it is gone)."""
        row = self._run(
            lambda db: db.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ?", (entry_id,)
            ).fetchone(),
            None,
            "reading the history",
        )
        return None if row is None else entry_of(row)

    def find(self, request: Request) -> Entry | None:
        """The entry of a request (by fingerprint), if it has one."""
        row = self._run(
            lambda db: db.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE fingerprint = ?",
                (request.fingerprint(),),
            ).fetchone(),
            None,
            "reading the history",
        )
        return None if row is None else entry_of(row)

    def reopen(self, entry_id: int) -> Request:
        """The entry's `Request`, equal to the one recorded (same fingerprint).
        HistoryError (one line) when the entry is gone, history is off or the stored request
        is damaged."""
        row = self._run(
            lambda db: db.execute(
                "SELECT e.text, e.today, e.rules_source, e.rules_digest, p.text, e.catalog_path, "
                "e.catalog_digest, e.catalog_model, e.search, e.context FROM entries e "
                "LEFT JOIN rule_packs p ON p.digest = e.rules_digest WHERE e.id = ?",
                (entry_id,),
            ).fetchone(),
            None,
            "reading the history",
        )
        if row is None:
            why = "history is off" if not self.enabled else "no such entry"
            raise HistoryError(one_line(f"{self.path}: entry {entry_id}: {why}"))
        text, today, source, digest, pack, path, catalog_digest, model, search, context = row
        return rebuild_request(
            where=f"{self.path}: entry {entry_id}",
            text=text,
            today=today,
            rules_source=source,
            rules_digest=digest,
            rules_text=pack,
            catalog=None if path is None else (path, catalog_digest, model),
            search=search,
            context=context,
        )

    def facets(self, limit: int = 50) -> Facets:
        """The strategies, linter classes and top tools in the history, most common first."""
        facets: Facets = self._run(
            lambda db: facet_counts(db, limit), Facets([], [], []), "reading the history"
        )
        return facets

    # -- changing entries ------------------------------------------------------------------

    def pin(self, entry_id: int, pinned: bool = True) -> bool:
        """Pin (or unpin) an entry: pinned entries are never trimmed. False if it is gone."""
        return self._change("UPDATE entries SET pinned = ? WHERE id = ?", (int(pinned), entry_id))

    def delete(self, entry_id: int) -> bool:
        """Remove one entry. False if it was gone already."""
        return self._change("DELETE FROM entries WHERE id = ?", (entry_id,), tidy=True)

    def clear(self, *, keep_pinned: bool = True) -> int:
        """Remove every entry (but the pinned ones); how many went."""

        def action(db: sqlite3.Connection) -> int:
            with self._write(db):
                gone = db.execute(
                    "DELETE FROM entries" + (" WHERE NOT pinned" if keep_pinned else "")
                ).rowcount
                _drop_unused_packs(db)
            return int(gone)

        cleared: int = self._run(action, 0, "clearing the history")
        return cleared

    def _change(self, sql: str, params: tuple[Any, ...], *, tidy: bool = False) -> bool:
        def action(db: sqlite3.Connection) -> bool:
            with self._write(db):
                changed = db.execute(sql, params).rowcount > 0
                if tidy:
                    _drop_unused_packs(db)
            return changed

        changed: bool = self._run(action, False, "changing the history")
        return changed

    # -- the last session ------------------------------------------------------------------

    def set_state(self, key: str, value: Any) -> bool:
        """Keep a small JSON value under `key` (False when it could not be kept)."""
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"state {key!r}: not JSON: {exc}") from None

        def action(db: sqlite3.Connection) -> bool:
            with self._write(db):
                db.execute(
                    "INSERT INTO state (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, text),
                )
            return True

        kept: bool = self._run(action, False, "saving the window's state")
        return kept

    def state(self, key: str) -> Any:
        """The JSON value kept under `key` (None when there is none or it is unreadable)."""
        row = self._run(
            lambda db: db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone(),
            None,
            "reading the window's state",
        )
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (ValueError, RecursionError):
            return None

    def save_last_session(self, session: LastSession) -> bool:
        """Keep what the window shows, to restore it next time."""
        return self.set_state("last_session", session.model_dump(mode="json"))

    def last_session(self) -> LastSession | None:
        """What the window showed last (None: nothing kept, or no longer readable)."""
        data = self.state("last_session")
        if data is None:
            return None
        try:
            return LastSession.model_validate(data)
        except ValidationError:
            return None


def _drop_unused_packs(db: sqlite3.Connection) -> None:
    db.execute(
        "DELETE FROM rule_packs WHERE NOT EXISTS "
        "(SELECT 1 FROM entries WHERE entries.rules_digest = rule_packs.digest)"
    )
