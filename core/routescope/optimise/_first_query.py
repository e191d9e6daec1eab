"""The optimiser's first query for a goal (seed 003's `search_query_optimizer`, answered by
rules): the strategy router's entities and the goal's content words in the goal's order, then
the stack hint's words; at most 12 words and 200 characters, with the reason each word is there
and where the documentation of the stack lives."""

from __future__ import annotations

from dataclasses import dataclass

from ..strategy import QueryContext
from ._query_words import (
    MAX_QUERY_CHARS,
    MAX_QUERY_WORDS,
    content_words,
    doc_domains,
    fit_query,
    labelled,
    quoted,
    router_context,
    router_entities,
    stem_of,
    words_of,
)
from ._stack import infer_stack

__all__ = ["FirstQuery", "first_query"]


@dataclass(frozen=True, slots=True)
class FirstQuery:
    """A first search for a goal, why its words are there, and the hosts its answers are
    expected on."""

    query: str
    reason: str
    expected_domains: list[str]


def first_query(
    goal: str,
    stack_hint: str | None = None,
    project_context: str | None = None,
    *,
    context: QueryContext | None = None,
) -> FirstQuery:
    """The first query for `goal`. `stack_hint`: words to add (None: the language inferred from
    the goal and `project_context`; "" or blank: none). `context`: the goal as the built-in pack
    extracts it, when the caller has it already (an inspection under that pack)."""
    context = context or router_context(goal)
    entities = router_entities(context)
    stack = (stack_hint or "").strip()
    stack_from = "the stack hint"
    if stack_hint is None:
        stack = infer_stack(goal, project_context).language or ""
        stack_from = "the language inferred from the goal and project context"
    entity_words = {stem_of(w) for entity in entities for w in words_of(entity)}
    goal_words = content_words(words_of(context.user_goal or goal))
    words = list(goal_words)
    rank = [3 if stem_of(w) in entity_words else 1 for w in words]
    present = {stem_of(w) for w in words}
    for entity in entities:  # entities the goal's words missed (rare: spans split oddly)
        for word in content_words(words_of(entity)):
            if stem_of(word) not in present:
                present.add(stem_of(word))
                words.append(word)
                rank.append(3)
    stack_words = [w for w in content_words(words_of(stack)) if stem_of(w) not in present]
    words += stack_words
    rank += [2] * len(stack_words)
    query_words = fit_query(words, rank)
    domains = doc_domains([*entities, *words_of(stack), *goal_words])
    if not query_words:
        fallback = " ".join(words_of(goal)[:MAX_QUERY_WORDS])[:MAX_QUERY_CHARS]
        reason = "the goal has no content words; the query is the goal as written"
        if not fallback:
            reason = "the goal is empty; a generic query"
        return FirstQuery(fallback or "documentation", labelled(reason), domains)
    parts = []
    from_entities = [w for w in query_words if stem_of(w) in entity_words]
    from_goal = [w for w in query_words if w in goal_words and stem_of(w) not in entity_words]
    if from_entities:
        parts.append(f"entities {quoted(from_entities)} from the strategy router")
    if from_goal:
        parts.append(f"goal words {quoted(from_goal)}")
    added = [w for w in stack_words if w in query_words]
    if added:
        parts.append(f"{quoted(added)} from {stack_from} '{stack}'")
    reason = "; ".join(parts) + "; stopwords and filler dropped"
    dropped = len(words) - len(query_words)
    if dropped:
        reason += f"; {dropped} least important word(s) cut to fit 12 words"
    return FirstQuery(" ".join(query_words), labelled(reason), domains)
