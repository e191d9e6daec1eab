"""The LLM path: a model's JSON decision, parsed and checked against the schema and the registry,
and replaced by the rules' decision when it fails."""

from __future__ import annotations

import json
from collections.abc import Callable

from pydantic import ValidationError

from .._errors import describe
from ..rules import RulePack
from ._data import DecisionData, event
from ._guardrails import apply_guardrails, check_call
from ._models import RouterContext, RouterDecision

__all__ = ["LLMClient", "llm_decide", "parse_decision"]

LLMClient = Callable[[str, RouterContext], str]
"""Returns the model's raw reply (JSON text) for the latest text and context."""

_SEED_KEYS = {"toolPlan": "tool_plan", "stopCondition": "stop_condition"}
"""The seed's camelCase keys a model may answer with, and the fields they fill."""


def llm_decide(
    text: str,
    context: RouterContext,
    rules: RulePack,
    llm: LLMClient,
    fallback: Callable[[], DecisionData],
) -> RouterDecision:
    """The model's decision with the guardrails applied when it passes the schema and the
    registry; otherwise `fallback()` (the rules' decision) with an `llm_fallback` event first,
    saying why the model's answer was rejected."""
    try:
        return apply_guardrails(parse_decision(llm(text, context), rules), rules)
    except ValueError as exc:
        data = fallback()
        detail = f"LLM decision rejected ({exc}): deterministic rules used"
        data.setdefault("guardrails", []).insert(0, event("llm_fallback", detail))
        return RouterDecision.model_validate(data)


def parse_decision(reply: str, rules: RulePack) -> RouterDecision:
    """Parse and validate a model's decision; raise ValueError saying what is wrong. A call
    that a guardrail would drop (`check_call`) or more steps than the mode allows reject it."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as exc:
        raise ValueError(f"malformed JSON: {exc.msg} at {exc.pos}") from None
    if isinstance(data, dict):
        for seed_key, field in _SEED_KEYS.items():
            if seed_key in data:
                data[field] = data.pop(seed_key)
        data = {**data, "source": "llm"}
    try:
        decision = RouterDecision.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"schema: {describe(exc)}") from None
    contract = rules.contract
    for call in decision.tool_plan:
        problem = check_call(call.tool, call.args, decision.mode, contract)
        if problem:
            raise ValueError(problem.rejection)
    high = contract.step_limits(decision.mode)[1]
    if len(decision.tool_plan) > high:
        raise ValueError(f"too many steps: {len(decision.tool_plan)} > {high} for {decision.mode}")
    return decision
