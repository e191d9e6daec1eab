"""The history store: one entry per distinct request, reopened as an equal `Request`, searched,
filtered, pinned; and never a crash, whatever is at its path."""

from __future__ import annotations

import itertools
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routescope import Request
from routescope.history import History, HistoryError, LastSession
from routescope.history._peek import default_history_path
from routescope.history._schema import APPLICATION_ID, SCHEMA_VERSION

from ._foreign import (
    NOT_A_STORE,
    MakeAt,
    another_app,
    digests,
    foreign_cut,
    foreign_sqlite,
    foreign_wal,
    foreign_wal_crashed,
    foreign_wal_kept,
    from_a_newer_version,
    snapshot,
    store_cut_after_the_switch,
    store_cut_while_created,
)
from ._support import TODAY, plain, result_of, rich, with_tools


class Clock:
    """A clock that moves one second per call."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def history(tmp_path: Path) -> History:
    store = History.open(tmp_path / "history.sqlite3", clock=Clock())
    assert store.enabled and store.note is None
    return store


def test_a_new_store_is_wal_and_owner_only(history: History) -> None:
    assert history.pragma("journal_mode") == "wal"
    assert history.pragma("synchronous") == 1  # NORMAL
    assert history.pragma("busy_timeout") == 5000
    assert history.fts
    assert stat.S_IMODE(history.path.stat().st_mode) == 0o600
    db = sqlite3.connect(history.path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_default_path_is_in_the_user_data_folder() -> None:
    path = default_history_path()
    assert path.name == "history.sqlite3" and path.parent.name == "routescope"
    assert str(path).startswith(os.environ["XDG_DATA_HOME"])  # the tests' temporary folder


def test_reopening_gives_the_same_request(history: History, tmp_path: Path) -> None:
    request, result = plain()
    entry = history.record(request, result)
    assert entry is not None
    assert history.reopen(entry.id) == request
    assert history.reopen(entry.id).fingerprint() == request.fingerprint() == entry.fingerprint
    full = rich(tmp_path)
    entry = history.record(full, result_of(full.text))
    assert entry is not None
    reopened = history.reopen(entry.id)
    assert reopened == full and reopened.fingerprint() == full.fingerprint()
    assert reopened.rules.source == full.rules.source and not reopened.rules.is_builtin
    assert entry.catalog == full.catalog and entry.today == full.today


def test_the_same_request_again_counts_instead_of_adding(history: History) -> None:
    request, result = plain()
    first = history.record(request, result)
    other = history.record(*plain("pizza near me"))
    again = history.record(request, result)
    assert first is not None and other is not None and again is not None
    assert again.id == first.id and again.count == 2
    assert again.first_seen == first.first_seen and again.last_seen > first.last_seen
    assert history.count() == 2
    assert [e.id for e in history.search()] == [first.id, other.id]  # newest first
    assert history.find(request) == history.get(first.id)
    assert history.find(request.replace(text="never seen")) is None


def test_a_rule_pack_text_is_stored_once(history: History, tmp_path: Path) -> None:
    for number in range(5):
        history.record(*plain(f"prompt number {number}"))
    full = rich(tmp_path)
    history.record(full, result_of(full.text))
    history.record(full.replace(text="another"), result_of(full.text))
    db = sqlite3.connect(history.path)
    assert db.execute("SELECT count(*) FROM rule_packs").fetchone()[0] == 2
    assert db.execute("SELECT count(DISTINCT rules_digest) FROM entries").fetchone()[0] == 2


def test_the_summary_is_kept(history: History) -> None:
    request, result = with_tools("Show best lending pools then run git status")
    entry = history.record(request, result)
    assert entry is not None and result.tools is not None
    summary = entry.summary
    assert summary.strategy == result.strategy and summary.lint_class == result.lint.query_class
    assert summary.top_tool == result.tools.results[0].tool_name
    assert result.decision is not None and summary.agent == result.decision.agent
    assert summary.task_route == result.task.route


TEXTS = [
    "History of jazz music",
    "Café crème near me",
    "How do I install FastAPI on Ubuntu?",
    "pizza near me",
    "jazz clubs in New Orleans",
]


@pytest.mark.parametrize("fts", [True, False])
def test_search_by_word_prefixes(tmp_path: Path, fts: bool) -> None:
    history = History.open(tmp_path / "h.sqlite3", clock=Clock(), fts=fts)
    assert history.fts is fts
    ids = {}
    for text in TEXTS:
        entry = history.record(*plain(text))
        assert entry is not None
        ids[text] = entry.id

    def found(query: str) -> list[str]:
        return [entry.text for entry in history.search(query)]

    assert found("jazz") == ["jazz clubs in New Orleans", "History of jazz music"]
    assert found("jazz hist") == found("HIST JAZ") == ["History of jazz music"]
    assert found("inst fast") == ["How do I install FastAPI on Ubuntu?"]
    assert found("near") == ["pizza near me", "Café crème near me"]
    if fts:
        assert found("cafe creme") == ["Café crème near me"]  # accents ignored
        assert found("azz") == []  # words start where the prompt's words start
    assert found("") == found("   ") == found("?!") == list(reversed(TEXTS))
    for hostile in ['"', '" OR "', "jazz*", "NOT jazz", "(jazz", "near:", "a AND", "%", "_", "\\"]:
        history.search(hostile)  # FTS syntax and LIKE wildcards are only text
    assert history.count("jazz") == 2
    assert history.search("jazz", limit=1, offset=1)[0].id == ids["History of jazz music"]


def test_recording_again_moves_an_entry_to_the_top(history: History) -> None:
    for text in TEXTS:
        history.record(*plain(text))
    history.record(*plain(TEXTS[0]))
    assert [e.text for e in history.search()][:2] == [TEXTS[0], TEXTS[-1]]
    assert [e.text for e in history.search("jazz")] == [TEXTS[0], TEXTS[-1]]


def test_filters_pins_and_facets(history: History) -> None:
    local = history.record(*plain("pizza near me"))
    tool = history.record(*with_tools("How do I install FastAPI on Ubuntu? run git status"))
    general = history.record(*plain("History of jazz music"))
    assert local is not None and tool is not None and general is not None
    top = tool.summary.top_tool
    assert top is not None
    assert [e.id for e in history.search(strategy="local")] == [local.id]
    assert [e.id for e in history.search(strategy="tech")] == [tool.id]
    assert [e.id for e in history.search(top_tool=top)] == [tool.id]
    assert {e.id for e in history.search(top_tool="")} == {local.id, general.id}
    assert [e.id for e in history.search("install", top_tool=top)] == [tool.id]
    assert history.search("pizza", strategy="tech") == []
    assert history.search(lint_class=local.summary.lint_class, strategy="local")[0].id == local.id
    assert history.search(pinned=True) == []
    assert history.pin(general.id)
    assert [e.id for e in history.search(pinned=True)] == [general.id]
    assert general.id not in {e.id for e in history.search(pinned=False)}
    assert history.get(general.id) is not None and history.get(general.id).pinned  # type: ignore[union-attr]
    assert history.pin(general.id, False) and not history.search(pinned=True)
    assert not history.pin(999)
    facets = history.facets()
    assert dict(facets.strategies) == {"local": 1, "tech": 1, "general": 1}
    assert facets.top_tools == [(top, 1)]
    assert sum(n for _, n in facets.lint_classes) == 3


def test_delete_and_clear_keep_pinned_entries_and_drop_unused_packs(
    history: History, tmp_path: Path
) -> None:
    full = rich(tmp_path)
    custom = history.record(full, result_of(full.text))
    kept = history.record(*plain("pizza near me"))
    gone = history.record(*plain("History of jazz music"))
    assert custom is not None and kept is not None and gone is not None
    assert history.delete(custom.id) and not history.delete(custom.id)
    db = sqlite3.connect(history.path)
    assert db.execute("SELECT count(*) FROM rule_packs").fetchone()[0] == 1
    history.pin(kept.id)
    assert history.clear() == 1
    assert [e.id for e in history.search()] == [kept.id]
    assert history.search("jazz") == []  # the full-text index follows
    assert history.clear(keep_pinned=False) == 1 and history.count() == 0
    assert db.execute("SELECT count(*) FROM rule_packs").fetchone()[0] == 0
    with pytest.raises(HistoryError, match="no such entry"):
        history.reopen(gone.id)


def test_the_oldest_unpinned_entries_are_trimmed(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    history = History.open(path, clock=Clock())
    entries = [history.record(*plain(f"prompt {n}")) for n in range(8)]
    assert all(entries)
    history.pin(entries[0].id)  # type: ignore[union-attr]
    history.close()
    trimmed = History.open(path, clock=Clock(), max_entries=5)
    texts = [e.text for e in trimmed.search()]
    assert texts == ["prompt 7", "prompt 6", "prompt 5", "prompt 4", "prompt 0"]


def test_a_prompt_too_long_to_keep_is_not_kept(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("routescope.history._store.MAX_STORED_CHARS", 10)
    assert history.record(*plain("a prompt longer than ten")) is None
    assert history.note is not None and "longer than" in history.note
    assert history.enabled and history.count() == 0


def test_a_prompt_that_is_not_valid_unicode_is_not_kept(history: History) -> None:
    request, result = plain()
    assert history.record(request.replace(text="bad \ud800 text"), result) is None
    assert history.note is not None and history.note.startswith("not kept in the history")
    assert history.enabled and history.record(request, result) is not None


def test_the_last_session_is_kept(history: History) -> None:
    assert history.last_session() is None
    session = LastSession(
        prompt="ramen near me", tab="Tools", catalog="/c", rules=None, today=TODAY
    )
    assert history.save_last_session(session)
    history.close()
    reopened = History.open(history.path)
    assert reopened.last_session() == session
    assert reopened.set_state("last_session", {"prompt": ["not", "text"]})
    assert reopened.last_session() is None  # unreadable: nothing restored, no crash
    assert reopened.set_state("splitter", [1, 2, {"a": None}])
    assert reopened.state("splitter") == [1, 2, {"a": None}]
    with pytest.raises(ValueError, match="not JSON"):
        reopened.set_state("bad", float("nan"))


def test_a_busy_store_skips_a_record_and_says_so(history: History) -> None:
    history.close()
    history = History.open(history.path, busy_timeout=0.05)
    other = sqlite3.connect(history.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    assert history.record(*plain()) is None
    assert history.note is not None and "another window held the history" in history.note
    assert history.enabled
    other.execute("ROLLBACK")
    assert history.record(*plain()) is not None


def test_history_off_records_and_returns_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    history = History.open(blocker / "history.sqlite3")
    assert not history.enabled
    assert history.note is not None and "history is off" in history.note
    assert "\n" not in history.note
    assert history.record(*plain()) is None
    assert history.search() == [] and history.count() == 0 and history.get(1) is None
    assert history.facets().strategies == [] and history.last_session() is None
    assert not history.pin(1) and not history.delete(1) and history.clear() == 0
    assert not history.save_last_session(LastSession())
    with pytest.raises(HistoryError, match="history is off"):
        history.reopen(1)


# -- whatever is at the path --------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: p.write_bytes(os.urandom(5000)), "not an SQLite database"),
        (lambda p: p.write_text("hello, I am a text file\n"), "not an SQLite database"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200), "damaged"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(8192)), "damaged"),
        (foreign_sqlite, "not a Routescope history"),
        (another_app, "not a Routescope history"),
        (lambda p: p.mkdir(), "not a regular file"),
        (lambda p: os.mkfifo(p), "not a regular file"),
    ],
    ids=["random", "text", "bad-header", "random-pages", "foreign", "app-id", "folder", "fifo"],
)
def test_a_corrupt_or_foreign_file_is_moved_aside(tmp_path: Path, make: object, why: str) -> None:
    path = tmp_path / "history.sqlite3"
    make(path)  # type: ignore[operator]
    before = sorted(p.name for p in tmp_path.iterdir())
    history = History.open(path)
    assert history.enabled, history.note
    note = history.note
    assert note is not None and why in note and "moved aside to history.sqlite3.broken-" in note
    assert "\n" not in note and str(path) in note
    assert isinstance(history.problem, HistoryError) and str(history.problem) == note
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("history.sqlite3.broken-")]
    assert len(aside) == 1 and before == ["history.sqlite3"]
    entry = history.record(*plain())
    assert entry is not None and history.reopen(entry.id) == plain()[0]
    assert history.integrity_check() == "ok"


@pytest.mark.parametrize(
    "make",
    [
        foreign_sqlite,
        another_app,
        foreign_wal,
        foreign_wal_kept,
        foreign_wal_crashed,
        foreign_cut,
        lambda p: p.write_text("hello, I am a text file\n"),
        lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200),
        lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(8192)),
    ],
    ids=[
        "rollback",
        "app-id",
        "wal",
        "wal-kept",
        "wal-crashed",
        "cut",
        "text",
        "bad-header",
        "random-pages",
    ],
)
def test_a_file_that_is_not_ours_is_moved_aside_unchanged(tmp_path: Path, make: object) -> None:
    path = tmp_path / "history.sqlite3"
    make(path)  # type: ignore[operator]
    before = digests(tmp_path)
    history = History.open(path)
    assert history.enabled and history.note is not None and "moved aside" in history.note
    asides = sorted(p.name for p in tmp_path.iterdir() if ".broken-" in p.name)
    aside = asides[0]
    assert asides == [aside + suffix for suffix in sorted(n[len(path.name) :] for n in before)]
    after = digests(tmp_path)
    for name, digest in before.items():  # byte for byte, and nothing made beside it
        assert after[aside + name[len(path.name) :]] == digest, name
    if make in (foreign_wal_kept, foreign_wal_crashed):
        moved = sqlite3.connect(f"file:{tmp_path / aside}?mode=ro", uri=True)
        assert moved.execute("SELECT count(*) FROM notes").fetchone()[0] == 51
        moved.close()
    if make is foreign_cut:  # its journal went with it: rolled back (on a copy), all is there
        copy = tmp_path / "copy"
        copy.mkdir()
        for name in (aside, aside + "-journal"):
            (copy / name).write_bytes((tmp_path / name).read_bytes())
        moved = sqlite3.connect(copy / aside)
        assert moved.execute("SELECT count(*) FROM notes").fetchone()[0] == 50
        moved.close()
    entry = history.record(*plain())
    assert entry is not None and history.reopen(entry.id) == plain()[0]
    assert history.pragma("journal_mode") == "wal" and history.integrity_check() == "ok"


def test_an_empty_file_becomes_the_store(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    path.touch()
    history = History.open(path)
    assert history.enabled and history.note is None
    assert [p.name for p in tmp_path.iterdir() if ".broken-" in p.name] == []
    assert history.record(*plain()) is not None


def test_a_store_cut_after_its_switch_to_wal_opens_at_once(tmp_path: Path) -> None:
    """Its `-wal` holds no frame: the look reads the file alone (SQLite's read-only `-shm`
    reader would retry for seconds, then answer "locking protocol")."""
    path = tmp_path / "history.sqlite3"
    store_cut_after_the_switch(path)
    history = History.open(path, busy_timeout=0.5)
    assert history.enabled and history.note is None, history.note
    assert [p.name for p in tmp_path.iterdir() if ".broken-" in p.name] == []
    assert history.record(*plain()) is not None and history.integrity_check() == "ok"


def test_a_file_cut_while_it_was_created_becomes_the_store(tmp_path: Path) -> None:
    """A store killed in its first transaction (the switch to WAL writes page 1 under a
    rollback journal) leaves a file a read-only look may not read: its hot journal says the
    file was empty before, so it is one, and becomes the store (never moved aside). What the
    kill tests used to meet now and then (test_kill.py)."""
    path = tmp_path / "history.sqlite3"
    store_cut_while_created(path)
    history = History.open(path)
    assert history.enabled and history.note is None, history.note
    assert [p.name for p in tmp_path.iterdir() if ".broken-" in p.name] == []
    entry = history.record(*plain())
    assert entry is not None and history.reopen(entry.id) == plain()[0]
    assert history.pragma("journal_mode") == "wal" and history.integrity_check() == "ok"


def test_a_damaged_store_is_moved_aside_when_the_damage_shows(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    for number in range(300):
        history.record(*plain(f"prompt {number} " + "filler words " * 20))
    history.close()
    size = path.stat().st_size
    with open(path, "r+b") as stream:  # every page but the first: garbage
        stream.seek(4096)
        stream.write(os.urandom(size - 4096))
    history = History.open(path)
    for _ in range(3):  # whichever call meets the damage: no crash, then a new store
        history.search("prompt")
        history.record(*plain("after the damage"))
    assert history.enabled
    assert history.note is not None and "moved aside" in history.note
    assert [e.text for e in history.search()] == ["after the damage"]
    assert history.integrity_check() == "ok"


def test_a_store_from_a_newer_version_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    from_a_newer_version(path)
    data = path.read_bytes()
    history = History.open(path)
    assert not history.enabled
    assert history.note is not None and "newer Routescope" in history.note
    assert path.read_bytes() == data
    assert not [p for p in tmp_path.iterdir() if "broken" in p.name]


READ_ONLY_SCRIPT = textwrap.dedent(
    """
    import sys
    from routescope.history import History
    history = History.open(sys.argv[1])
    print(history.enabled)
    print(history.note)
    """
)


def open_elsewhere(path: Path, *, drop_rights: bool) -> list[str]:
    """Open the history in another process (as root: without the right to write anywhere)."""
    command = [sys.executable, "-c", READ_ONLY_SCRIPT, str(path)]
    if drop_rights:
        quoted = " ".join(f"'{part}'" for part in command)
        command = [CAPSH, "--drop=cap_dac_override,cap_fowner", "--", "-c", quoted]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.splitlines()


CAPSH = "/usr/sbin/capsh" if Path("/usr/sbin/capsh").exists() else "/sbin/capsh"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CAN_TEST_READ_ONLY = os.name == "posix" and (not IS_ROOT or Path(CAPSH).exists())


@pytest.mark.skipif(not CAN_TEST_READ_ONLY, reason="root without capsh writes anywhere")
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
def test_a_read_only_folder_turns_history_off(tmp_path: Path, existing: bool) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "history.sqlite3"
    if existing:
        history = History.open(path)
        history.record(*plain())
        history.close()
    folder.chmod(0o555)
    try:
        lines = open_elsewhere(path, drop_rights=IS_ROOT)
    finally:
        folder.chmod(0o755)
    assert lines[0] == "False" and len(lines) == 2
    assert "history is off" in lines[1] and str(path) in lines[1]
    if existing:
        assert History.open(path).search()[0].text == plain()[0].text  # untouched


@pytest.mark.skipif(not CAN_TEST_READ_ONLY, reason="root without capsh writes anywhere")
def test_a_read_only_store_turns_history_off(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    History.open(path).close()
    path.chmod(0o400)
    lines = open_elsewhere(path, drop_rights=IS_ROOT)
    assert lines[0] == "False" and "history is off" in lines[1]


@pytest.mark.skipif(not CAN_TEST_READ_ONLY, reason="root without capsh writes anywhere")
@pytest.mark.parametrize(
    "make", [foreign_sqlite, foreign_wal, foreign_cut], ids=["rollback", "wal", "cut"]
)
def test_a_foreign_file_in_a_read_only_folder_turns_history_off(
    tmp_path: Path, make: object
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "history.sqlite3"
    make(path)  # type: ignore[operator]
    before = digests(folder)
    folder.chmod(0o555)
    try:
        lines = open_elsewhere(path, drop_rights=IS_ROOT)
    finally:
        folder.chmod(0o755)
    assert lines[0] == "False" and len(lines) == 2
    assert "history is off" in lines[1] and str(path) in lines[1]
    assert digests(folder) == before  # the same bytes, and nothing beside them


# -- read-only (the command line) -----------------------------------------------------------


def test_read_only_reads_a_store_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History.open(path, clock=Clock())
    first = history.record(*plain())
    history.record(*plain("pizza near me"))
    history.close()
    data = path.read_bytes()
    reader = History.open(path, read_only=True)
    assert reader.enabled and reader.note is None and reader.read_only
    assert [e.text for e in reader.search()] == ["pizza near me", "History of jazz music"]
    assert first is not None and reader.reopen(first.id) == plain()[0]
    assert reader.search(rules=plain()[0].rules.digest) == reader.search()
    assert reader.record(*plain("not kept")) is None and reader.enabled
    assert reader.note is not None and "open read-only" in reader.note
    assert reader.count() == 2
    reader.close()
    assert path.read_bytes() == data


def test_read_only_sees_what_an_open_window_records(tmp_path: Path) -> None:
    """The window keeps the store open: its entries are in the WAL, its header not yet
    marked; a reader sees each committed entry."""
    path = tmp_path / "history.sqlite3"
    window = History.open(path)
    window.record(*plain())
    reader = History.open(path, read_only=True)
    assert reader.enabled, reader.note
    assert reader.count() == 1
    window.record(*plain("pizza near me"))
    assert [e.text for e in reader.search()] == ["pizza near me", "History of jazz music"]
    reader.close()
    window.close()


@pytest.mark.parametrize(("make", "said"), NOT_A_STORE)
def test_read_only_leaves_anything_else_as_it_is(tmp_path: Path, make: MakeAt, said: str) -> None:
    path = tmp_path / "history.sqlite3"
    if make is not None:
        make(path)
    before = snapshot(tmp_path)
    history = History.open(path, read_only=True)
    assert not history.enabled and history.note is not None
    assert said in history.note and history.note.startswith(f"{path}: ")
    assert "\n" not in history.note and "moved aside" not in history.note
    assert history.search() == [] and history.record(*plain()) is None
    assert snapshot(tmp_path) == before  # the same bytes, and nothing made beside them


def test_read_only_refuses_a_store_from_a_newer_version(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    from_a_newer_version(path)
    history = History.open(path, read_only=True)
    assert not history.enabled
    assert history.note is not None and "newer Routescope" in history.note


def test_the_rules_filter_takes_a_digest_or_a_source(history: History, tmp_path: Path) -> None:
    history.record(*plain())
    full = rich(tmp_path)
    history.record(full, result_of(full.text))
    builtin = plain()[0].rules
    assert builtin.source == "default.toml"
    assert [e.text for e in history.search(rules="default.toml")] == ["History of jazz music"]
    assert [e.text for e in history.search(rules=full.rules.digest)] == [full.text]
    assert [e.text for e in history.search(rules=full.rules.source)] == [full.text]
    assert history.count(rules=builtin.digest) == 1 and history.search(rules="nope") == []


# -- two windows at once ------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import datetime as dt, sys, time
    from pathlib import Path
    from routescope import Request, inspect
    from routescope.history import History
    path, name, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    history = History.open(path)
    base = Request.build("shared prompt", today=dt.date(2026, 2, 5))
    result = inspect(base)
    while not go.exists():
        time.sleep(0.001)
    for number in range(150):
        assert history.record(base.replace(text=f"{name} prompt {number}"), result), history.note
        assert history.record(base, result), history.note
    print("done")
    """
)


def test_two_windows_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    ]
    go.touch()
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0 and out == "done\n", err
    history = History.open(path)
    assert history.integrity_check() == "ok"
    assert history.count() == 301
    for name, number in itertools.product(("left", "right"), range(150)):
        assert history.count(f"{name} prompt {number}") >= 1
    shared = history.search("shared")
    assert len(shared) == 1 and shared[0].count == 300


# -- any prompt -----------------------------------------------------------------------------


@settings(max_examples=60)
@given(st.text(min_size=1, max_size=60).filter(lambda t: any(c.isalnum() for c in t)))
def test_any_prompt_round_trips(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    folder = tmp_path_factory.mktemp("any")
    history = History.open(folder / "h.sqlite3")
    request = Request.build("History of jazz music", today=TODAY).replace(text=text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: never a prompt (validate_text refuses it)
        return
    entry = history.record(request, result_of("History of jazz music"))
    assert entry is not None and entry.text == text
    assert history.reopen(entry.id) == request
    for word in text.split():
        found = history.search(word)  # never an error, whatever the word
        if word.isascii() and word.isalnum():
            assert entry.id in [e.id for e in found]
    history.close()


@settings(max_examples=200)
@given(st.text(max_size=40))
def test_any_query_is_only_text(tmp_path_factory: pytest.TempPathFactory, query: str) -> None:
    history = SEARCHED.get("history")
    if history is None:
        history = History.open(tmp_path_factory.mktemp("q") / "h.sqlite3")
        for text in TEXTS:
            history.record(*plain(text))
        SEARCHED["history"] = history
    found = history.search(query)
    assert isinstance(found, list) and history.count(query) >= len(found)
    assert history.enabled and history.note is None, history.note


SEARCHED: dict[str, History] = {}


def test_the_last_prompt_can_be_peeked_at_without_opening_the_store(tmp_path: Path) -> None:
    from routescope.history import peek_last_prompt

    path = tmp_path / "history.sqlite3"
    assert peek_last_prompt(path) is None  # no store yet
    with History.open(path) as store:
        assert peek_last_prompt(path) is None  # no session kept
        store.save_last_session(LastSession(prompt="pizza near me", tab="Plan"))
        assert peek_last_prompt(path) == "pizza near me"  # while the store is open
    assert peek_last_prompt(path) == "pizza near me"
    path.write_bytes(b"not a database at all")
    assert peek_last_prompt(path) is None
