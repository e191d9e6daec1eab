"""Reading prompt logs: which files (paths and globs), in which format, split into byte ranges
that begin and end at record boundaries, and each record turned into a prompt or into a bad
line with its reason. Reads are bounded: a record is never read past `max_line_bytes`.

Formats, from the name (a trailing `.gz` aside; gzip is recognised by its magic bytes):
`.jsonl`, `.ndjson`, `.json`: one JSON value a line; `.csv` (`.tsv`): a header row, then one
record a row (quoted fields may span lines); anything else: plain text, one prompt a line.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import gzip
import json
import os
import re
import stat
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, Protocol

from .._errors import InputError, one_line
from .._input import validate_text
from ._common import BatchError, Format, Partition

__all__ = [
    "DEFAULT_FIELDS",
    "GZIP_DONE",
    "Column",
    "InputFile",
    "Position",
    "csv_column",
    "csv_delimiter",
    "csv_state",
    "expand_inputs",
    "iter_records",
    "plan_partitions",
    "prompt_of",
]

DEFAULT_FIELDS = ("messages", "prompt", "input", "text", "query", "question", "content", "message")
"""Without `--field`: the fields a JSON record's prompt is looked for in, in this order (a
`messages` list is a chat log: its last user message is the prompt); the CSV columns too."""
GZIP_DONE = 1 << 62
"""The offset a gzip file is marked done at when its data broke off (truncated or corrupt)."""
EXCERPT_CHARS = 120
_SKIP_BYTES = 1 << 20
_GLOB = re.compile(r"[*?\[]")
_EXTENSIONS: dict[str, Format] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}


class Lines(Protocol):
    """A binary stream read a line (of at most `size` bytes) at a time."""

    def readline(self, size: int | None = -1, /) -> bytes: ...


class BadLineError(Exception):
    """A record that gives no prompt; the message is the reason shown for the bad line."""


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
            f"{shown}: not a regular file ({_kind(info.st_mode)}); batch reads files "
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


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


@contextlib.contextmanager
def _opened(file: InputFile) -> Iterator[Lines]:
    with open(file.path, "rb") as raw:
        if not file.gzip:
            yield raw
            return
        with gzip.GzipFile(fileobj=raw) as unzipped:
            yield unzipped


# -- records ------------------------------------------------------------------------------


def iter_records(
    stream: Lines, *, delimiter: int | None, limit: int, budget: int | None = None
) -> Iterator[tuple[int, int, int, bytes, bool]]:
    """The records of a binary stream, up to `budget` bytes: (first line, 1-based from the
    stream's position; physical lines; bytes; the record's bytes; over-long). An over-long
    record (more than `limit` bytes) is skipped in bounded reads and gives only its first
    bytes. `delimiter` (CSV, the byte between fields): a record goes on while a quoted field
    is open at the end of a line (`csv_state`); None: a record is a line."""
    readline = stream.readline
    line = used = 0
    while budget is None or used < budget:
        raw = readline(limit + 1)
        if not raw:
            return
        line += 1
        first = line
        size = len(raw)
        over = size > limit
        state = START if delimiter is None else csv_state(raw, START, delimiter)
        if over and not raw.endswith(b"\n"):
            skipped, state = _skip_line(stream, state, delimiter)
            size += skipped
        parts = [raw]
        while delimiter is not None and state == INSIDE:
            raw = readline(limit + 1)
            if not raw:
                break
            line += 1
            size += len(raw)
            state = csv_state(raw, state, delimiter)
            if len(raw) > limit and not raw.endswith(b"\n"):
                skipped, state = _skip_line(stream, state, delimiter)
                size += skipped
            over = over or size > limit
            if not over:
                parts.append(raw)
        used += size
        data = parts[0][: EXCERPT_CHARS * 4] if over else b"".join(parts)
        yield first, line - first + 1, size, data, over


def _skip_line(stream: Lines, state: int, delimiter: int | None) -> tuple[int, int]:
    """Read past the rest of an over-long line in bounded pieces: (bytes skipped, CSV state
    at its end)."""
    skipped = 0
    while True:
        piece = stream.readline(_SKIP_BYTES)
        if not piece:
            return skipped, state
        skipped += len(piece)
        if delimiter is not None:
            state = csv_state(piece, state, delimiter)
        if piece.endswith(b"\n"):
            return skipped, state


START, FIELD, INSIDE, PENDING = range(4)
"""Where a CSV reader is: at the start of a field; in an unquoted field (or after a closing
quote: quotes are plain characters there until the delimiter); in a quoted field; right after
a quote in a quoted field (the next byte says: `""` an escaped quote, else the field closed)."""
_QUOTE, _NEWLINE = ord('"'), ord("\n")


def csv_state(data: bytes, state: int, delimiter: int) -> int:
    """The CSV reader's state after `data`, from `state`, as Python's `csv` module reads (a
    quote opens a quoted field only at the start of a field). Pieces of a line can be given
    one after another: the result does not depend on where the data is cut. A line ends a
    record when the state after it is not `INSIDE`."""
    if state < INSIDE and _QUOTE not in data:  # the common case, in C
        if not data:
            return state
        last = data[-1]
        return START if last in (delimiter, _NEWLINE) else FIELD
    position, size = 0, len(data)
    separator = bytes([delimiter])
    while position < size:
        if state == INSIDE:
            found = data.find(b'"', position)
            if found < 0:
                return INSIDE
            state, position = PENDING, found + 1
        elif state == FIELD:  # to the next delimiter or line break
            ends = [
                i for i in (data.find(separator, position), data.find(b"\n", position)) if i >= 0
            ]
            if not ends:
                return FIELD
            state, position = START, min(ends) + 1
        else:
            byte = data[position]
            if byte == _QUOTE:  # START: a quoted field opens; PENDING: an escaped quote
                state = INSIDE
            elif byte in (delimiter, _NEWLINE):
                state = START
            else:
                state = FIELD
            position += 1
    return state


# -- CSV columns --------------------------------------------------------------------------


def csv_column(file: InputFile, field: str | None, limit: int) -> Column:
    """The column of a CSV file that holds the prompts: `--field` names it (exactly, else
    ignoring case); without it, the first of `DEFAULT_FIELDS` present, or the only column."""
    shown = one_line(file.source)
    try:
        with _opened(file) as stream:
            delimiter = ord(_delimiter(file.format))
            first = next(iter_records(stream, delimiter=delimiter, limit=limit), None)
    except (OSError, EOFError, zlib.error) as exc:
        raise BatchError(f"{shown}: cannot read the CSV header: {one_line(exc)}") from None
    if first is None:
        return Column(0, field or "", 0, 0)
    _, lines, size, data, over = first
    if over:
        raise BatchError(f"{shown}: the CSV header row is longer than {limit:,} bytes")
    try:
        text = _text(data, first_of_file=True)
        names = next(csv.reader([text], delimiter=_delimiter(file.format)), [])
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


def _delimiter(fmt: Format) -> str:
    return "\t" if fmt == "tsv" else ","


def csv_delimiter(fmt: Format) -> int | None:
    """The byte between fields of a CSV or TSV file; None for the formats of one record a
    line."""
    return ord(_delimiter(fmt)) if fmt in ("csv", "tsv") else None


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
            yield from _range_partitions(file, index, offset, begin, block, column)


def _range_partitions(
    file: InputFile, index: int, offset: int, begin: int, block: int, column: Column | None
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
                end = _quoted_boundary(stream, position, target, file.size, delimiter)
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


def _quoted_boundary(stream: IO[bytes], start: int, target: int, size: int, delimiter: int) -> int:
    """The first record start at or after `target` in CSV: just past a newline that no quoted
    field spans, reading with `csv_state` from `start` (a record start)."""
    stream.seek(start)
    at, state = start, START
    while True:
        piece = stream.read(1 << 20)
        if not piece:
            return size
        cursor = 0
        if at + len(piece) < target:
            state = csv_state(piece, state, delimiter)
            at += len(piece)
            continue
        if at < target - 1:
            cursor = target - 1 - at
            state = csv_state(piece[:cursor], state, delimiter)
        while True:
            newline = piece.find(b"\n", cursor)
            if newline < 0:
                state = csv_state(piece[cursor:], state, delimiter)
                break
            state = csv_state(piece[cursor : newline + 1], state, delimiter)
            if state != INSIDE and at + newline + 1 >= target:
                return at + newline + 1
            cursor = newline + 1
        at += len(piece)


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
            for first, lines, size, data, over in records:
                items.append((first - base, data, "over-long" if over else None))
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


# -- prompts ------------------------------------------------------------------------------


def prompt_of(
    data: bytes,
    fmt: Format,
    *,
    field: tuple[str, ...] | None,
    column: int | None,
    first_of_file: bool,
) -> str:
    """The prompt of one record, or `BadLineError(reason)`."""
    text = _text(data, first_of_file=first_of_file)
    if fmt == "text":
        prompt = text
    elif fmt == "jsonl":
        if not text.strip():
            raise BadLineError("empty line")
        prompt = _from_json(_json(text), field)
    else:
        prompt = _from_csv(text, fmt, column or 0)
    try:
        return validate_text(prompt)
    except InputError as exc:
        raise BadLineError(str(exc)) from None


def _text(data: bytes, *, first_of_file: bool) -> str:
    if data.endswith(b"\n"):
        data = data[:-2] if data.endswith(b"\r\n") else data[:-1]
    if b"\x00" in data:
        raise BadLineError("binary data (a NUL byte)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadLineError(f"not UTF-8 text (invalid byte at offset {exc.start})") from None
    if first_of_file:
        text = text.removeprefix("\ufeff")
    if not text.strip():
        raise BadLineError("empty line")
    return text


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise BadLineError("invalid JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and integers past the digit limit
        raise BadLineError(f"invalid JSON: {one_line(exc, 100)}") from None


def _from_json(value: Any, field: tuple[str, ...] | None) -> str:
    if field is not None:
        where = ".".join(field)
        for part in field:
            value = _step(value, part, where)
        return _as_prompt(value, where)
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        raise BadLineError(f"a JSON {_type(value)}, not an object or a string")
    for name in DEFAULT_FIELDS:
        if name in value:
            return _as_prompt(value[name], name)
    looked = ", ".join(DEFAULT_FIELDS)
    raise BadLineError(f"no prompt field (looked for {looked}); name it with --field")


def _step(value: Any, part: str, where: str) -> Any:
    if isinstance(value, dict) and part in value:
        return value[part]
    if isinstance(value, list):
        with contextlib.suppress(ValueError, IndexError):
            return value[int(part)]
    raise BadLineError(f"no field {one_line(where, 80)}")


def _as_prompt(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return _last_user_message(value["messages"])
    if isinstance(value, list) and any(isinstance(m, dict) and "role" in m for m in value):
        return _last_user_message(value)
    raise BadLineError(f"field {one_line(where, 80)} is a JSON {_type(value)}, not text or a chat")


def _last_user_message(messages: list[Any]) -> str:
    """An OpenAI-style chat: the text of the last message whose role is `user` (content as a
    string, or a list of parts whose `text` is joined by line breaks)."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [
                    part if isinstance(part, str) else part.get("text")
                    for part in content
                    if isinstance(part, str | dict)
                ]
                joined = "\n".join(text for text in texts if isinstance(text, str))
                if joined:
                    return joined
            raise BadLineError("the last user message has no text")
    raise BadLineError("no user message in the chat")


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


def _from_csv(text: str, fmt: Format, column: int) -> str:
    try:
        row = next(csv.reader([text], delimiter=_delimiter(fmt)), [])
    except csv.Error as exc:
        raise BadLineError(f"invalid CSV: {one_line(exc, 100)}") from None
    if column >= len(row):
        raise BadLineError(f"no column {column + 1} (the row has {len(row)})")
    return row[column]


def excerpt(data: bytes) -> str:
    """The first characters of a bad record, for the reader of the bad-lines file."""
    text = data[: EXCERPT_CHARS * 4].decode("utf-8", "replace")[:EXCERPT_CHARS]
    return text.removesuffix("\n").removesuffix("\r")
