"""The answer-path syntax: where in a JSON answer a value is.

    decision_result.decision_name      a key, then a key
    choices[0].message.content         an item of a list by index (negative from the end)
    results[*].category                every item of a list (the path gives many values)
    signal_confidences.*               every value of an object
    ["a.key with dots"].x              a key that is not a plain name, quoted
    .                                  the whole answer

A path gives a list of values: none when a key or index is missing, one for a plain path,
any number once it passes `[*]` or `.*`. A path that cannot be read (`a..b`, `x[one]`) is a
declaration error, told when the routers file is read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["AnswerPath", "parse_path"]

_NAME = re.compile(r"[A-Za-z_$@-][A-Za-z0-9_$@:-]*")
_INDEX = re.compile(r"\[(-?\d+|\*)\]")
_QUOTED = re.compile(r'\[("(?:[^"\\]|\\.)*")\]')
_EVERY = object()


@dataclass(frozen=True, slots=True)
class AnswerPath:
    text: str
    steps: tuple[object, ...]
    """str: a key; int: an index; `_EVERY`: every item or value."""

    def values(self, data: Any) -> list[Any]:
        found = [data]
        for step in self.steps:
            found = [value for item in found for value in _step(item, step)]
        return found

    def first(self, data: Any) -> tuple[bool, Any]:
        """(found, the first value)."""
        values = self.values(data)
        return (True, values[0]) if values else (False, None)

    @property
    def fans_out(self) -> bool:
        return any(step is _EVERY for step in self.steps)

    def __str__(self) -> str:
        return self.text


def _step(item: Any, step: object) -> list[Any]:
    if step is _EVERY:
        if isinstance(item, list):
            return list(item)
        if isinstance(item, dict):
            return list(item.values())
        return []
    if isinstance(step, int):
        if isinstance(item, list) and -len(item) <= step < len(item):
            return [item[step]]
        return []
    if isinstance(item, dict) and step in item:
        return [item[step]]
    return []


def parse_path(text: str) -> AnswerPath:
    """The path `text` (ValueError: where it cannot be read)."""
    source = text.strip()
    if source == ".":
        return AnswerPath(source, ())
    steps: list[object] = []
    position = 0
    expect_name = True
    while position < len(source):
        char = source[position]
        if char == "[":
            quoted = _QUOTED.match(source, position)
            if quoted is not None:
                steps.append(json.loads(quoted.group(1)))
                position = quoted.end()
            else:
                index = _INDEX.match(source, position)
                if index is None:
                    raise ValueError(
                        f"path {text!r}: '[' at {position} is not [n], [*] or [\"key\"]"
                    )
                value = index.group(1)
                steps.append(_EVERY if value == "*" else int(value))
                position = index.end()
            expect_name = False
            continue
        if char == "." and not expect_name:
            position += 1
            expect_name = True
            if position < len(source) and source[position] == "*":
                steps.append(_EVERY)
                position += 1
                expect_name = False
            continue
        name = _NAME.match(source, position) if expect_name else None
        if name is None:
            raise ValueError(f"path {text!r}: unexpected {char!r} at {position}")
        steps.append(name.group(0))
        position = name.end()
        expect_name = False
    if expect_name:
        raise ValueError(f"path {text!r} is empty or ends with '.'")
    return AnswerPath(source, tuple(steps))
