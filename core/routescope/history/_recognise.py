"""Recognising the file at the history's path before anything writes to it.

A file is the store when its header carries the store's application id. Otherwise it is looked
at through a read-only SQLite connection (`look`), which writes nothing to the file nor to its
`-wal`. Beside a `-shm` that is there already, the connection reads that one read-only too
(`readonly_shm`: a stale one is not recovered in place), or, when the WAL holds no frame (the
file alone is the content), ignores both (`immutable`: SQLite's read-only `-shm` reader spins
to "locking protocol" on a WAL that is only a header, as a kill just after the switch to WAL
leaves it). Without a `-shm`, SQLite makes one (and an empty `-wal` beside a WAL-mode file),
removed again when the file turns out not to be ours. What it finds:

- "ours": the application id is in the WAL, not yet in the file (a store not checkpointed);
- "empty": an SQLite file with nothing in it, or one whose hot rollback journal says it was
  empty before the transaction a kill cut (a store killed while it was created: its first
  transaction, the switch to WAL, writes page 1 under a rollback journal). Opened for writing,
  SQLite rolls that journal back to an empty file, which becomes the store;
- "foreign": another program's database, or one with a transaction left unfinished that a
  read-only connection may not roll back (why: "not a Routescope history …");
- "damaged": SQLite says so (why: its message).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Literal

from .._errors import one_line
from ._schema import APPLICATION_ID

__all__ = ["SQLITE_HEADER", "Verdict", "is_damage", "look", "marked_ours", "read_head"]

SQLITE_HEADER = b"SQLite format 3\x00"
_HEADER_SIZE = 100
_APP_ID_AT = 68
"""Where the header keeps `PRAGMA application_id` (4 bytes, big-endian)."""
_SIDECARS = ("-wal", "-shm")
_WAL_HEADER = 32
"""A WAL this size or smaller holds no frame."""
_JOURNAL_MAGIC = bytes.fromhex("d9d505f920a163d7")
_JOURNAL_HEADER = 28
"""A rollback journal's header: magic, record count, nonce, the database's size in pages
before the transaction (at 16, 4 bytes, big-endian), sector size, page size."""
_READONLY_ROLLBACK = 776
"""SQLITE_READONLY_ROLLBACK: a read-only connection met a hot journal it may not roll back."""
_CORRUPT, _NOTADB = 11, 26

Verdict = tuple[Literal["ours", "empty", "foreign", "damaged"], str]
"""What `look` found, and for a foreign or damaged file what is wrong with it."""


def read_head(path: Path) -> bytes:
    """The first 100 bytes of the file (its SQLite header, if it is one). OSError."""
    with open(path, "rb") as stream:
        return stream.read(_HEADER_SIZE)


def marked_ours(head: bytes) -> bool:
    """Whether an SQLite header carries the store's application id."""
    return head[_APP_ID_AT : _APP_ID_AT + 4] == APPLICATION_ID.to_bytes(4, "big")


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file is damaged or not a database."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and int(code) & 0xFF in (_CORRUPT, _NOTADB)


def look(path: Path, busy_timeout: float) -> Verdict:
    """Look at an SQLite file not marked as ours in its header, read-only (see the module's
    notes). sqlite3.Error when it cannot be looked at (busy, no permission), with no sidecar
    left behind that was not there."""
    existed = {suffix: os.path.lexists(f"{path}{suffix}") for suffix in _SIDECARS}
    uri = f"{path.absolute().as_uri()}?{_how(path, existed['-shm'])}"
    try:
        with contextlib.closing(
            sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
        ) as probe:
            app_id = probe.execute("PRAGMA application_id").fetchone()[0]
            tables = probe.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    except sqlite3.Error as exc:
        _drop_sidecars(path, existed)
        if getattr(exc, "sqlite_errorcode", None) == _READONLY_ROLLBACK:
            if _was_empty(path):
                return "empty", ""
            return "foreign", "not a Routescope history (a transaction left unfinished)"
        if is_damage(exc):
            return "damaged", one_line(exc)
        raise
    if app_id == APPLICATION_ID:
        return "ours", ""
    if app_id == 0 and tables == 0:
        return "empty", ""
    _drop_sidecars(path, existed)
    return "foreign", "not a Routescope history"


def _how(path: Path, shm: bool) -> str:
    """The URI parameters of the look (see the module's notes)."""
    if not shm:
        return "mode=ro"
    try:
        frames = os.path.getsize(f"{path}-wal") > _WAL_HEADER
    except OSError:
        frames = False
    return "mode=ro&readonly_shm=1" if frames else "immutable=1"


def _was_empty(path: Path) -> bool:
    """Whether the hot journal beside the file says the file was empty before the
    transaction left unfinished in it (rolled back, it is an empty file)."""
    try:
        with open(f"{path}-journal", "rb") as stream:
            head = stream.read(_JOURNAL_HEADER)
    except OSError:
        return False
    return (
        len(head) == _JOURNAL_HEADER
        and head.startswith(_JOURNAL_MAGIC)
        and int.from_bytes(head[16:20], "big") == 0
    )


def _drop_sidecars(path: Path, existed: dict[str, bool]) -> None:
    """Remove the `-wal` and `-shm` files a read-only look made (an empty `-wal` only)."""
    for suffix, was_there in existed.items():
        name = f"{path}{suffix}"
        with contextlib.suppress(OSError):
            if not was_there and (suffix == "-shm" or os.path.getsize(name) == 0):
                os.unlink(name)
