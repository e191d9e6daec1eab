"""The heuristic model: an offline, deterministic stand-in for the four research prompts
(query optimiser, refiner, relevance evaluator, task classifier), labelled "heuristic" in every
reason it gives.

Queries come from the goal's content words, the strategy router's entities and the stack hint
(`_query_words`; a refined query keeps the goal's rarest terms and those no page covered yet);
scores are the evidence of the fetched text (`_evidence.assess`): which of the goal's terms each
source supports, weighed by rarity (the loop sends the terms it weighed with the corpus's
document frequencies as `goal_terms`), which sources are about the goal, and how far
independent ones agree. No clock, no randomness, no network: the same inputs always give the
same answers, in time linear in the text (each source's text is cut at `MAX_SOURCE_CHARS`).

`HeuristicChat` (`_heuristic_chat`) plays it as a `ChatClient`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..optimise import first_query
from ..optimise._goal_terms import GoalTerm, goal_terms
from ..optimise._query_words import (
    MAX_QUERY_CHARS,
    Ranking,
    fit_query,
    labelled,
    quoted,
    spellings,
)
from ..task import heuristic_task_spec
from ._answers import Evaluation, QueryPlan, Refinement, TaskSpec
from ._evidence import assess
from ._page_evidence import Source

__all__ = [  # Source: for the package's lazy names
    "HEURISTIC_MODEL",
    "ClassifierInput",
    "EvaluatorInput",
    "HeuristicModel",
    "OptimiserInput",
    "RefinerInput",
    "Source",
]

HEURISTIC_MODEL = "heuristic"
"""The name the heuristic model shows wherever a model's name appears."""

_GOOD_RELEVANCE = 0.7
_GOOD_COVERAGE = 0.6
_WEAK_RELEVANCE = 0.6
_EMPTY_FINDINGS = ("", "nothing readable was found")


# ---------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True, slots=True)
class OptimiserInput:
    """search_query_optimizer: the goal, the stack hint and the project context (may be empty)."""

    goal: str
    stack_hint: str | None = None
    """The caller's stack hint; "" says there is none (nothing is inferred); None: infer the
    language from the goal and project context (never a kind such as "frontend" or "CLI",
    which the goal's own words already say)."""
    project_context: str | None = None


@dataclass(frozen=True, slots=True)
class RefinerInput:
    """research_query_refiner: the last attempt. `quality` is None when nothing was evaluated
    (nothing read, or the evaluator failed); `status` is the provider's HTTP status."""

    goal: str
    previous_query: str
    findings_summary: str = ""
    quality: Evaluation | None = None
    status: int | None = None
    stack_hint: str | None = None
    uncovered: Sequence[str] = ()
    """Goal terms no page about the goal supported in the last attempt (the loop's evidence;
    empty when unknown)."""
    terms: Sequence[GoalTerm] | None = None
    """The goal's terms as the loop weighed them; None: weighed here without frequencies."""
    suggested: Sequence[str] = ()
    """New words the documents nearest the goal use (`_suggest`): function and module names
    the goal did not say."""


@dataclass(frozen=True, slots=True)
class EvaluatorInput:
    """research_relevance_evaluator: one attempt's query and the pages it read. `max_sources`
    is how many pages an attempt may read (the loop's `Budgets.max_results`)."""

    goal: str
    query: str
    sources: Sequence[Source] = field(default_factory=tuple)
    max_sources: int = 5
    terms: Sequence[GoalTerm] | None = None
    """The goal's terms as the loop weighed them (with the corpus's document frequencies);
    None: weighed here by the common-word list alone."""
    aspects: Sequence[str] = ()
    """The separate things the goal asks for (`_semantic.aspects`), when the sources carry the
    embedding model's reading."""


@dataclass(frozen=True, slots=True)
class ClassifierInput:
    """task_classifier: the user's latest message."""

    message: str


_MIN_QUERY_WEIGHT = 0.2
"""Goal terms lighter than this (in most documents of the corpus) only add noise to a query."""
_CORE_TERMS = 3


def _failure(status: int | None) -> str:
    """Why the last search gave nothing to grade."""
    if status == 400:
        return "the provider rejected the query (400)"
    if status is not None and status >= 400:
        return f"the provider failed ({status})"
    return "the last search found nothing readable"


# ---------------------------------------------------------------------------------------------
# The model


class HeuristicModel:
    """The four prompts answered by rules (see the module's docstring)."""

    name = HEURISTIC_MODEL

    # -- search_query_optimizer ----------------------------------------------------------------

    def plan_query(self, inputs: OptimiserInput) -> QueryPlan:
        """The first query (`routescope.optimise.first_query`): the router's entities and the
        goal's content words in the goal's order, then the stack hint's words; at most 12
        words and 200 characters."""
        found = first_query(inputs.goal, inputs.stack_hint, inputs.project_context)
        return QueryPlan(
            query=found.query, reason=found.reason, expected_domains=found.expected_domains
        )

    # -- research_query_refiner ----------------------------------------------------------------

    def refine(self, inputs: RefinerInput) -> Refinement:
        """The next query after an attempt, or `should_retry=False` with the reason."""
        previous = inputs.previous_query.strip()
        quality = inputs.quality
        needless = self._needless(inputs, previous)
        if needless is not None:
            return needless
        ranking = Ranking.of(inputs.goal, inputs.stack_hint, previous)
        empty = inputs.findings_summary.strip() in _EMPTY_FINDINGS
        status = inputs.status
        if (status is not None and status >= 400) or quality is None or empty:
            return self._shorter(ranking.words, ranking.rank, previous, _failure(status))
        if inputs.suggested:
            other = self._other_words(inputs, quality, ranking, previous)
            if other is not None:
                return other
        if inputs.terms:
            weighted = self._weighted(inputs.terms, inputs.uncovered, quality, previous)
            if weighted is not None:
                return weighted
        return self._reworded(inputs, quality, ranking, previous)

    def _other_words(
        self, inputs: RefinerInput, quality: Evaluation, ranking: Ranking, previous: str
    ) -> Refinement | None:
        """A query in the documents' own words: the goal's two heaviest terms (its entities
        first) and the new words the nearest documents use for it."""
        terms = inputs.terms or goal_terms(inputs.goal)
        usable = [t for t in terms if t.key and t.findable]
        core = sorted(usable, key=lambda t: (t.kind != "entity", -t.weight))[:2]
        core_words = [w for t in core for w in spellings(t)]
        new = [w for w in inputs.suggested if w.casefold() not in previous.casefold().split()]
        if not new:
            return None
        words = [*core_words, *new[:4]]
        query = " ".join(fit_query(words, [2] * len(core_words) + [1] * len(new[:4])))
        if not query or query.casefold() == previous.casefold():
            return None
        scores = f"relevance {quality.relevance:.1f}, coverage {quality.coverage:.1f}"
        why = f"{scores}: the documents nearest the goal call it {quoted(new[:4])}; kept " + (
            f"the goal's {quoted(core_words)}" if core_words else "no goal word"
        )
        return Refinement(query=query, should_retry=True, reason=labelled(why))

    def _needless(self, inputs: RefinerInput, previous: str) -> Refinement | None:
        """A stop when no other query can help: the target is met or access was refused."""
        quality = inputs.quality
        if (
            quality is not None
            and quality.relevance >= _GOOD_RELEVANCE
            and quality.coverage >= _GOOD_COVERAGE
        ):
            return self._stop(
                previous or inputs.goal,
                f"relevance {quality.relevance:.1f} and coverage {quality.coverage:.1f} "
                "already meet the target",
            )
        if inputs.status in (401, 403):
            return self._stop(
                previous or inputs.goal,
                f"the provider refused access ({inputs.status}); another query will not help",
            )
        return None

    def _reworded(
        self, inputs: RefinerInput, quality: Evaluation, ranking: Ranking, previous: str
    ) -> Refinement:
        """A query from the goal's words as ranked (without weighed terms, or when they gave
        nothing new): the first candidate that differs, else a broader query or a stop."""
        low_relevance = quality.relevance < _WEAK_RELEVANCE
        low_coverage = quality.coverage < _GOOD_COVERAGE
        candidates = ranking.candidates(inputs.findings_summary, low_relevance, low_coverage)
        scores = f"relevance {quality.relevance:.1f}, coverage {quality.coverage:.1f}"
        for candidate, why in candidates:
            query = " ".join(fit_query(candidate, [ranking.rank(w) for w in candidate]))
            if query and query.casefold() != previous.casefold():
                return Refinement(
                    query=query, should_retry=True, reason=labelled(f"{scores}: {why}")
                )
        if low_relevance or low_coverage:
            return self._shorter(
                ranking.words, ranking.rank, previous, f"{scores}; a broader query"
            )
        return self._stop(previous or inputs.goal, f"{scores}: the query cannot change usefully")

    def _weighted(
        self,
        terms: Sequence[GoalTerm],
        uncovered: Sequence[str],
        quality: Evaluation,
        previous: str,
    ) -> Refinement | None:
        """A query from the loop's weighed goal terms: the rarest ones the corpus has (the
        core of the goal), or what no page about the goal covered with the best covered term
        as an anchor; None when neither differs from the previous query."""
        usable = [t for t in terms if t.key and t.findable and t.weight >= _MIN_QUERY_WEIGHT]
        if not usable:
            return None
        missing = set(uncovered)
        top = sorted(usable, key=lambda t: -t.weight)
        core = [t for t in usable if t in top[:_CORE_TERMS]]
        open_terms = [t for t in usable if t.text in missing]
        anchors = [t for t in top if t.text not in missing][:1]
        focus = [t for t in usable if t in open_terms or t in anchors]
        skipped = [t.text for t in terms if t.key and not t.findable]
        core_why = f"kept the goal's rarest terms {quoted(t.text for t in core)}"
        if skipped:
            core_why += f" ({quoted(skipped)} in no document)"
        candidates = [(core, core_why)]
        if open_terms and anchors:
            why = (
                f"focused on what no page about the goal covered, "
                f"{quoted(t.text for t in open_terms)}, anchored on '{anchors[0].text}'"
            )
            candidates.insert(0 if quality.relevance >= _WEAK_RELEVANCE else 1, (focus, why))
        scores = f"relevance {quality.relevance:.1f}, coverage {quality.coverage:.1f}"
        tried = {previous.casefold(), " ".join(sorted(previous.casefold().split()))}
        for chosen, why in candidates:
            words = [w for t in chosen for w in spellings(t)]
            query = " ".join(fit_query(words, [2] * len(words)))
            if query and not {query.casefold(), " ".join(sorted(query.casefold().split()))} & tried:
                return Refinement(
                    query=query, should_retry=True, reason=labelled(f"{scores}: {why}")
                )
        return None

    def _shorter(
        self, words: list[str], rank: Callable[[str], int], previous: str, why: str
    ) -> Refinement:
        count = len(words)
        if count < 2:
            return self._stop(previous or " ".join(words), f"{why}; the query cannot be shorter")
        target = min(count - 1, max(2, (2 * count) // 3))
        ranks = [rank(w) for w in words]
        keep = sorted(range(count), key=lambda i: (-ranks[i], i))[:target]
        kept = [words[i] for i in sorted(keep)]
        shorter = " ".join(fit_query(kept, [rank(w) for w in kept]))
        dropped = [words[i] for i in range(count) if i not in keep]
        if not shorter or shorter.casefold() == previous.casefold():
            return self._stop(previous or shorter, f"{why}; the query cannot change")
        return Refinement(
            query=shorter,
            should_retry=True,
            reason=labelled(f"{why}: a shorter, simpler query without {quoted(dropped)}"),
        )

    def _stop(self, query: str, why: str) -> Refinement:
        query = query.strip()[:MAX_QUERY_CHARS].strip() or "documentation"
        return Refinement(query=query, should_retry=False, reason=labelled(why))

    # -- research_relevance_evaluator ----------------------------------------------------------

    def evaluate(self, inputs: EvaluatorInput) -> Evaluation:
        """The evidence of the sources as a grade (`_evidence.assess`): relevance from the goal
        terms each source supports (rare terms weigh more, titles more than text), coverage
        from the terms supported by sources about the goal, confidence from how many
        independent ones agree (at most 0.4 from one source or host, 0 with none)."""
        terms = inputs.terms if inputs.terms is not None else goal_terms(inputs.goal)
        evidence = assess(
            terms, inputs.sources, max_sources=inputs.max_sources, aspects=inputs.aspects
        )
        return Evaluation(
            relevance=evidence.relevance,
            confidence=evidence.confidence,
            coverage=evidence.coverage,
            should_retry=evidence.should_retry,
            reasons=labelled("; ".join(r.text for r in evidence.reasons) + "."),
        )

    # -- task_classifier -----------------------------------------------------------------------

    def classify(self, inputs: ClassifierInput) -> TaskSpec:
        """The task router's heuristic (`routescope.task`), answering the classifier prompt."""
        return heuristic_task_spec(inputs.message)
