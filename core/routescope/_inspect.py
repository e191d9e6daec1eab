"""`inspect()`: every router over one prompt, gathered into one `Inspection`."""

from __future__ import annotations

import datetime as dt
import time

from pydantic import BaseModel, ConfigDict

from ._errors import InputError
from ._rules import RulePack, default_rules
from .contract import RouterContext, RouterDecision, decide
from .linter import LintResult, lint
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
from .toolsearch import ToolSearch, ToolSearchResult

__all__ = ["MAX_INPUT_CHARS", "Inspection", "inspect", "prepare", "validate_text"]

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
    lint: LintResult
    decision: RouterDecision | None
    """The router contract's decision; None when the rule pack disables the contract."""
    tools: ToolSearchResult | None
    """The hybrid tool search over a catalog, when `inspect` was given one."""
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


def prepare(rules: RulePack) -> None:
    """Compile a pack's patterns now rather than on the first prompt (a few milliseconds)."""
    inspect("warm up", today=dt.date(2000, 1, 1), rules=rules)


def inspect(
    text: str,
    *,
    today: dt.date | None = None,
    rules: RulePack | None = None,
    context: RouterContext | None = None,
    tools: ToolSearch | None = None,
) -> Inspection:
    """Run the routers over `text`.

    `today` defaults to the local date; it is the only clock the routers see.
    `rules` defaults to the built-in pack; `context` is the router contract's context;
    `tools` is a searchable catalog to rank tools for the prompt.
    """
    text = validate_text(text)
    rules = rules or default_rules()
    today = today or dt.date.today()
    clock = time.perf_counter_ns
    t0 = clock()
    query_context = extract(text, rules)
    t1 = clock()
    strategy = route(query_context)
    t2 = clock()
    planned = plan(query_context, strategy.strategy, rules)
    t3 = clock()
    actions = sanitize_plan(planned, query_context, today, rules)
    t4 = clock()
    linted = lint(text, rules)
    t5 = clock()
    decision = decide(text, context, rules) if rules.contract.enabled else None
    t6 = clock()
    found = tools.search(text) if tools is not None else None
    t7 = clock()
    return _assemble(
        today=today,
        rules=rules.name,
        context=query_context,
        strategy=strategy.strategy,
        strategy_rule=strategy.rule,
        strategy_reason=strategy.reason,
        plan=planned,
        actions=actions,
        lint=linted,
        decision=decision,
        tools=found,
        timings_us={
            "extract": (t1 - t0) / 1000,
            "route": (t2 - t1) / 1000,
            "plan": (t3 - t2) / 1000,
            "sanitize": (t4 - t3) / 1000,
            "lint": (t5 - t4) / 1000,
            "decide": (t6 - t5) / 1000,
            **({"tools": (t7 - t6) / 1000} if tools is not None else {}),
            "total": (t7 - t0) / 1000,
        },
    )
