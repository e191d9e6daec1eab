"""Traces: where one entity of a prompt flows — the queries that carry it, the intent
keywords and linter anchors it holds or names, the contract rules that fired on it, and the
tools whose keyword fields it matched."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from .._errors import InputError
from .._phrases import key
from ..strategy import EntityCandidate
from ._models import (
    AnchorTrace,
    IntentTrace,
    QueryTrace,
    RuleTrace,
    TextSpan,
    ToolTrace,
    Trace,
)

if TYPE_CHECKING:
    from .._inspect import Inspection
    from ..strategy import Action
    from ..toolsearch import ToolHit, ToolSearchResult

__all__ = ["MAX_MENTIONS", "trace"]

MAX_MENTIONS = 100
"""Spans kept per text (prompt or query)."""


def trace(inspection: Inspection, entity: str | EntityCandidate) -> Trace:
    """Where `entity` (a candidate of the inspection, or any words of the prompt, matched as
    whole words in any case) flows through the decisions."""
    name = entity.text if isinstance(entity, EntityCandidate) else entity
    if not isinstance(name, str) or not name.split():
        raise InputError("trace: name an entity (its text, or one of the entity candidates)")
    pattern = _pattern(name)
    context = inspection.context
    mentions = _spans(pattern, context.raw_text)
    if isinstance(entity, EntityCandidate):  # its own span, even if written otherwise
        own = TextSpan(entity.start, entity.end, context.raw_text[entity.start : entity.end])
        if own not in mentions:
            mentions = tuple(sorted((*mentions, own), key=lambda s: (s.start, s.end)))
    wanted = key(name)
    details = context.entities.details
    rank = next((i for i, c in enumerate(details, start=1) if key(c.text) == wanted), None)
    place = context.entities.place
    return Trace(
        entity=name,
        kind=details[rank - 1].kind if rank is not None else None,
        candidate_rank=rank,
        mentions=mentions,
        place=place is not None and pattern.search(place.text) is not None,
        plan_entity=inspection.plan.entity_used is not None
        and key(inspection.plan.entity_used) == wanted,
        queries=(
            *_queries("actions", inspection.actions, pattern),
            *_queries("task", inspection.task.actions, pattern),
        ),
        intents=tuple(
            IntentTrace(m.intent, m.keyword, m.start, m.end)
            for m in context.intent_matches
            if _overlaps(m.start, m.end, mentions)
        ),
        anchors=tuple(
            AnchorTrace(a.anchor, a.kind, a.text, a.start, a.end, a.alias)
            for a in inspection.lint.evidence
            if _overlaps(a.start, a.end, mentions) or key(a.anchor) == wanted
        ),
        rules=tuple(
            RuleTrace(hit.rule, hit.text, hit.start, hit.end)
            for hit in (inspection.decision.rules_fired if inspection.decision else [])
            if hit.start is not None
            and hit.end is not None
            and _overlaps(hit.start, hit.end, mentions)
        ),
        tools=None if inspection.tools is None else _tools(inspection.tools, name),
    )


def _pattern(name: str) -> re.Pattern[str]:
    """The entity as whole words, any case, any white space between its words."""
    words = r"\s+".join(re.escape(word) for word in name.split())
    return re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)


def _spans(pattern: re.Pattern[str], text: str) -> tuple[TextSpan, ...]:
    found = []
    for match in pattern.finditer(text):
        found.append(TextSpan(match.start(), match.end(), match.group()))
        if len(found) >= MAX_MENTIONS:
            break
    return tuple(found)


def _overlaps(start: int, end: int, spans: tuple[TextSpan, ...]) -> bool:
    return any(start < span.end and span.start < end for span in spans)


def _queries(
    where: Literal["actions", "task"], actions: list[Action], pattern: re.Pattern[str]
) -> list[QueryTrace]:
    traces = []
    for index, action in enumerate(actions):
        spans = _spans(pattern, action.query)
        if spans:
            traces.append(QueryTrace(where, index, action.source, action.query, spans))
    return traces


def _tools(result: ToolSearchResult, name: str) -> tuple[ToolTrace, ...]:
    """The ranked tools whose keyword evidence holds a word of the entity (as written, or its
    stem under the English analyzer the weighted fusion uses)."""
    from .._analysis import analyzed_terms, tokens  # tantivy: loaded only when tools ran

    forms = set(tokens(name)) | set(analyzed_terms(name))
    traces = []
    for hit in result.results:
        found = _tool_trace(hit, forms)
        if found is not None:
            traces.append(found)
    return tuple(traces)


def _tool_trace(hit: ToolHit, forms: set[str]) -> ToolTrace | None:
    signal = hit.signals.keyword
    if signal is None:
        return None
    words: dict[str, None] = {}
    share = 0.0
    for term in signal.terms:
        if term.word in forms or term.term in forms:
            words.setdefault(term.word)
            share += term.share
    fields = []
    for field, terms in signal.matched_terms.items():
        matched = [t for t in terms if t in forms]
        if matched:
            fields.append(field)
            if not signal.terms:  # canonical fusion: the matched tokens are the words
                for t in matched:
                    words.setdefault(t)
    if not words:
        return None
    share_of = share if hit.signals.fusion == "weighted" else None
    return ToolTrace(hit.tool_name, hit.rank, tuple(words), tuple(fields), share_of)
