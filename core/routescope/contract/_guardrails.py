"""The contract's guardrails: rollout, tool gating, argument checks, dedupe, repeats, step limits.

`check_call` is the one check of a planned call; the rules path drops a call that fails it
(`gate`), the LLM path rejects the model's whole decision (`_llm.py`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal, cast

from ..rules import AgentName, ArgSpec, ContractRules, ModeName, RulePack
from ._data import CallData, DecisionData, EventData, event
from ._models import UI, RouterDecision, StopCondition

__all__ = ["CallProblem", "apply_guardrails", "check_args", "check_call", "guarded"]

_ARG_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


@dataclass(frozen=True, slots=True)
class CallProblem:
    """Why a planned call breaks the contract, worded for both paths."""

    rule: Literal["unknown_tool", "tool_gating", "invalid_args"]
    tool: str
    detail: str
    """What is wrong, as the guardrail event that drops the call says it."""
    rejection: str
    """The same, as the reason an LLM decision is rejected."""

    def event(self) -> EventData:
        """The guardrail event of a call dropped for this problem."""
        return event(self.rule, f"{self.detail}: dropped", self.tool)


def check_call(
    tool: str, args: dict[str, Any], mode: ModeName, contract: ContractRules
) -> CallProblem | None:
    """The first problem of a call planned in `mode`: a tool not in the registry, a kind of
    tool the mode does not allow, or arguments that break the tool's schema."""
    spec = contract.tool(tool)
    if spec is None:
        return CallProblem("unknown_tool", tool, "not in the registry", f"unknown tool {tool!r}")
    if spec.kind not in contract.allowed_kinds.get(mode, ()):
        return CallProblem(
            "tool_gating",
            tool,
            f"{spec.kind} tool not allowed in {mode}",
            f"wrong mode: {tool} ({spec.kind}) in {mode}",
        )
    problem = check_args(args, spec.args)
    if problem:
        return CallProblem("invalid_args", tool, problem, f"{tool}: {problem}")
    return None


def check_args(args: dict[str, Any], spec: dict[str, ArgSpec]) -> str | None:
    """The first argument that breaks the tool's argument schema, and how; None if none does.
    A number must be finite before its bounds are checked (NaN passes every `<`)."""
    for name, value in args.items():
        arg = spec.get(name)
        if arg is None:
            return f"unknown argument {name!r}"
        if not isinstance(value, _ARG_TYPES[arg.type]) or (
            arg.type != "boolean" and isinstance(value, bool)
        ):
            return f"{name} must be {arg.type}"
        if isinstance(value, float) and not math.isfinite(value):
            # NaN compares false with every bound, ±Infinity is no amount: never a valid number
            return f"{name} must be a finite number, not {value!r}"
        if arg.enum is not None and value not in arg.enum:
            return f"{name} must be one of {arg.enum}"
        number = value if isinstance(value, int | float) else None
        if number is not None and arg.minimum is not None and number < arg.minimum:
            return f"{name} below {arg.minimum:g}"
        if number is not None and arg.maximum is not None and number > arg.maximum:
            return f"{name} above {arg.maximum:g}"
    return None


def apply_guardrails(decision: RouterDecision, rules: RulePack) -> RouterDecision:
    """Enforce the contract's guardrails; every change is reported as an event with its reason."""
    data = cast(DecisionData, decision.model_dump())
    return RouterDecision.model_validate(guarded(data, data["guardrails"], rules.contract))


def guarded(data: DecisionData, events: list[EventData], contract: ContractRules) -> DecisionData:
    """`data` with the guardrails applied: the mode rolled out, the plan gated, deduplicated
    and cut to the mode's steps, and each change added to `events`. Decisions from the rules
    get the ui, stop condition and layout of the final plan."""
    mode = data["mode"]
    if mode not in contract.rollout_modes:
        events.append(event("rollout", f"{mode} not rolled out: explore"))
        mode = "explore"
    plan = gate(data["tool_plan"], mode, contract, events)
    abort_after = _repeats(plan, events)
    low, high = contract.step_limits(mode)
    if len(plan) > high:
        dropped = ", ".join(c["tool"] for c in plan[high:])
        events.append(event("max_steps", f"{mode} allows {high} steps: dropped {dropped}"))
        plan = plan[:high]
    if plan and len(plan) < low:
        events.append(
            event("min_steps", f"{mode} expects at least {low} steps, plan has {len(plan)}")
        )
    result: DecisionData = {
        **data,
        "mode": mode,
        "tool_plan": plan,
        "guardrails": events,
        "abort_after": abort_after,
    }
    if data.get("source", "rules") == "rules":
        result["ui"] = _ui(data["agent"], mode, contract)
        result["stop_condition"] = _stop(plan, mode, contract)
        result["layout"] = ["tool", "text"] if plan else ["text"]
    return result


def gate(
    plan: list[CallData], mode: ModeName, contract: ContractRules, events: list[EventData]
) -> list[CallData]:
    """The calls that pass `check_call` in `mode`, each once (same tool and args)."""
    kept: list[CallData] = []
    seen: set[str] = set()
    for call in plan:
        problem = check_call(call["tool"], call["args"], mode, contract)
        if problem:
            events.append(problem.event())
            continue
        identity = _identity(call)
        if identity in seen:
            detail = "identical tool and args this turn: dropped"
            events.append(event("dedupe", detail, call["tool"]))
            continue
        seen.add(identity)
        kept.append(call)
    return kept


def _identity(call: CallData) -> str:
    """A call's tool and args as one comparable key."""
    try:
        return repr((call["tool"], sorted(call["args"].items())))
    except TypeError:  # unorderable values from an LLM
        return json.dumps([call["tool"], call["args"]], sort_keys=True, default=str)


def _repeats(plan: list[CallData], events: list[EventData]) -> int | None:
    """The step after which to abort: a tool planned again later without new args."""
    for index, call in enumerate(plan):
        for later in plan[index + 1 :]:
            if later["tool"] == call["tool"] and later["args"].items() <= call["args"].items():
                detail = (
                    f"{call['tool']} planned again without new args: abort after step {index + 1}"
                )
                events.append(event("repeat_without_new_args", detail, call["tool"]))
                return index
    return None


def _ui(agent: AgentName, mode: ModeName, contract: ContractRules) -> UI:
    if agent in contract.text_agents:
        return "text"
    return contract.ui_by_mode[mode]


def _stop(plan: list[CallData], mode: ModeName, contract: ContractRules) -> StopCondition:
    if not plan:
        return "none"
    if mode in contract.stop_at_first_yields and contract.is_yield_tool(plan[0]["tool"]):
        return "when_first_yields_result_received"
    return "after_tool_plan_complete"
