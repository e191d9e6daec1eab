"""A router's answer (a JSON value) read through its `AnswerMap` into a decision's fields, or
into one `garbage` failure that says which path held what: `decide` gives either as the
`ExternalDecision` of an http or python router."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from .._errors import one_line
from ._declare import AnswerMap
from ._models import ExternalDecision, ExternalFailure, Signal
from ._paths import parse_path

__all__ = ["GarbageError", "Read", "decide", "read_answer"]


class GarbageError(Exception):
    """The answer does not hold a decision where the declaration says (one line)."""


@dataclass(slots=True)
class Read:
    route: str | None
    score: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    tools: list[str] | None = None
    flags: list[str] | None = None
    signals: list[Signal] = field(default_factory=list)


def decide(
    answer: Any,
    mapping: AnswerMap,
    *,
    router: str,
    kind: str,
    latency_ms: float,
    raw: str,
    scrub: Callable[[str], str] = str,
) -> ExternalDecision:
    """The decision `answer` holds, read through `mapping`; a `garbage` failure (its detail
    passed through `scrub`, which masks secrets) when it does not hold one."""
    try:
        read = read_answer(answer, mapping)
    except GarbageError as exc:
        failure = ExternalFailure(kind="garbage", detail=one_line(scrub(str(exc)), 300))
        return ExternalDecision.failed(router, kind, failure, latency_ms, raw)
    found = {part.name: getattr(read, part.name) for part in fields(read)}
    return ExternalDecision(router=router, kind=kind, latency_ms=latency_ms, raw=raw, **found)


def read_answer(answer: Any, mapping: AnswerMap) -> Read:
    """The decision in `answer` (GarbageError: the route's path finds nothing, or a wrong type)."""
    found, route = parse_path(mapping.route).first(answer)
    if not found:
        raise GarbageError(f"no route at {mapping.route!r} in the answer")
    if (route is not None and not isinstance(route, str | int)) or isinstance(route, bool):
        raise GarbageError(f"the route at {mapping.route!r} is {_kind(route)}, not text")
    read = Read(None if route is None else str(route))
    if mapping.score is not None:
        read.score = _number(answer, mapping.score)
    if mapping.scores is not None:
        read.scores = _scores(answer, mapping)
    if mapping.tools is not None:
        read.tools = _names(answer, mapping.tools)
    if mapping.flags is not None:
        read.flags = _names(answer, mapping.flags)
    if mapping.signals is not None:
        read.signals = _merged(
            [s for part in mapping.signals.split(",") for s in _signals(answer, part)]
        )
    if read.score is None and read.route is not None and read.route in read.scores:
        read.score = read.scores[read.route]
    return read


def _merged(signals: list[Signal]) -> list[Signal]:
    """One signal a kind and name (`keywords` and `keyword` are one kind), its confidence kept
    when any part gave one."""
    merged: dict[tuple[str, str], Signal] = {}
    for signal in signals:
        key = (signal.kind.removesuffix("s"), signal.name)
        known = merged.get(key)
        if known is None or (known.confidence is None and signal.confidence is not None):
            merged[key] = (
                signal if known is None else signal.model_copy(update={"kind": known.kind})
            )
    return list(merged.values())


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "an array" if isinstance(value, list) else "an object"


def _as_number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GarbageError(f"{where} is {_kind(value)}, not a number")
    number = float(value)
    if not math.isfinite(number):
        raise GarbageError(f"{where} is not a finite number")
    return number


def _number(answer: Any, path: str) -> float | None:
    found, value = parse_path(path).first(answer)
    if not found or value is None:
        return None
    return _as_number(value, f"the score at {path!r}")


def _scores(answer: Any, mapping: AnswerMap) -> dict[str, float]:
    path = parse_path(mapping.scores or ".")
    values = path.values(answer)
    if not path.fans_out and len(values) == 1 and isinstance(values[0], list):
        values = values[0]
    if not path.fans_out and len(values) == 1 and isinstance(values[0], dict):
        scores = {str(k): _as_number(v, f"scores[{k!r}]") for k, v in values[0].items()}
    else:
        name_path, value_path = parse_path(mapping.scores_name), parse_path(mapping.scores_value)
        scores = {}
        for item in values:
            has_name, name = name_path.first(item)
            has_value, value = value_path.first(item)
            if not has_name or not has_value:
                raise GarbageError(
                    f"an item at {path} has no {mapping.scores_name!r} or {mapping.scores_value!r}"
                )
            scores[str(name)] = _as_number(value, f"the score of {one_line(name, 40)!r}")
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def _names(answer: Any, path_text: str) -> list[str]:
    path = parse_path(path_text)
    values = path.values(answer)
    if not path.fans_out and len(values) == 1:
        value = values[0]
        if isinstance(value, list):
            values = value
        elif isinstance(value, dict):  # {flag: true, other: false}
            return [str(k) for k, v in value.items() if v is True]
    names = []
    for value in values:
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            value = value["name"]
        if not isinstance(value, str):
            raise GarbageError(f"{path_text!r} holds {_kind(value)}, not names")
        names.append(value)
    return names


def _signals(answer: Any, path_text: str) -> list[Signal]:
    """An object of `kind:name` → confidence (vLLM Semantic Router's `signal_confidences`), an
    object of kind → [names] (its `matched_signals`), or a list of names or of objects with
    `name` (and `kind`, `confidence`)."""
    found, value = parse_path(path_text.strip()).first(answer)
    if not found or value is None:
        return []
    signals: list[Signal] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, list):
                signals += [Signal(kind=str(key), name=str(name)) for name in item]
            elif isinstance(item, int | float) and not isinstance(item, bool):
                kind, _, name = str(key).rpartition(":")
                signals.append(Signal(kind=kind, name=name, confidence=float(item)))
            elif item is True:
                signals.append(Signal(name=str(key)))
        return signals
    if not isinstance(value, list):
        raise GarbageError(f"the signals at {path_text!r} are {_kind(value)}")
    for item in value:
        if isinstance(item, str):
            kind, _, name = item.rpartition(":")
            signals.append(Signal(kind=kind, name=name))
        elif isinstance(item, dict) and "name" in item:
            confidence = item.get("confidence")
            signals.append(
                Signal(
                    kind=str(item.get("kind") or item.get("type") or ""),
                    name=str(item["name"]),
                    confidence=None if confidence is None else _as_number(confidence, "a signal"),
                )
            )
    return signals
