"""The task router's decision: a model's (or the heuristic's) route and goal, with the searches
planned by the strategy pipeline (seed 000) and, for a research route, the first query the
research optimiser would search (issue 27)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .._resources import resources_root
from ..optimise import FirstQuery, first_query
from ..rules import RulePack, default_rules
from ..strategy import (
    Action,
    QueryContext,
    StrategyDecision,
    extract,
    plan,
    route,
    sanitize_plan,
)
from ._heuristic import heuristic_task_spec
from ._spec import TaskSpec

if TYPE_CHECKING:  # a model is the caller's; the heuristic path never loads the HTTP client
    from ..llm import ChatClient

__all__ = [
    "Planned",
    "TaskDecision",
    "TaskSpec",
    "classify",
    "classify_heuristic",
    "validate_task_spec",
]


@functools.cache
def _prompt() -> str:
    return (resources_root() / "prompts" / "task_classifier.md").read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True)
class TaskDecision:
    """What to do with a message, where that came from, the searches the strategy router
    planned for the goal (empty for chat) and, for research, the optimiser's first query."""

    route: Literal["chat", "browse", "research"]
    user_goal: str
    source: str
    """`llm`, `heuristic`, or `heuristic (<why the model's answer was not used>)`."""
    reason: str
    strategy: str
    strategy_reason: str
    actions: list[Action]
    research_query: FirstQuery | None = None
    """For a research route, the first query deep research would search for the goal (the
    optimiser's rules, with the language the goal implies), with why each word is there;
    None for chat and browse."""


@dataclass(frozen=True, slots=True)
class Planned:
    """The strategy pipeline's work on a message, made with the same rules and date: reused
    when the goal is the message itself (an inspection has made it already)."""

    context: QueryContext
    decision: StrategyDecision
    actions: list[Action]


def validate_task_spec(
    spec: TaskSpec,
    message: str,
    source: str,
    *,
    rules: RulePack,
    today: dt.date,
    planned: Planned | None = None,
    own_goal: bool = False,
) -> TaskDecision:
    """Keep the model's route and goal; plan the searches with the strategy pipeline (extract,
    route, plan, sanitize, with its one-search fallback), whatever the model proposed.
    `planned` is reused when the goal is the message, or is the message's own goal
    (`own_goal`: the heuristic's, which only tidies and cuts it for display)."""
    goal = spec.user_goal.strip() or message
    reuse = planned is not None and (goal == message or own_goal)
    if planned is not None and reuse:
        context, decision = planned.context, planned.decision
    else:
        context = extract(goal, rules)
        decision = route(context)
    if spec.route == "chat":
        actions: list[Action] = []
    elif planned is not None and reuse:
        actions = list(planned.actions)  # (the inspection keeps its own list)
    else:
        actions = sanitize_plan(plan(context, decision.strategy, rules), context, today, rules)
    research = None
    if spec.route == "research":
        # (the optimiser reads the goal with the built-in pack: the context is reused when it is
        # that pack's reading of the goal itself, as it is live under the default pack)
        exact = rules is default_rules() and (not reuse or goal == message)
        research = first_query(goal, context=context if exact else None)
    return TaskDecision(
        spec.route, goal, source, spec.reason, decision.strategy, decision.reason, actions, research
    )


def classify_heuristic(
    message: str,
    *,
    rules: RulePack | None = None,
    today: dt.date,
    planned: Planned | None = None,
) -> TaskDecision:
    """The deterministic decision: the heuristic's route, the strategy router's plan of the
    message (seed 000: the message's `QueryContext` is computed first and routed; the goal the
    heuristic restates from it is tidied and cut to 300 characters, never planned again).
    `planned`: the strategy pipeline's work on the message with `rules` and `today`, when made
    already (an inspection has)."""
    pack = rules or default_rules()
    if planned is None:
        context = extract(message, pack)
        chosen = route(context)
        actions = sanitize_plan(plan(context, chosen.strategy, pack), context, today, pack)
        planned = Planned(context, chosen, actions)
    spec = heuristic_task_spec(message, planned.context)
    return validate_task_spec(
        spec, message, "heuristic", rules=pack, today=today, planned=planned, own_goal=True
    )


async def classify(
    message: str, *, llm: ChatClient | None = None, rules: RulePack | None = None, today: dt.date
) -> TaskDecision:
    """The model's route and goal when it answers well, else the heuristic's; the searches are
    the strategy router's either way."""
    pack = rules or default_rules()
    if llm is None:
        return classify_heuristic(message, rules=pack, today=today)
    user = json.dumps({"message": message}, ensure_ascii=False)
    answer = await llm.complete_json(_prompt(), user, TaskSpec, name="task_classifier")
    if answer.value is None:
        fallback = classify_heuristic(message, rules=pack, today=today)
        source = f"heuristic (model answer not used: {answer.error})"
        return dataclasses.replace(fallback, source=source)
    return validate_task_spec(answer.value, message, "llm", rules=pack, today=today)
