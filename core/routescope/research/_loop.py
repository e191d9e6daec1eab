"""`deep_research`: the multi-attempt loop of seed 003. Attempt 0 asks the query optimiser,
later attempts the refiner (fed the previous query, a summary of the findings and the scores);
every attempt searches, reads the allowed pages and is graded by the evaluator. Pure
orchestration: the search provider, the page reader and the model are injected."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ..llm import ChatClient, JsonAnswer
from ._answers import Evaluation, QueryPlan, Refinement, prompt
from ._models import SearchHit, SearchResponse
from ._providers import SearchProvider, shorten_query
from ._quality import NextStep, Scores, Thresholds, best_attempt, next_step, score

__all__ = [
    "Attempt",
    "Budgets",
    "DeepResearchResult",
    "Finding",
    "PageRead",
    "PageReader",
    "ResearchQuality",
    "deep_research",
]

M = TypeVar("M", bound=BaseModel)
_SOURCE_CHARS = 4_000
"""Text of one page the evaluator sees."""
_SUMMARY_CHARS = 1_500
_REFUSED = (401, 403)


@dataclass(frozen=True, slots=True)
class PageRead:
    """One result URL as the reader saw it: the policy's verdict, the outcome, the main text."""

    url: str
    allowed: bool
    rule: str
    status: int | None = None
    error: str | None = None
    title: str = ""
    text: str = ""

    @property
    def has_text(self) -> bool:
        return bool(self.text.strip())


class PageReader(Protocol):
    """Reads the pages of result URLs (over HTTP with the safe fetcher, or from an offline
    index); never raises for a page's failure."""

    async def read(self, urls: Sequence[str]) -> list[PageRead]: ...


@dataclass(frozen=True, slots=True)
class Budgets:
    max_results: int = 5
    """Results of each search, and pages read per attempt."""
    run_timeout_s: float = 60.0
    """The whole run; an attempt that would pass it is not started."""


@dataclass(frozen=True, slots=True)
class Finding:
    url: str
    title: str
    snippet: str
    attempt: int


@dataclass(slots=True)
class Attempt:
    """One search and its evaluation, with where every part came from."""

    index: int
    query: str
    query_source: str
    """`optimiser`, `refiner`, or `goal (<why the model's query was not used>)`."""
    provider: str
    status: int | None
    error: str | None
    results: list[SearchHit]
    pages: list[PageRead]
    evaluation: Evaluation | None
    evaluator_error: str | None
    relevance: float
    confidence: float
    coverage: float
    should_retry: bool
    score: float
    duration_ms: float

    @property
    def fetched(self) -> int:
        return sum(page.has_text for page in self.pages)


@dataclass(frozen=True, slots=True)
class ResearchQuality:
    query: str
    relevance: float
    confidence: float
    coverage: float
    attempts: int
    reasons: str


@dataclass(slots=True)
class DeepResearchResult:
    goal: str
    findings: list[Finding]
    quality: ResearchQuality
    attempts: list[Attempt]
    best: int | None
    warnings: list[str]
    termination_reason: str
    next_step: NextStep
    web_calls: int = 0
    pages_fetched: int = 0
    model: str = ""
    duration_ms: float = 0.0
    notes: list[str] = field(default_factory=list)


async def _ask(
    llm: ChatClient, name: str, inputs: dict[str, Any], schema: type[M]
) -> JsonAnswer[M]:
    """One prompt: its file is the system message, the inputs go as one JSON object."""
    user = json.dumps(inputs, ensure_ascii=False, default=str)
    return await llm.complete_json(prompt(name), user, schema, name=name)


async def _first_query(
    llm: ChatClient, goal: str, stack_hint: str | None, project_context: str | None
) -> tuple[str, str]:
    inputs = {
        "goal": goal,
        "stack_hint": stack_hint or "",
        "project_context": project_context or "",
    }
    answer = await _ask(llm, "search_query_optimizer", inputs, QueryPlan)
    if answer.value is None:
        return goal, f"goal (optimiser failed: {answer.error})"
    return answer.value.query, "optimiser"


def _summary(attempts: list[Attempt]) -> str:
    lines = [
        f"- {page.title or page.url} ({page.url})"
        for attempt in attempts
        for page in attempt.pages
        if page.has_text
    ]
    return "\n".join(lines)[:_SUMMARY_CHARS] or "nothing readable was found"


async def _next_query(
    llm: ChatClient, goal: str, attempts: list[Attempt]
) -> tuple[str | None, str, str]:
    """The refiner's next query, or None with the reason to stop."""
    last = attempts[-1]
    inputs = {
        "goal": goal,
        "previous_query": last.query,
        "findings": _summary(attempts),
        "quality": last.evaluation.model_dump() if last.evaluation else None,
        "status": last.status,
    }
    answer = await _ask(llm, "research_query_refiner", inputs, Refinement)
    if answer.value is None:
        return None, "refiner", f"refiner failed ({answer.error}): no further attempt"
    if not answer.value.should_retry:
        return None, "refiner", f"refiner: no retry ({answer.value.reason or 'no reason given'})"
    query = answer.value.query
    if query.casefold() == last.query.casefold():
        return None, "refiner", "refiner proposed the same query again"
    if last.status == 400 and len(query) >= len(last.query):  # a refused query must shrink
        half = max(1, len(last.query) // 2)
        return shorten_query(query, max_chars=half, max_words=None), "refiner (shortened)", ""
    return query, "refiner", ""


async def _evaluate(
    llm: ChatClient, goal: str, query: str, pages: list[PageRead]
) -> JsonAnswer[Evaluation]:
    sources = [
        {"url": page.url, "title": page.title, "text": page.text[:_SOURCE_CHARS]}
        for page in pages
        if page.has_text
    ]
    inputs = {"goal": goal, "query": query, "sources": sources}
    return await _ask(llm, "research_relevance_evaluator", inputs, Evaluation)


async def _attempt(
    index: int,
    query: str,
    source: str,
    goal: str,
    search: SearchProvider,
    reader: PageReader,
    llm: ChatClient,
    budgets: Budgets,
) -> Attempt:
    started = time.monotonic()
    response: SearchResponse = await search.search(query, max_results=budgets.max_results)
    hits = list(response.results[: budgets.max_results])
    pages = await reader.read([hit.url for hit in hits]) if hits else []
    fetched = sum(page.has_text for page in pages)
    graded = await _evaluate(llm, goal, response.query or query, pages) if fetched else None
    evaluation = graded.value if graded is not None else None
    if evaluation is None or fetched == 0:  # nothing read scores 0, whatever a model says
        relevance = confidence = coverage = 0.0
        retry = True
    else:
        relevance, confidence, coverage = (
            evaluation.relevance,
            evaluation.confidence,
            evaluation.coverage,
        )
        retry = evaluation.should_retry
    scores = Scores(relevance, confidence, coverage, fetched)
    return Attempt(
        index=index,
        query=response.query or query,
        query_source=source,
        provider=response.provider,
        status=response.status,
        error=response.error.message if response.error else None,
        results=hits,
        pages=pages,
        evaluation=evaluation,
        evaluator_error=None if graded is None or graded.value else graded.error,
        relevance=relevance,
        confidence=confidence,
        coverage=coverage,
        should_retry=retry,
        score=score(scores),
        duration_ms=(time.monotonic() - started) * 1000,
    )


def _scores(attempts: list[Attempt]) -> list[Scores]:
    return [Scores(a.relevance, a.confidence, a.coverage, a.fetched) for a in attempts]


def _stop_reason(attempts: list[Attempt], thresholds: Thresholds) -> str | None:
    """Why to stop after the latest attempt, or None to go on."""
    last = attempts[-1]
    if last.status in _REFUSED:  # a wrong or missing key: every further search fails alike
        return f"the provider refused access ({last.status}) in attempt {last.index + 1}"
    if last.relevance >= thresholds.good_relevance and last.coverage >= thresholds.good_coverage:
        return f"target reached in attempt {last.index + 1}"
    if last.evaluation is not None and not last.should_retry:
        return f"evaluator: no retry after attempt {last.index + 1}"
    if len(attempts) > 1 and last.score <= max(a.score for a in attempts[:-1]) and last.fetched:
        return f"score stopped improving in attempt {last.index + 1}"
    return None


_BUDGETS = Budgets()
_THRESHOLDS = Thresholds()


async def deep_research(
    goal: str,
    *,
    search: SearchProvider,
    reader: PageReader,
    llm: ChatClient,
    max_attempts: int = 3,
    stack_hint: str | None = None,
    project_context: str | None = None,
    requires_grounding: bool = False,
    budgets: Budgets = _BUDGETS,
    thresholds: Thresholds = _THRESHOLDS,
    model: str = "",
    on_attempt: Callable[[Attempt], None] | None = None,
) -> DeepResearchResult:
    """Research `goal` in at most `max_attempts` searches; the best attempt's findings and
    scores, every attempt, the warnings and why the loop stopped. Never raises for a
    provider's, a page's or a model's failure (cancellation goes through). `on_attempt` hears
    of each attempt as soon as it is graded, so a window can show the run as it happens."""
    started = time.monotonic()
    deadline = started + budgets.run_timeout_s
    attempts: list[Attempt] = []
    notes: list[str] = []
    termination = f"{max_attempts} attempts made"
    query, source = await _first_query(llm, goal, stack_hint, project_context)
    for index in range(max(1, max_attempts)):
        if index:
            next_query, source, why = await _next_query(llm, goal, attempts)
            if next_query is None:
                termination = why
                break
            query = next_query
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            termination = f"run deadline of {budgets.run_timeout_s:g} s reached"
            break
        try:
            async with asyncio.timeout(remaining):
                attempt = await _attempt(index, query, source, goal, search, reader, llm, budgets)
        except TimeoutError:
            termination = (
                f"run deadline of {budgets.run_timeout_s:g} s reached in attempt {index + 1}"
            )
            break
        attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)
        if attempt.status == 400:
            notes.append(f"attempt {index + 1}: the provider refused the query (400)")
        stop = _stop_reason(attempts, thresholds)
        if stop is not None:
            termination = stop
            break
    return _result(
        goal,
        attempts,
        termination,
        notes,
        max_attempts,
        requires_grounding,
        thresholds,
        model,
        started,
    )


def _result(
    goal: str,
    attempts: list[Attempt],
    termination: str,
    notes: list[str],
    max_attempts: int,
    requires_grounding: bool,
    thresholds: Thresholds,
    model: str,
    started: float,
) -> DeepResearchResult:
    scores = _scores(attempts)
    best = best_attempt(scores)
    step = next_step(
        scores, max_attempts, requires_grounding=requires_grounding, thresholds=thresholds
    )
    top = attempts[best] if best is not None else None
    findings = (
        [
            Finding(page.url, page.title or hit.title, hit.snippet, top.index)
            for hit, page in zip(top.results, top.pages, strict=False)
            if page.has_text
        ]
        if top is not None
        else []
    )
    quality = ResearchQuality(
        query=top.query if top else "",
        relevance=top.relevance if top else 0.0,
        confidence=top.confidence if top else 0.0,
        coverage=top.coverage if top else 0.0,
        attempts=len(attempts),
        reasons=(top.evaluation.reasons if top and top.evaluation else "no evaluated attempt"),
    )
    return DeepResearchResult(
        goal=goal,
        findings=findings,
        quality=quality,
        attempts=attempts,
        best=best,
        warnings=list(step.warnings),
        termination_reason=termination,
        next_step=step,
        web_calls=len(attempts),
        pages_fetched=sum(a.fetched for a in attempts),
        model=model,
        duration_ms=(time.monotonic() - started) * 1000,
        notes=notes,
    )
