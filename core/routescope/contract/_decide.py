"""Deterministic decisions, guardrails, the LLM path with fallback, and `prepare_step`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .._phrases import PhraseSet, key, lowered_or_none
from ..rules import AgentName, ArgSpec, ContractRules, RulePack, ToolSpec
from ._models import (
    RouterContext,
    RouterDecision,
    Step,
    StepResult,
)

__all__ = ["LLMClient", "apply_guardrails", "decide", "prepare_step"]

LLMClient = Callable[[str, RouterContext], str]
"""Returns the model's raw reply (JSON text) for the latest text and context."""

_AMOUNT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([A-Z][A-Z0-9]{1,9})\b")
_PROTOCOL = re.compile(r"\b(?:on|via|at|with)\s+([A-Z][\w-]+)")
_RETRY = ("try again", "retry")
_NO_CONTEXT = RouterContext()


@dataclass(frozen=True, eq=False)
class _Compiled:
    triggers: PhraseSet
    """Every phrase a decision rule looks for, found in one pass per text."""
    tags: dict[str, list[str]]
    """Phrase -> the rules it triggers: `agent:<name>`, `mode:<mode>`, `retry`, `arg:<n>`."""
    agents: list[AgentName]
    arg_rules: list[tuple[str, dict[str, Any]]]
    tools: dict[str, ToolSpec]


def _compile(rules: RulePack) -> _Compiled:
    contract = rules.contract
    tags: dict[str, list[str]] = {}
    terms: list[str] = []

    def add(term: str, tag: str) -> None:
        terms.append(term)
        tags.setdefault(key(term), []).append(tag)

    for agent in contract.agents:
        for keyword in agent.keywords:
            add(keyword, f"agent:{agent.name}")
    for mode, keywords in (("execute", contract.modes.execute), ("decide", contract.modes.decide)):
        for keyword in keywords:
            add(keyword, f"mode:{mode}")
    for phrase in _RETRY:
        add(phrase, "retry")
    for index, rule in enumerate(contract.arg_rules):
        add(rule.phrase, f"arg:{index}")
    return _Compiled(
        triggers=PhraseSet(terms),
        tags=tags,
        agents=[agent.name for agent in contract.agents],
        arg_rules=[(key(rule.phrase), dict(rule.args)) for rule in contract.arg_rules],
        tools={tool.name: tool for tool in contract.tools},
    )


_Triggers = dict[str, tuple[int, int]]


def _triggers(text: str, compiled: _Compiled) -> _Triggers:
    """Where each decision rule's phrases first occur in the text."""
    first: _Triggers = {}
    for phrase, spans in compiled.triggers.found(text, lowered_or_none(text)):
        for tag in compiled.tags[phrase.text]:
            if tag not in first or spans[0] < first[tag]:
                first[tag] = spans[0]
    return first


_Data = dict[str, Any]
"""A decision, tool call, rule hit or guardrail event as plain data: the rules build and guard
these, and `RouterDecision` validates the result once."""


def _hit(rule: str, text: str = "", span: tuple[int, int] | None = None) -> _Data:
    if span is None:
        return {"rule": rule}
    start, end = span
    return {"rule": rule, "text": text[start:end], "start": start, "end": end}


def _event(rule: str, detail: str, tool: str | None = None) -> _Data:
    return {"rule": rule, "detail": detail, "tool": tool}


def _ui(agent: str, mode: str) -> str:
    if agent == "knowledge":
        return "text"
    return "cards" if mode == "explore" else "cards_then_text"


def _stop(plan: list[_Data], mode: str) -> str:
    if not plan:
        return "none"
    if mode == "explore" and plan[0]["tool"].endswith("_yields"):
        return "when_first_yields_result_received"
    return "after_tool_plan_complete"


def _args_for(
    tool: str,
    text: str,
    triggers: _Triggers,
    context: RouterContext,
    compiled: _Compiled,
    hits: list[_Data],
) -> dict[str, Any]:
    spec = compiled.tools.get(tool)
    if spec is None:
        return {}
    args: dict[str, Any] = {}
    if tool.endswith("_yields"):
        for index, (phrase, values) in enumerate(compiled.arg_rules):
            span = triggers.get(f"arg:{index}")
            if span:
                hits.append(_hit(f"arg_rule:{phrase}", text, span))
                for name, value in values.items():
                    args.setdefault(name, value)
    prefs = context.preferences
    if prefs.stablecoin_only is not None and "stablecoinOnly" in spec.args:
        args["stablecoinOnly"] = prefs.stablecoin_only
    if prefs.risk and "risk" in spec.args:
        args["risk"] = prefs.risk
    if spec.kind == "execution" or tool in ("swap_quote", "token_price", "wallet_balance"):
        _amount_args(text, context, spec.args, args, hits)
    return {name: value for name, value in args.items() if name in spec.args}


def _amount_args(
    text: str,
    context: RouterContext,
    spec: dict[str, ArgSpec],
    args: dict[str, Any],
    hits: list[_Data],
) -> None:
    amount = _AMOUNT.search(text)
    if amount:
        hits.append(_hit("amount_and_token", text, amount.span()))
        if "amount" in spec:
            args["amount"] = float(amount.group(1))
        args["token"] = amount.group(2)
    protocol = _PROTOCOL.search(text)
    if protocol:
        hits.append(_hit("protocol", text, protocol.span(1)))
        args["protocol"] = protocol.group(1).lower()
    selection = context.last_selection
    if selection:
        if selection.pool_id and "poolId" in spec:
            args.setdefault("poolId", selection.pool_id)
        if selection.token_mint:
            args.setdefault("token", selection.token_mint)
        if selection.protocol:
            args.setdefault("protocol", selection.protocol)


def _retry(
    context: RouterContext, rules: RulePack, hits: list[_Data], events: list[_Data]
) -> tuple[str, str, list[_Data]] | None:
    last = context.last_action
    spec = rules.contract.tool(last.tool) if last else None
    if last is None or spec is None:
        events.append(_event("nothing_to_retry", "“try again” without a known last action"))
        return None
    hits.append(_hit(f"retry:last_action={last.tool} ({last.status})"))
    mode = "execute" if spec.kind in ("execution", "wallet") else "explore"
    prefix = rules.contract.plans.get(spec.agent, {}).get(mode, [])  # type: ignore[call-overload]
    plan = [{"tool": name, "args": {}} for name in prefix if name != last.tool]
    plan.append({"tool": last.tool, "args": dict(last.args)})
    return spec.agent, mode, plan


def _rule_decision(text: str, context: RouterContext, rules: RulePack) -> _Data:
    compiled = rules.derived(_compile)
    triggers = _triggers(text, compiled)
    hits: list[_Data] = []
    events: list[_Data] = []
    chosen = None
    if "retry" in triggers:
        hits.append(_hit("retry", text, triggers["retry"]))
        chosen = _retry(context, rules, hits, events)
    if chosen is None:
        agent = _agent(text, triggers, context, compiled, hits)
        default_mode = rules.contract.default_modes.get(agent)  # type: ignore[call-overload]
        mode = _mode(text, triggers, hits, default_mode)
        names = rules.contract.plans.get(agent, {}).get(mode, [])  # type: ignore[call-overload]
        plan = [
            {"tool": name, "args": _args_for(name, text, triggers, context, compiled, hits)}
            for name in names
        ]
    else:
        agent, mode, plan = chosen
    unique_hits = list({(h["rule"], h.get("start")): h for h in hits}.values())
    return _guarded(
        {"agent": agent, "mode": mode, "tool_plan": plan, "rules_fired": unique_hits},
        events,
        rules.contract,
    )


def _agent(
    text: str, triggers: _Triggers, context: RouterContext, compiled: _Compiled, hits: list[_Data]
) -> str:
    for name in compiled.agents:
        span = triggers.get(f"agent:{name}")
        if span:
            hits.append(_hit(f"agent:{name}", text, span))
            return name
    if context.last_yield is not None:
        hits.append(_hit(f"agent:from last_yield ({context.last_yield.tool})"))
        return "lending" if "lending" in context.last_yield.tool else "staking"
    hits.append(_hit("agent:knowledge (default: no agent keyword)"))
    return "knowledge"


def _mode(text: str, triggers: _Triggers, hits: list[_Data], default: str | None) -> str:
    for mode in ("execute", "decide"):
        span = triggers.get(f"mode:{mode}")
        if span:
            hits.append(_hit(f"mode:{mode}", text, span))
            return mode
    if default:
        hits.append(_hit(f"mode:{default} (the agent's default)"))
        return default
    hits.append(_hit("mode:explore (default)"))
    return "explore"


_ARG_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


def _check_args(args: dict[str, Any], spec: dict[str, ArgSpec]) -> str | None:
    for name, value in args.items():
        arg = spec.get(name)
        if arg is None:
            return f"unknown argument {name!r}"
        if not isinstance(value, _ARG_TYPES[arg.type]) or (
            arg.type != "boolean" and isinstance(value, bool)
        ):
            return f"{name} must be {arg.type}"
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
    data = decision.model_dump()
    return RouterDecision.model_validate(_guarded(data, data["guardrails"], rules.contract))


def _guarded(data: _Data, events: list[_Data], contract: ContractRules) -> _Data:
    """`data` with the guardrails applied: the mode rolled out, the plan gated, deduplicated
    and cut to the mode's steps, and each change added to `events`. Decisions from the rules
    get the ui, stop condition and layout of the final plan."""
    mode = data["mode"]
    if mode not in contract.rollout_modes:
        events.append(_event("rollout", f"{mode} not rolled out: explore"))
        mode = "explore"
    plan = _gate(data["tool_plan"], mode, contract, events)
    abort_after = _repeats(plan, events)
    low, high = contract.steps.get(mode, (0, 99))
    if len(plan) > high:
        dropped = ", ".join(c["tool"] for c in plan[high:])
        events.append(_event("max_steps", f"{mode} allows {high} steps: dropped {dropped}"))
        plan = plan[:high]
    if plan and len(plan) < low:
        events.append(
            _event("min_steps", f"{mode} expects at least {low} steps, plan has {len(plan)}")
        )
    guarded = {
        **data,
        "mode": mode,
        "tool_plan": plan,
        "guardrails": events,
        "abort_after": abort_after,
    }
    if data.get("source", "rules") == "rules":
        guarded["ui"] = _ui(data["agent"], mode)
        guarded["stop_condition"] = _stop(plan, mode)
        guarded["layout"] = ["tool", "text"] if plan else ["text"]
    return guarded


def _gate(
    plan: list[_Data], mode: str, contract: ContractRules, events: list[_Data]
) -> list[_Data]:
    allowed = contract.allowed_kinds.get(mode, [])  # type: ignore[call-overload]
    kept: list[_Data] = []
    seen: set[str] = set()
    for call in plan:
        tool = call["tool"]
        spec = contract.tool(tool)
        if spec is None:
            events.append(_event("unknown_tool", "not in the registry: dropped", tool))
            continue
        if spec.kind not in allowed:
            detail = f"{spec.kind} tool not allowed in {mode}: dropped"
            events.append(_event("tool_gating", detail, tool))
            continue
        problem = _check_args(call["args"], spec.args)
        if problem:
            events.append(_event("invalid_args", f"{problem}: dropped", tool))
            continue
        identity = _identity(call)
        if identity in seen:
            detail = "identical tool and args this turn: dropped"
            events.append(_event("dedupe", detail, tool))
            continue
        seen.add(identity)
        kept.append(call)
    return kept


def _identity(call: _Data) -> str:
    try:
        return repr((call["tool"], sorted(call["args"].items())))
    except TypeError:  # unorderable values from an LLM
        return json.dumps([call["tool"], call["args"]], sort_keys=True, default=str)


def _repeats(plan: list[_Data], events: list[_Data]) -> int | None:
    for index, call in enumerate(plan):
        for later in plan[index + 1 :]:
            if later["tool"] == call["tool"] and later["args"].items() <= call["args"].items():
                detail = (
                    f"{call['tool']} planned again without new args: abort after step {index + 1}"
                )
                events.append(_event("repeat_without_new_args", detail, call["tool"]))
                return index
    return None


def _llm_decision(reply: str, rules: RulePack) -> RouterDecision:
    """Parse and validate a model's decision; raise ValueError saying what is wrong."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as exc:
        raise ValueError(f"malformed JSON: {exc.msg} at {exc.pos}") from None
    if isinstance(data, dict) and "toolPlan" in data:
        data["tool_plan"] = data.pop("toolPlan")
    if isinstance(data, dict) and "stopCondition" in data:
        data["stop_condition"] = data.pop("stopCondition")
    try:
        decision = RouterDecision.model_validate(
            {**data, "source": "llm"} if isinstance(data, dict) else data
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"schema: {where}: {first['msg']}") from None
    contract = rules.contract
    high = contract.steps.get(decision.mode, (0, 99))[1]
    for call in decision.tool_plan:
        spec = contract.tool(call.tool)
        if spec is None:
            raise ValueError(f"unknown tool {call.tool!r}")
        if spec.kind not in contract.allowed_kinds.get(decision.mode, []):
            raise ValueError(f"wrong mode: {call.tool} ({spec.kind}) in {decision.mode}")
        problem = _check_args(call.args, spec.args)
        if problem:
            raise ValueError(f"{call.tool}: {problem}")
    if len(decision.tool_plan) > high:
        raise ValueError(f"too many steps: {len(decision.tool_plan)} > {high} for {decision.mode}")
    return decision


def decide(
    text: str,
    context: RouterContext | None = None,
    rules: RulePack | None = None,
    *,
    llm: LLMClient | None = None,
) -> RouterDecision:
    """The router decision for the latest user text: from the LLM when one is given and its
    answer passes the schema and the registry, otherwise from the deterministic rules."""
    from ..rules import default_rules

    rules = rules or default_rules()
    context = context or _NO_CONTEXT
    if llm is not None:
        try:
            return apply_guardrails(_llm_decision(llm(text, context), rules), rules)
        except ValueError as exc:
            fallback = _rule_decision(text, context, rules)
            detail = f"LLM decision rejected ({exc}): deterministic rules used"
            fallback["guardrails"].insert(0, _event("llm_fallback", detail))
            return RouterDecision.model_validate(fallback)
    return RouterDecision.model_validate(_rule_decision(text, context, rules))


def prepare_step(decision: RouterDecision, results: list[StepResult]) -> Step:
    """The next tool call of a plan, or why to stop: strict order, stop conditions, aborts."""
    plan = decision.tool_plan
    for index, result in enumerate(results):
        if index >= len(plan) or result.tool != plan[index].tool:
            expected = plan[index].tool if index < len(plan) else "nothing"
            return Step(
                next=None,
                index=None,
                done=True,
                reason=f"out of order: step {index + 1} ran {result.tool}, plan says {expected}",
            )
        if not result.ok:
            return Step(
                next=None,
                index=None,
                done=True,
                reason=f"step {index + 1} ({result.tool}) failed: stop",
            )
    done = len(results)
    if decision.stop_condition == "none":
        return Step(next=None, index=None, done=True, reason="stop condition: none")
    if decision.stop_condition == "when_first_yields_result_received" and any(
        r.tool.endswith("_yields") for r in results
    ):
        return Step(
            next=None, index=None, done=True, reason="stop condition: first yields result received"
        )
    if decision.abort_after is not None and done > decision.abort_after:
        return Step(
            next=None,
            index=None,
            done=True,
            reason=f"abort: {plan[decision.abort_after].tool} repeats without new args",
        )
    if done >= len(plan):
        return Step(next=None, index=None, done=True, reason="tool plan complete")
    return Step(next=plan[done], index=done, done=False, reason=f"step {done + 1} of {len(plan)}")
