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
from ..optimise._goal_terms import GoalTerm
from ._answers import Evaluation
from ._asking import evaluate, first_query, next_query
from ._checked import Checked, checked_scores, refusal
from ._evidence import assess
from ._grounding import Grounding
from ._heuristic import HEURISTIC_MODEL
from ._models import SearchHit, SearchResponse
from ._page_evidence import MAX_SOURCE_CHARS, Source
from ._provider_contract import SearchProvider
from ._quality import Scores, StopReason, Thresholds, meets_target, score
from ._records import Attempt, DeepResearchResult, PageRead, PageReader
from ._result import attempt_scores, research_result
from ._run import GoalTerms, ResearchOptions, Run
from ._suggest import suggested_words

__all__ = ["deep_research"]

_REFUSED = (401, 403)


async def _sources(run: Run, hits: list[SearchHit], pages: list[PageRead]) -> list[Source]:
    """The pages read (with text), with their results' snippets and, when the run has the
    embedding model, its reading of each page."""
    snippets = {hit.url: hit.snippet for hit in hits}
    read = [page for page in pages if page.has_text]
    semantics = run.semantics
    scored = (
        await asyncio.to_thread(semantics.pages, [(p.url, p.title, p.text) for p in read])
        if semantics is not None and read
        else {}
    )
    sources = []
    for page in read:
        found = scored.get(page.url)
        sources.append(
            Source(
                page.url,
                page.title,
                page.text[:MAX_SOURCE_CHARS],
                snippets.get(page.url, ""),
                found.similarity if found else None,
                found.passage if found else "",
                found.aspects if found else (),
            )
        )
    return sources


async def _search(run: Run, query: str) -> SearchResponse:
    budgets = run.budgets
    if getattr(run.search, "takes_goal", False):  # the offline index ranks the goal's words too
        search = run.search.search
        return await search(query, max_results=budgets.max_results, goal=run.goal)  # type: ignore[call-arg]
    return await run.search.search(query, max_results=budgets.max_results)


async def _grade(
    run: Run,
    query: str,
    sources: list[Source],
    terms: tuple[GoalTerm, ...],
    aspects: tuple[str, ...],
    deadline: float,
) -> tuple[Evaluation | None, str, str | None]:
    """The model's grade (None when it gave none), why not, and why the model refuses every
    call when it does. A grade the run's deadline cuts short is no grade: the evidence's
    stands."""
    try:
        async with asyncio.timeout_at(deadline):
            graded = await evaluate(
                run.llm, run.goal, query, sources, terms, run.budgets.max_results, aspects
            )
    except TimeoutError:
        limit = run.budgets.run_timeout_s
        return None, f"the run's deadline of {limit:g} s passed while the model graded", None
    if graded.value is not None:
        return graded.value, "", None
    return None, graded.error or "no answer", refusal(graded)


async def _attempt(
    run: Run, index: int, query: str, source: str, deadline: float
) -> tuple[Attempt, str | None]:
    """One search of `run`: its results read, their evidence assessed and the model's grade,
    checked by the evidence (`_checked`); and why the model refuses every call, if it does.
    Raises TimeoutError when the deadline passes before anything was read."""
    budgets = run.budgets
    started = time.monotonic()
    async with asyncio.timeout_at(deadline):
        response = await _search(run, query)
        hits = list(response.results[: budgets.max_results])
        pages = await run.reader.read([hit.url for hit in hits]) if hits else []
        terms = await run.terms.get()
        sources = await _sources(run, hits, pages)
    fetched = sum(page.has_text for page in pages)
    aspects = run.semantics.aspects if run.semantics is not None else ()
    evidence = assess(terms, sources, max_sources=budgets.max_results, aspects=aspects)
    sent = response.query or query
    evaluation, failure, refused = (
        await _grade(run, sent, sources, terms, aspects, deadline) if fetched else (None, "", None)
    )
    if fetched == 0:  # nothing read scores 0, whatever a model says
        checked = Checked(0.0, 0.0, 0.0, True)
    else:
        checked = checked_scores(
            evaluation, evidence, failure=failure, heuristic=run.model == HEURISTIC_MODEL
        )
    scores = Scores(checked.relevance, checked.confidence, checked.coverage, fetched)
    attempt = Attempt(
        index=index,
        query=sent,
        query_source=source,
        provider=response.provider,
        status=response.status,
        error=response.error.message if response.error else None,
        results=hits,
        pages=pages,
        evaluation=evaluation,
        evaluator_error=failure or None,
        relevance=checked.relevance,
        confidence=checked.confidence,
        coverage=checked.coverage,
        should_retry=checked.should_retry,
        score=score(scores),
        duration_ms=(time.monotonic() - started) * 1000,
        evidence=evidence,
        check=checked.note,
        disagreement=checked.disagreement,
    )
    return attempt, refused


def _grounding(options: ResearchOptions) -> Grounding:
    """The run's grounding: the options' own, else what `requires_grounding` says."""
    if options.grounding is not None:
        return options.grounding
    if options.requires_grounding:
        return Grounding(True, "setting", reason="grounding required by the caller")
    return Grounding(False, "setting", reason="")


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
        _grounding(options),
        options.model,
        GoalTerms(goal, search),
        options.semantics,
    )
    loop_deadline = asyncio.get_running_loop().time() + budgets.run_timeout_s
    try:
        async with asyncio.timeout_at(loop_deadline):
            query, source, refused = await first_query(
                llm, goal, options.stack_hint, options.project_context
            )
    except TimeoutError:
        query, source, refused = goal, "goal (optimiser: the run's deadline passed)", None
    for index in range(max_attempts):
        if index:
            suggested = await asyncio.to_thread(suggested_words, goal, attempts, run.semantics)
            refined, source, why = await next_query(
                llm, goal, attempts, await run.terms.get(), suggested
            )
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
            attempt, refused_now = await _attempt(run, index, query, source, loop_deadline)
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
        refused = refused or refused_now
        if refused is not None:  # every further call of the model fails alike
            termination = StopReason("model_refused", refused, index + 1)
            break
        stop = _stop_reason(attempts, thresholds)
        if stop is not None:
            termination = stop
            break
    return research_result(run, attempts, termination, notes, started)
