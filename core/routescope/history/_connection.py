"""The history's SQLite file as a connection that never raises (`Store`, the base of
`History`): opening or starting it, moving an unusable one aside, and running statements.

The journal is WAL with `synchronous=NORMAL`: a commit is one append to the WAL, with no wait
for the disk; a killed process (kill -9, a crash) loses nothing committed and never leaves a
broken store; a power cut may lose the last entries, never the store. Writers take the lock up
front (`BEGIN IMMEDIATE`) and wait up to `busy_timeout` for each other, so two windows can
write at once.

Nothing here raises on a bad store: a corrupt or foreign file is moved aside unchanged
(`history.sqlite3.broken-<time>`, with its `-wal`, `-shm` or `-journal`; only a file
recognised as ours, from its header or with read-only access (`_recognise`), is ever opened
for writing) and a new store started; a read-only location, a full disk or a store written by
a newer Routescope turns history off. Each of these sets `Store.note` (one line, the message of
a `HistoryError`); the methods then record and return nothing.

Opened `read_only` (the command line), the store is only read: nothing is created, repaired,
moved or trimmed, and a missing, foreign or damaged file turns it off with a note that says
what is there (the file left as it is).
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
from .._files import file_kind
from ._recognise import SQLITE_HEADER, is_damage, look, marked_ours, read_head
from ._schema import APPLICATION_ID, FTS_SCHEMA, SCHEMA, SCHEMA_VERSION, fts5_available, statements

__all__ = ["BUSY_TIMEOUT_S", "Store"]

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another window's write before it gives up (and says so)."""
# Primary result codes (sqlite3.h); extended codes carry them in the low byte.
_CORRUPT, _NOTADB = 11, 26
_BUSY, _LOCKED = 5, 6
_READONLY = 8
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
    read_only: bool
    """Opened only to read (see the module's notes)."""

    def __init__(
        self,
        path: Path,
        *,
        busy_timeout: float = BUSY_TIMEOUT_S,
        fts: bool | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        read_only: bool = False,
    ) -> None:
        """Use `History.open`: this sets the fields only."""
        self.path = path
        self.read_only = read_only
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
        if self.read_only:
            self._connect_read_only()
            return
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
            head = read_head(path)
        except OSError as exc:
            raise HistoryError(
                f"{path}: history is off: cannot read the store: {exc.strerror or exc}"
            ) from None
        if not head.startswith(SQLITE_HEADER):
            self._move_aside("it is not an SQLite database", check_inode=False)
        if marked_ours(head):
            return
        self._inode = (info.st_dev, info.st_ino)
        try:
            verdict, why = look(path, self._busy_timeout)
        except sqlite3.Error as exc:
            _raise_for(path, exc, self._busy_timeout)
        if verdict == "foreign":
            self._move_aside(f"it is {why}")
        if verdict == "damaged":
            self._move_aside(f"it is damaged ({why})")

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
            self._check_schema(version, names, "history is off: ")
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

    def _check_schema(self, version: int, names: set[str], off: str) -> None:
        """A store of ours that this Routescope can use (HistoryError: `off` and why not); one
        without its tables is damaged (moved aside, or an error when only reading)."""
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"{self.path}: {off}the store was written by a newer Routescope "
                f"(schema {version}; this one reads {SCHEMA_VERSION})"
            )
        if not {"entries", "rule_packs", "state"} <= names:
            if self.read_only:
                raise HistoryError(
                    f"{self.path}: {off}the store is damaged (its tables are missing)"
                )
            self._close()
            self._move_aside("its tables are missing")
        self.fts = "entries_fts" in names
        if self.fts and not fts5_available():
            raise HistoryError(
                f"{self.path}: {off}the store needs SQLite's FTS5, which this Python's sqlite3 "
                "lacks"
            )

    def _connect_read_only(self) -> None:
        """Open an existing store to read it: HistoryError, with nothing created, written or
        moved, when there is none or the file is not one (see `_recognise`)."""
        path = self.path
        try:
            info = os.stat(path)
            head = read_head(path) if stat.S_ISREG(info.st_mode) else b""
        except FileNotFoundError:
            raise HistoryError(
                f"{path}: no history here (there is no store at this path)"
            ) from None
        except OSError as exc:
            raise HistoryError(f"{path}: cannot read the history: {exc.strerror or exc}") from None
        left = "; left as it is"
        if not stat.S_ISREG(info.st_mode):
            raise HistoryError(
                f"{path}: not a Routescope history (it is {file_kind(info.st_mode)}){left}"
            )
        if not head:
            raise HistoryError(f"{path}: no history in it yet (an empty file)")
        if not head.startswith(SQLITE_HEADER):
            raise HistoryError(f"{path}: not a Routescope history (not an SQLite database){left}")
        if not marked_ours(head):
            try:
                verdict, why = look(path, self._busy_timeout)
            except sqlite3.Error as exc:
                _raise_for(path, exc, self._busy_timeout, off="cannot read the history: ")
            if verdict == "empty":
                raise HistoryError(f"{path}: no history in it yet (an empty database)")
            if verdict == "foreign":
                raise HistoryError(f"{path}: {why}{left}")
            if verdict == "damaged":
                raise HistoryError(f"{path}: the file is damaged ({why}){left}")
        try:
            db = sqlite3.connect(
                f"{path.absolute().as_uri()}?mode=ro",
                uri=True,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            self._db = db
            db.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            names = {row[0] for row in db.execute("SELECT name FROM sqlite_schema")}
        except sqlite3.Error as exc:
            self._close()
            if is_damage(exc):
                raise HistoryError(f"{path}: the file is damaged ({one_line(exc)}){left}") from None
            _raise_for(path, exc, self._busy_timeout, off="cannot read the history: ")
        try:
            self._check_schema(version, names, "")
        except BaseException:
            self._close()
            raise

    def _move_aside(self, why: str, *, check_inode: bool = True) -> NoReturn:
        """Rename the unusable store (and its `-wal`, `-shm` and `-journal`: a foreign one
        stays whole) to `<name>.broken-<time>`, then raise `_MovedAsideError`."""
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
        for suffix in ("-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.rename(f"{path}{suffix}", f"{aside}{suffix}")
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
        if self.read_only:
            self._failed_reading(exc, what)
        elif code in (_CORRUPT, _NOTADB):
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

    def _failed_reading(self, exc: sqlite3.Error, what: str) -> None:
        """`_failed` for a store opened read-only: nothing is repaired."""
        code = _code(exc)
        if code in (_CORRUPT, _NOTADB):
            self._off(f"{self.path}: the file is damaged ({one_line(exc)}); left as it is")
        elif code == _READONLY:
            self.note = one_line(f"{self.path}: {what} skipped: the history is open read-only")
        elif code in (_BUSY, _LOCKED):
            self.note = one_line(
                f"{self.path}: {what} skipped: another window held the history for more "
                f"than {self._busy_timeout:g} s"
            )
        else:
            self._off(f"{self.path}: {what} failed: {_reason(exc)}")

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


def _raise_for(
    path: Path, exc: sqlite3.Error, busy_timeout: float, *, off: str = "history is off: "
) -> NoReturn:
    """The store cannot be opened now (busy: `_BusyError`) or here (`HistoryError`)."""
    if _code(exc) in (_BUSY, _LOCKED):
        raise _BusyError(
            f"{path}: {off}another window holds the store (waited {busy_timeout:g} s)"
        ) from None
    raise HistoryError(f"{path}: {off}{_reason(exc)}") from None


def _reason(exc: sqlite3.Error) -> str:
    code = _code(exc)
    known = _OFF_CODES.get(code) if code is not None else None
    message = one_line(exc, 200)
    return f"{known} ({message})" if known and known not in message else message
