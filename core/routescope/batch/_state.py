"""Where a batch writes, and how it resumes.

Beside RESULTS (`results.jsonl` or `results.parquet`) a batch keeps `results.state.json` (what
it is doing and how far it got), `results.bad.jsonl` (the bad lines, when there are any) and,
for Parquet, `results.partial.jsonl` (the records, converted into RESULTS at the end). Records
are appended whole chunks at a time, in input order; every half second the files are flushed
to disk and the state replaced atomically with the position reached and the byte length of
each file. A run that finds a state continues from it: anything written after the last state
(a chunk the kill interrupted) is cut off and done again, so the result is the same file an
uninterrupted run writes.

A file that exists without a state is not the batch's: it is never written to. Neither is a
symbolic link, a file that is also an input, or anything but a regular file.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .._errors import one_line
from .._files import MB, read_text, replace_file
from ._common import BadLine, BatchError
from ._read import InputFile, Position

__all__ = [
    "OutPaths",
    "Output",
    "State",
    "finish",
    "listed_bad_lines",
    "open_output",
    "out_paths",
    "record_labels",
    "state_of",
]

STATE_VERSION = 1
_STEMS = (".jsonl", ".ndjson", ".json", ".parquet")
_BAD_LINE_BYTES = 256 * 1024
"""The longest line of the bad-lines file read back (its source's name and a 120-character
excerpt are far shorter)."""


@dataclass(frozen=True, slots=True)
class OutPaths:
    out: Path
    parquet: bool
    journal: Path
    """Where records are appended: RESULTS itself, or `<base>.partial.jsonl` for Parquet."""
    bad: Path
    state: Path


def out_paths(out: str | Path) -> OutPaths:
    """RESULTS and the files kept beside it (named from RESULTS without its extension)."""
    path = Path(out)
    name = path.name
    base = next((name[: -len(s)] for s in _STEMS if name.lower().endswith(s) and name != s), name)
    parquet = name.lower().endswith(".parquet")
    folder = path.parent
    journal = folder / f"{base}.partial.jsonl" if parquet else path
    return OutPaths(
        path, parquet, journal, folder / f"{base}.bad.jsonl", folder / f"{base}.state.json"
    )


@dataclass(slots=True)
class State:
    """What `<base>.state.json` holds."""

    options: dict[str, Any]
    inputs: list[list[Any]]
    today: str
    position: Position = field(default_factory=Position)
    journal_bytes: int = 0
    bad_bytes: int = 0
    prompts: int = 0
    bad: int = 0
    complete: bool = False
    bad_not_listed: dict[str, int] = field(default_factory=dict)
    """Bad lines past the bad-lines file's cap, counted by reason (kept out of the state
    file while empty, so that a batch without them writes the same state as before)."""
    labels: dict[str, str] | None = None
    """The labelled set of `--labels` (`path`, absolute, and `digest`), for `report` to score
    the results with (kept out of the state file when there is none)."""
    router_errors: dict[str, dict[str, int]] = field(default_factory=dict)
    """External routers' failures in the records written: router → failure label (`timeout`,
    `http 5xx`, `rate_limited`, `garbage`, …) → count (kept out of the state file while
    empty)."""

    @property
    def rules_digest(self) -> str | None:
        """The digest of the rule pack the batch routes with."""
        digest = self.options.get("rules")
        return digest if isinstance(digest, str) else None

    def encode(self) -> bytes:
        data = asdict(self)
        data["position"] = [self.position.file, self.position.offset, self.position.line]
        if not self.bad_not_listed:
            del data["bad_not_listed"]
        if self.labels is None:
            del data["labels"]
        if not self.router_errors:
            del data["router_errors"]
        return json.dumps({"version": STATE_VERSION, **data}, indent=1).encode()

    @classmethod
    def decode(cls, text: str) -> State:
        data = json.loads(text)
        if not isinstance(data, dict) or data.pop("version", None) != STATE_VERSION:
            raise ValueError("not a state this version of routescope writes")
        file, offset, line = data.pop("position")
        state = cls(**data, position=Position(int(file), int(offset), int(line)))
        numbers = (state.journal_bytes, state.bad_bytes, state.prompts, state.bad)
        if not all(isinstance(n, int) and n >= 0 for n in numbers):
            raise ValueError("a count is not a whole number")
        counts = state.bad_not_listed
        if not isinstance(counts, dict) or not all(
            isinstance(k, str) and isinstance(n, int) and n >= 0 for k, n in counts.items()
        ):
            raise ValueError("the bad lines not listed are malformed")
        if not isinstance(state.options, dict) or not isinstance(state.inputs, list):
            raise ValueError("options or inputs are malformed")
        errors = state.router_errors
        if not isinstance(errors, dict) or not all(
            isinstance(name, str)
            and isinstance(kinds, dict)
            and all(isinstance(k, str) and isinstance(n, int) and n >= 0 for k, n in kinds.items())
            for name, kinds in errors.items()
        ):
            raise ValueError("the router errors are malformed")
        labels = state.labels
        if labels is not None and not (
            isinstance(labels, dict)
            and all(isinstance(labels.get(key), str) for key in ("path", "digest"))
        ):
            raise ValueError("the labels are malformed")
        return state


def _describe_inputs(files: Sequence[InputFile]) -> list[list[Any]]:
    return [[f.source, f.size, f.mtime_ns] for f in files]


def _check_path(path: Path, files: Sequence[InputFile]) -> os.stat_result | None:
    """The file's status if it exists; BatchError when the batch must not write there."""
    shown = one_line(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BatchError(f"{shown}: cannot use as output: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise BatchError(
            f"{shown} is a symbolic link: name the file itself (a batch never writes through "
            "a link)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise BatchError(f"{shown}: cannot use as output: not a regular file")
    for file in files:
        with contextlib.suppress(OSError):
            other = os.stat(file.path)
            if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                raise BatchError(f"{shown} is also an input ({one_line(file.source)})")
    return info


class Output:
    """The open files of a batch: the journal (locked while the batch runs), the bad lines,
    and the state they are committed by."""

    def __init__(self, paths: OutPaths, state: State, journal: int) -> None:
        self.paths = paths
        self.state = state
        self._journal = journal
        self._bad: int | None = None

    def append(self, records: bytes, bad: bytes) -> None:
        if records:
            _write_all(self._journal, records, self.paths.journal)
            self.state.journal_bytes += len(records)
        if bad:
            if self._bad is None:
                self._bad = _open_append(self.paths.bad, self.state.bad_bytes)
            _write_all(self._bad, bad, self.paths.bad)
            self.state.bad_bytes += len(bad)

    def commit(self) -> None:
        """Make what was appended durable, then record it in the state (atomically)."""
        for handle in (self._journal, self._bad):
            if handle is not None:
                with contextlib.suppress(OSError):  # a file system without fsync
                    os.fsync(handle)
        _write_state(self.paths, self.state)

    def journal_path(self) -> Path:
        return self.paths.journal

    def close(self) -> None:
        for handle in (self._journal, self._bad):
            if handle is not None:
                with contextlib.suppress(OSError):
                    os.close(handle)
        self._bad = None


def _write_all(handle: int, data: bytes, path: Path) -> None:
    view = memoryview(data)
    try:
        while view:
            written = os.write(handle, view)
            view = view[written:]
    except OSError as exc:
        raise BatchError(f"{one_line(path)}: cannot write: {exc.strerror or exc}") from None


def _write_state(paths: OutPaths, state: State) -> None:
    try:
        replace_file(paths.state, state.encode())
    except OSError as exc:
        raise BatchError(f"{one_line(paths.state)}: cannot write: {exc.strerror or exc}") from None


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open_append(path: Path, length: int) -> int:
    """Open a batch file to append to, cut to `length` (what the state committed)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW, 0o644)
    except OSError as exc:
        raise BatchError(f"{one_line(path)}: cannot write: {exc.strerror or exc}") from None
    size = os.fstat(handle).st_size
    if size < length:
        os.close(handle)
        raise BatchError(
            f"{one_line(path)} is shorter than the batch wrote ({size:,} of {length:,} bytes): "
            f"it was changed outside the batch; remove it and its .state.json to start over"
        )
    if size > length:
        os.ftruncate(handle, length)  # a chunk written after the last commit: done again
    return handle


def open_output(
    paths: OutPaths,
    files: Sequence[InputFile],
    options: dict[str, Any],
    today: str | None,
    default_today: str,
) -> tuple[Output | None, State]:
    """The output of a batch, ready to append to: a new one, or the one a state describes
    (checked against the inputs and options). (None, state) when that batch is complete."""
    folder = paths.out.parent
    if not folder.is_dir():
        raise BatchError(f"{one_line(folder)}: no such folder for --out")
    infos = {p: _check_path(p, files) for p in (paths.out, paths.journal, paths.bad, paths.state)}
    state = _read_state(paths) if infos[paths.state] is not None else None
    inputs = _describe_inputs(files)
    stale = state is not None and not _state_output_exists(paths, state)
    if state is None or stale:  # new, or its results were removed: start over
        theirs = [p for p in (paths.out, paths.journal, paths.bad) if infos[p] is not None]
        if theirs and not stale:
            raise BatchError(
                f"{one_line(theirs[0])} exists and is not a batch in progress (no "
                f"{paths.state.name} beside it): choose another --out, or remove it"
            )
        state = State(options, inputs, today or default_today)
        _write_state(paths, state)
    else:
        _check_compatible(paths, state, options, inputs, today)
    if state.complete:
        return None, state
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BatchError(f"{one_line(folder)}: cannot write there: permission denied")
    journal = _open_append(paths.journal, state.journal_bytes)
    try:
        _lock(journal, paths)
        if infos[paths.bad] is not None or state.bad_bytes:
            os.close(_open_append(paths.bad, state.bad_bytes))
    except BaseException:
        os.close(journal)
        raise
    return Output(paths, state, journal), state


def _state_output_exists(paths: OutPaths, state: State) -> bool:
    if state.complete:
        return paths.out.exists()
    return paths.journal.exists() or state.journal_bytes == 0


def state_of(results: str | Path) -> State | None:
    """The state a batch keeps beside its RESULTS; None when there is none that can be read
    (the results were copied, or made elsewhere)."""
    try:
        return _read_state(out_paths(results))
    except BatchError:
        return None


def _read_state(paths: OutPaths) -> State:
    text = read_text(paths.state, what="batch state", limit=256 * MB, error=BatchError)
    try:
        return State.decode(text)
    except (ValueError, TypeError, KeyError) as exc:
        raise BatchError(
            f"{one_line(paths.state)}: not a batch state ({one_line(exc, 80)}); remove it and "
            f"{one_line(paths.out.name)} to start over"
        ) from None


def _check_compatible(
    paths: OutPaths,
    state: State,
    options: dict[str, Any],
    inputs: list[list[Any]],
    today: str | None,
) -> None:
    start_over = (
        f"use another --out, or remove {one_line(paths.out.name)} and "
        f"{one_line(paths.state.name)} to start over"
    )
    if today is not None and today != state.today:
        raise BatchError(
            f"{one_line(paths.out)} was begun with --today {state.today}, not {today}: "
            + start_over
        )
    for name in sorted(set(options) | set(state.options)):
        if options.get(name) != state.options.get(name):
            was, now = state.options.get(name), options.get(name)
            raise BatchError(
                f"{one_line(paths.out)} was begun with other options ({name}: "
                f"{one_line(was, 60)}, now {one_line(now, 60)}): " + start_over
            )
    if inputs != state.inputs:
        raise BatchError(
            f"the inputs changed since {one_line(paths.out)} was begun "
            f"({_first_change(state.inputs, inputs)}): " + start_over
        )


def _path(path: object) -> str:
    """An input's path in a message: its end (the file's name) kept when it is long."""
    return one_line(path, 80, keep_end=True)


def _first_change(before: list[list[Any]], now: list[list[Any]]) -> str:
    for old, new in zip(before, now, strict=False):
        if old[0] != new[0]:
            return f"{_path(old[0])} is now {_path(new[0])}"
        if old[1] != new[1]:
            return f"{_path(new[0])}: {old[1]:,} bytes, now {new[1]:,}"
        if old != new:
            return f"{_path(new[0])} was modified"
    if len(now) > len(before):
        return f"new input {_path(now[len(before)][0])}"
    return f"{_path(before[len(now)][0])} is gone"


def _lock(handle: int, paths: OutPaths) -> None:
    if sys.platform == "win32":
        return
    import fcntl

    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise BatchError(f"another batch is writing {one_line(paths.out)}") from None


def listed_bad_lines(paths: OutPaths, state: State, count: int) -> list[BadLine]:
    """The first `count` bad lines of the bad-lines file as far as `state` committed it (what
    earlier runs of a batch wrote), for a resumed run's summary to list them as an
    uninterrupted run does; fewer when there are fewer, or when a line cannot be read back."""
    found: list[BadLine] = []
    if not state.bad_bytes or count <= 0:
        return found
    try:
        with paths.bad.open("rb") as file:
            left = state.bad_bytes
            while len(found) < count and left > 0:
                line = file.readline(min(_BAD_LINE_BYTES, left))
                left -= len(line)
                bad = _bad_line(line)
                if bad is None:
                    break
                found.append(bad)
    except OSError:  # gone or unreadable since the batch opened it: nothing more to list
        pass
    return found


def _bad_line(line: bytes) -> BadLine | None:
    if not line.endswith(b"\n"):
        return None
    try:
        entry = json.loads(line)
        bad = BadLine(entry["source"], entry["line"], entry["reason"], entry["excerpt"])
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    fields = (bad.source, bad.reason, bad.excerpt)
    if not all(isinstance(f, str) for f in fields) or type(bad.line) is not int:
        return None
    return bad


def record_labels(paths: OutPaths, state: State, labels: dict[str, str]) -> None:
    """Record the labelled set in the state of a complete batch (a batch in progress records
    it with its next commit)."""
    state.labels = labels
    _write_state(paths, state)


def finish(paths: OutPaths, state: State) -> None:
    """Mark the batch complete (after the Parquet file, if any, is in place)."""
    state.complete = True
    _write_state(paths, state)
    if paths.parquet:
        with contextlib.suppress(OSError):
            paths.journal.unlink()
