"""The fields of a record read back, each checked: a one-line `RecordError` names the field
and what is wrong with it ("field 'strategy' must be a string, not null")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ._errors import RecordError

__all__ = [
    "contract",
    "kind_of",
    "opt_bool",
    "opt_number",
    "opt_str",
    "opt_strs",
    "require_str",
    "strs",
    "timings",
]

_STR = {str}


def kind_of(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "a list" if isinstance(value, list) else "an object"
    )


_MISSING = object()


def require_str(data: Mapping[str, Any], name: str) -> str:
    if name not in data:
        raise RecordError(f"missing field {name!r}")
    value = data[name]
    if not isinstance(value, str):
        raise RecordError(f"field {name!r} must be a string, not {kind_of(value)}")
    return value


def opt_str(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"field {name!r} must be a string or null, not {kind_of(value)}")
    return value


def strs(data: Mapping[str, Any], name: str, *, required: bool = True) -> tuple[str, ...]:
    if name not in data and not required:
        return ()
    value = data.get(name, _MISSING)
    if value is _MISSING:
        raise RecordError(f"missing field {name!r}")
    if (type(value) is not list and type(value) is not tuple) or not set(map(type, value)) <= _STR:
        raise RecordError(f"field {name!r} must be a list of strings")
    return tuple(value)


def opt_strs(data: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    return None if data.get(name) is None else strs(data, name)


def opt_bool(data: Mapping[str, Any], name: str) -> bool | None:
    value = data.get(name)
    if value is not None and not isinstance(value, bool):
        raise RecordError(f"field {name!r} must be true, false or null, not {kind_of(value)}")
    return value


def opt_number(data: Mapping[str, Any], name: str) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RecordError(f"field {name!r} must be a number or null, not {kind_of(value)}")
    return value


def timings(data: Mapping[str, Any]) -> dict[str, float] | None:
    value = data.get("timings_us")
    if value is None:
        return None
    if isinstance(value, list):  # a Parquet map column reads as a list of (key, value) pairs
        try:
            value = dict(value)
        except (TypeError, ValueError):
            raise RecordError(
                "field 'timings_us' must be an object of stage: microseconds"
            ) from None
    if not isinstance(value, Mapping):
        raise RecordError(f"field 'timings_us' must be an object, not {kind_of(value)}")
    timings: dict[str, float] = {}
    for stage, micros in value.items():
        kind = type(micros)
        if (kind is float or kind is int) and 0 <= micros < math.inf and type(stage) is str:
            timings[stage] = micros
        elif micros is not None:  # a bool, a string, NaN, a negative or infinite number
            raise RecordError(f"field 'timings_us' must map stages to microseconds (at {stage!r})")
    return timings


def contract(data: Mapping[str, Any]) -> tuple[str | None, str | None, tuple[str, ...] | None]:
    value = data.get("contract")
    if value is None:
        return None, None, None
    if not isinstance(value, Mapping):
        raise RecordError(f"field 'contract' must be an object or null, not {kind_of(value)}")
    try:
        return require_str(value, "agent"), require_str(value, "mode"), opt_strs(value, "tools")
    except RecordError as exc:
        raise RecordError(f"contract: {exc}") from None
