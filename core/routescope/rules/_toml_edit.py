"""Edit one key of a rule pack's TOML text in place, keeping every other line (comments too):
how a suggestion is applied in the editor and how the `refined` pack is written."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence

__all__ = ["set_key", "toml_value"]

_WIDTH = 96


def toml_value(value: object) -> str:
    """A value as TOML: a bool, a number, text, a list (long ones one item a line) or a
    mapping of lists (an inline table)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, Mapping):
        body = ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items())
        return "{ " + body + " }" if body else "{}"
    if isinstance(value, Sequence):
        items = [toml_value(item) for item in value]
        flat = "[" + ", ".join(items) + "]"
        if len(flat) <= _WIDTH:
            return flat
        lines, line = [], " "
        for item in items:
            if len(line) + len(item) + 2 > _WIDTH:
                lines.append(line)
                line = " "
            line += f" {item},"
        lines.append(line)
        return "[\n" + "\n".join(lines) + "\n]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _section(text: str, table: str) -> tuple[int, int] | None:
    """Where the body of `[table]` is: from after its header to the next header."""
    header = re.compile(rf"^\[{re.escape(table)}\][ \t]*(?:#.*)?$", re.M).search(text)
    if header is None:
        return None
    start = header.end() + 1 if header.end() < len(text) else header.end()
    following = re.compile(r"^\[", re.M).search(text, start)
    return start, following.start() if following else len(text)


def _assignment(body: str, key: str) -> tuple[int, int] | None:
    """The span of `key = …` in a table's body, the whole value however many lines it takes."""
    match = re.compile(rf"^{re.escape(key)}[ \t]*=", re.M).search(body)
    if match is None:
        return None
    lines = body[match.start() :].splitlines(keepends=True)
    for count in range(1, len(lines) + 1):
        candidate = "".join(lines[:count])
        try:
            tomllib.loads(candidate)
        except tomllib.TOMLDecodeError:
            continue
        return match.start(), match.start() + len(candidate)
    return None


def set_key(text: str, table: str, key: str, value: object, notes: Sequence[str] = ()) -> str:
    """`text` with `key` of `[table]` set to `value` (its old assignment replaced where it
    stood, else added at the table's end; a missing table is added), `notes` as comment lines
    just above it."""
    line = "".join(f"# {note}\n" for note in notes) + f"{key} = {toml_value(value)}\n"
    section = _section(text, table)
    if section is None:
        return text.rstrip("\n") + f"\n\n[{table}]\n{line}"
    start, end = section
    body = text[start:end]
    found = _assignment(body, key)
    if found is not None:
        body = body[: found[0]] + line + body[found[1] :]
    else:
        trimmed = body.rstrip("\n")
        body = (trimmed + "\n" if trimmed else "") + line + ("\n" if end < len(text) else "")
    return text[:start] + body + text[end:]
