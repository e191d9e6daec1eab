"""Strategy packs: the searches each strategy plans, before sanitizing."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rules import RulePack
from ._compiled import compile_rules, lowered_or_none
from ._models import KeywordMatch, QueryContext, Strategy

__all__ = ["Plan", "PlannedQuery", "plan"]

_PUNCTUATION_GAP = re.compile(r" ([,.;:!?])")  # left behind where a phrase was cut out


@dataclass(slots=True)
class PlannedQuery:
    query: str
    priority: int
    source: str


@dataclass(slots=True)
class Plan:
    """The planned queries and the evidence of how the pack filled its templates."""

    strategy: Strategy
    queries: list[PlannedQuery]
    goal_used: str
    goal_removed: list[str]
    """Phrases taken out of the goal before it was used (local: place and time phrases)."""
    entity_used: str | None
    """Tech: the top entity candidate the templates used, or None when the goal stood in."""
    safety_matches: list[KeywordMatch]
    openclaw_gate: str
    notes: list[str]


def _local_goal(context: QueryContext, rules: RulePack) -> tuple[str, list[str]]:
    """The goal without its place phrase and local/time phrases, so no query repeats them."""
    compiled = compile_rules(rules)
    goal, removed = context.user_goal, []
    place = context.entities.place
    if place is not None:
        phrase = f"{place.preposition} {place.text}"
        lowered = goal.casefold()
        at = lowered.find(phrase.casefold())
        if at >= 0:
            removed.append(goal[at : at + len(phrase)])
            goal = goal[:at] + goal[at + len(phrase) :]
    goal, stripped = compiled.local_strip.remove(goal)
    removed += stripped
    goal = _PUNCTUATION_GAP.sub(r"\1", " ".join(goal.split())).strip(" ,;:-—–")
    return goal or context.user_goal, removed


def _general(context: QueryContext, rules: RulePack) -> list[PlannedQuery]:
    pack, intent, goal = rules.packs.general, context.intent, context.user_goal
    alternative = intent.purchase or intent.troubleshooting
    second, source = (
        (pack.second_purchase_or_troubleshooting, "general.second_purchase_or_troubleshooting")
        if alternative
        else (pack.second, "general.second")
    )
    return [
        PlannedQuery(pack.first.format(goal=goal), 1, "general.first"),
        PlannedQuery(second.format(goal=goal), 1, source),
    ]


def _local(context: QueryContext, rules: RulePack, goal: str) -> list[PlannedQuery]:
    pack = rules.packs.local
    place = context.entities.place_hint or pack.default_place
    second, source = (
        (pack.second_time_sensitive, "local.second_time_sensitive")
        if context.intent.time_sensitive
        else (pack.second, "local.second")
    )
    return [
        PlannedQuery(pack.first.format(goal=goal, place=place), 1, "local.first"),
        PlannedQuery(second.format(goal=goal), 1, source),
    ]


def _tech(context: QueryContext, rules: RulePack, safety: list[KeywordMatch]) -> list[PlannedQuery]:
    pack = rules.packs.tech
    entity = context.entities.candidates[0] if context.entities.candidates else context.user_goal
    queries = [
        PlannedQuery(pack.docs.format(entity=entity), 1, "tech.docs"),
        PlannedQuery(pack.github.format(entity=entity), 1, "tech.github"),
    ]
    if safety:
        queries.append(PlannedQuery(pack.safety.format(goal=context.user_goal), 1, "tech.safety"))
    return queries


def _safety_matches(context: QueryContext, rules: RulePack) -> list[KeywordMatch]:
    text = context.raw_text
    spans = sorted(compile_rules(rules).safety.spans(text, lowered_or_none(text)))
    return [KeywordMatch("tech", p.text, text[s:e], s, e) for s, e, p in spans[:5]]


def _openclaw_gate(context: QueryContext, strategy: Strategy) -> tuple[bool, str]:
    if not context.has_openclaw:
        return False, "not injected: the prompt does not mention OpenClaw"
    if strategy != "tech":
        return False, f"not injected: OpenClaw mentioned but strategy is {strategy}, not tech"
    return True, "injected with priority 0: OpenClaw mentioned and strategy is tech"


def plan(context: QueryContext, strategy: Strategy, rules: RulePack) -> Plan:
    """Plan the searches of a strategy pack, with OpenClaw's canonical searches strictly gated."""
    goal = context.user_goal
    removed: list[str] = []
    safety: list[KeywordMatch] = []
    notes: list[str] = []
    if strategy == "local":
        goal, removed = _local_goal(context, rules)
        queries = _local(context, rules, goal)
    elif strategy == "tech":
        safety = _safety_matches(context, rules)
        queries = _tech(context, rules, safety)
        if not context.entities.candidates:
            notes.append("no entity found: the normalized goal stands in for it")
    else:
        queries = _general(context, rules)
    inject, gate = _openclaw_gate(context, strategy)
    if inject:
        canonical = [
            PlannedQuery(q, 0, f"openclaw.queries[{i}]")
            for i, q in enumerate(rules.openclaw.queries)
        ]
        queries = canonical + queries
    return Plan(
        strategy=strategy,
        queries=queries,
        goal_used=goal,
        goal_removed=removed,
        entity_used=context.entities.candidates[0]
        if strategy == "tech" and context.entities.candidates
        else None,
        safety_matches=safety,
        openclaw_gate=gate,
        notes=notes,
    )
