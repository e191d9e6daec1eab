"""Files at the history's path that are not a store (other programs' databases, as they are
left closed or by a crash), the states a kill leaves a new store in, and a folder's contents
by digest: for the store's tests and the `routescope history` command's."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from routescope.history import History
from routescope.history._schema import SCHEMA_VERSION


def foreign_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.execute("INSERT INTO notes VALUES ('someone else''s data')")
    db.commit()
    db.close()


def another_app(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 1234")
    db.commit()
    db.close()


def foreign_wal(path: Path) -> None:
    """Another app's database in WAL mode, closed (its WAL checkpointed and removed)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA application_id = 1234")
    db.execute("CREATE TABLE notes (body TEXT)")
    db.executemany("INSERT INTO notes VALUES (?)", [(f"note {n}",) for n in range(50)])
    db.commit()
    db.close()


def foreign_wal_kept(path: Path, suffixes: tuple[str, ...] = ("", "-wal")) -> None:
    """Another app's WAL-mode database as a crash leaves it: rows only in its `-wal`."""
    other = path.with_name("other.db")
    foreign_wal(other)
    db = sqlite3.connect(other)
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute("INSERT INTO notes VALUES ('only in the WAL')")
    db.commit()
    for suffix in suffixes:
        Path(f"{path}{suffix}").write_bytes(Path(f"{other}{suffix}").read_bytes())
    db.close()
    other.unlink()


def foreign_wal_crashed(path: Path) -> None:
    """The same with its `-shm` too (a stale one: a read-write look would recover it)."""
    foreign_wal_kept(path, ("", "-wal", "-shm"))


def cut_transaction(path: Path, *, rows_before: int) -> None:
    """A rollback-mode database as a kill leaves it mid-transaction: pages already spilled to
    the file and a hot `-journal` beside it (copied while another connection holds the
    transaction open, then abandoned). With no rows before, the transaction is the one that
    created the database: its journal says the file was empty."""
    other = path.with_name("other.db")
    db = sqlite3.connect(other, isolation_level=None)
    if rows_before:
        db.execute("CREATE TABLE notes (body TEXT)")
        db.executemany("INSERT INTO notes VALUES (?)", [(f"note {n}",) for n in range(rows_before)])
    db.execute("PRAGMA cache_size = 1")  # spill the transaction's pages to the file
    db.execute("BEGIN")
    if not rows_before:
        db.execute("CREATE TABLE notes (body TEXT)")
    db.executemany("INSERT INTO notes VALUES (?)", [("x" * 1000,)] * 500)
    path.write_bytes(other.read_bytes())
    Path(f"{path}-journal").write_bytes(Path(f"{other}-journal").read_bytes())
    db.execute("ROLLBACK")
    db.close()
    other.unlink()


def is_hot(path: Path) -> bool:
    """Whether a read-only connection finds a journal it would have to roll back."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        ) as db:
            db.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    except sqlite3.Error as exc:
        return exc.sqlite_errorname == "SQLITE_READONLY_ROLLBACK"
    return False


def store_cut_after_the_switch(path: Path) -> None:
    """What a kill leaves just after a new store switched to WAL, as its first write began:
    page 1 (a WAL-mode header, no application id), a `-wal` that is only its 32-byte header,
    and a stale `-shm`."""
    other = path.with_name("other.db")
    db = sqlite3.connect(other, isolation_level=None)
    assert db.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    path.write_bytes(other.read_bytes())
    db.execute("CREATE TABLE notes (body TEXT)")
    Path(f"{path}-wal").write_bytes(Path(f"{other}-wal").read_bytes()[:32])
    Path(f"{path}-shm").write_bytes(Path(f"{other}-shm").read_bytes())
    db.close()
    other.unlink()


def foreign_cut(path: Path) -> None:
    """Another app's database with a transaction cut by a kill (a hot `-journal` beside it)."""
    cut_transaction(path, rows_before=50)
    assert is_hot(path)


def store_cut_while_created(path: Path) -> None:
    """What a kill leaves in the first transaction of a new store, the switch to WAL: page 1
    written (a WAL-mode header, no application id yet) and the hot journal of a transaction
    that began on an empty file. Page 1 is taken from an empty database switched to WAL, the
    journal from a cut transaction that was creating a database."""
    cut_transaction(path, rows_before=0)
    empty = path.with_name("empty.db")
    db = sqlite3.connect(empty)
    assert db.execute("PRAGMA journal_mode = WAL").fetchone()[0] == "wal"
    db.close()
    path.write_bytes(empty.read_bytes())
    empty.unlink()
    assert is_hot(path)


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def snapshot(folder: Path) -> dict[str, str]:
    """Every name in the folder and its bytes' digest (a folder shown as such)."""
    return {
        p.name: "<folder>" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.iterdir()
    }


def from_a_newer_version(path: Path) -> None:
    """A store as a newer Routescope leaves it (a schema version past this one's)."""
    History.open(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()


def _write_bad_header(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)


MakeAt = Callable[[Path], None] | None

NOT_A_STORE = [
    pytest.param(None, "no history here", id="missing"),
    pytest.param(Path.touch, "no history in it yet (an empty file)", id="empty"),
    pytest.param(store_cut_while_created, "no history in it yet (an empty database)", id="cut"),
    pytest.param(Path.mkdir, "not a Routescope history (it is a directory)", id="folder"),
    pytest.param(
        lambda p: p.write_text("hello\n"),
        "not a Routescope history (not an SQLite database)",
        id="text",
    ),
    pytest.param(foreign_sqlite, "not a Routescope history; left as it is", id="rollback"),
    pytest.param(another_app, "not a Routescope history; left as it is", id="app-id"),
    pytest.param(foreign_wal, "not a Routescope history; left as it is", id="wal"),
    pytest.param(foreign_wal_kept, "not a Routescope history; left as it is", id="wal-kept"),
    pytest.param(foreign_wal_crashed, "not a Routescope history; left as it is", id="wal-crashed"),
    pytest.param(foreign_cut, "a transaction left unfinished", id="foreign-cut"),
    pytest.param(_write_bad_header, "the file is damaged", id="bad-header"),
]
"""What may be at a history's path that a reader must leave as it is — (make it, what the
read-only store's note says) — for the store's read-only tests and the history command's."""
