"""The LLM task router (seed 000, "Strategy integration"): a model (or the heuristic) says what
to do with a message — chat, browse or research — and restates the goal; the search actions
always come from the deterministic strategy pipeline, never from the model."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Literal

from ..llm import ChatClient
from ..rules import RulePack, default_rules
from ..strategy import Action, extract, plan, route, sanitize_plan
from ._answers import TaskSpec, prompt
from ._heuristic import ClassifierInput, HeuristicModel

__all__ = ["TaskDecision", "classify", "classify_heuristic", "validate_task_spec"]


@dataclass(frozen=True, slots=True)
class TaskDecision:
    """What to do with a message, where that came from, and the searches the strategy router
    planned for the goal (empty for chat)."""

    route: Literal["chat", "browse", "research"]
    user_goal: str
    source: str
    """`llm`, `heuristic`, or `heuristic (<why the model's answer was not used>)`."""
    reason: str
    strategy: str
    strategy_reason: str
    actions: list[Action]


def validate_task_spec(
    spec: TaskSpec, message: str, source: str, *, rules: RulePack, today: dt.date
) -> TaskDecision:
    """Keep the model's route and goal; plan the searches with the strategy pipeline (extract,
    route, plan, sanitize, with its one-search fallback), whatever the model proposed."""
    goal = spec.user_goal.strip() or message
    context = extract(goal, rules)
    decision = route(context)
    actions = (
        []
        if spec.route == "chat"
        else sanitize_plan(plan(context, decision.strategy, rules), context, today, rules)
    )
    return TaskDecision(
        spec.route, goal, source, spec.reason, decision.strategy, decision.reason, actions
    )


def classify_heuristic(
    message: str, *, rules: RulePack | None = None, today: dt.date
) -> TaskDecision:
    """The deterministic decision: the heuristic model's route, the strategy router's plan."""
    spec = HeuristicModel().classify(ClassifierInput(message))
    return validate_task_spec(
        spec, message, "heuristic", rules=rules or default_rules(), today=today
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
    answer = await llm.complete_json(
        prompt("task_classifier"), user, TaskSpec, name="task_classifier"
    )
    if answer.value is None:
        fallback = classify_heuristic(message, rules=pack, today=today)
        source = f"heuristic (model answer not used: {answer.error})"
        return TaskDecision(
            fallback.route,
            fallback.user_goal,
            source,
            fallback.reason,
            fallback.strategy,
            fallback.strategy_reason,
            fallback.actions,
        )
    return validate_task_spec(answer.value, message, "llm", rules=pack, today=today)
