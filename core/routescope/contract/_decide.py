"""The deterministic decision: triggers, agent, mode, arguments and retry, then the guardrails."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from .._errors import ContextError, InputError, RulePackError
from .._phrases import PhraseSet, key, lowered_or_none
from ..rules import AgentName, ArgSpec, ContractRules, ModeName, RulePack, ToolSpec, default_rules
from ._data import CallData, DecisionData, EventData, HitData, event
from ._guardrails import guarded
from ._llm import LLMClient, llm_decide
from ._models import RouterContext, RouterDecision

__all__ = ["decide"]

_AMOUNT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([A-Z][A-Z0-9]{1,9})\b")


@functools.cache
def _empty_context() -> RouterContext:
    """Built on first use, not at import: the model's schema is built then."""
    return RouterContext()


@dataclass(frozen=True, eq=False)
class _Compiled:
    triggers: PhraseSet
    """Every phrase a decision rule looks for, found in one pass per text."""
    tags: dict[str, list[str]]
    """Phrase -> the rules it triggers: `agent:<name>`, `mode:<mode>`, `retry`, `arg:<n>`."""
    agents: list[AgentName]
    arg_rules: list[tuple[str, dict[str, Any]]]
    tools: dict[str, ToolSpec]
    yield_tool_suffix: str
    amount_tools: frozenset[str]
    protocol: re.Pattern[str]
    """A protocol word and the capitalised name after it ("on Kamino")."""


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
    for phrase in contract.retry_phrases:
        add(phrase, "retry")
    for index, rule in enumerate(contract.arg_rules):
        add(rule.phrase, f"arg:{index}")
    words = "|".join(re.escape(word) for word in contract.protocol_words)
    return _Compiled(
        triggers=PhraseSet(terms),
        tags=tags,
        agents=[agent.name for agent in contract.agents],
        arg_rules=[(key(rule.phrase), dict(rule.args)) for rule in contract.arg_rules],
        tools={tool.name: tool for tool in contract.tools},
        yield_tool_suffix=contract.yield_tool_suffix,
        amount_tools=frozenset(contract.amount_tools),
        protocol=re.compile(rf"\b(?:{words})\s+([A-Z][\w-]+)"),
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


def _hit(rule: str, text: str = "", span: tuple[int, int] | None = None) -> HitData:
    if span is None:
        return {"rule": rule}
    start, end = span
    return {"rule": rule, "text": text[start:end], "start": start, "end": end}


def decide(
    text: str,
    context: RouterContext | None = None,
    rules: RulePack | None = None,
    *,
    llm: LLMClient | None = None,
) -> RouterDecision:
    """The router decision for the latest user text: from the LLM when one is given and its
    answer passes the schema and the registry, otherwise from the deterministic rules (also
    when the model raises or answers anything else). Arguments of the wrong type are refused
    with one line (InputError, ContextError, RulePackError, TypeError for `llm`)."""
    if not isinstance(text, str):
        raise InputError(f"text must be a string, not {type(text).__name__}")
    if context is not None and not isinstance(context, RouterContext):
        raise ContextError(
            f"context must be a RouterContext (parse_context builds one from a dict or JSON), "
            f"not {type(context).__name__}"
        )
    if rules is not None and not isinstance(rules, RulePack):
        raise RulePackError(
            f"rules must be a RulePack (load_rules reads one from a file), "
            f"not {type(rules).__name__}"
        )
    if llm is not None and not callable(llm):
        raise TypeError(f"llm must be callable (text, context) -> str, not {type(llm).__name__}")
    pack = rules or default_rules()
    known = context or _empty_context()
    if llm is not None:
        return llm_decide(text, known, pack, llm, lambda: _rule_decision(text, known, pack))
    return RouterDecision.model_validate(_rule_decision(text, known, pack))


def _rule_decision(text: str, context: RouterContext, rules: RulePack) -> DecisionData:
    compiled = rules.derived(_compile)
    contract = rules.contract
    triggers = _triggers(text, compiled)
    hits: list[HitData] = []
    events: list[EventData] = []
    chosen = None
    if "retry" in triggers:
        hits.append(_hit("retry", text, triggers["retry"]))
        chosen = _retry(context, contract, hits, events)
    if chosen is None:
        agent = _agent(text, triggers, context, compiled, contract, hits)
        mode = _mode(text, triggers, hits, contract.default_modes.get(agent))
        plan: list[CallData] = [
            {"tool": name, "args": _args_for(name, text, triggers, context, compiled, hits)}
            for name in contract.plans.get(agent, {}).get(mode, [])
        ]
    else:
        agent, mode, plan = chosen
    unique_hits = list({(h["rule"], h.get("start")): h for h in hits}.values())
    return guarded(
        {"agent": agent, "mode": mode, "tool_plan": plan, "rules_fired": unique_hits},
        events,
        contract,
    )


def _retry(
    context: RouterContext, contract: ContractRules, hits: list[HitData], events: list[EventData]
) -> tuple[AgentName, ModeName, list[CallData]] | None:
    """“Try again”: the last action's tool and args, after its plan's setup steps."""
    last = context.last_action
    spec = contract.tool(last.tool) if last else None
    if last is None or spec is None:
        events.append(event("nothing_to_retry", "“try again” without a known last action"))
        return None
    hits.append(_hit(f"retry:last_action={last.tool} ({last.status})"))
    mode = contract.retry_modes[spec.kind]
    prefix = contract.plans.get(spec.agent, {}).get(mode, [])
    plan: list[CallData] = [{"tool": name, "args": {}} for name in prefix if name != last.tool]
    plan.append({"tool": last.tool, "args": dict(last.args)})
    return spec.agent, mode, plan


def _agent(
    text: str,
    triggers: _Triggers,
    context: RouterContext,
    compiled: _Compiled,
    contract: ContractRules,
    hits: list[HitData],
) -> AgentName:
    for name in compiled.agents:
        span = triggers.get(f"agent:{name}")
        if span:
            hits.append(_hit(f"agent:{name}", text, span))
            return name
    if context.last_yield is not None:
        tool = context.last_yield.tool
        hits.append(_hit(f"agent:from last_yield ({tool})"))
        return next(
            (agent for part, agent in contract.last_yield_agents.items() if part in tool),
            contract.last_yield_fallback_agent,
        )
    hits.append(_hit("agent:knowledge (default: no agent keyword)"))
    return "knowledge"


def _mode(
    text: str, triggers: _Triggers, hits: list[HitData], default: ModeName | None
) -> ModeName:
    mode: ModeName
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


def _args_for(
    tool: str,
    text: str,
    triggers: _Triggers,
    context: RouterContext,
    compiled: _Compiled,
    hits: list[HitData],
) -> dict[str, Any]:
    spec = compiled.tools.get(tool)
    if spec is None:
        return {}
    args: dict[str, Any] = {}
    if tool.endswith(compiled.yield_tool_suffix):
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
    if spec.kind == "execution" or tool in compiled.amount_tools:
        _amount_args(text, context, spec.args, compiled.protocol, args, hits)
    return {name: value for name, value in args.items() if name in spec.args}


def _amount_args(
    text: str,
    context: RouterContext,
    spec: dict[str, ArgSpec],
    protocol_pattern: re.Pattern[str],
    args: dict[str, Any],
    hits: list[HitData],
) -> None:
    amount = _AMOUNT.search(text)
    if amount:
        hits.append(_hit("amount_and_token", text, amount.span()))
        if "amount" in spec:
            args["amount"] = float(amount.group(1))
        args["token"] = amount.group(2)
    protocol = protocol_pattern.search(text)
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
