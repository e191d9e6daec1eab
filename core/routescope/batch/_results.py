"""Results files read back: one routed prompt a line (JSON Lines, gzip too; Parquet with
pyarrow), each a `Result` — where the prompt came from and its `Outcome` — or a `FailedRecord`
for a prompt the batch could not route."""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import RecordError, ResultsError, one_line
from .._outcome import Outcome
from .._record_fields import kind_of, require_str

if TYPE_CHECKING:
    from ..external import ExternalDecision

__all__ = [
    "FailedRecord",
    "PromptRef",
    "Result",
    "parse_result",
    "read_results",
    "result_at",
]

PROMPT_CHARS = 300
"""Prompts kept in example lists are cut to this many characters (source and line lead to the
whole prompt)."""
LINE_LIMIT = 64 << 20
"""The longest line a results file may have (a prompt is at most 10 million characters)."""


@dataclass(frozen=True, slots=True)
class PromptRef:
    """One prompt behind a figure: where it came from and its text (cut to `PROMPT_CHARS`)."""

    source: str
    line: int
    prompt: str
    record: int
    """The line of the results file (the row, for Parquet) that holds this prompt's result."""


@dataclass(frozen=True, slots=True)
class Result:
    """One routed prompt of a results file: where it came from and what the routers decided."""

    ref: PromptRef
    outcome: Outcome
    routers: Mapping[str, ExternalDecision] = field(default_factory=dict)
    """What each external router of the batch (`--router`) decided, by name."""


@dataclass(frozen=True, slots=True)
class FailedRecord:
    """A line that records a prompt the batch could not route (`{"error": "…"}`)."""

    ref: PromptRef
    error: str
    prompt: str = ""
    """The whole prompt (`ref.prompt` is cut)."""


def cut_prompt(text: str, limit: int = PROMPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_result(data: object, record: int = 0) -> Result | FailedRecord:
    """One line of a results file, checked; `record` is its line number in that file.
    Raises ResultsError ("line N: field 'strategy' must be a string, not null")."""
    try:
        if not isinstance(data, Mapping):
            raise RecordError(f"expected a JSON object (one result per line), not {kind_of(data)}")
        line = data.get("line")
        if isinstance(line, bool) or not isinstance(line, int):
            raise RecordError(
                "missing field 'line'" if line is None else "field 'line' must be a number"
            )
        prompt = require_str(data, "prompt")
        ref = PromptRef(require_str(data, "source"), line, cut_prompt(prompt), record)
        if "strategy" not in data and isinstance(data.get("error"), str):
            return FailedRecord(ref, data["error"], prompt)
        return Result(ref, Outcome.from_record(data), _routers(data.get("routers")))
    except RecordError as exc:
        raise ResultsError(f"line {record}: {exc}") from None


def _routers(data: object) -> dict[str, ExternalDecision]:
    """A record's `routers` field: each external router's decision (RecordError)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise RecordError(f"field 'routers' must be an object, not {kind_of(data)}")
    from ..external import ExternalDecision

    return {
        str(name): ExternalDecision.from_record(str(name), value) for name, value in data.items()
    }


def _open(path: Path) -> io.BufferedReader:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise ResultsError(f"{path}: cannot read results: a directory")
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
            raise ResultsError(f"{path}: cannot read results: not a regular file")
        return open(path, "rb")
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read results: {exc.strerror or exc}") from None


def _json_lines(stream: io.BufferedIOBase, path: Path) -> Iterator[tuple[int, object]]:
    number = 0
    while True:
        raw = stream.readline(LINE_LIMIT + 1)
        if not raw:
            return
        number += 1
        if len(raw) > LINE_LIMIT:
            raise ResultsError(f"{path}: line {number}: longer than {LINE_LIMIT >> 20} MB")
        if not raw.strip():
            continue
        try:
            yield number, json.loads(raw)
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            problem = one_line(exc, 120)
            raise ResultsError(f"{path}: line {number}: not a JSON object ({problem})") from None
        except RecursionError:  # a result is a flat record: anything this deep is not one
            raise ResultsError(
                f"{path}: line {number}: not a result (nested too deeply to read)"
            ) from None


def _parquet(path: Path) -> Iterator[tuple[int, object]]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        raise ResultsError(f"{path}: a Parquet file: install pyarrow to read it") from None
    from ._parquet import routers_of_row

    try:
        number = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
            for row in batch.to_pylist():
                number += 1
                yield number, routers_of_row(Outcome.record_of_row(row))
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise ResultsError(f"{path}: not a readable Parquet file ({one_line(exc, 120)})") from None


def read_results(path: str | Path) -> Iterator[tuple[int, object]]:
    """Each line of a results file (JSON Lines, gzip-compressed or not, or Parquet, told by
    their first bytes) as (line number, decoded JSON value), streamed. Raises ResultsError."""
    path = Path(path)
    stream = _open(path)
    with stream:
        try:
            head = stream.peek(4)[:4]
            if head == b"PAR1":
                yield from _parquet(path)
                return
            if head[:2] == b"\x1f\x8b":
                with gzip.GzipFile(fileobj=stream, mode="rb") as unpacked:
                    yield from _json_lines(unpacked, path)
                return
            yield from _json_lines(stream, path)
        except EOFError:
            raise ResultsError(f"{path}: the gzip data is cut short") from None
        except (OSError, zlib.error) as exc:
            raise ResultsError(f"{path}: cannot read results: {one_line(exc, 120)}") from None


def records(path: Path) -> Iterator[Result | FailedRecord]:
    """Each line of a results file, checked (ResultsError naming the file and the line)."""
    for number, value in read_results(path):
        try:
            yield parse_result(value, number)
        except ResultsError as exc:
            raise ResultsError(f"{path}: {exc}") from None


def result_at(path: str | Path, record: int) -> Result | FailedRecord | None:
    """The result on line (or row) `record` of a results file; None past its end. Reads from
    the start: for a view that opens one prompt of a file, not for a loop."""
    for number, value in read_results(path):
        if number == record:
            return parse_result(value, number)
    return None
