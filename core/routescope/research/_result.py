"""The result of a research run (`DeepResearchResult`), assembled from its attempts and why the
loop stopped: the best attempt's findings and scores, the next step
(`_quality.decide_next_step`) and its warnings."""

from __future__ import annotations

import time
from dataclasses import replace

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


KEPT_BY_MEANING = 2
"""The findings always hold this many pages read nearest the goal in meaning (the cosine of the
goal and their nearest passage, as the embedding model alone ranks the corpus); the rest of
them are the pages with the most of the goal's terms. Chosen on the judged set's tune part
(docs/research.md, "Measured: `make eval`")."""


def _term_share(finding: Finding) -> float:
    """The weighted share of the goal's terms a finding's page holds (-1 without evidence)."""
    evidence = finding.evidence
    if evidence is None:
        return -1.0
    return evidence.term_relevance if evidence.term_relevance is not None else evidence.relevance


def _meaning(finding: Finding) -> float | None:
    """The cosine of the goal and the page's nearest passage (None: no embedding model)."""
    return finding.evidence.similarity if finding.evidence is not None else None


def _findings(attempts: list[Attempt], best: int | None, limit: int) -> list[Finding]:
    """The pages read in every attempt, each once (where it scored best), at most `limit`: the
    `KEPT_BY_MEANING` nearest the goal in meaning, then the others with the most goal terms
    (ties: by relevance) — the two readings of a page the offline search fuses. Shown ranked
    by their relevance to the goal (`PageEvidence.rank_score`: its meaning unclipped, so the
    embedding model's order leads and terms break near ties), the best attempt's pages first
    among equals; each says why it was kept (`Finding.why`). A page an earlier attempt read
    is never lost to a later, better-scored attempt. Without the embedding model the findings
    are the pages with the most goal terms."""
    found: dict[str, tuple[tuple[float, int, int], Finding]] = {}
    for attempt in attempts:
        evidence = {p.url: p for p in (attempt.evidence.pages if attempt.evidence else ())}
        for order, (hit, page) in enumerate(zip(attempt.results, attempt.pages, strict=False)):
            if not page.has_text:
                continue
            page_evidence = evidence.get(page.url)
            relevance = page_evidence.rank_score if page_evidence is not None else -1.0
            rank = (-relevance, 0 if attempt.index == best else 1, order)
            known = found.get(page.url)
            if known is None or rank < known[0]:
                finding = Finding(
                    page.url, page.title or hit.title, hit.snippet, attempt.index, page_evidence
                )
                found[page.url] = (rank, finding)
    ranked = [finding for _, finding in sorted(found.values(), key=lambda item: item[0])]
    limit = max(1, limit)
    meant = sorted(
        (f for f in ranked if _meaning(f) is not None), key=lambda f: -(_meaning(f) or 0.0)
    )
    nearest = meant[: min(KEPT_BY_MEANING, limit)]
    near = (
        f"one of the {len(nearest)} pages read nearest"
        if len(nearest) > 1
        else "the page read nearest"
    )
    why = {f.url: f"kept: {near} the goal in meaning" for f in nearest}
    others = "the other pages read" if nearest else "the pages read"
    rest = sorted((f for f in ranked if f.url not in why), key=lambda f: -_term_share(f))
    for finding in rest[: limit - len(nearest)]:
        why[finding.url] = f"kept: among {others}, one with the most of the goal's terms"
    return [replace(f, why=why[f.url]) for f in ranked if f.url in why]


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
        grounding_reason=run.grounding.reason,
    )
    top = attempts[best] if best is not None else None
    findings = _findings(attempts, best, run.budgets.max_results)
    if top is not None and findings and findings[0].attempt != top.index:
        notes.append(
            f"the best page ('{findings[0].title or findings[0].url}') was read in attempt "
            f"{findings[0].attempt + 1}, not in the best attempt ({top.index + 1}): the "
            "findings keep the pages read in every attempt"
        )
    quality = ResearchQuality(
        query=top.query if top else "",
        relevance=top.relevance if top else 0.0,
        confidence=top.confidence if top else 0.0,
        coverage=top.coverage if top else 0.0,
        attempts=len(attempts),
        reasons=(top.evaluation.reasons if top and top.evaluation else "no evaluated attempt"),
        evidence_reasons=top.reasons if top else (),
    )
    warnings = list(step.warnings)
    for attempt in attempts:
        if attempt.disagreement:
            warnings.append(f"attempt {attempt.index + 1}: {attempt.disagreement}")
        if attempt.check:
            notes.append(f"attempt {attempt.index + 1}: {attempt.check}")
    return DeepResearchResult(
        goal=run.goal,
        findings=findings,
        quality=quality,
        attempts=attempts,
        best=best,
        warnings=warnings,
        termination_reason=stop.text,
        next_step=step,
        web_calls=len(attempts),
        pages_fetched=sum(a.fetched for a in attempts),
        model=run.model,
        duration_ms=(time.monotonic() - started) * 1000,
        notes=notes,
        stop=stop,
        goal_terms=run.terms.terms or (),
        grounding=run.grounding,
    )
