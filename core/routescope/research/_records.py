"""What a research run reads and records: the pages read (`PageRead`, by a `PageReader`), the
budgets it runs within, each attempt with its evidence, the findings and the result
(`DeepResearchResult`) that `deep_research` (`_loop`) gives back. Data only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..optimise._goal_terms import GoalTerm
from ._answers import Evaluation
from ._evidence import AttemptEvidence, ScoreReason
from ._grounding import Grounding
from ._models import SearchHit
from ._page_evidence import PageEvidence
from ._quality import NextStep, StopReason

__all__ = [
    "Attempt",
    "Budgets",
    "DeepResearchResult",
    "Finding",
    "PageRead",
    "PageReader",
    "ResearchQuality",
]


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
    """A page read (in any attempt: `attempt` says which), with what it supports of the goal;
    the findings are the pages most relevant to the goal across attempts."""

    url: str
    title: str
    snippet: str
    attempt: int
    evidence: PageEvidence | None = None
    """Which goal terms the page supports, where, and its relevance (heuristic)."""
    why: str = ""
    """Why the findings keep the page: nearest the goal in meaning, or among the most of its
    terms (`_result._findings`)."""


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
    check: str = ""
    """Why the scores are not the model's (`_checked`): capped at what the pages support, or
    the evidence's because the model failed; "" when they are the model's own."""
    disagreement: str = ""
    """The model and the pages disagree on this attempt (one sentence), "" when they do not."""

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
    grounding: Grounding | None = None
    """Whether the goal needed external grounding, who decided and why."""
