"""The history store: every inspected prompt, its `Request` and a summary of its result, in
SQLite (`History`), plus the window's last session.

Layout (schema 1; `PRAGMA application_id` marks the file as Routescope's, `user_version` is
the schema):

    rule_packs(digest PRIMARY KEY, text)           each pack's TOML text, once per digest
    entries(id, seq UNIQUE, fingerprint UNIQUE, text, today, rules_digest, rules_source,
            catalog_path, catalog_digest, catalog_model, search, context,
            strategy, lint_class, top_tool, contract_agent, task_route,
            first_seen, last_seen, count, pinned)
    entries_fts                                    FTS5 over entries.text, external content
                                                   keyed by `seq`, kept by triggers (a LIKE
                                                   scan where FTS5 is missing)
    state(key PRIMARY KEY, value)                  small JSON values: `last_session`

`seq` orders the entries by their last record (each record gives its entry the next number),
so that the newest matches of a word come straight from the full-text index in its own order,
without sorting every match (a common word among 100k entries: about 1 ms). Indexes besides the
unique ones: entries(strategy, seq), (lint_class, seq), (top_tool, seq), (rules_digest), and
(seq) WHERE pinned.

The journal is WAL with `synchronous=NORMAL`: a commit is one append to the WAL, with no wait
for the disk; a killed process (kill -9, a crash) loses nothing committed and never leaves a
broken store; a power cut may lose the last entries, never the store. Writers take the lock up
front (`BEGIN IMMEDIATE`) and wait up to `busy_timeout` for each other, so two windows can
write at once.

Nothing here raises on a bad store: a corrupt or foreign file is moved aside
(`history.sqlite3.broken-<time>`) and a new store started; a read-only location, a full disk or
a store written by a newer Routescope turns history off. Each of these sets `History.note`
(one line, the message of a `HistoryError`); the methods then record and return nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .._errors import HistoryError, one_line
from .._request import CatalogRef, Request
from ._codec import Summary, context_json, rebuild_request, search_json
from ._peek import default_history_path

if TYPE_CHECKING:
    from .._inspect import Inspection

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_S",
    "MAX_ENTRIES",
    "MAX_STORED_CHARS",
    "SCHEMA_VERSION",
    "Entry",
    "Facets",
    "History",
    "LastSession",
]

APPLICATION_ID = 0x52534869
"""`PRAGMA application_id` of a Routescope history ("RSHi")."""
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another window's write before it gives up (and says so)."""
MAX_ENTRIES = 200_000
"""Past this many entries the oldest unpinned ones are dropped (checked on open and every
`_PRUNE_EVERY` records)."""
MAX_STORED_CHARS = 1_000_000
"""A prompt or context longer than this is inspected but not kept in the history."""
_PRUNE_EVERY = 1_000
_SQLITE_HEADER = b"SQLite format 3\x00"

# Primary result codes (sqlite3.h); extended codes carry them in the low byte.
_CORRUPT, _NOTADB = 11, 26
_BUSY, _LOCKED = 5, 6
_OFF_CODES = {
    3: "permission denied",  # SQLITE_PERM
    8: "read-only",  # SQLITE_READONLY
    10: "input/output error",  # SQLITE_IOERR
    13: "the disk is full",  # SQLITE_FULL
    14: "cannot open the file",  # SQLITE_CANTOPEN
    23: "not authorised",  # SQLITE_AUTH
}

_SCHEMA = """
CREATE TABLE rule_packs (
    digest TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    today TEXT NOT NULL,
    rules_digest TEXT NOT NULL,
    rules_source TEXT NOT NULL,
    catalog_path TEXT,
    catalog_digest TEXT,
    catalog_model TEXT,
    search TEXT NOT NULL,
    context TEXT,
    strategy TEXT NOT NULL,
    lint_class TEXT NOT NULL,
    top_tool TEXT,
    contract_agent TEXT,
    task_route TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    count INTEGER NOT NULL DEFAULT 1,
    pinned INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_strategy ON entries(strategy, seq);
CREATE INDEX entries_lint_class ON entries(lint_class, seq);
CREATE INDEX entries_top_tool ON entries(top_tool, seq);
CREATE INDEX entries_rules ON entries(rules_digest);
CREATE INDEX entries_pinned ON entries(seq) WHERE pinned;
CREATE TABLE state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

_FTS_SCHEMA = """
CREATE VIRTUAL TABLE entries_fts USING fts5(
    text, content='entries', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF seq, text ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO entries_fts(rowid, text) VALUES (new.seq, new.text);
END;
"""

_ENTRY_COLUMNS = (
    "id, fingerprint, text, today, rules_digest, rules_source, catalog_path, catalog_digest, "
    "catalog_model, strategy, lint_class, top_tool, contract_agent, task_route, first_seen, "
    "last_seen, count, pinned"
)
_E_COLUMNS = ", ".join(f"e.{name.strip()}" for name in _ENTRY_COLUMNS.split(","))

_RECORD = f"""
INSERT INTO entries (seq, fingerprint, text, today, rules_digest, rules_source, catalog_path,
    catalog_digest, catalog_model, search, context, strategy, lint_class, top_tool,
    contract_agent, task_route, first_seen, last_seen)
VALUES ((SELECT ifnull(max(seq), 0) + 1 FROM entries),
    ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (fingerprint) DO UPDATE SET
    seq = excluded.seq, last_seen = excluded.last_seen, count = entries.count + 1,
    rules_source = excluded.rules_source, catalog_path = excluded.catalog_path,
    strategy = excluded.strategy, lint_class = excluded.lint_class,
    top_tool = excluded.top_tool, contract_agent = excluded.contract_agent,
    task_route = excluded.task_route
RETURNING {_ENTRY_COLUMNS}
"""


def _fts5_available() -> bool:
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as probe:
            probe.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.Error:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Entry:
    """One prompt of the history (a row of the list): the request's identity and the summary
    of its result. `History.reopen(entry.id)` gives back the whole `Request`."""

    id: int
    fingerprint: str
    text: str
    today: dt.date
    rules_source: str
    rules_digest: str
    catalog: CatalogRef | None
    summary: Summary
    first_seen: dt.datetime
    """When the request was first inspected (UTC)."""
    last_seen: dt.datetime
    """When it was last inspected (UTC): the list's order, newest first."""
    count: int
    """How many times it was inspected."""
    pinned: bool


@dataclass(frozen=True, slots=True)
class Facets:
    """The values the history's filters offer, each with how many entries have it (most first)."""

    strategies: list[tuple[str, int]]
    lint_classes: list[tuple[str, int]]
    top_tools: list[tuple[str, int]]


class LastSession(BaseModel):
    """What the window showed when it closed: restored when it opens."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    prompt: str = ""
    tab: str | None = None
    catalog: str | None = None
    """The catalog's path (None: no catalog, or the sample)."""
    rules: str | None = None
    """The rule pack's path (None: the built-in pack)."""
    today: dt.date | None = None
    """A date the window was pinned to (None: the local date)."""


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def _entry(row: Sequence[Any]) -> Entry:
    (
        entry_id,
        fingerprint,
        text,
        today,
        rules_digest,
        rules_source,
        catalog_path,
        catalog_digest,
        catalog_model,
        strategy,
        lint_class,
        top_tool,
        contract_agent,
        task_route,
        first_seen,
        last_seen,
        count,
        pinned,
    ) = row
    catalog = (
        CatalogRef(catalog_path, catalog_digest, catalog_model)
        if catalog_path is not None
        else None
    )
    return Entry(
        id=entry_id,
        fingerprint=fingerprint,
        text=text,
        today=dt.date.fromisoformat(today),
        rules_source=rules_source,
        rules_digest=rules_digest,
        catalog=catalog,
        summary=Summary(strategy, lint_class, top_tool, contract_agent, task_route),
        first_seen=_utc(first_seen),
        last_seen=_utc(last_seen),
        count=count,
        pinned=bool(pinned),
    )


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


class _BusyError(HistoryError):
    """The store stayed locked by another window while it was being opened."""


class _MovedAsideError(Exception):
    """The store was unusable and has been moved aside: open a new one at the path."""


class History:
    """The history of inspected prompts (one SQLite file; see the module's notes).

    `History.open()` never raises: `enabled` says whether the history works, `note` why not
    (or what was repaired). The window calls `record` after each (debounced) inspection;
    the same request again updates its entry's `last_seen` and `count`."""

    path: Path
    enabled: bool
    note: str | None
    """The last thing the user should know about the history (one line), or None."""
    fts: bool
    """Whether search uses SQLite's FTS5 (else a LIKE scan)."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = BUSY_TIMEOUT_S,
        max_entries: int = MAX_ENTRIES,
        fts: bool | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    ) -> None:
        """Use `History.open`: this sets the fields only."""
        self.path = path
        self.enabled = False
        self.note = None
        self.fts = _fts5_available() if fts is None else fts
        self._clock = clock
        self._busy_timeout = busy_timeout
        self._max_entries = max_entries
        self._synchronous = "FULL" if synchronous == "FULL" else "NORMAL"
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._inode: tuple[int, int] | None = None
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
    ) -> History:
        """Open (or start) the history at `path` (default: `default_history_path()`).
        `clock` gives the time of each record (seconds since the epoch); `fts=False` makes a
        new store without FTS5 (search by LIKE); `synchronous="FULL"` waits for the disk on
        every record (survives a power cut too, at a cost `bench_history.py` measures)."""
        history = cls(
            Path(path) if path is not None else default_history_path(),
            clock=clock,
            busy_timeout=busy_timeout,
            max_entries=max_entries,
            fts=fts,
            synchronous=synchronous,
        )
        history._start()
        return history

    # -- opening ---------------------------------------------------------------------------

    def _start(self) -> None:
        deadline = time.monotonic() + self._busy_timeout
        attempts = 0
        while attempts < 3:
            try:
                self._connect()
            except _MovedAsideError:
                attempts += 1
                continue
            except _BusyError as exc:
                # Two windows opening a new store race for WAL mode and the schema: SQLite
                # answers one of them "busy" at once (no busy handler on that path). Retry.
                if time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                self._off(str(exc))
                return
            except HistoryError as exc:
                self._off(str(exc))
                return
            self.enabled = True
            self._prune()
            return
        self._off(f"{self.path}: history is off: the store keeps failing to open")

    def _off(self, message: str) -> None:
        self.enabled = False
        self.note = one_line(message)
        self._close()

    def _connect(self) -> None:
        """Open the store, starting a new one where there is none. `_MovedAsideError` after
        moving an unusable file aside, HistoryError when history cannot work here."""
        path = self.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise HistoryError(
                f"{path}: history is off: cannot create the folder {path.parent}: "
                f"{exc.strerror or exc}"
            ) from None
        self._check_file()
        try:
            db = sqlite3.connect(
                path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
                cached_statements=64,
            )
        except sqlite3.Error as exc:
            raise HistoryError(f"{path}: history is off: {one_line(exc)}") from None
        self._db = db
        try:
            info = os.stat(path)
            self._inode = (info.st_dev, info.st_ino)
            self._prepare(db)
        except sqlite3.Error as exc:
            self._close()
            code = _code(exc)
            if code in (_CORRUPT, _NOTADB):
                self._move_aside(f"it is damaged ({one_line(exc)})")
            if code in (_BUSY, _LOCKED):
                raise _BusyError(
                    f"{path}: history is off: another window holds the store "
                    f"(waited {self._busy_timeout:g} s)"
                ) from None
            raise HistoryError(f"{path}: history is off: {_reason(exc)}") from None
        except BaseException:
            self._close()
            raise

    def _check_file(self) -> None:
        """Before SQLite opens it: a directory, a FIFO or a file that is not SQLite at the path
        is moved aside; a missing store is created owner-only."""
        path = self.path
        try:
            info = os.stat(path)
        except FileNotFoundError:
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                return  # another window made it just now
            except OSError as exc:
                raise HistoryError(
                    f"{path}: history is off: cannot create the store: {exc.strerror or exc}"
                ) from None
            return
        except OSError as exc:
            raise HistoryError(f"{path}: history is off: {exc.strerror or exc}") from None
        if not stat.S_ISREG(info.st_mode):
            self._move_aside("it is not a regular file", check_inode=False)
        if info.st_size == 0:
            return
        try:
            with open(path, "rb") as stream:
                head = stream.read(len(_SQLITE_HEADER))
        except OSError as exc:
            raise HistoryError(
                f"{path}: history is off: cannot read the store: {exc.strerror or exc}"
            ) from None
        if head != _SQLITE_HEADER:
            self._move_aside("it is not an SQLite database", check_inode=False)

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Pragmas, then the schema: checked, or made in one transaction on a new store."""
        db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        db.execute("PRAGMA journal_mode = WAL").fetchone()
        db.execute(f"PRAGMA synchronous = {self._synchronous}")
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
        if app_id == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise HistoryError(
                    f"{self.path}: history is off: the store was written by a newer Routescope "
                    f"(schema {version}; this one reads {SCHEMA_VERSION})"
                )
            if not {"entries", "rule_packs", "state"} <= names:
                self._close()
                self._move_aside("its tables are missing")
            self.fts = "entries_fts" in names
            if self.fts and not _fts5_available():
                raise HistoryError(
                    f"{self.path}: history is off: the store needs SQLite's FTS5, which this "
                    "Python's sqlite3 lacks"
                )
            with self._write(db):  # a store we cannot write is off, now rather than later
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        if app_id != 0 or names:
            self._close()
            self._move_aside("it is not a Routescope history")
        with self._write(db):
            if db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
                return  # another window made the schema while we waited for the lock
            for statement in _statements(_SCHEMA + (_FTS_SCHEMA if self.fts else "")):
                db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _move_aside(self, why: str, *, check_inode: bool = True) -> None:
        """Rename the unusable store (and its WAL) to `<name>.broken-<time>`, then raise
        `_MovedAsideError`."""
        path = self.path
        self._close()
        try:
            info = os.stat(path)
        except OSError:
            raise _MovedAsideError from None  # another window moved it already
        if check_inode and self._inode is not None and self._inode != (info.st_dev, info.st_ino):
            raise _MovedAsideError  # another window moved it and started a new one: use that
        stamp = time.strftime("%Y%m%dT%H%M%S")
        aside = path.with_name(f"{path.name}.broken-{stamp}")
        number = 1
        while aside.exists() or aside.is_symlink():
            number += 1
            aside = path.with_name(f"{path.name}.broken-{stamp}-{number}")
        try:
            os.rename(path, aside)
        except OSError as exc:
            raise HistoryError(
                f"{path}: history is off: {why}, and it cannot be moved aside: "
                f"{exc.strerror or exc}"
            ) from None
        for suffix in ("-wal", "-journal"):
            with contextlib.suppress(OSError):
                os.rename(f"{path}{suffix}", f"{aside}{suffix}")
        with contextlib.suppress(OSError):
            os.unlink(f"{path}-shm")
        self._inode = None
        self.note = one_line(
            f"{path}: {why}; moved aside to {aside.name} and started a new history"
        )
        raise _MovedAsideError

    def _close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    @property
    def problem(self) -> HistoryError | None:
        """`note` as the error it reports (for a caller that shows errors), or None."""
        return None if self.note is None else HistoryError(self.note)

    def close(self) -> None:
        """Close the store (the history stays on disk)."""
        with self._lock:
            self._close()
            self.enabled = False

    def __enter__(self) -> History:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- running statements ----------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self, db: sqlite3.Connection) -> Iterator[None]:
        """One write transaction: the lock taken up front, rolled back on any failure."""
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise

    def _run(self, action: Callable[[sqlite3.Connection], Any], default: Any, what: str) -> Any:
        """Run `action` on the store; a failure sets `note` and gives `default`: a damaged
        store is moved aside and a new one started, a read-only or full one turns history
        off, a busy one skips this action."""
        with self._lock:
            if not self.enabled or self._db is None:
                return default
            try:
                return action(self._db)
            except sqlite3.Error as exc:
                self._failed(exc, what)
                return default

    def _failed(self, exc: sqlite3.Error, what: str) -> None:
        code = _code(exc)
        if code in (_CORRUPT, _NOTADB):
            try:
                self._move_aside(f"it is damaged ({one_line(exc)})")
            except _MovedAsideError:
                moved = self.note
                self._start()
                if self.enabled:
                    self.note = moved
            except HistoryError as error:
                self._off(str(error))
        elif code in (_BUSY, _LOCKED):
            self.note = one_line(
                f"{self.path}: {what} skipped: another window held the history for more "
                f"than {self._busy_timeout:g} s"
            )
        elif code in _OFF_CODES:
            self._off(f"{self.path}: history is off: {_reason(exc)}")
        else:
            self.note = one_line(f"{self.path}: {what} failed: {exc}")

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
                row = db.execute(_RECORD, values).fetchone()
            return _entry(row)

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
        limit: int = 200,
        offset: int = 0,
    ) -> list[Entry]:
        """Entries newest first: every word of `query` must start a word of the prompt
        (case and accents ignored; `jazz hist` finds "History of jazz"), the filters must
        match exactly (`top_tool=""` finds entries without a tool)."""
        source, params, order = self._source(query, strategy, lint_class, top_tool, pinned)
        sql = f"SELECT {_E_COLUMNS} {source} ORDER BY {order} LIMIT ? OFFSET ?"
        rows = self._run(
            lambda db: db.execute(sql, (*params, max(0, limit), max(0, offset))).fetchall(),
            [],
            "searching the history",
        )
        return [_entry(row) for row in rows]

    def count(
        self,
        query: str = "",
        *,
        strategy: str | None = None,
        lint_class: str | None = None,
        top_tool: str | None = None,
        pinned: bool | None = None,
    ) -> int:
        """How many entries `search` would find without a limit."""
        source, params, _order = self._source(query, strategy, lint_class, top_tool, pinned)
        found: int = self._run(
            lambda db: db.execute(f"SELECT count(*) {source}", params).fetchone()[0],
            0,
            "counting the history",
        )
        return found

    def _source(
        self,
        query: str,
        strategy: str | None,
        lint_class: str | None,
        top_tool: str | None,
        pinned: bool | None,
    ) -> tuple[str, tuple[Any, ...], str]:
        """The FROM and WHERE of a search, its parameters and its order (newest first). With
        words, the full-text index leads: it gives its matches newest first (by `seq`)."""
        clauses: list[str] = []
        params: list[Any] = []
        # A NUL would end the full-text query early; any other character is only text.
        words = [w for w in query.replace("\0", " ").split() if any(c.isalnum() for c in w)]
        if words and self.fts:
            source = "FROM entries_fts JOIN entries e ON e.seq = entries_fts.rowid"
            order = "entries_fts.rowid DESC"
            clauses.append("entries_fts MATCH ?")
            params.append(" ".join('"' + word.replace('"', '""') + '"*' for word in words))
        else:
            source = "FROM entries e"
            order = "e.seq DESC"
            for word in words:
                clauses.append("e.text LIKE ? ESCAPE '\\'")
                params.append("%" + re.sub(r"([\\%_])", r"\\\1", word) + "%")
        for column, value in (("strategy", strategy), ("lint_class", lint_class)):
            if value is not None:
                clauses.append(f"e.{column} = ?")
                params.append(value)
        if top_tool == "":
            clauses.append("e.top_tool IS NULL")
        elif top_tool is not None:
            clauses.append("e.top_tool = ?")
            params.append(top_tool)
        if pinned is not None:
            clauses.append("e.pinned" if pinned else "NOT e.pinned")
        where = " WHERE " + " AND ".join(clauses) if clauses else ""
        return source + where, tuple(params), order

    def get(self, entry_id: int) -> Entry | None:
        """One entry by id (None when it is gone)."""
        row = self._run(
            lambda db: db.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE id = ?", (entry_id,)
            ).fetchone(),
            None,
            "reading the history",
        )
        return None if row is None else _entry(row)

    def find(self, request: Request) -> Entry | None:
        """The entry of a request (by fingerprint), if it has one."""
        row = self._run(
            lambda db: db.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE fingerprint = ?",
                (request.fingerprint(),),
            ).fetchone(),
            None,
            "reading the history",
        )
        return None if row is None else _entry(row)

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

        def action(db: sqlite3.Connection) -> Facets:
            def values(column: str) -> list[tuple[str, int]]:
                rows = db.execute(
                    f"SELECT {column}, count(*) AS n FROM entries WHERE {column} IS NOT NULL "
                    f"GROUP BY {column} ORDER BY n DESC, {column} LIMIT ?",
                    (limit,),
                ).fetchall()
                return [(value, number) for value, number in rows]

            return Facets(values("strategy"), values("lint_class"), values("top_tool"))

        facets: Facets = self._run(action, Facets([], [], []), "reading the history")
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

    # -- for tests and maintenance ---------------------------------------------------------

    def integrity_check(self) -> str:
        """SQLite's `PRAGMA integrity_check` of the store ("ok" when sound)."""
        result: list[tuple[str]] = self._run(
            lambda db: db.execute("PRAGMA integrity_check").fetchall(),
            [("history is off",)],
            "checking the history",
        )
        return "\n".join(row[0] for row in result)

    def pragma(self, name: Literal["journal_mode", "synchronous", "busy_timeout"]) -> Any:
        """The value of one of the store's pragmas (None when history is off)."""
        row = self._run(
            lambda db: db.execute(f"PRAGMA {name}").fetchone(), None, "reading the history"
        )
        return None if row is None else row[0]


def _drop_unused_packs(db: sqlite3.Connection) -> None:
    db.execute(
        "DELETE FROM rule_packs WHERE NOT EXISTS "
        "(SELECT 1 FROM entries WHERE entries.rules_digest = rule_packs.digest)"
    )


def _statements(script: str) -> list[str]:
    """The statements of a schema script (trigger bodies kept whole)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    return statements


def _reason(exc: sqlite3.Error) -> str:
    code = _code(exc)
    known = _OFF_CODES.get(code) if code is not None else None
    message = one_line(exc, 200)
    return f"{known} ({message})" if known and known not in message else message
