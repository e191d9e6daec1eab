"""`inspect()`: every router over one prompt, gathered into one `Inspection`."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from ._errors import InputError
from ._input import validate_text
from ._json import to_json
from ._request import CatalogRef, Request, default_today
from ._stages import run_stages
from .contract import RouterContext, RouterDecision
from .linter import LintResult
from .rules import RulePack, default_rules
from .strategy import Action, Plan, QueryContext, Strategy
from .task import TaskDecision
from .toolsearch import SearchSettings, ToolSearchResult

if TYPE_CHECKING:  # the engine is given by the caller; importing it loads tantivy and numpy
    from ._outcome import Outcome
    from .toolsearch import Engines, ToolSearch

__all__ = ["Inspection", "inspect", "inspect_all", "inspection_json", "warm_up"]


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

    @property
    def outcome(self) -> Outcome:
        """What the routers decided, as the batch writes it and the history keeps it."""
        from ._outcome import Outcome  # (a command that prints an inspection never needs it)

        return Outcome.from_inspection(self)


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


def inspect_all(
    request: Request, *, engines: Engines | None = None, tools: bool = True
) -> tuple[Request, Inspection]:
    """What `routescope inspect --json` inspects (and the window exports): every router over
    `request` and, with `tools`, the ranking of its catalog's tools — the sample catalog's
    when it names none. The catalog's engine comes from `engines` (built on first use;
    default: the process's shared ones). Returns the request as run (its catalog named) and
    its inspection; `inspection_json` writes that as the command prints it."""
    if not tools:
        return request, inspect(request)
    if request.catalog is None:
        request = request.replace(catalog=CatalogRef.sample())
    assert request.catalog is not None
    if engines is None:
        from .toolsearch import Engines

        engines = Engines.shared()
    return request, inspect(request, tools=engines.get(request.catalog))


def inspection_json(inspection: Inspection) -> str:
    """An inspection as `routescope inspect --json` prints it: indented JSON, every field."""
    return to_json(inspection)


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
    stages = run_stages(text, today, rules, context, tools, settings)
    assert stages.task is not None  # a full run makes the task router's whole decision
    # Each stage built and typed its own value: skip validating them again on every keystroke.
    return Inspection.model_construct(
        today=today,
        rules=rules.name,
        context=stages.context,
        strategy=stages.strategy.strategy,
        strategy_rule=stages.strategy.rule,
        strategy_reason=stages.strategy.reason,
        plan=stages.plan,
        actions=stages.actions,
        lint=stages.lint,
        decision=stages.decision,
        tools=stages.tools,
        timings_us=stages.timings_us,
        task=stages.task,
    )
