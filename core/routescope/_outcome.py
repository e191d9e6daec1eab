"""`Outcome`: what the routers decided about one prompt, in one shape with one spelling per
field. The batch writes it (a JSON line, a Parquet row), the report and the window read it
back, the history keeps it and compare diffs it.

The record (one JSON object a line; `source` and `line` lead when a batch writes it):

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
`--no-timings`. A full and a lean run of the stages give equal outcomes.

A Parquet row holds the same fields flattened (`to_row`): `contract.agent` → `contract_agent`,
`contract.mode` → `contract_mode`, `contract.tools` → `contract_tools`, `timings_us.extract` →
`timings_us_extract` (one column per stage), lists as list columns, `today` as a date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from . import _record_fields as fields
from ._errors import RecordError
from ._stages import STAGES
from .rules import INTENTS

if TYPE_CHECKING:
    from ._stages import Stages
    from .contract import RouterDecision
    from .linter import LintResult
    from .strategy import Action, QueryContext
    from .toolsearch import ToolSearchResult

__all__ = ["FIELDS", "Outcome"]

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
"""A record's fields, in the order they are written."""


class _Routed(Protocol):
    """What a run of the stages and an `Inspection` both hold (an `Inspection` is a layer
    above: it is named here by its shape)."""

    @property
    def today(self) -> dt.date: ...
    @property
    def context(self) -> QueryContext: ...
    @property
    def actions(self) -> list[Action]: ...
    @property
    def lint(self) -> LintResult: ...
    @property
    def decision(self) -> RouterDecision | None: ...
    @property
    def tools(self) -> ToolSearchResult | None: ...


class _Task(Protocol):
    @property
    def route(self) -> str: ...


class _Inspected(_Routed, Protocol):
    @property
    def strategy(self) -> str: ...
    @property
    def strategy_rule(self) -> str: ...
    @property
    def task(self) -> _Task: ...
    @property
    def timings_us(self) -> dict[str, float]: ...


SCORE_DIGITS = 6
TIMING_COLUMN = "timings_us_"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the routers decided about one prompt. Equal outcomes are equal decisions: the
    timings are carried, never compared."""

    prompt: str
    today: str | None
    """The date the routers saw, `YYYY-MM-DD` (None in a record that does not say)."""
    strategy: str
    strategy_rule: str | None
    intents: tuple[str, ...]
    entities: tuple[str, ...]
    place: str | None
    has_openclaw: bool
    queries: tuple[str, ...]
    raw_queries: tuple[str, ...]
    edits: tuple[str, ...]
    lint_class: str
    lint_rule: str | None
    agent: str | None
    """The router contract's agent; None when the rule pack disables the contract."""
    mode: str | None
    contract_tools: tuple[str, ...] | None
    task_route: str | None
    tools: tuple[str, ...] | None
    """The tool search's top-k; None when no tool search ran."""
    top_tool: str | None
    top_score: float | None
    tool_fits: bool | None
    """The fit threshold's verdict; None when no tool search ran."""
    timings_us: Mapping[str, float] | None = field(default=None, compare=False)

    @classmethod
    def of(cls, stages: Stages) -> Outcome:
        """The outcome of one run of the stages (full or lean: the same outcome)."""
        decision = stages.strategy
        return cls._build(
            stages, decision.strategy, decision.rule, stages.task_route, stages.timings_us
        )

    @classmethod
    def from_inspection(cls, inspection: _Inspected) -> Outcome:
        """The outcome of an inspection (`Inspection.outcome`)."""
        return cls._build(
            inspection,
            inspection.strategy,
            inspection.strategy_rule,
            inspection.task.route,
            inspection.timings_us,
        )

    @classmethod
    def _build(
        cls,
        made: _Routed,
        strategy: str,
        strategy_rule: str,
        task_route: str,
        timings_us: Mapping[str, float],
    ) -> Outcome:
        context, decision = made.context, made.decision
        flags = context.intent
        queries, raw_queries, edits = _queries(made.actions)
        tools, top_tool, top_score, fits = _ranking(made.tools)
        entities = context.entities
        # Positional, in field order: this runs once a prompt of a batch of millions.
        return cls(
            context.raw_text,
            made.today.isoformat(),
            strategy,
            strategy_rule,
            tuple(name for name in INTENTS if getattr(flags, name)),
            tuple(entities.candidates),
            entities.place_hint,
            context.has_openclaw,
            queries,
            raw_queries,
            edits,
            made.lint.query_class,
            made.lint.classification.rule,
            None if decision is None else decision.agent,
            None if decision is None else decision.mode,
            None if decision is None else tuple(call.tool for call in decision.tool_plan),
            task_route,
            tools,
            top_tool,
            top_score,
            fits,
            timings_us,
        )

    @property
    def ranked(self) -> bool:
        """Whether a tool search ran for this prompt."""
        return self.tools is not None or self.top_tool is not None

    # --- the JSON line ----------------------------------------------------------------------

    def to_record(
        self, source: str | None = None, line: int | None = None, *, timings: bool = True
    ) -> dict[str, Any]:
        """The record (`FIELDS` order); `source` and `line` lead when given. Timings are
        rounded to 0.1 µs; `timings=False` writes them as null."""
        where: dict[str, Any] = {} if source is None else {"source": source, "line": line}
        return {
            **where,
            "prompt": self.prompt,
            "today": self.today,
            "strategy": self.strategy,
            "strategy_rule": self.strategy_rule,
            "intents": list(self.intents),
            "entities": list(self.entities),
            "place": self.place,
            "has_openclaw": self.has_openclaw,
            "queries": list(self.queries),
            "raw_queries": list(self.raw_queries),
            "edits": list(self.edits),
            "lint_class": self.lint_class,
            "lint_rule": self.lint_rule,
            "contract": None
            if self.agent is None
            else {"agent": self.agent, "mode": self.mode, "tools": list(self.contract_tools or ())},
            "task_route": self.task_route,
            "tools": None if self.tools is None else list(self.tools),
            "top_tool": self.top_tool,
            "top_score": self.top_score,
            "tool_fits": self.tool_fits,
            "timings_us": _tenths(self.timings_us) if timings else None,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> Outcome:
        """A record read back, every field checked (RecordError: "field 'strategy' must be a
        string, not null"). Fields a reader of older files may not find are optional:
        `today`, `entities`, `task_route` and those the report never needed."""
        agent, mode, contract_tools = fields.contract(data)
        tools = fields.opt_strs(data, "tools")
        top_tool = fields.opt_str(data, "top_tool")
        has_openclaw = data.get("has_openclaw")
        if not isinstance(has_openclaw, bool):
            raise RecordError(
                f"field 'has_openclaw' must be true or false, not {fields.kind_of(has_openclaw)}"
            )
        # (Checked in this order so that a record with several problems names the same one
        # the report always named.)
        today = fields.opt_str(data, "today")
        strategy = fields.require_str(data, "strategy")
        intents = fields.strs(data, "intents")
        entities = fields.strs(data, "entities", required=False)
        queries = fields.strs(data, "queries")
        lint_class = fields.require_str(data, "lint_class")
        task_route = fields.opt_str(data, "task_route")
        tool_fits = fields.opt_bool(data, "tool_fits")
        timings = fields.timings(data)
        return cls(
            prompt=fields.require_str(data, "prompt"),
            today=today,
            strategy=strategy,
            strategy_rule=fields.opt_str(data, "strategy_rule"),
            intents=intents,
            entities=entities,
            place=fields.opt_str(data, "place"),
            has_openclaw=has_openclaw,
            queries=queries,
            raw_queries=fields.strs(data, "raw_queries", required=False),
            edits=fields.strs(data, "edits", required=False),
            lint_class=lint_class,
            lint_rule=fields.opt_str(data, "lint_rule"),
            agent=agent,
            mode=mode,
            contract_tools=contract_tools,
            task_route=task_route,
            tools=tools,
            top_tool=top_tool,
            top_score=fields.opt_number(data, "top_score"),
            tool_fits=tool_fits,
            timings_us=timings,
        )

    # --- the Parquet row --------------------------------------------------------------------

    def to_row(self, source: str, line: int, *, timings: bool = True) -> dict[str, Any]:
        """The record with its nested fields as columns: `contract_agent`, `contract_mode`,
        `contract_tools`, and `timings_us_<stage>` for every stage of `STAGES`."""
        return self.row_of_record(self.to_record(source, line, timings=timings))

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Outcome:
        return cls.from_record(cls.record_of_row(dict(row)))

    @staticmethod
    def row_of_record(record: Mapping[str, Any]) -> dict[str, Any]:
        """A record flattened into Parquet's columns (`to_row` of a record already written)."""
        skip = ("contract", "timings_us")
        flat = {name: value for name, value in record.items() if name not in skip}
        contract = record.get("contract")
        flat["today"] = dt.date.fromisoformat(record["today"])
        flat["contract_agent"] = None if contract is None else contract["agent"]
        flat["contract_mode"] = None if contract is None else contract["mode"]
        flat["contract_tools"] = None if contract is None else contract["tools"]
        stage_timings = record.get("timings_us") or {}
        for stage in STAGES:
            flat[f"{TIMING_COLUMN}{stage}"] = stage_timings.get(stage)
        return flat

    @staticmethod
    def record_of_row(row: dict[str, Any]) -> dict[str, Any]:
        """A Parquet row nested again, as in JSON Lines: `contract_agent`/`_mode`/`_tools` →
        `contract`, `timings_us_<stage>` → `timings_us`, a date `today` → "YYYY-MM-DD"."""
        if "contract" not in row and "contract_agent" in row:
            agent = row.pop("contract_agent")
            mode, tools = row.pop("contract_mode", None), row.pop("contract_tools", None)
            row["contract"] = (
                None if agent is None else {"agent": agent, "mode": mode, "tools": tools}
            )
        if "timings_us" not in row:
            stages = [name for name in row if name.startswith(TIMING_COLUMN)]
            if stages:
                row["timings_us"] = {name[len(TIMING_COLUMN) :]: row.pop(name) for name in stages}
        today = row.get("today")
        if today is not None and not isinstance(today, str) and hasattr(today, "isoformat"):
            row["today"] = today.isoformat()
        return row


def _tenths(timings: Mapping[str, float] | None) -> dict[str, float] | None:
    """Microseconds to 0.1 µs (half up: a measurement has no exact ties to care for; `round`
    costs a quarter of the record's own work)."""
    if timings is None:
        return None
    return {name: int(us * 10 + 0.5) / 10 for name, us in timings.items()}


# --- building ---------------------------------------------------------------------------------


def _queries(actions: list[Action]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    edits: dict[str, None] = {}
    for action in actions:
        for edit in action.edits:
            edits[edit.rule] = None
    return (
        tuple(action.query for action in actions),
        tuple(action.raw_query for action in actions),
        tuple(edits),
    )


def _ranking(
    found: ToolSearchResult | None,
) -> tuple[tuple[str, ...] | None, str | None, float | None, bool | None]:
    if found is None:
        return None, None, None, None
    best = found.results[0] if found.results else None
    return (
        tuple(hit.tool_name for hit in found.results),
        None if best is None else best.tool_name,
        None if best is None else round(best.score, SCORE_DIGITS),
        found.fits,
    )
