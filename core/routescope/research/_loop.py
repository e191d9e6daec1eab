"""`deep_research`: the multi-attempt loop of seed 003. Attempt 0 asks the query optimiser,
later attempts the refiner (fed the previous query, a summary of the findings, the scores and
the goal terms no page covered); every attempt searches, reads the allowed pages and is graded
by the evaluator. Every attempt also carries its evidence (`AttemptEvidence`: which goal terms
each page read supports, weighed by their rarity in the searched corpus when the search can
tell), whatever model graded it; the next step is decided from the attempts and why the loop
stopped (`_quality.decide_next_step`). Pure orchestration: the search provider, the page
reader and the model are injected."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from ..llm import ChatClient
from ._asking import evaluate, first_query, next_query
from ._evidence import assess
from ._models import SearchHit, SearchResponse
from ._page_evidence import MAX_SOURCE_CHARS, Source
from ._provider_contract import SearchProvider
from ._quality import Scores, StopReason, Thresholds, meets_target, score
from ._records import Attempt, DeepResearchResult, PageRead, PageReader
from ._result import attempt_scores, research_result
from ._run import GoalTerms, ResearchOptions, Run

__all__ = ["deep_research"]

_REFUSED = (401, 403)


def _sources(hits: list[SearchHit], pages: list[PageRead]) -> list[Source]:
    """The pages read (with text), with their results' snippets."""
    snippets = {hit.url: hit.snippet for hit in hits}
    return [
        Source(page.url, page.title, page.text[:MAX_SOURCE_CHARS], snippets.get(page.url, ""))
        for page in pages
        if page.has_text
    ]


async def _attempt(run: Run, index: int, query: str, source: str) -> Attempt:
    """One search of `run`: its results read, their evidence assessed and the model's grade."""
    budgets = run.budgets
    started = time.monotonic()
    response: SearchResponse = await run.search.search(query, max_results=budgets.max_results)
    hits = list(response.results[: budgets.max_results])
    pages = await run.reader.read([hit.url for hit in hits]) if hits else []
    fetched = sum(page.has_text for page in pages)
    terms = await run.terms.get()
    sources = _sources(hits, pages)
    evidence = assess(terms, sources, max_sources=budgets.max_results)
    sent = response.query or query
    graded = (
        await evaluate(run.llm, run.goal, sent, sources, terms, budgets.max_results)
        if fetched
        else None
    )
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
        evidence=evidence,
    )


def _stop_reason(attempts: list[Attempt], thresholds: Thresholds) -> StopReason | None:
    """Why to stop after the latest attempt, or None to go on."""
    last = attempts[-1]
    made = last.index + 1
    if last.status in _REFUSED:  # a wrong or missing key: every further search fails alike
        return StopReason(
            "refused", f"the provider refused access ({last.status}) in attempt {made}", made
        )
    if meets_target(attempt_scores([last])[0], thresholds):
        return StopReason("target_reached", f"target reached in attempt {made}", made)
    if last.evaluation is not None and not last.should_retry:
        return StopReason("no_retry", f"evaluator: no retry after attempt {made}", made)
    if len(attempts) > 1 and last.score <= max(a.score for a in attempts[:-1]) and last.fetched:
        return StopReason("not_improving", f"score stopped improving in attempt {made}", made)
    return None


async def deep_research(
    goal: str,
    *,
    search: SearchProvider,
    reader: PageReader,
    llm: ChatClient,
    options: ResearchOptions | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> DeepResearchResult:
    """Research `goal` in at most `options.max_attempts` searches; the best attempt's findings
    and scores, every attempt, the warnings and why the loop stopped. Never raises for a
    provider's, a page's or a model's failure (cancellation goes through). `on_attempt` hears
    of each attempt as soon as it is graded, so a window can show the run as it happens."""
    options = options or ResearchOptions()
    budgets, thresholds = options.budgets, options.thresholds
    started = time.monotonic()
    deadline = started + budgets.run_timeout_s
    attempts: list[Attempt] = []
    notes: list[str] = []
    max_attempts = max(1, options.max_attempts)
    termination = StopReason("attempts_exhausted", f"{max_attempts} attempts made", max_attempts)
    run = Run(
        goal,
        search,
        reader,
        llm,
        budgets,
        thresholds,
        max_attempts,
        options.requires_grounding,
        options.model,
        GoalTerms(goal, search),
    )
    query, source = await first_query(llm, goal, options.stack_hint, options.project_context)
    for index in range(max_attempts):
        if index:
            refined, source, why = await next_query(llm, goal, attempts, await run.terms.get())
            if refined is None:
                assert why is not None
                termination = why
                break
            query = refined
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            termination = StopReason(
                "deadline", f"run deadline of {budgets.run_timeout_s:g} s reached", index
            )
            break
        try:
            async with asyncio.timeout(remaining):
                attempt = await _attempt(run, index, query, source)
        except TimeoutError:
            termination = StopReason(
                "deadline",
                f"run deadline of {budgets.run_timeout_s:g} s reached in attempt {index + 1}",
                index,
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
    return research_result(run, attempts, termination, notes, started)
