"""JSON parsed whatever its nesting: a part nested deeper than `MAX_DEPTH` is cut out and
marked (Python's parser would give up on the whole file), and `too_deep_in` says where a record
held one."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "json_step", "parse_json", "too_deep_in"]

MAX_DEPTH = 64
"""JSON nested deeper than this (only looked for when Python's parser gives up) is cut out and
the record holding it reported; no catalog format needs more."""

_TOO_DEEP = "\x00routescope:nested-too-deeply\x00"
_TOO_DEEP_JSON = json.dumps(_TOO_DEEP)
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def parse_json(text: str, parse_int: Callable[[str], Any]) -> tuple[Any, bool]:
    """The parsed JSON, and whether any part nested deeper than `MAX_DEPTH` had to be cut out
    (each such part becomes a marker that `too_deep_in` finds). Python's parser is tried
    first; only when it runs out of recursion is the text scanned (once, linearly) for the
    parts to cut, so a single 20,000-deep record does not cost the rest of the file.
    `RecursionError` when even that fails (the deep part never closes)."""
    try:
        return json.loads(text, parse_int=parse_int), False
    except RecursionError:
        pass
    cut = _cut_deep(text)
    if cut is None:
        raise RecursionError("nested too deeply")
    return json.loads(cut, parse_int=parse_int), True


def _cut_deep(text: str) -> str | None:
    """`text` with every array or object that opens at depth `MAX_DEPTH + 1` replaced by the
    marker string; None when there is nothing that closes to cut."""
    pieces: list[str] = []
    depth = 0
    start = -1
    last = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = match.start()
        else:
            if depth == MAX_DEPTH + 1 and start >= 0:
                pieces.append(text[last:start])
                pieces.append(_TOO_DEEP_JSON)
                last = match.end()
                start = -1
            depth -= 1
    if not pieces:
        return None
    pieces.append(text[last:])
    return "".join(pieces)


def too_deep_in(value: Any) -> str | None:
    """Where in `value` a part was cut for nesting too deeply (`.inputSchema.properties…`),
    or None. Bounded by `MAX_DEPTH` levels, since anything deeper was cut."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, steps = stack.pop()
        if item == _TOO_DEEP:
            return where
        children: list[tuple[Any, str]]
        if isinstance(item, dict):
            children = [(v, json_step(k)) for k, v in item.items()]
        elif isinstance(item, list):
            children = [(v, f"[{i}]") for i, v in enumerate(item)]
        else:
            continue
        for child, step in reversed(children):
            # The path shows 4 steps at most: enough to say which field of the record.
            path = where + step if steps < 4 else where if where.endswith("…") else where + "…"
            stack.append((child, path, steps + 1))
    return None


def json_step(key: Any) -> str:
    """A key as one step of a path into JSON: `.name`, or `["odd key"]` quoted and cut."""
    text = str(key)
    return (
        f".{text}" if re.fullmatch(r"[A-Za-z_][\w-]{0,40}", text) else f"[{json.dumps(text)[:44]}]"
    )
