"""`inspect()`: every router over one prompt, gathered into one `Inspection`."""

from __future__ import annotations

import datetime as dt
import time

from pydantic import BaseModel, ConfigDict

from ._errors import InputError
from ._rules import RulePack, default_rules
from .strategy import (
    Action,
    Plan,
    QueryContext,
    Strategy,
    extract,
    plan,
    route,
    sanitize_plan,
)

__all__ = ["MAX_INPUT_CHARS", "Inspection", "inspect", "validate_text"]

MAX_INPUT_CHARS = 10_000_000
_BLANK = str.maketrans("", "", "".join(map(chr, range(0x20))) + "\x7f")


class Inspection(BaseModel):
    """What the routers decided about one prompt, with the evidence and per-stage timings."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    today: dt.date
    rules: str
    context: QueryContext
    strategy: Strategy
    strategy_rule: str
    strategy_reason: str
    plan: Plan
    actions: list[Action]
    timings_us: dict[str, float]


_FIELD_NAMES = frozenset(Inspection.model_fields)


def _assemble(**fields: object) -> Inspection:
    """`Inspection.model_construct` for a caller that gives every field, without its per-field
    default handling: the stages built (and typed) the values, and this runs per keystroke."""
    result = Inspection.__new__(Inspection)
    object.__setattr__(result, "__dict__", fields)
    object.__setattr__(result, "__pydantic_fields_set__", set(_FIELD_NAMES))
    object.__setattr__(result, "__pydantic_extra__", None)
    object.__setattr__(result, "__pydantic_private__", None)
    return result


def validate_text(text: object) -> str:
    """Return `text` if a router can use it, else raise InputError with a one-line reason."""
    if not isinstance(text, str):
        raise InputError(f"text must be a string, not {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(f"text is too large: {len(text):,} characters (limit {MAX_INPUT_CHARS:,})")
    if not text.translate(_BLANK).strip():
        raise InputError("text is empty or only whitespace")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text is not valid Unicode (lone surrogate at {exc.start})") from None
    return text


def inspect(
    text: str, *, today: dt.date | None = None, rules: RulePack | None = None
) -> Inspection:
    """Run the routers over `text`.

    `today` defaults to the local date; it is the only clock the routers see.
    `rules` defaults to the built-in pack.
    """
    text = validate_text(text)
    rules = rules or default_rules()
    today = today or dt.date.today()
    clock = time.perf_counter_ns
    t0 = clock()
    context = extract(text, rules)
    t1 = clock()
    decision = route(context)
    t2 = clock()
    planned = plan(context, decision.strategy, rules)
    t3 = clock()
    actions = sanitize_plan(planned, context, today, rules)
    t4 = clock()
    return _assemble(
        today=today,
        rules=rules.name,
        context=context,
        strategy=decision.strategy,
        strategy_rule=decision.rule,
        strategy_reason=decision.reason,
        plan=planned,
        actions=actions,
        timings_us={
            "extract": (t1 - t0) / 1000,
            "route": (t2 - t1) / 1000,
            "plan": (t3 - t2) / 1000,
            "sanitize": (t4 - t3) / 1000,
            "total": (t4 - t0) / 1000,
        },
    )
