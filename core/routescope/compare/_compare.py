"""A and B side by side: the structured diff of two inspections.

`compare(a, b)` runs two requests (two prompts, or one prompt under two rule packs, contexts
or catalogs) and `compare_inspections(a, b)` diffs two results already run: flags that
flipped, the strategy, the planned queries with a word-level diff, the linter's class and
anchors, the contract's plan, the tool ranks with their movement and the task route.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .._inspect import Inspection, inspect
from .._request import Request
from ..rules import INTENTS
from ._models import (
    SECTIONS,
    CallChange,
    Comparison,
    Decisions,
    FlagFlip,
    Movement,
    QueryChange,
    Section,
    Side,
    TextSpan,
    ToolMove,
    ValueChange,
)
from ._words import similarity, word_diff

if TYPE_CHECKING:
    from ..strategy import Action
    from ..toolsearch import ToolSearch

__all__ = ["PAIR_SIMILARITY", "compare", "compare_inspections", "compare_requests", "side_of"]

PAIR_SIMILARITY = 0.5
"""Queries from different pack rules are shown as one changed row when at least this alike
(difflib's ratio over words); otherwise as one removed and one added."""


def compare(
    a: Request | str,
    b: Request | str,
    *,
    tools: ToolSearch | None = None,
    tools_b: ToolSearch | None = None,
) -> Comparison:
    """Run both requests and diff the results. A text beside a request is that request with
    another prompt; two texts are requests with the built-in pack and today's date. `tools`
    ranks A's catalog (and B's, unless `tools_b` is given): with neither, no tool search."""
    if isinstance(a, Request):
        request_a = a
        request_b = b if isinstance(b, Request) else a.replace(text=b)
    elif isinstance(b, Request):
        request_a, request_b = b.replace(text=a), b
    else:
        request_a = Request.build(a)
        request_b = request_a.replace(text=b)
    engine_b = tools_b if tools_b is not None else tools
    return compare_requests(request_a, request_b, tools, engine_b)


def compare_requests(
    a: Request, b: Request, tools_a: ToolSearch | None, tools_b: ToolSearch | None
) -> Comparison:
    """Run two requests with their engines (None: no tool search on that side) and diff."""
    first, second = inspect(a, tools=tools_a), inspect(b, tools=tools_b)
    return dataclasses.replace(
        compare_inspections(first, second),
        a=side_of(a, Decisions.of(first.outcome), tools_a),
        b=side_of(b, Decisions.of(second.outcome), tools_b),
    )


def side_of(request: Request, outcome: Decisions, tools: ToolSearch | None = None) -> Side:
    """A request as one side of a comparison: its text, its pack, its headline decisions
    (`Decisions.of` its inspection's outcome) and the catalog ranked."""
    rules = request.rules.load().name
    if not request.rules.is_builtin:
        rules = f"{rules} ({request.rules.source})"
    if tools is None:
        return Side(request.text, rules, outcome, False)
    catalog = request.catalog.path if request.catalog is not None else tools.catalog.source
    return Side(request.text, rules, outcome, True, catalog)


def compare_inspections(a: Inspection, b: Inspection) -> Comparison:
    """What differs between two inspections (timings never count)."""
    changes = list(_value_changes(a, b))
    flags = tuple(_flag_flips(a, b))
    queries = tuple(_queries(a.actions, b.actions))
    calls = tuple(_calls(a, b))
    tools = _tool_moves(a, b)
    changed_sections: set[Section] = {change.section for change in changes}
    if flags or any(q.kind != "same" for q in queries):
        changed_sections.add("strategy")
    if calls:
        changed_sections.add("contract")
    if tools is not None and any(t.movement != "same" for t in tools):
        changed_sections.add("tools")
    sections = tuple(s for s in SECTIONS if s in changed_sections)
    return Comparison(
        a=_side(a),
        b=_side(b),
        changed=bool(sections),
        sections=sections,
        changes=tuple(changes),
        flags=flags,
        queries=queries,
        calls=calls,
        tools=tools,
    )


def _side(inspection: Inspection) -> Side:
    return Side(
        inspection.context.raw_text,
        inspection.rules,
        Decisions.of(inspection.outcome),
        inspection.tools is not None,
    )


def _values(inspection: Inspection) -> Iterator[tuple[Section, str, Any]]:
    """The decisions and evidence compared field by field, as (section, path, value)."""
    context = inspection.context
    yield "strategy", "strategy", inspection.strategy
    yield "strategy", "strategy_rule", inspection.strategy_rule
    yield "strategy", "context.entities.candidates", list(context.entities.candidates)
    yield "strategy", "context.entities.place_hint", context.entities.place_hint
    yield "strategy", "context.has_openclaw", context.has_openclaw
    yield "strategy", "plan.entity_used", inspection.plan.entity_used
    lint = inspection.lint
    yield "lint", "lint.query_class", lint.query_class
    yield "lint", "lint.anchors_detected.strong", list(lint.anchors_detected.strong)
    yield "lint", "lint.anchors_detected.weak", list(lint.anchors_detected.weak)
    aliases = list(lint.anchors_detected.aliases_matched)
    yield "lint", "lint.anchors_detected.aliases_matched", aliases
    yield "lint", "lint.expanded_query", lint.expanded_query if lint.changed else None
    decision = inspection.decision
    yield "contract", "decision.agent", decision.agent if decision else None
    yield "contract", "decision.mode", decision.mode if decision else None
    yield "contract", "decision.ui", decision.ui if decision else None
    yield "contract", "decision.stop_condition", decision.stop_condition if decision else None
    yield "task", "task.route", inspection.task.route
    yield "task", "task.strategy", inspection.task.strategy
    yield "task", "task.actions", [action.query for action in inspection.task.actions]
    first = inspection.task.research_query
    yield "task", "task.research_query", first.query if first is not None else None
    tools = inspection.tools
    if tools is not None:
        yield "tools", "tools.top", tools.results[0].tool_name if tools.results else None
        yield "tools", "tools.fits", tools.fits
        yield "tools", "tools.strategy", tools.strategy
        yield "tools", "tools.category_filter", tools.category_filter


def _value_changes(a: Inspection, b: Inspection) -> Iterator[ValueChange]:
    values_b = {path: (section, value) for section, path, value in _values(b)}
    seen = set()
    for section, path, value in _values(a):
        seen.add(path)
        other = values_b.get(path, (section, None))[1]
        if value != other:
            yield ValueChange(section, path, value, other)
    for path, (section, value) in values_b.items():  # tools ranked on B's side only
        if path not in seen and value is not None:
            yield ValueChange(section, path, None, value)


def _flag_flips(a: Inspection, b: Inspection) -> Iterator[FlagFlip]:
    for flag in INTENTS:
        on_a = bool(getattr(a.context.intent, flag))
        on_b = bool(getattr(b.context.intent, flag))
        if on_a != on_b:
            yield FlagFlip(flag, on_a, on_b, _evidence(a, flag), _evidence(b, flag))


def _evidence(inspection: Inspection, flag: str) -> tuple[TextSpan, ...]:
    return tuple(
        TextSpan(m.start, m.end, m.text)
        for m in inspection.context.intent_matches
        if m.intent == flag
    )


def _queries(actions_a: list[Action], actions_b: list[Action]) -> Iterator[QueryChange]:
    """Pair the queries by the pack rule that made them, then by wording; rows in A's order,
    B's unpaired queries after them."""
    partner: dict[int, int] = {}
    free_b = list(range(len(actions_b)))
    for i, action in enumerate(actions_a):
        j = next((j for j in free_b if actions_b[j].source == action.source), None)
        if j is not None:
            partner[i] = j
            free_b.remove(j)
    # Different rules: the most alike pairs first, each query in one pair at most.
    candidates = sorted(
        (
            (similarity(actions_a[i].query, actions_b[j].query), i, j)
            for i in range(len(actions_a))
            if i not in partner
            for j in free_b
        ),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    for score, i, j in candidates:
        if score >= PAIR_SIMILARITY and i not in partner and j in free_b:
            partner[i] = j
            free_b.remove(j)
    for i, action in enumerate(actions_a):
        j = partner.get(i)
        if j is None:
            removed, _ = word_diff(action.query, "")
            yield QueryChange(
                "removed", action.query, None, action.source, None, i, None, removed, ()
            )
            continue
        other = actions_b[j]
        same = action.query == other.query and action.source == other.source
        removed, added = word_diff(action.query, other.query)
        yield QueryChange(
            "same" if same else "changed",
            action.query,
            other.query,
            action.source,
            other.source,
            i,
            j,
            removed,
            added,
        )
    for j in free_b:
        other = actions_b[j]
        _, added = word_diff("", other.query)
        yield QueryChange("added", None, other.query, None, other.source, None, j, (), added)


def _calls(a: Inspection, b: Inspection) -> Iterator[CallChange]:
    plan_a = a.decision.tool_plan if a.decision else []
    plan_b = b.decision.tool_plan if b.decision else []
    matcher = difflib.SequenceMatcher(
        None, [c.tool for c in plan_a], [c.tool for c in plan_b], autojunk=False
    )
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(a0, a1), range(b0, b1), strict=True):
                if plan_a[i].args != plan_b[j].args:
                    yield CallChange(
                        "changed", plan_a[i].tool, i, j, dict(plan_a[i].args), dict(plan_b[j].args)
                    )
            continue
        for i in range(a0, a1):
            yield CallChange("removed", plan_a[i].tool, i, None, dict(plan_a[i].args), None)
        for j in range(b0, b1):
            yield CallChange("added", plan_b[j].tool, None, j, None, dict(plan_b[j].args))


def _tool_moves(a: Inspection, b: Inspection) -> tuple[ToolMove, ...] | None:
    if a.tools is None and b.tools is None:
        return None
    hits_a = {hit.tool_name: hit for hit in (a.tools.results if a.tools else [])}
    hits_b = {hit.tool_name: hit for hit in (b.tools.results if b.tools else [])}
    moves: list[ToolMove] = []
    for name, hit in hits_b.items():
        before = hits_a.get(name)
        if before is None:
            moves.append(ToolMove(name, None, hit.rank, None, hit.score, "new", None))
            continue
        delta = before.rank - hit.rank
        movement: Movement = "up" if delta > 0 else "down" if delta < 0 else "same"
        moves.append(
            ToolMove(name, before.rank, hit.rank, before.score, hit.score, movement, delta)
        )
    for name, hit in hits_a.items():
        if name not in hits_b:
            moves.append(ToolMove(name, hit.rank, None, hit.score, None, "dropped", None))
    return tuple(moves)
