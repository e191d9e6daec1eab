"""Reading prompt logs: which files (paths and globs), in which format, split into byte ranges
that begin and end at record boundaries, and each record turned into a prompt or into a bad
line with its reason. Reads are bounded: a record is never read past `max_line_bytes`.

Formats, from the name (a trailing `.gz` aside; gzip is recognised by its magic bytes):
`.jsonl`, `.ndjson`, `.json`: one JSON value a line; `.csv` (`.tsv`): a header row, then one
record a row (quoted fields may span lines); anything else: plain text, one prompt a line.

This is the driver's side: which files, the column of a CSV file, and the partitions workers
read. Records and prompts, what workers do with a partition, are in `_records`.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import gzip
import os
import re
import stat
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO

from .._errors import one_line
from .._files import file_kind
from ._common import BatchError, Format, Partition
from ._records import (
    DEFAULT_FIELDS,
    OVER_LONG,
    BadLineError,
    Lines,
    csv_delimiter,
    csv_separator,
    iter_records,
    record_text,
)

__all__ = [
    "GZIP_DONE",
    "Column",
    "InputFile",
    "Position",
    "csv_column",
    "expand_inputs",
    "plan_partitions",
]

GZIP_DONE = 1 << 62
"""The offset a gzip file is marked done at when its data broke off (truncated or corrupt)."""
_GLOB = re.compile(r"[*?\[]")
_EXTENSIONS: dict[str, Format] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


@dataclass(frozen=True, slots=True)
class InputFile:
    source: str
    """The path as given (or as the glob matched it): what records name."""
    path: str
    """The absolute path workers read."""
    size: int
    mtime_ns: int
    gzip: bool
    format: Format


@dataclass(frozen=True, slots=True)
class Column:
    """Where a CSV file's prompts are: the column, and where its data starts (after the
    header row)."""

    index: int
    name: str
    data_start: int
    header_lines: int


@dataclass(frozen=True, slots=True)
class Position:
    """How far the inputs are done: file `file` up to byte `offset` (decompressed, for gzip),
    which is `line` physical lines."""

    file: int = 0
    offset: int = 0
    line: int = 0


# -- which files --------------------------------------------------------------------------


def expand_inputs(patterns: Sequence[str]) -> list[InputFile]:
    """The files the INPUT arguments name, in order (a glob's matches sorted), each once.
    Anything but a readable regular file is refused with one line: a FIFO, a device such as
    `/dev/zero`, a socket, a directory named outright (directories a glob matches are
    skipped). Resuming and splitting into byte ranges need files, not streams."""
    files: list[InputFile] = []
    seen: set[tuple[int, int]] = set()
    for pattern in patterns:
        if not pattern:
            raise BatchError("an INPUT is an empty string")
        literal = os.path.lexists(pattern) or not _GLOB.search(pattern)
        matches = [pattern] if literal else sorted(glob.glob(pattern, recursive=True))
        if not matches:
            raise BatchError(f"no file matches {one_line(pattern)}")
        for source in matches:
            found = _input_file(source, from_glob=not literal)
            if found is None:
                continue
            info, key = found
            if key not in seen:
                seen.add(key)
                files.append(info)
    return files


def _input_file(source: str, *, from_glob: bool) -> tuple[InputFile, tuple[int, int]] | None:
    shown = one_line(source)
    try:
        info = os.stat(source)
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror or exc
        raise BatchError(f"{shown}: cannot read input: {reason}") from None
    if stat.S_ISDIR(info.st_mode) and from_glob:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise BatchError(
            f"{shown}: not a regular file ({file_kind(info.st_mode)}); batch reads files "
            "(save a stream to a file first)"
        )
    try:
        with open(source, "rb") as stream:
            magic = stream.read(2)
    except OSError as exc:
        raise BatchError(f"{shown}: cannot read input: {exc.strerror or exc}") from None
    name = source.lower()
    zipped = magic == b"\x1f\x8b"
    if name.endswith(".gz"):
        name = name[:-3]
    fmt = _EXTENSIONS.get(os.path.splitext(name)[1], "text")
    path = os.path.abspath(source)
    found = InputFile(source, path, info.st_size, info.st_mtime_ns, zipped, fmt)
    return found, (info.st_dev, info.st_ino)


@contextlib.contextmanager
def _opened(file: InputFile) -> Iterator[Lines]:
    with open(file.path, "rb") as raw:
        if not file.gzip:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw) as unzipped:
            yield unzipped


# -- CSV columns --------------------------------------------------------------------------


def csv_column(file: InputFile, field: str | None, limit: int) -> Column:
    """The column of a CSV file that holds the prompts: `--field` names it (exactly, else
    ignoring case); without it, the first of `DEFAULT_FIELDS` present, or the only column."""
    shown = one_line(file.source)
    try:
        with _opened(file) as stream:
            delimiter = ord(csv_separator(file.format))
            first = next(iter_records(stream, delimiter=delimiter, limit=limit), None)
    except (OSError, EOFError, zlib.error) as exc:
        raise BatchError(f"{shown}: cannot read the CSV header: {one_line(exc)}") from None
    if first is None:
        return Column(0, field or "", 0, 0)
    _, lines, size, data, problem = first
    if problem == OVER_LONG:
        raise BatchError(f"{shown}: the CSV header row is longer than {limit:,} bytes")
    if problem is not None:
        raise BatchError(f"{shown}: the CSV header row cannot be read: {problem}")
    try:
        text = record_text(data, first_of_file=True)
        names = next(csv.reader([text], delimiter=csv_separator(file.format)), [])
    except (BadLineError, csv.Error) as exc:
        raise BatchError(f"{shown}: the CSV header row cannot be read: {one_line(exc)}") from None
    index = _choose_column(names, field)
    if index is None:
        listed = ", ".join(one_line(name, 40) for name in names[:20])
        what = f"no column {one_line(field)!r}" if field else "which column holds the prompt?"
        hint = "" if field else "; name it with --field"
        raise BatchError(f"{shown}: {what} (columns: {listed}){hint}")
    return Column(index, names[index], size, lines)


def _choose_column(names: list[str], field: str | None) -> int | None:
    if field is not None:
        if field in names:
            return names.index(field)
        folded = [name.strip().casefold() for name in names]
        wanted = field.strip().casefold()
        return folded.index(wanted) if wanted in folded else None
    folded = [name.strip().casefold() for name in names]
    for candidate in DEFAULT_FIELDS:
        if candidate in folded:
            return folded.index(candidate)
    return 0 if len(names) == 1 else None


# -- partitions ---------------------------------------------------------------------------


def plan_partitions(
    files: Sequence[InputFile],
    columns: dict[int, Column],
    start: Position,
    block: int,
    limit: int,
) -> Iterator[Partition]:
    """The partitions of the inputs from `start` on, in input order. Regular files are split
    into byte ranges of about `block` bytes at record boundaries (found by reading forward
    from each target, for CSV with the quote count); gzip files are read here, their records
    packed into partitions."""
    for index, file in enumerate(files):
        if index < start.file:
            continue
        offset = start.offset if index == start.file else 0
        column = columns.get(index)
        begin = max(offset, column.data_start) if column is not None else offset
        if file.gzip:
            if offset < GZIP_DONE:
                yield from _gzip_partitions(file, index, offset, begin, block, limit, column)
        else:
            yield from _range_partitions(file, index, offset, begin, block, column, limit)


def _range_partitions(
    file: InputFile,
    index: int,
    offset: int,
    begin: int,
    block: int,
    column: Column | None,
    limit: int,
) -> Iterator[Partition]:
    delimiter = csv_delimiter(file.format)
    try:
        stream = open(file.path, "rb")  # noqa: SIM115 (kept open across yields)
    except OSError as exc:
        raise BatchError(f"{one_line(file.source)}: cannot read input: {exc.strerror}") from None
    with stream:
        previous, position = offset, begin
        while position < file.size:
            target = position + block
            if target >= file.size:
                end = file.size
            elif delimiter is not None:
                end = _quoted_boundary(stream, position, target, file.size, delimiter, limit)
            else:
                end = _line_boundary(stream, target, file.size)
            yield Partition(
                file=index,
                source=file.source,
                path=file.path,
                format=file.format,
                start=position,
                end=end,
                size=file.size,
                column=None if column is None else column.index,
                progress=end - previous,
                first_of_file=position == 0,
            )
            previous = position = end


def _line_boundary(stream: IO[bytes], target: int, size: int) -> int:
    """The first record start at or after `target`: just past the next newline at or after
    `target - 1` (the end of the file if there is none)."""
    stream.seek(target - 1)
    at = target - 1
    while True:
        piece = stream.read(1 << 16)
        if not piece:
            return size
        found = piece.find(b"\n")
        if found >= 0:
            return min(at + found + 1, size)
        at += len(piece)


def _quoted_boundary(
    stream: IO[bytes], start: int, target: int, size: int, delimiter: int, limit: int
) -> int:
    """The first record start at or after `target` in CSV, reading records from `start` (a
    record start) as the worker will (`iter_records`: a quote left open ends a record just as
    it does there)."""
    stream.seek(start)
    records = iter_records(stream, delimiter=delimiter, limit=limit, budget=target - start)
    return min(start + sum(record[2] for record in records), size)


def _gzip_partitions(
    file: InputFile,
    index: int,
    offset: int,
    begin: int,
    block: int,
    limit: int,
    column: Column | None,
) -> Iterator[Partition]:
    """Gzip cannot be split by compressed bytes: the driver decompresses it (one pass; a
    resumed run skips forward to `begin`) and sends the records. Data that breaks off is one
    bad line, and the file is done."""
    delimiter = csv_delimiter(file.format)
    items: list[tuple[int, bytes, str | None]] = []
    position, used, base, consumed, mark = begin, 0, 0, 0, 0

    def partition(end: int, lines: int, done: int) -> Partition:
        return Partition(
            file=index,
            source=file.source,
            path=file.path,
            format=file.format,
            start=position,
            end=end,
            size=file.size,
            column=None if column is None else column.index,
            items=tuple(items),
            lines=lines,
            progress=done,
            first_of_file=position == 0,
        )

    try:
        raw = open(file.path, "rb")  # noqa: SIM115 (kept open across yields)
    except OSError as exc:
        raise BatchError(f"{one_line(file.source)}: cannot read input: {exc.strerror}") from None
    with raw, gzip.GzipFile(fileobj=raw) as stream:
        try:
            if begin:
                stream.seek(begin)
            records = iter_records(stream, delimiter=delimiter, limit=limit)
            for first, lines, size, data, problem in records:
                items.append((first - base, data, problem))
                used += size
                consumed = first + lines - 1
                if used >= block:
                    done = raw.tell() - mark
                    mark += done
                    yield partition(position + used, consumed - base, done)
                    items.clear()
                    position, used, base = position + used, 0, consumed
        except (OSError, EOFError, zlib.error) as exc:
            items.append((consumed - base + 1, b"", f"gzip data broke off: {one_line(exc)}"))
            yield partition(GZIP_DONE, consumed - base + 1, file.size - mark)
            return
        if items or position == begin:
            yield partition(position + used, consumed - base, file.size - mark)
