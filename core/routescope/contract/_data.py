"""A decision as plain data while the rules build it and the guardrails change it.

`RouterDecision` validates the finished data once; these `TypedDict`s mirror its models
(`ToolCall`, `RuleHit`, `GuardrailEvent`, `RouterDecision`) key for key.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from ..rules import AgentName, ModeName
from ._models import UI, GuardrailRule, Layout, Source, StopCondition

__all__ = ["CallData", "DecisionData", "EventData", "HitData", "event"]


class CallData(TypedDict):
    """A `ToolCall`."""

    tool: str
    args: dict[str, Any]


class HitData(TypedDict):
    """A `RuleHit`: the span keys are there when words made the rule fire."""

    rule: str
    text: NotRequired[str]
    start: NotRequired[int | None]
    end: NotRequired[int | None]


class EventData(TypedDict):
    """A `GuardrailEvent`."""

    rule: GuardrailRule
    detail: str
    tool: str | None


class DecisionData(TypedDict):
    """A `RouterDecision`: the rules fill the first keys, the guardrails the others."""

    agent: AgentName
    mode: ModeName
    tool_plan: list[CallData]
    rules_fired: list[HitData]
    guardrails: NotRequired[list[EventData]]
    abort_after: NotRequired[int | None]
    ui: NotRequired[UI]
    stop_condition: NotRequired[StopCondition]
    layout: NotRequired[list[Layout]]
    source: NotRequired[Source]


def event(rule: GuardrailRule, detail: str, tool: str | None = None) -> EventData:
    """A guardrail event: which guardrail, what it did and why, and to which tool."""
    return {"rule": rule, "detail": detail, "tool": tool}
