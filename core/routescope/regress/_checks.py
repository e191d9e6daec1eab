"""A case's expectations: which values are tolerant matchers, what each matcher's operand may
be, and the `{matches: …}` patterns, refused when they could backtrack catastrophically (and
run on an engine with a deadline)."""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

from .._diff import MATCHERS, is_matcher

__all__ = [
    "MATCHERS",
    "MATCH_TIMEOUT_S",
    "MAX_PATTERN_CHARS",
    "check_pattern",
    "is_matcher",
    "regex_module",
]

MAX_PATTERN_CHARS = 1_000
"""The longest `{matches: …}` pattern."""
MATCH_TIMEOUT_S = 1.0
"""How long one `{matches: …}` may search one value before the run stops with a SuiteError."""


def _check_operand(name: str, operand: Any) -> None:
    """ValueError when a matcher's operand cannot work: what the matcher takes, and what came."""
    if name == "in":
        if not isinstance(operand, list):
            raise ValueError(f"{{in: …}} takes a list of values, not {_kind(operand)}")
    elif name == "len":
        if not isinstance(operand, int) or isinstance(operand, bool) or operand < 0:
            raise ValueError(f"{{len: …}} takes a whole number ≥ 0, not {_kind(operand)}")
    elif name == "any_startswith":
        items = operand if isinstance(operand, list) else [operand]
        wrong = [item for item in items if not isinstance(item, str)]
        if not items or wrong:
            given = (
                "an empty list"
                if not items
                else f"a list holding {_kind(wrong[0])}"
                if isinstance(operand, list)
                else _kind(operand)
            )
            raise ValueError(
                f"{{any_startswith: …}} takes a prefix or a list of prefixes (text), not {given}"
            )
    elif name == "matches":
        check_pattern(operand)


def check_pattern(pattern: object) -> None:
    """ValueError unless `pattern` is a regular expression `{matches: …}` can run: text of at
    most `MAX_PATTERN_CHARS`, valid for Python's `re`, with no quantified group that holds
    another quantifier (`(a+)+`: the classic catastrophic backtracking)."""
    if not isinstance(pattern, str):
        raise ValueError(f"{{matches: …}} takes a regular expression (text), not {_kind(pattern)}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"{{matches: …}}: the pattern is {len(pattern):,} characters (limit "
            f"{MAX_PATTERN_CHARS:,})"
        )
    parser: Any = importlib.import_module("re._parser")
    try:
        with warnings.catch_warnings():  # "possible nested set": a note on future syntax
            warnings.simplefilter("ignore", FutureWarning)
            parsed = parser.parse(pattern)
    except re.error as exc:
        raise ValueError(f"{{matches: …}}: not a valid regular expression: {exc}") from None
    except (RecursionError, OverflowError, ValueError):
        raise ValueError("{matches: …}: not a valid regular expression (too complex)") from None
    nested = _nested_quantifier(parsed)
    if nested is not None:
        raise ValueError(
            f"{{matches: …}}: a repeated group holds another repeat ({nested}), which can take "
            "exponential time; use a possessive (`++`, `*+`) or atomic (`(?>…)`) form, or "
            "rewrite it"
        )
    engine = regex_module()
    try:
        engine.compile(pattern)
    except (engine.error, RecursionError, OverflowError, ValueError) as exc:
        raise ValueError(f"{{matches: …}}: not a valid regular expression: {exc}") from None


def regex_module() -> Any:
    """The third-party `regex` module: the engine `{matches: …}` runs on, because it can stop a
    match at a deadline (`timeout=`), which Python's `re` cannot. (It ships no type stubs.)"""
    return importlib.import_module("regex")


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT")


def _nested_quantifier(parsed: Any) -> str | None:
    """Where a repeat (at most more than once, and able to backtrack) holds another such
    repeat, as the pattern's text of the inner one's operator; None if nowhere."""
    stack: list[tuple[Any, bool]] = [(parsed, False)]
    while stack:
        items, inside = stack.pop()
        for op, av in items:
            name = str(op)
            if name in _REPEATS:
                _low, high, sub = av
                if high > 1:
                    if inside:
                        return "a quantifier inside a quantified group"
                    stack.append((sub, True))
                else:
                    stack.append((sub, inside))
            elif name == "SUBPATTERN":
                stack.append((av[-1], inside))
            elif name == "BRANCH":
                stack.extend((branch, inside) for branch in av[1])
            elif name in ("ASSERT", "ASSERT_NOT"):
                stack.append((av[1], inside))
            elif name == "GROUPREF_EXISTS":
                stack.extend((branch, inside) for branch in av[1:] if branch is not None)
            # ATOMIC_GROUP and POSSESSIVE_REPEAT never backtrack into their body: not followed
    return None


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str) and len(repr(value)) <= 40:
        return f"{type(value).__name__} {value!r}"
    return "null" if value is None else f"a {type(value).__name__}"
