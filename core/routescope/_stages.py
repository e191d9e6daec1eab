"""The router stages, written once: extract → route → plan → sanitize → lint → decide → task →
tools, timed. `inspect()`, the batch, the counterfactuals and the history all run them here
(an import contract says no other module does)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from typing import TYPE_CHECKING, NamedTuple

from ._example_votes import vote_on_examples
from .contract import RouterContext, RouterDecision, decide
from .linter import LintResult, lint
from .rules import RulePack
from .strategy import Action, Plan, QueryContext, StrategyDecision, extract, plan, route
from .strategy import sanitize_plan as sanitize
from .task import Planned, TaskDecision, classify_heuristic, heuristic_route

if TYPE_CHECKING:  # the engine is given by the caller; importing it loads tantivy and numpy
    from .toolsearch import SearchSettings, ToolSearch, ToolSearchResult

__all__ = ["STAGES", "Stages", "run_stages"]

STAGES = ("extract", "route", "plan", "sanitize", "lint", "decide", "task", "tools", "total")
"""The stages of `timings_us`, in the order they run (`tools` only with an engine)."""


class Stages(NamedTuple):
    """What each stage made of one prompt, and how long it took (µs per stage and `total`).
    (A named tuple: as immutable as a frozen dataclass, and five times cheaper to make, once a
    prompt of a batch of millions.)"""

    text: str
    today: dt.date
    rules: RulePack
    context: QueryContext
    strategy: StrategyDecision
    plan: Plan
    actions: list[Action]
    lint: LintResult
    decision: RouterDecision | None
    """None when the rule pack disables the contract."""
    task_route: str
    task: TaskDecision | None
    """The task router's whole decision; None in a lean run (the route alone is made)."""
    tools: ToolSearchResult | None
    """The engine's ranking of the prompt; None without an engine."""
    timings_us: dict[str, float]


def run_stages(
    text: str,
    today: dt.date,
    rules: RulePack,
    context: RouterContext | None = None,
    tools: ToolSearch | None = None,
    settings: SearchSettings | None = None,
    *,
    lean: bool = False,
) -> Stages:
    """Every router over `text` (which must have passed `validate_text`), in order.

    `lean` skips what only the evidence needs, never a decision: the task router's goal and
    searches (its route alone is made) and the tool search's per-field explanations. The batch
    and the counterfactuals run lean; both outcomes are equal."""
    clock = time.perf_counter_ns
    t0 = clock()
    query_context = extract(text, rules, today)
    if rules.intents.examples is not None:  # flags read from meaning: embeds the prompt
        query_context = vote_on_examples(query_context, rules)
    t1 = clock()
    chosen = route(query_context)
    t2 = clock()
    planned = plan(query_context, chosen.strategy, rules)
    t3 = clock()
    actions = sanitize(planned, query_context, today, rules)
    t4 = clock()
    linted = lint(text, rules)
    t5 = clock()
    decision = decide(text, context, rules) if rules.contract.enabled else None
    t6 = clock()
    task: TaskDecision | None
    if lean:
        task, task_route = None, heuristic_route(text, query_context)
    else:
        reuse = Planned(query_context, chosen, actions)
        task = classify_heuristic(text, rules=rules, today=today, planned=reuse)
        task_route = task.route
    t7 = clock()
    found = None if tools is None else tools.search(text, _lean(settings) if lean else settings)
    t8 = clock()
    timings = {
        "extract": (t1 - t0) / 1000,
        "route": (t2 - t1) / 1000,
        "plan": (t3 - t2) / 1000,
        "sanitize": (t4 - t3) / 1000,
        "lint": (t5 - t4) / 1000,
        "decide": (t6 - t5) / 1000,
        "task": (t7 - t6) / 1000,
    }
    if tools is not None:
        timings["tools"] = (t8 - t7) / 1000
    timings["total"] = (t8 - t0) / 1000
    return Stages(
        text,
        today,
        rules,
        query_context,
        chosen,
        planned,
        actions,
        linted,
        decision,
        task_route,
        task,
        found,
        timings,
    )


def _lean(settings: SearchSettings | None) -> SearchSettings | None:
    """Explanations fill in fields and never change the ranking; the steps do (each fitting
    step's best comes right after the whole request's best: issue 28), so they are kept."""
    if settings is None or not settings.explain:
        return settings
    return dataclasses.replace(settings, explain=False)
