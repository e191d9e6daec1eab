"""Paths into a result's JSON and the field diff of an expectation that did not hold.

Shared by the regression runner and anything else that compares results field by field (history,
compare). Standard library only: nothing from the routers, `inspect` or `regress`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["MISSING", "FieldDiff", "resolve"]

_STEP = re.compile(r"([^.\[\]]+)|\[(\*|-?\d+|:\d+)\]")
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


def resolve(data: Any, path: str) -> Any:
    """The value at a dotted path with [n] and [*]; [*] maps the rest over a list."""
    steps = [m.group(1) if m.group(1) is not None else m.group(2) for m in _STEP.finditer(path)]
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
