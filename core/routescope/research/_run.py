"""What stays the same through one research run (`Run`): the goal, the search provider, the
page reader, the model, the budgets and thresholds, and the goal's terms (`GoalTerms`), weighed
once. The loop (`_loop`) and the result's assembly (`_result`) read it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..llm import ChatClient
from ..optimise._goal_terms import GoalTerm, goal_terms, lookup_words
from ._grounding import Grounding
from ._provider_contract import SearchProvider
from ._quality import Thresholds
from ._records import Budgets, PageReader
from ._semantic import Semantics
from ._termstats import corpus_frequencies

__all__ = ["GoalTerms", "ResearchOptions", "Run"]


@dataclass(frozen=True, slots=True)
class ResearchOptions:
    """How one research run goes: its attempts, what the caller knows of the goal, its budgets
    and thresholds, and the model's name for the report."""

    max_attempts: int = 3
    stack_hint: str | None = None
    project_context: str | None = None
    requires_grounding: bool = False
    """Escalate when no attempt meets the target (used when `grounding` is None)."""
    grounding: Grounding | None = None
    """Whether the goal needs external grounding and why (`derive_grounding`); wins over
    `requires_grounding`."""
    budgets: Budgets = field(default_factory=Budgets)
    thresholds: Thresholds = field(default_factory=Thresholds)
    model: str = ""
    semantics: Semantics | None = None
    """The embedding model's reading of the goal (None: term evidence only)."""


class GoalTerms:
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


@dataclass(frozen=True, slots=True)
class Run:
    """One run's fixed inputs (its attempts and notes are what changes)."""

    goal: str
    search: SearchProvider
    reader: PageReader
    llm: ChatClient
    budgets: Budgets
    thresholds: Thresholds
    max_attempts: int
    grounding: Grounding
    model: str
    terms: GoalTerms
    semantics: Semantics | None = None

    @property
    def requires_grounding(self) -> bool:
        return self.grounding.required
