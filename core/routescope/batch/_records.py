"""The workers' side of reading prompt logs: the records of a stream (a line; a CSV record
with quoted line breaks), read in bounded pieces, and each record turned into a prompt or into
a bad line with its reason. The driver plans what each worker reads (`_read`).
"""

from __future__ import annotations

import contextlib
import csv
import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .._errors import InputError, one_line
from .._input import validate_text
from ._common import MAX_RECORD_LINES, Format

__all__ = [
    "DEFAULT_FIELDS",
    "INSIDE",
    "OVER_LONG",
    "START",
    "BadLineError",
    "Lines",
    "csv_delimiter",
    "csv_separator",
    "csv_state",
    "excerpt",
    "iter_records",
    "prompt_of",
    "record_text",
]

DEFAULT_FIELDS = ("messages", "prompt", "input", "text", "query", "question", "content", "message")
"""Without `--field`: the fields a JSON record's prompt is looked for in, in this order (a
`messages` list is a chat log: its last user message is the prompt); the CSV columns too."""
EXCERPT_CHARS = 120
OVER_LONG = "over-long"
"""The problem of a record longer than the limit (the worker words the reason)."""
_SKIP_BYTES = 1 << 20


class Lines(Protocol):
    """A binary stream read a line (of at most `size` bytes) at a time."""

    def readline(self, size: int = -1, /) -> bytes: ...

    def seek(self, offset: int, whence: int = 0, /) -> int: ...


class BadLineError(Exception):
    """A record that gives no prompt; the message is the reason shown for the bad line."""


# -- records ------------------------------------------------------------------------------


def iter_records(
    stream: Lines, *, delimiter: int | None, limit: int, budget: int | None = None
) -> Iterator[tuple[int, int, int, bytes, str | None]]:
    """The records of a binary stream, up to `budget` bytes: (first line, 1-based from the
    stream's position; physical lines; bytes; the record's bytes; its problem: None,
    `OVER_LONG` or an unclosed quote's reason). An over-long record (more than `limit` bytes)
    is skipped in bounded reads and gives only its first bytes. `delimiter` (CSV, the byte
    between fields): a record goes on while a quoted field is open at the end of a line
    (`csv_state`); None: a record is a line.

    A quoted field still open after `MAX_RECORD_LINES` lines is a quote left open: the record
    is its first line alone, a bad line, and the lines after it are read again as records
    (given back from memory: the record was held whole). When the record was over-long too,
    its lines are not held: it is one bad line, its lines skipped. A quoted field open at the
    end of the stream ends the record there, as Python's `csv` reads it, a bad line too.
    Whatever the stream's position, the records from a record boundary are the same: the
    driver plans partitions with this very function."""
    readline = stream.readline
    given_back: list[bytes] = []  # lines read ahead, the next one last

    def read() -> bytes:
        return given_back.pop() if given_back else readline(limit + 1)

    line = used = 0
    while budget is None or used < budget:
        raw = read()
        if not raw:
            return
        line += 1
        first = line
        parts, size, over, state = _record(stream, read, raw, delimiter, limit)
        line += len(parts) - 1
        if state != INSIDE or line == first:
            problem = OVER_LONG if over else None
            data = parts[0][: EXCERPT_CHARS * 4] if over else b"".join(parts)
        elif len(parts) < MAX_RECORD_LINES:  # open at the end: as Python's csv reads it
            problem = _unclosed(line - first, skipped=None)
            data = parts[0][: EXCERPT_CHARS * 4] if over else b"".join(parts)
        elif not over:  # a quote left open: its first line alone, the rest read again
            given_back.extend(reversed(parts[1:]))
            problem = _unclosed(len(parts) - 1, skipped=False)
            line, size, data = first, len(parts[0]), parts[0]
        else:
            problem = _unclosed(line - first, skipped=True)
            data = parts[0][: EXCERPT_CHARS * 4]
        used += size
        yield first, line - first + 1, size, data, problem
    if given_back:  # leave the stream where the records end
        stream.seek(-sum(len(part) for part in given_back), 1)


def _record(
    stream: Lines, read: Callable[[], bytes], raw: bytes, delimiter: int | None, limit: int
) -> tuple[list[bytes], int, bool, int]:
    """The lines of the record that starts with the line `raw`: (its lines, or once over-long
    its first line and an empty placeholder for each further line; bytes; over-long; the CSV
    state at its end)."""
    size = len(raw)
    over = size > limit
    state = START if delimiter is None else csv_state(raw, START, delimiter)
    if over and not raw.endswith(b"\n"):
        skipped, state = _skip_line(stream, state, delimiter)
        size += skipped
    parts = [raw]
    while delimiter is not None and state == INSIDE and len(parts) < MAX_RECORD_LINES:
        raw = read()
        if not raw:
            break
        size += len(raw)
        state = csv_state(raw, state, delimiter)
        if len(raw) > limit and not raw.endswith(b"\n"):
            skipped, state = _skip_line(stream, state, delimiter)
            size += skipped
        over = over or size > limit
        parts.append(b"" if over else raw)
    return parts, size, over, state


def _unclosed(lines: int, *, skipped: bool | None) -> str:
    """The reason of a record whose quoted field is left open, `lines` lines after its first
    (`skipped` None: it was open at the end of the stream)."""
    opened = "unclosed quote: a quoted field opened on this line is not closed"
    if skipped is None:
        return f"{opened} (the {lines:,} lines after it, to the end of the file, are in it)"
    if skipped:
        return f"{opened}; it and the {lines:,} lines after it are skipped (too long to read again)"
    return (
        f"{opened} (within {MAX_RECORD_LINES:,} lines); the {lines:,} lines after it are read "
        "again as rows"
    )


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


def csv_separator(fmt: Format) -> str:
    """The character between fields of a CSV (`,`) or TSV (tab) file."""
    return "\t" if fmt == "tsv" else ","


def csv_delimiter(fmt: Format) -> int | None:
    """The byte between fields of a CSV or TSV file; None for the formats of one record a
    line."""
    return ord(csv_separator(fmt)) if fmt in ("csv", "tsv") else None


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
    text = record_text(data, first_of_file=first_of_file)
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


def record_text(data: bytes, *, first_of_file: bool) -> str:
    """A record's text without its line break (and a file's byte-order mark), or
    `BadLineError`: binary, not UTF-8, or blank."""
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
        row = next(csv.reader([text], delimiter=csv_separator(fmt)), [])
    except csv.Error as exc:
        raise BadLineError(f"invalid CSV: {one_line(exc, 100)}") from None
    if column >= len(row):
        raise BadLineError(f"no column {column + 1} (the row has {len(row)})")
    return row[column]


def excerpt(data: bytes) -> str:
    """The first characters of a bad record, for the reader of the bad-lines file."""
    text = data[: EXCERPT_CHARS * 4].decode("utf-8", "replace")[:EXCERPT_CHARS]
    return text.removesuffix("\n").removesuffix("\r")
