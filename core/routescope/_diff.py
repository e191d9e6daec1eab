"""Paths into a result's JSON and the field diff of an expectation that did not hold.

Shared by the regression runner and anything else that compares results field by field (history,
compare). Standard library only: nothing from the routers, `inspect` or `regress`.

A path is a name, then `.name`, `[n]` (`-n` from the end), `[*]` (every item) or `[:n]` (the first
n) steps: `actions[0].query`, `results[:3].tool_name`, `tool_plan[*].args.sortBy`. `parse_path`
refuses anything else (`[`, `...`, `a..b`, `a[x]`), so a typo never resolves to the whole result.
"""

from __future__ import annotations

import enum
import json
import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DISPLAY_CHARS",
    "MATCHERS",
    "MAX_PATH_STEPS",
    "MISSING",
    "FieldDiff",
    "contains_missing",
    "is_matcher",
    "parse_path",
    "preview",
    "resolve",
]

MATCHERS = ("equals", "contains", "not_contains", "in", "matches", "len", "any_startswith")
"""The tolerant expectations of a suite: `{contains: …}` and the like."""


def is_matcher(value: object) -> bool:
    """A tolerant expectation: a mapping with one key that names a matcher. Anything else is
    an exact (golden) value."""
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in MATCHERS


MAX_PATH_STEPS = 64
"""No result is nested this deep; a longer path is a mistake (and would recurse that deep)."""
DISPLAY_CHARS = 200
"""How much of a value `preview` shows: a diff of a huge golden prints one bounded line."""

_NAME = re.compile(r"[^.\[\]]+")
_BRACKET = re.compile(r"\[(\*|-?\d{1,9}|:\d{1,9})\]")
_INDEX = re.compile(r"-?\d+")


class _Missing(enum.Enum):
    """The type of `MISSING`: one member, so copies and pickles stay the same object."""

    MISSING = "MISSING"

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing.MISSING
"""What `resolve` returns for a path that is not in the data (compare with `is`)."""


@dataclass(slots=True)
class FieldDiff:
    """One expectation that did not hold: where, what was expected and what came out."""

    path: str
    expected: Any
    actual: Any
    matcher: str
    """`equals` for exact goldens, else the tolerant matcher's name."""
    missing: bool = False
    """The path (or part of a `[*]` path) is not in the result: `actual` shows `(missing)` there,
    and such a value is never accepted as a golden."""

    @property
    def expected_text(self) -> str:
        """`expected` as one line of at most about `DISPLAY_CHARS` characters (the data stays)."""
        return preview(self.expected)

    @property
    def actual_text(self) -> str:
        """`actual` as one line of at most about `DISPLAY_CHARS` characters (the data stays)."""
        return preview(self.actual)


def parse_path(path: str) -> list[str]:
    """The steps of a path (`""` is the root: no steps); ValueError with the first character
    that does not fit, for anything but names, `.name`, `[n]`, `[-n]`, `[*]` and `[:n]`."""
    steps: list[str] = []
    position = 0
    while position < len(path):
        if path[position] == "[":
            bracket = _BRACKET.match(path, position)
            if bracket is None:
                raise ValueError(
                    f"not a path: expected [n], [-n], [*] or [:n] at character {position + 1}"
                )
            steps.append(bracket.group(1))
            position = bracket.end()
        else:
            if steps:
                if path[position] != ".":
                    raise ValueError(f"not a path: expected '.' or '[' at character {position + 1}")
                position += 1
            name = _NAME.match(path, position)
            if name is None:
                raise ValueError(f"not a path: expected a name at character {position + 1}")
            steps.append(name.group(0))
            position = name.end()
        if len(steps) > MAX_PATH_STEPS:
            raise ValueError(f"not a path: more than {MAX_PATH_STEPS} steps")
    return steps


def resolve(data: Any, path: str) -> Any:
    """The value at a dotted path with [n] and [*]; [*] maps the rest over a list. `MISSING` for
    a path that is not in the data or does not parse (`parse_path`)."""
    try:
        steps = parse_path(path)
    except ValueError:
        return MISSING
    return _walk(data, steps)


def _walk(data: Any, steps: list[str]) -> Any:
    if not steps:
        return data
    step, rest = steps[0], steps[1:]
    if step == "*" or step.startswith(":"):
        if not isinstance(data, list):
            return MISSING
        items = data if step == "*" else data[: int(step[1:])]
        return [_walk(item, rest) for item in items]
    if isinstance(data, list) and _INDEX.fullmatch(step):
        index = int(step)
        return _walk(data[index], rest) if -len(data) <= index < len(data) else MISSING
    if isinstance(data, dict) and step in data:
        return _walk(data[step], rest)
    return MISSING


def contains_missing(value: Any) -> bool:
    """Whether `value` is `MISSING` or a list (from `[*]`, maybe nested) holding it."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is MISSING:
            return True
        if isinstance(item, list):
            stack.extend(item)
    return False


def preview(value: Any, limit: int = DISPLAY_CHARS) -> str:
    """`value` as one line of JSON, cut with `…` after about `limit` characters. Work is bounded
    by `limit`, not by the value: a golden of a million items (or shared a billion times through
    YAML aliases) renders as fast as a short one. `MISSING` reads `"(missing)"`."""
    out: list[str] = []
    size = 0
    # A stack of what is left to write: values, and literal text (`_Text`) between them.
    stack: list[Any] = [value]
    while stack:
        if size > limit:
            return "".join(out)[:limit] + "…"
        item = stack.pop()
        if isinstance(item, _Text):
            piece = item.text
        elif isinstance(item, dict):
            entries = list(_head(item.items(), limit))
            stack.append(_Text("}"))
            if len(entries) < len(item):
                stack.append(_Text(", …"))
            for index in range(len(entries) - 1, -1, -1):
                key, sub = entries[index]
                stack.append(sub)
                stack.append(_Text(f"{', ' if index else ''}{_scalar(str(key), limit)}: "))
            piece = "{"
        elif isinstance(item, list | tuple | set | frozenset):
            stack.append(_Text("]"))
            items = list(_head(item, limit))
            if len(items) < len(item):
                stack.append(_Text(", …"))
            for index in range(len(items) - 1, -1, -1):
                stack.append(items[index])
                if index:
                    stack.append(_Text(", "))
            piece = "["
        else:
            piece = _scalar(item, limit)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass(frozen=True, slots=True)
class _Text:
    text: str


def _head(items: Any, count: int) -> Any:
    """At most the first `count` items of an iterable (no more is ever shown)."""
    for index, item in enumerate(items):
        if index >= count:
            return
        yield item


def _scalar(value: Any, limit: int) -> str:
    if value is MISSING:
        return '"(missing)"'
    if isinstance(value, str):
        return json.dumps(value[: limit + 1], ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        digits = value.bit_length() * 0.30103
        return str(value) if digits < limit else f"(an integer of about {digits:,.0f} digits)"
    if isinstance(value, float):
        return json.dumps(value) if math.isfinite(value) else repr(value)
    return json.dumps(str(value)[: limit + 1], ensure_ascii=False)
