"""`deep_research`: the multi-attempt loop of seed 003. Attempt 0 asks the query optimiser,
later attempts the refiner (fed the previous query, a summary of the findings, the scores and
the goal terms no page covered); every attempt searches, reads the allowed pages and is graded
by the evaluator. Every attempt also carries its evidence (`AttemptEvidence`: which goal terms
each page read supports, weighed by their rarity in the searched corpus when the search can
tell), whatever model graded it; the next step is decided from the attempts and why the loop
stopped (`_quality.decide`). Pure orchestration: the search provider, the page reader and the
model are injected."""

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
from ._evidence import AttemptEvidence, ScoreReason, assess
from ._goal_terms import GoalTerm, goal_terms, lookup_words
from ._models import SearchHit, SearchResponse
from ._page_evidence import MAX_SOURCE_CHARS, PageEvidence, Source
from ._providers import SearchProvider, shorten_query
from ._quality import (
    NextStep,
    Scores,
    StopReason,
    Thresholds,
    best_attempt,
    decide,
    meets_target,
    score,
)
from ._termstats import corpus_frequencies

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
"""Text of one page a model's evaluator sees, unless the model says it reads more
(`source_chars`: the heuristic reads what the evidence reads, `MAX_SOURCE_CHARS`)."""
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
    """A page the best attempt read, with what it supports of the goal."""

    url: str
    title: str
    snippet: str
    attempt: int
    evidence: PageEvidence | None = None
    """Which goal terms the page supports, where, and its relevance (heuristic)."""


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
    evidence: AttemptEvidence | None = None
    """The pages' evidence for the goal, whatever model graded the attempt: per page the goal
    terms it supports and its relevance, and the scores and reasons that follow (heuristic).
    With the heuristic model the attempt's scores are these; None only for an attempt made
    by hand."""

    @property
    def fetched(self) -> int:
        return sum(page.has_text for page in self.pages)

    @property
    def reasons(self) -> tuple[ScoreReason, ...]:
        """The evidence's reasons as data (relevance, coverage, confidence, retry)."""
        return self.evidence.reasons if self.evidence is not None else ()


@dataclass(frozen=True, slots=True)
class ResearchQuality:
    """The seed's `ResearchQuality`: the best attempt's query, scores and reasons."""

    query: str
    relevance: float
    confidence: float
    coverage: float
    attempts: int
    reasons: str
    """The evaluator's reasons for the best attempt (one string, as the model gave them)."""
    evidence_reasons: tuple[ScoreReason, ...] = ()
    """The best attempt's evidence, reason by reason (heuristic), for showing inline."""


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
    stop: StopReason | None = None
    """Why the loop stopped, as data (`termination_reason` is its text)."""
    goal_terms: tuple[GoalTerm, ...] = ()
    """The goal's terms the pages were matched against, with their weights."""


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


async def _next_query(
    llm: ChatClient, goal: str, attempts: list[Attempt], terms: tuple[GoalTerm, ...]
) -> tuple[str | None, str, StopReason | None]:
    """The refiner's next query, or None with the reason to stop."""
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
    }
    answer = await _ask(llm, "research_query_refiner", inputs, Refinement)
    made = len(attempts)
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


def _sources(hits: list[SearchHit], pages: list[PageRead]) -> list[Source]:
    """The pages read (with text), with their results' snippets."""
    snippets = {hit.url: hit.snippet for hit in hits}
    return [
        Source(page.url, page.title, page.text[:MAX_SOURCE_CHARS], snippets.get(page.url, ""))
        for page in pages
        if page.has_text
    ]


def _source_chars(llm: ChatClient) -> int:
    chars = getattr(llm, "source_chars", None)
    return chars if isinstance(chars, int) and chars > 0 else _SOURCE_CHARS


async def _evaluate(
    llm: ChatClient,
    goal: str,
    query: str,
    sources: list[Source],
    terms: tuple[GoalTerm, ...],
    max_sources: int,
) -> JsonAnswer[Evaluation]:
    cut = _source_chars(llm)
    inputs = {
        "goal": goal,
        "query": query,
        "sources": [
            {"url": s.url, "title": s.title, "snippet": s.snippet, "text": s.text[:cut]}
            for s in sources
        ],
        "goal_terms": _terms_data(terms),
        "max_sources": max_sources,
    }
    return await _ask(llm, "research_relevance_evaluator", inputs, Evaluation)


class _GoalTerms:
    """The goal's terms, weighed once by the searched corpus's document frequencies (asked
    after the first search, when an offline index is open)."""

    def __init__(self, goal: str, search: SearchProvider) -> None:
        self.goal = goal
        self.search = search
        self.terms: tuple[GoalTerm, ...] | None = None

    async def get(self) -> tuple[GoalTerm, ...]:
        if self.terms is None:
            frequencies = await corpus_frequencies(self.search, lookup_words(self.goal))
            self.terms = goal_terms(self.goal, frequencies)
        return self.terms


async def _attempt(
    index: int,
    query: str,
    source: str,
    goal: str,
    search: SearchProvider,
    reader: PageReader,
    llm: ChatClient,
    budgets: Budgets,
    goal_terms: _GoalTerms,
) -> Attempt:
    started = time.monotonic()
    response: SearchResponse = await search.search(query, max_results=budgets.max_results)
    hits = list(response.results[: budgets.max_results])
    pages = await reader.read([hit.url for hit in hits]) if hits else []
    fetched = sum(page.has_text for page in pages)
    terms = await goal_terms.get()
    sources = _sources(hits, pages)
    evidence = assess(terms, sources, max_sources=budgets.max_results)
    sent = response.query or query
    graded = (
        await _evaluate(llm, goal, sent, sources, terms, budgets.max_results) if fetched else None
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


def _scores(attempts: list[Attempt]) -> list[Scores]:
    return [Scores(a.relevance, a.confidence, a.coverage, a.fetched) for a in attempts]


def _stop_reason(attempts: list[Attempt], thresholds: Thresholds) -> StopReason | None:
    """Why to stop after the latest attempt, or None to go on."""
    last = attempts[-1]
    made = last.index + 1
    if last.status in _REFUSED:  # a wrong or missing key: every further search fails alike
        return StopReason(
            "refused", f"the provider refused access ({last.status}) in attempt {made}", made
        )
    if meets_target(_scores([last])[0], thresholds):
        return StopReason("target_reached", f"target reached in attempt {made}", made)
    if last.evaluation is not None and not last.should_retry:
        return StopReason("no_retry", f"evaluator: no retry after attempt {made}", made)
    if len(attempts) > 1 and last.score <= max(a.score for a in attempts[:-1]) and last.fetched:
        return StopReason("not_improving", f"score stopped improving in attempt {made}", made)
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
    max_attempts = max(1, max_attempts)
    termination = StopReason("attempts_exhausted", f"{max_attempts} attempts made", max_attempts)
    terms = _GoalTerms(goal, search)
    query, source = await _first_query(llm, goal, stack_hint, project_context)
    for index in range(max_attempts):
        if index:
            next_query, source, why = await _next_query(llm, goal, attempts, await terms.get())
            if next_query is None:
                assert why is not None
                termination = why
                break
            query = next_query
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            termination = StopReason(
                "deadline", f"run deadline of {budgets.run_timeout_s:g} s reached", index
            )
            break
        try:
            async with asyncio.timeout(remaining):
                attempt = await _attempt(
                    index, query, source, goal, search, reader, llm, budgets, terms
                )
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
        terms.terms or (),
    )


def _retry_detail(attempt: Attempt) -> str:
    """Why the evaluator did not ask for another query, as short as it can be said."""
    evaluation = attempt.evaluation
    if evaluation is None:
        return ""
    evidence = attempt.evidence
    if (
        evidence is not None
        and evaluation.reasons.startswith("heuristic: ")
        and evidence.should_retry == evaluation.should_retry
    ):  # the heuristic grades by the evidence: its retry reason is the evidence's
        return "heuristic: " + evidence.reasons[-1].text
    return evaluation.reasons[:300]


def _result(
    goal: str,
    attempts: list[Attempt],
    stop: StopReason,
    notes: list[str],
    max_attempts: int,
    requires_grounding: bool,
    thresholds: Thresholds,
    model: str,
    started: float,
    terms: tuple[GoalTerm, ...],
) -> DeepResearchResult:
    if stop.kind == "no_retry" and stop.text.startswith("evaluator") and attempts:
        detail = _retry_detail(attempts[-1])
        if detail:
            stop = StopReason(stop.kind, f"{stop.text} ({detail})", stop.attempt)
    scores = _scores(attempts)
    best = best_attempt(scores, thresholds)
    step = decide(
        scores, stop, max_attempts, requires_grounding=requires_grounding, thresholds=thresholds
    )
    top = attempts[best] if best is not None else None
    findings: list[Finding] = []
    if top is not None:
        pages = {page.url: page for page in (top.evidence.pages if top.evidence else ())}
        findings = [
            Finding(page.url, page.title or hit.title, hit.snippet, top.index, pages.get(page.url))
            for hit, page in zip(top.results, top.pages, strict=False)
            if page.has_text
        ]
    quality = ResearchQuality(
        query=top.query if top else "",
        relevance=top.relevance if top else 0.0,
        confidence=top.confidence if top else 0.0,
        coverage=top.coverage if top else 0.0,
        attempts=len(attempts),
        reasons=(top.evaluation.reasons if top and top.evaluation else "no evaluated attempt"),
        evidence_reasons=top.reasons if top else (),
    )
    return DeepResearchResult(
        goal=goal,
        findings=findings,
        quality=quality,
        attempts=attempts,
        best=best,
        warnings=list(step.warnings),
        termination_reason=stop.text,
        next_step=step,
        web_calls=len(attempts),
        pages_fetched=sum(a.fetched for a in attempts),
        model=model,
        duration_ms=(time.monotonic() - started) * 1000,
        notes=notes,
        stop=stop,
        goal_terms=terms,
    )
