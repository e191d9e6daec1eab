"""The research loop's questions to the model, one prompt each (`_answers.prompt`): the query
optimiser's first query, the refiner's next one (fed the previous query, a summary of the
findings, the scores and the goal terms no page covered) and the relevance evaluator's grade.
Every prompt's inputs go as one JSON object; a failed answer is a value, never an exception."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ..llm import ChatClient, JsonAnswer
from ..optimise._goal_terms import GoalTerm
from ._answers import Evaluation, QueryPlan, Refinement, prompt
from ._checked import refusal
from ._page_evidence import Source
from ._provider_contract import shorten_query
from ._quality import StopReason
from ._records import Attempt

__all__ = ["evaluate", "first_query", "next_query"]

M = TypeVar("M", bound=BaseModel)
_SOURCE_CHARS = 4_000
"""Text of one page a model's evaluator sees, unless the model says it reads more
(`source_chars`: the heuristic reads what the evidence reads, `MAX_SOURCE_CHARS`)."""
_SUMMARY_CHARS = 1_500


async def _ask(
    llm: ChatClient, name: str, inputs: dict[str, Any], schema: type[M]
) -> JsonAnswer[M]:
    """One prompt: its file is the system message, the inputs go as one JSON object."""
    user = json.dumps(inputs, ensure_ascii=False, default=str)
    return await llm.complete_json(prompt(name), user, schema, name=name)


async def first_query(
    llm: ChatClient, goal: str, stack_hint: str | None, project_context: str | None
) -> tuple[str, str, str | None]:
    """The optimiser's first query and where it came from (the goal itself when the model
    failed), and why the model refuses every call (`_checked.refusal`), if it does."""
    inputs = {
        "goal": goal,
        "stack_hint": stack_hint,
        "project_context": project_context or "",
    }
    answer = await _ask(llm, "search_query_optimizer", inputs, QueryPlan)
    if answer.value is None:
        return goal, f"goal (optimiser failed: {answer.error})", refusal(answer)
    return answer.value.query, "optimiser", None


def _summary(attempts: list[Attempt]) -> str:
    lines = []
    for attempt in attempts:
        supports = {
            page.url: page.supports for page in (attempt.evidence.pages if attempt.evidence else ())
        }
        for page in attempt.pages:
            if page.has_text:
                found = supports.get(page.url)
                tail = f": supports {', '.join(found)}" if found else ""
                lines.append(f"- {page.title or page.url} ({page.url}){tail}")
    return "\n".join(lines)[:_SUMMARY_CHARS] or "nothing readable was found"


def _terms_data(terms: tuple[GoalTerm, ...]) -> list[dict[str, object]]:
    return [term.to_data() for term in terms]


async def next_query(
    llm: ChatClient,
    goal: str,
    attempts: list[Attempt],
    terms: tuple[GoalTerm, ...],
    suggested: Sequence[str] = (),
) -> tuple[str | None, str, StopReason | None]:
    """The refiner's next query, or None with the reason to stop. `suggested` are new words
    the documents nearest the goal use (`_suggest`)."""
    last = attempts[-1]
    wanted = {term.text for term in terms if term.findable and not term.common}
    uncovered = [t for t in (last.evidence.uncovered if last.evidence else ()) if t in wanted]
    inputs = {
        "goal": goal,
        "previous_query": last.query,
        "findings": _summary(attempts),
        "quality": last.evaluation.model_dump() if last.evaluation else None,
        "status": last.status,
        "uncovered": uncovered,
        "goal_terms": _terms_data(terms),
        "suggested_words": list(suggested),
    }
    answer = await _ask(llm, "research_query_refiner", inputs, Refinement)
    made = len(attempts)
    refused = refusal(answer)
    if refused is not None:
        return None, "refiner", StopReason("model_refused", f"refiner: {refused}", made)
    if answer.value is None:
        why = f"refiner failed ({answer.error}): no further attempt"
        return None, "refiner", StopReason("model_failed", why, made)
    if not answer.value.should_retry:
        why = f"refiner: no retry ({answer.value.reason or 'no reason given'})"
        return None, "refiner", StopReason("no_retry", why, made)
    query = answer.value.query
    if query.casefold() == last.query.casefold():
        why = "refiner proposed the same query again"
        return None, "refiner", StopReason("no_retry", why, made)
    words = sorted(query.casefold().split())
    if any(sorted(a.query.casefold().split()) == words for a in attempts):
        why = "refiner proposed the words of an earlier query again"
        return None, "refiner", StopReason("no_retry", why, made)
    if last.status == 400 and len(query) >= len(last.query):  # a refused query must shrink
        half = max(1, len(last.query) // 2)
        return shorten_query(query, max_chars=half, max_words=None), "refiner (shortened)", None
    return query, "refiner", None


def _source_data(source: Source, cut: int) -> dict[str, Any]:
    data: dict[str, Any] = {
        "url": source.url,
        "title": source.title,
        "snippet": source.snippet,
        "text": source.text[:cut],
    }
    if source.similarity is not None:
        data["similarity"] = source.similarity
        data["passage"] = source.passage
        data["aspect_similarities"] = list(source.aspect_similarities)
    return data


def _source_chars(llm: ChatClient) -> int:
    chars = getattr(llm, "source_chars", None)
    return chars if isinstance(chars, int) and chars > 0 else _SOURCE_CHARS


async def evaluate(
    llm: ChatClient,
    goal: str,
    query: str,
    sources: list[Source],
    terms: tuple[GoalTerm, ...],
    max_sources: int,
    aspects: Sequence[str] = (),
) -> JsonAnswer[Evaluation]:
    """The evaluator's grade of one attempt. Each source carries the embedding model's reading
    when there is one (`similarity`: the goal against the page's nearest passage, that
    `passage`, and per aspect of the goal its nearest passage's cosine)."""
    cut = _source_chars(llm)
    inputs = {
        "goal": goal,
        "query": query,
        "sources": [_source_data(s, cut) for s in sources],
        "goal_terms": _terms_data(terms),
        "goal_aspects": list(aspects),
        "max_sources": max_sources,
    }
    return await _ask(llm, "research_relevance_evaluator", inputs, Evaluation)
