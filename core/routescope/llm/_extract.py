"""Finding the JSON object in what a model wrote, and the `Score` type its answers use.

Models wrap their JSON in Markdown fences, think aloud first (`<think>…</think>`, sometimes with
the opening tag missing or the closing one cut off), or introduce it with a sentence. None of
that matters here: reasoning blocks are removed, then one linear scan finds every outermost
`{…}` span (string-aware, so braces inside strings do not count), and the first that parses as
a JSON object wins. Fences and prose around the object are simply never part of a span.
"""

from __future__ import annotations

import json
import math
import re
from typing import Annotated, Any

from pydantic import AfterValidator, Field

__all__ = ["Score", "extract_json_object", "strip_reasoning"]

_OPEN = "<think>"
_CLOSE = "</think>"
_TOKENS = re.compile(r'[{}"\\]')
"""The only characters the brace scan looks at; everything else is skipped by the regex engine."""
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _score(value: float) -> float:
    if math.isnan(value):
        raise ValueError("a score must be a number, not NaN")
    return round(min(1.0, max(0.0, value)), 1)


Score = Annotated[
    float,
    Field(description="a score from 0.0 to 1.0 with one decimal"),
    AfterValidator(_score),
]
"""A score in [0, 1] with one decimal: out-of-range values are clamped, NaN is invalid."""


def strip_reasoning(text: str) -> str:
    """`text` without its `<think>…</think>` blocks: a closing tag with no opening one drops
    everything before it (the reply began inside a thought); an opening tag that is never
    closed drops everything after it."""
    pos = 0
    first_close = text.find(_CLOSE)
    if first_close != -1:
        first_open = text.find(_OPEN, 0, first_close)
        if first_open == -1:
            pos = first_close + len(_CLOSE)
    parts: list[str] = []
    while True:
        start = text.find(_OPEN, pos)
        if start == -1:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        end = text.find(_CLOSE, start + len(_OPEN))
        if end == -1:
            break
        pos = end + len(_CLOSE)
    return "".join(parts)


def _outermost_spans(text: str) -> list[tuple[int, int]]:
    """The `(start, end)` of every balanced `{…}` not inside another one, in order. A stray
    unbalanced `{` in prose does not hide a complete object after it."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_string = False
    escaped_at = -1
    for match in _TOKENS.finditer(text):
        i = match.start()
        if i == escaped_at:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                escaped_at = i + 1
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = bool(stack)  # quotes in prose outside any brace mean nothing
        elif char == "{":
            stack.append(i)
        elif char == "}" and stack:
            start = stack.pop()
            while spans and spans[-1][0] > start:  # spans nested in this one
                spans.pop()
            spans.append((start, i + 1))
    return spans


def _loads(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    try:  # the one repair worth making: trailing commas before `}` or `]`
        return json.loads(_TRAILING_COMMA.sub(r"\1", candidate))
    except (ValueError, RecursionError):
        return None


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model's reply, or None. Reasoning blocks are looked past;
    when nothing is left outside them, the whole text is searched."""
    stripped = strip_reasoning(text)
    views = (stripped,) if stripped == text else (stripped, text)
    for view in views:
        for start, end in _outermost_spans(view):
            value = _loads(view[start:end])
            if isinstance(value, dict):
                return value
    return None
