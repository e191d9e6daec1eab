"""The history's SQLite file as a connection that never raises (`Store`, the base of
`History`): opening or starting it, moving an unusable one aside, and running statements.

The journal is WAL with `synchronous=NORMAL`: a commit is one append to the WAL, with no wait
for the disk; a killed process (kill -9, a crash) loses nothing committed and never leaves a
broken store; a power cut may lose the last entries, never the store. Writers take the lock up
front (`BEGIN IMMEDIATE`) and wait up to `busy_timeout` for each other, so two windows can
write at once.

Nothing here raises on a bad store: a corrupt or foreign file is moved aside unchanged
(`history.sqlite3.broken-<time>`; only a file recognised as ours, from its header or with
read-only access, is ever opened for writing) and a new store started; a read-only
location, a full disk or a store written by a newer Routescope turns history off. Each of
these sets `Store.note` (one line, the message of a `HistoryError`); the methods then record
and return nothing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, NoReturn, Self

from .._errors import HistoryError, one_line
from ._schema import APPLICATION_ID, FTS_SCHEMA, SCHEMA, SCHEMA_VERSION, fts5_available, statements

__all__ = ["BUSY_TIMEOUT_S", "Store"]

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another window's write before it gives up (and says so)."""
_SQLITE_HEADER = b"SQLite format 3\x00"
_HEADER_SIZE = 100
_APP_ID_AT = 68
"""Where the header keeps `PRAGMA application_id` (4 bytes, big-endian)."""
_SIDECARS = ("-wal", "-shm")
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
_JOURNAL_HEADER = 28
"""A rollback journal's header: magic, record count, nonce, the database's size in pages
before the transaction (at 16, 4 bytes, big-endian), sector size, page size."""
_READONLY_ROLLBACK = 776
"""SQLITE_READONLY_ROLLBACK: a read-only connection met a hot journal it may not roll back."""

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


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else int(code) & 0xFF


class _BusyError(HistoryError):
    """The store stayed locked by another window while it was being opened."""


class _MovedAsideError(Exception):
    """The store was unusable and has been moved aside: open a new one at the path."""


class Store:
    """One history file, opened so that nothing raises (see the module's notes): `enabled`
    says whether it works, `note` why not (or what was repaired). `History` adds what is
    kept in it."""

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
        busy_timeout: float = BUSY_TIMEOUT_S,
        fts: bool | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    ) -> None:
        """Use `History.open`: this sets the fields only."""
        self.path = path
        self.enabled = False
        self.note = None
        self.fts = fts5_available() if fts is None else fts
        self._busy_timeout = busy_timeout
        self._synchronous = "FULL" if synchronous == "FULL" else "NORMAL"
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._inode: tuple[int, int] | None = None

    def _opened(self) -> None:
        """Called each time the store has opened (again, after a repair): `History` trims it."""

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
            self._opened()
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
            _raise_for(path, exc, self._busy_timeout)
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
                head = stream.read(_HEADER_SIZE)
        except OSError as exc:
            raise HistoryError(
                f"{path}: history is off: cannot read the store: {exc.strerror or exc}"
            ) from None
        if not head.startswith(_SQLITE_HEADER):
            self._move_aside("it is not an SQLite database", check_inode=False)
        if head[_APP_ID_AT : _APP_ID_AT + 4] == APPLICATION_ID.to_bytes(4, "big"):
            return  # marked as ours in its header
        self._inode = (info.st_dev, info.st_ino)
        self._recognise()

    def _recognise(self) -> None:
        """An SQLite file not marked as ours in its header, looked at read-only: kept when it is
        ours after all (marked in its WAL, not yet in the file) or holds nothing, else moved
        aside unchanged. SQLite writes nothing to a file opened read-only, but it makes a
        `-wal` and a `-shm` beside a WAL-mode one: those are removed again. A hot rollback
        journal beside it (a transaction cut by a kill) is one a read-only connection may not
        roll back: the file is kept when the journal says it was empty before (our store cut
        while it was created), else moved aside with its journal."""
        path = self.path
        existed = {suffix: os.path.lexists(f"{path}{suffix}") for suffix in _SIDECARS}
        try:
            with contextlib.closing(
                sqlite3.connect(
                    f"{path.absolute().as_uri()}?mode=ro",
                    uri=True,
                    timeout=self._busy_timeout,
                    isolation_level=None,
                )
            ) as probe:
                app_id = probe.execute("PRAGMA application_id").fetchone()[0]
                tables = probe.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        except sqlite3.Error as exc:
            self._drop_sidecars(existed)
            if getattr(exc, "sqlite_errorcode", None) == _READONLY_ROLLBACK:
                if self._was_empty():
                    return  # the writable open rolls it back to empty and makes the store
                self._move_aside("it is not a Routescope history (a transaction left unfinished)")
            if _code(exc) not in (_CORRUPT, _NOTADB):
                _raise_for(path, exc, self._busy_timeout)
            self._move_aside(f"it is damaged ({one_line(exc)})")
        if app_id == APPLICATION_ID or (app_id == 0 and tables == 0):
            return
        self._drop_sidecars(existed)
        self._move_aside("it is not a Routescope history")

    def _was_empty(self) -> bool:
        """Whether the hot journal beside the file says the file was empty before the
        transaction left unfinished in it: a store killed while it was created (its first
        transaction, which switches it to WAL, writes page 1 under a rollback journal).
        Rolling that journal back gives an empty file, which becomes the store."""
        try:
            with open(f"{self.path}-journal", "rb") as stream:
                head = stream.read(_JOURNAL_HEADER)
        except OSError:
            return False
        return (
            len(head) == _JOURNAL_HEADER
            and head.startswith(_JOURNAL_MAGIC)
            and int.from_bytes(head[16:20], "big") == 0
        )

    def _drop_sidecars(self, existed: dict[str, bool]) -> None:
        """Remove the `-wal` and `-shm` files a read-only look made (an empty `-wal` only)."""
        for suffix, was_there in existed.items():
            name = f"{self.path}{suffix}"
            with contextlib.suppress(OSError):
                if not was_there and (suffix == "-shm" or os.path.getsize(name) == 0):
                    os.unlink(name)

    def _prepare(self, db: sqlite3.Connection) -> None:
        """The schema checked (before anything is written: a file that is not ours is moved
        aside as it is), then the pragmas, then the schema made in one transaction on a new
        store."""
        db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
        if app_id != APPLICATION_ID and (app_id != 0 or names):
            self._close()
            self._move_aside("it is not a Routescope history")
        db.execute("PRAGMA journal_mode = WAL").fetchone()
        db.execute(f"PRAGMA synchronous = {self._synchronous}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
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
            if self.fts and not fts5_available():
                raise HistoryError(
                    f"{self.path}: history is off: the store needs SQLite's FTS5, which this "
                    "Python's sqlite3 lacks"
                )
            with self._write(db):  # a store we cannot write is off, now rather than later
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        with self._write(db):
            if db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
                return  # another window made the schema while we waited for the lock
            for statement in statements(SCHEMA + (FTS_SCHEMA if self.fts else "")):
                db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _move_aside(self, why: str, *, check_inode: bool = True) -> NoReturn:
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

    def __enter__(self) -> Self:
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


def _raise_for(path: Path, exc: sqlite3.Error, busy_timeout: float) -> NoReturn:
    """The store cannot be opened now (busy: `_BusyError`) or here (`HistoryError`)."""
    if _code(exc) in (_BUSY, _LOCKED):
        raise _BusyError(
            f"{path}: history is off: another window holds the store (waited {busy_timeout:g} s)"
        ) from None
    raise HistoryError(f"{path}: history is off: {_reason(exc)}") from None


def _reason(exc: sqlite3.Error) -> str:
    code = _code(exc)
    known = _OFF_CODES.get(code) if code is not None else None
    message = one_line(exc, 200)
    return f"{known} ({message})" if known and known not in message else message
