"""The result of a research run (`DeepResearchResult`), assembled from its attempts and why the
loop stopped: the best attempt's findings and scores, the next step
(`_quality.decide_next_step`) and its warnings."""

from __future__ import annotations

import time

from ._quality import Scores, StopReason, best_attempt, decide_next_step
from ._records import Attempt, DeepResearchResult, Finding, ResearchQuality
from ._run import Run

__all__ = ["attempt_scores", "research_result"]


def attempt_scores(attempts: list[Attempt]) -> list[Scores]:
    return [Scores(a.relevance, a.confidence, a.coverage, a.fetched) for a in attempts]


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


def research_result(
    run: Run, attempts: list[Attempt], stop: StopReason, notes: list[str], started: float
) -> DeepResearchResult:
    """The run's result from its attempts, why it stopped (`stop`), its notes and when it
    started (`time.monotonic`)."""
    thresholds = run.thresholds
    if stop.kind == "no_retry" and stop.text.startswith("evaluator") and attempts:
        detail = _retry_detail(attempts[-1])
        if detail:
            stop = StopReason(stop.kind, f"{stop.text} ({detail})", stop.attempt)
    scores = attempt_scores(attempts)
    best = best_attempt(scores, thresholds)
    step = decide_next_step(
        scores,
        stop,
        run.max_attempts,
        requires_grounding=run.requires_grounding,
        thresholds=thresholds,
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
        goal=run.goal,
        findings=findings,
        quality=quality,
        attempts=attempts,
        best=best,
        warnings=list(step.warnings),
        termination_reason=stop.text,
        next_step=step,
        web_calls=len(attempts),
        pages_fetched=sum(a.fetched for a in attempts),
        model=run.model,
        duration_ms=(time.monotonic() - started) * 1000,
        notes=notes,
        stop=stop,
        goal_terms=run.terms.terms or (),
    )
