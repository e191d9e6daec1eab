"""The result record of a batch: one flat JSON object per prompt, built in this one place.

| field | type | what |
| --- | --- | --- |
| `source` | str | the input file as given (or as the glob matched it) |
| `line` | int | the 1-based line of that file where the prompt's record starts |
| `prompt` | str | the prompt routed (a chat log: its last user message) |
| `today` | str | the date the routers saw, `YYYY-MM-DD` |
| `strategy` | str | the strategy router's choice: `general`, `local` or `tech` |
| `strategy_rule` | str | the rule that chose it |
| `intents` | [str] | the intent flags that are on, in the pack's order (`tech`, `local`, …) |
| `entities` | [str] | the entity candidates, best first |
| `place` | str \\| null | the place hint |
| `has_openclaw` | bool | whether the prompt names OpenClaw |
| `queries` | [str] | the planned search queries after sanitizing, in execution order |
| `raw_queries` | [str] | the same queries before sanitizing |
| `edits` | [str] | the sanitizer rules that changed a query, each once, first seen first |
| `lint_class` | str | the query linter's class: `guided`, `semi` or `vague` |
| `lint_rule` | str | the linter rule that decided the class |
| `contract` | object \\| null | `{"agent", "mode", "tools"}`: tools are the plan's tool names; |
| | | null when the rule pack disables the contract |
| `task_route` | str | the task router's route: `chat`, `browse` or `research` |
| `tools` | [str] \\| null | the tool search's top-k tool names; null without a catalog |
| `top_tool` | str \\| null | the best tool (null without a catalog, or when none ranks) |
| `top_score` | float \\| null | its score, rounded to 6 decimals |
| `tool_fits` | bool \\| null | whether any tool fits (the fit threshold's verdict) |
| `timings_us` | {str: float} \\| null | µs per stage, to 0.1 µs: `extract`, `route`, `plan`, |
| | | `sanitize`, `lint`, `decide`, `task`, `tools` (with a catalog), `total`; |
| | | null with `--no-timings` |

Every field but `timings_us` is a pure function of the prompt, `today`, the rule pack and the
catalog: two runs (any engine, any number of workers) give byte-identical files with
`--no-timings`. `route_record` builds the record straight from the router calls (the batch's
hot path); `record_from_inspection` builds it from an `Inspection`, and the two are equal.

Parquet holds the same fields flattened (`flat_record`): `contract.agent` → `contract_agent`,
`contract.mode` → `contract_mode`, `contract.tools` → `contract_tools`, `timings_us.extract` →
`timings_us_extract` (one column per stage), lists as list columns, `today` as a date.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING, Any

from ..contract import decide
from ..linter import lint
from ..strategy import INTENTS, Action, extract, plan, route, sanitize_plan
from ..task import heuristic_task_spec

if TYPE_CHECKING:
    from .._inspect import Inspection
    from ..rules import RulePack
    from ..toolsearch import SearchSettings, ToolSearch, ToolSearchResult

__all__ = [
    "FIELDS",
    "STAGES",
    "flat_record",
    "record_from_inspection",
    "route_record",
]

FIELDS = (
    "source",
    "line",
    "prompt",
    "today",
    "strategy",
    "strategy_rule",
    "intents",
    "entities",
    "place",
    "has_openclaw",
    "queries",
    "raw_queries",
    "edits",
    "lint_class",
    "lint_rule",
    "contract",
    "task_route",
    "tools",
    "top_tool",
    "top_score",
    "tool_fits",
    "timings_us",
)
"""The record's fields, in the order they are written."""

STAGES = ("extract", "route", "plan", "sanitize", "lint", "decide", "task", "tools", "total")
"""The stages of `timings_us` (`tools` only with a catalog)."""

_SCORE_DIGITS = 6


def route_record(
    text: str,
    today: dt.date,
    rules: RulePack,
    tools: ToolSearch | None = None,
    settings: SearchSettings | None = None,
    *,
    timings: bool = True,
) -> dict[str, Any]:
    """The record of one prompt (without `source` and `line`), from the routers themselves:
    what `inspect()` computes, less what no field reads (the task router's re-planned
    searches, the `Inspection` model). `text` must have passed `validate_text`."""
    clock = time.perf_counter_ns
    t0 = clock()
    context = extract(text, rules)
    t1 = clock()
    chosen = route(context)
    t2 = clock()
    planned = plan(context, chosen.strategy, rules)
    t3 = clock()
    actions = sanitize_plan(planned, context, today, rules)
    t4 = clock()
    linted = lint(text, rules)
    t5 = clock()
    decision = decide(text, None, rules) if rules.contract.enabled else None
    t6 = clock()
    task_route = heuristic_task_spec(text, context).route
    t7 = clock()
    found = tools.search(text, settings) if tools is not None else None
    t8 = clock()
    flags = context.intent
    record: dict[str, Any] = {
        "prompt": text,
        "today": today.isoformat(),
        "strategy": chosen.strategy,
        "strategy_rule": chosen.rule,
        "intents": [name for name in INTENTS if getattr(flags, name)],
        "entities": list(context.entities.candidates),
        "place": context.entities.place_hint,
        "has_openclaw": context.has_openclaw,
        **_queries(actions),
        "lint_class": linted.query_class,
        "lint_rule": linted.classification.rule,
        "contract": None
        if decision is None
        else {
            "agent": decision.agent,
            "mode": decision.mode,
            "tools": [call.tool for call in decision.tool_plan],
        },
        "task_route": task_route,
        **_tools(found),
        "timings_us": None,
    }
    if timings:
        stages = {
            "extract": t1 - t0,
            "route": t2 - t1,
            "plan": t3 - t2,
            "sanitize": t4 - t3,
            "lint": t5 - t4,
            "decide": t6 - t5,
            "task": t7 - t6,
        }
        if tools is not None:
            stages["tools"] = t8 - t7
        stages["total"] = t8 - t0
        record["timings_us"] = {name: round(ns / 1000, 1) for name, ns in stages.items()}
    return record


def record_from_inspection(
    inspection: Inspection, source: str, line: int, *, timings: bool = True
) -> dict[str, Any]:
    """The record of one prompt from `inspect()`'s result: equal to the batch's record of
    the same prompt (`route_record`), `timings_us` aside (another run, other microseconds)."""
    context = inspection.context
    decision = inspection.decision
    return {
        "source": source,
        "line": line,
        "prompt": context.raw_text,
        "today": inspection.today.isoformat(),
        "strategy": inspection.strategy,
        "strategy_rule": inspection.strategy_rule,
        "intents": [name for name in INTENTS if getattr(context.intent, name)],
        "entities": list(context.entities.candidates),
        "place": context.entities.place_hint,
        "has_openclaw": context.has_openclaw,
        **_queries(inspection.actions),
        "lint_class": inspection.lint.query_class,
        "lint_rule": inspection.lint.classification.rule,
        "contract": None
        if decision is None
        else {
            "agent": decision.agent,
            "mode": decision.mode,
            "tools": [call.tool for call in decision.tool_plan],
        },
        "task_route": inspection.task.route,
        **_tools(inspection.tools),
        "timings_us": {k: round(v, 1) for k, v in inspection.timings_us.items()}
        if timings
        else None,
    }


def _queries(actions: list[Action]) -> dict[str, list[str]]:
    edits: dict[str, None] = {}
    for action in actions:
        for edit in action.edits:
            edits[edit.rule] = None
    return {
        "queries": [action.query for action in actions],
        "raw_queries": [action.raw_query for action in actions],
        "edits": list(edits),
    }


def _tools(found: ToolSearchResult | None) -> dict[str, Any]:
    if found is None:
        return {"tools": None, "top_tool": None, "top_score": None, "tool_fits": None}
    best = found.results[0] if found.results else None
    return {
        "tools": [hit.tool_name for hit in found.results],
        "top_tool": None if best is None else best.tool_name,
        "top_score": None if best is None else round(best.score, _SCORE_DIGITS),
        "tool_fits": found.fits,
    }


def flat_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record with its nested fields as columns (Parquet): `contract_agent`,
    `contract_mode`, `contract_tools`, and `timings_us_<stage>` for every stage of `STAGES`."""
    flat = {name: value for name, value in record.items() if name not in ("contract", "timings_us")}
    contract = record.get("contract")
    flat["today"] = dt.date.fromisoformat(record["today"])
    flat["contract_agent"] = None if contract is None else contract["agent"]
    flat["contract_mode"] = None if contract is None else contract["mode"]
    flat["contract_tools"] = None if contract is None else contract["tools"]
    timings = record.get("timings_us") or {}
    for stage in STAGES:
        flat[f"timings_us_{stage}"] = timings.get(stage)
    return flat
