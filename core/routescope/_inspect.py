"""`inspect()`: every router over one prompt, gathered into one `Inspection`."""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ._errors import InputError
from ._input import validate_text
from ._request import Request, default_today
from .contract import RouterContext, RouterDecision, decide
from .linter import LintResult, lint
from .rules import RulePack, default_rules
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
from .task import Planned, TaskDecision, classify_heuristic
from .toolsearch import SearchSettings, ToolSearchResult

if TYPE_CHECKING:  # the engine is given by the caller; importing it loads tantivy and numpy
    from .toolsearch import ToolSearch

__all__ = ["Inspection", "inspect", "warm_up"]


class Inspection(BaseModel):
    """What the routers decided about one prompt, with the evidence and per-stage timings."""

    # Built on first use: text-mode commands never serialize it.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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
    task: TaskDecision
    """The task router's decision (seed 000, "Strategy integration"): chat, browse or research,
    the goal restated, and the strategy router's searches for that goal (the heuristic; a
    model's answer comes from `routescope.task.classify(llm=…)`)."""


def warm_up(rules: RulePack) -> None:
    """Compile a pack's patterns now rather than on the first prompt (a few milliseconds)."""
    inspect("warm up", today=dt.date(2000, 1, 1), rules=rules)


def inspect(
    request: Request | str,
    *,
    today: dt.date | None = None,
    rules: RulePack | None = None,
    context: RouterContext | None = None,
    tools: ToolSearch | None = None,
) -> Inspection:
    """Run the routers over a `Request`, or over a text with the other inputs given here.

    `today` defaults to the local date; it is the only clock the routers see.
    `rules` defaults to the built-in pack; `context` is the router contract's context.
    `tools` is the engine for the request's catalog (tool search is slow work that lives beside
    `inspect`, built once): when given, its ranking of the prompt is part of the result.
    """
    if isinstance(request, Request):
        if today is not None or rules is not None or context is not None:
            raise TypeError("inspect(request): today, rules and context come from the request")
        return _run(
            request.text,
            request.today,
            request.rules.load(),
            request.context,
            tools,
            request.search,
        )
    return _run(request, today or default_today(), rules or default_rules(), context, tools, None)


def _check_types(today: object, rules: object, context: object) -> None:
    """Library callers get a sentence, not an AttributeError deep inside a router."""
    if not isinstance(today, dt.date):
        raise InputError(f"today must be a datetime.date, not {type(today).__name__}")
    if not isinstance(rules, RulePack):
        raise InputError(
            f"rules must be a RulePack, not {type(rules).__name__} "
            "(routescope.load_rules(path) reads a file)"
        )
    if context is not None and not isinstance(context, RouterContext):
        raise InputError(
            f"context must be a RouterContext, not {type(context).__name__} "
            "(routescope.contract.parse_context(data) validates a dict)"
        )


def _run(
    text: str,
    today: dt.date,
    rules: RulePack,
    context: RouterContext | None,
    tools: ToolSearch | None,
    settings: SearchSettings | None,
) -> Inspection:
    text = validate_text(text)
    _check_types(today, rules, context)
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
    task = classify_heuristic(
        text, rules=rules, today=today, planned=Planned(query_context, strategy, actions)
    )
    t7 = clock()
    found = tools.search(text, settings) if tools is not None else None
    t8 = clock()
    # Each stage built and typed its own value: skip validating them again on every keystroke.
    return Inspection.model_construct(
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
            "task": (t7 - t6) / 1000,
            **({"tools": (t8 - t7) / 1000} if tools is not None else {}),
            "total": (t8 - t0) / 1000,
        },
        task=task,
    )
