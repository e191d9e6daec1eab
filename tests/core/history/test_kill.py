"""`kill -9` at any moment loses at most the last entry and never corrupts the store.

A real writer process records prompts as fast as it can (new ones, and earlier ones again),
printing each entry once `record` has returned (committed). It is killed with SIGKILL at random
moments, several times over the same store: while Python starts, while the store is created,
while it writes. After each kill the store opens without repair, `PRAGMA integrity_check` says
"ok", every entry the writer reported is there and intact (its text, its summary, its request
reopened with the same fingerprint, its count at least the reported one), and at most one entry
is there that the writer did not get to report.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from routescope import Request
from routescope.history import History, Summary

from ._support import TODAY, result_of

WRITER = textwrap.dedent(
    """
    import datetime as dt, sys
    from routescope import Request, inspect
    from routescope.history import History
    path, first = sys.argv[1], int(sys.argv[2])
    history = History.open(path)
    if not history.enabled or history.note:
        print("problem", history.note, flush=True)
        sys.exit(3)
    base = Request.build("History of jazz music", today=dt.date(2026, 2, 5))
    result = inspect(base)
    print("ready", flush=True)
    def text(number):
        return f"prompt {number} " + "jazz " * (number % 9)
    number = first
    while True:
        entry = history.record(base.replace(text=text(number)), result)
        if entry is None:
            print("failed", history.note, flush=True)
            sys.exit(4)
        print("new", number, entry.id, flush=True)
        if number % 4 == 0 and number > first:
            again = history.record(base.replace(text=text(number - 1)), result)
            if again is None:
                print("failed", history.note, flush=True)
                sys.exit(4)
            print("again", number - 1, again.id, again.count, flush=True)
        number += 1
    """
)


def text_of(number: int) -> str:
    return f"prompt {number} " + "jazz " * (number % 9)


class Writer:
    """The writer process and the lines it printed (read as they come, so it never blocks)."""

    def __init__(self, path: Path, first: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(first)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.endswith("\n"):  # a line cut by the kill was never reported whole
                self.lines.append(line.rstrip("\n"))
            if line.startswith("ready"):
                self.ready.set()
        self.ready.set()

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._reader.join(timeout=30)
        assert self.process.stderr is not None and self.process.stdout is not None
        errors = self.process.stderr.read()
        self.process.stderr.close()
        self.process.stdout.close()
        assert self.process.returncode == -signal.SIGKILL, (self.lines[-3:], errors)


def check(path: Path, reported: dict[int, int], counts: dict[int, int]) -> set[int]:
    """The store after a kill: sound, with every reported entry intact; its entry ids."""
    history = History.open(path)
    assert history.enabled and history.note is None, history.note
    assert history.integrity_check() == "ok"
    expected = Summary.of(result_of("History of jazz music").outcome)
    base = Request.build("History of jazz music", today=TODAY)
    for number, entry_id in reported.items():
        entry = history.get(entry_id)
        assert entry is not None, f"entry {entry_id} (prompt {number}) was lost"
        assert entry.text == text_of(number) and entry.summary == expected
        assert entry.count >= counts.get(number, 1)
        request = history.reopen(entry_id)
        assert request.fingerprint() == base.replace(text=text_of(number)).fingerprint()
    ids = {entry.id for entry in history.search(limit=1_000_000)}
    assert history.count() == len(ids)
    history.close()
    return ids


def reported_lines(writer: Writer) -> tuple[dict[int, int], dict[int, int]]:
    """The entries the writer reported (prompt number → entry id) and the counts it saw."""
    entries: dict[int, int] = {}
    counts: dict[int, int] = {}
    for line in writer.lines:
        kind, *fields = line.split()
        assert kind in ("ready", "new", "again"), line  # never "failed" or "problem"
        if kind == "new":
            entries[int(fields[0])] = int(fields[1])
        elif kind == "again":
            number, entry_id, count = map(int, fields)
            assert entries[number] == entry_id
            counts[number] = count
    return entries, counts


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_9_while_the_store_is_created(tmp_path: Path) -> None:
    """Killed while Python starts, while the store is made, and at its first records: the
    next open finds a sound store (never one it must move aside)."""
    probe = Writer(tmp_path / "probe.sqlite3", first=0)
    started = time.monotonic()
    assert probe.ready.wait(timeout=120), probe.lines
    took = time.monotonic() - started  # only to spread the kills, never asserted
    probe.kill()
    for number, fraction in enumerate((0.3, 0.6, 0.75, 0.85, 0.9, 0.95, 1.0, 1.1)):
        path = tmp_path / f"fresh{number}.sqlite3"
        writer = Writer(path, first=0)
        time.sleep(took * fraction)
        writer.kill()
        entries, counts = reported_lines(writer)
        if path.exists():
            ids = check(path, entries, counts)
            assert len(ids - set(entries.values())) <= 1
    assert not [p.name for p in tmp_path.iterdir() if "broken" in p.name]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_9_at_random_moments_never_corrupts_the_store(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    rng = random.Random(20261123)
    reported: dict[int, int] = {}
    counts: dict[int, int] = {}
    known: set[int] = set()
    writing = 0
    delays = [rng.uniform(0.0, 0.02) for _ in range(3)] + [rng.uniform(0.02, 0.5) for _ in range(5)]
    for round_number, delay in enumerate(delays):
        writer = Writer(path, first=round_number * 1_000_000)
        assert writer.ready.wait(timeout=120), writer.lines
        time.sleep(delay)
        writer.kill()
        entries, seen = reported_lines(writer)
        writing += bool(entries)
        reported.update(entries)
        counts.update(seen)
        ids = check(path, reported, counts)
        unreported = ids - known - set(entries.values())
        assert len(unreported) <= 1, f"round {round_number}: {len(unreported)} unreported entries"
        known = ids
        assert not [p.name for p in tmp_path.iterdir() if "broken" in p.name]
    assert writing >= 4 and len(reported) > 100
