"""The LLM path: a model's JSON decision, parsed and checked against the schema and the registry,
and replaced by the rules' decision when it fails.

Whatever the model does — raise, answer something that is not text, malformed or hostile JSON
(NaN amounts, 100,000 nested brackets, its own `guardrails` events) — `decide` returns a valid
decision: the model's if it passes every check, else the rules' with an `llm_fallback` event that
says why. Guardrail events come only from the guardrails: what the model says about them
(`guardrails`, `abort_after`, `source`) is dropped before validation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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
_GUARDRAIL_KEYS = ("guardrails", "abort_after", "source")
"""What only the guardrails (and the path) decide: never taken from a model's answer."""
_REASON_CHARS = 300
"""How much of a rejection reason the `llm_fallback` event keeps."""


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
        reply = llm(text, context)
    except Exception as exc:  # the model's client failed: a network error, a bug, anything
        reason = f"the model failed: {type(exc).__name__}: {exc}"
        if isinstance(exc, ValueError) and str(exc):
            reason = str(exc)  # a client that says what is wrong in a ValueError
        return _fallback(fallback, reason)
    try:
        return apply_guardrails(parse_decision(reply, rules), rules)
    except ValueError as exc:
        return _fallback(fallback, str(exc))
    except RecursionError:
        return _fallback(fallback, "nested too deeply")


def _fallback(fallback: Callable[[], DecisionData], reason: str) -> RouterDecision:
    data = fallback()
    reason = " ".join(reason.split())  # one line, whatever the model or its client said
    if len(reason) > _REASON_CHARS:
        reason = reason[:_REASON_CHARS] + "…"
    detail = f"LLM decision rejected ({reason}): deterministic rules used"
    data.setdefault("guardrails", []).insert(0, event("llm_fallback", detail))
    return RouterDecision.model_validate(data)


def parse_decision(reply: object, rules: RulePack) -> RouterDecision:
    """Parse and validate a model's decision; raise ValueError saying what is wrong. A call
    that a guardrail would drop (`check_call`) or more steps than the mode allows reject it."""
    if not isinstance(reply, str | bytes | bytearray):
        raise ValueError(f"the reply is not text but {type(reply).__name__}")
    try:
        data: Any = json.loads(reply)
    except json.JSONDecodeError as exc:
        raise ValueError(f"malformed JSON: {exc.msg} at {exc.pos}") from None
    except UnicodeDecodeError:
        raise ValueError("malformed JSON: not UTF-8") from None
    except RecursionError:
        raise ValueError("malformed JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ValueError(f"malformed JSON: {str(exc).split(';')[0]}") from None
    if isinstance(data, dict):
        for seed_key, field in _SEED_KEYS.items():
            if seed_key in data:
                data[field] = data.pop(seed_key)
        for key in _GUARDRAIL_KEYS:
            data.pop(key, None)
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
