"""The heuristic model: an offline, deterministic stand-in for the four research prompts
(query optimiser, refiner, relevance evaluator, task classifier), labelled "heuristic" in every
reason it gives.

Queries come from the goal's content words, the strategy router's entities and the stack hint
(a refined query keeps the goal's rarest terms and those no page covered yet); scores are the
evidence of the fetched text (`_evidence.assess`): which of the goal's terms each source
supports, weighed by rarity (the loop sends the terms it weighed with the corpus's document
frequencies as `goal_terms`), which sources are about the goal, and how far independent ones
agree. No clock, no randomness, no network: the same inputs always give the same answers, in
time linear in the text (each source's text is cut at `MAX_SOURCE_CHARS`).

`HeuristicChat` plays a `ChatClient`: the research loop sends each prompt's inputs as one JSON
object in the user message (the keys of `OptimiserInput`, `RefinerInput` — whose summary may be
sent as `findings` — `EvaluatorInput` and `ClassifierInput`), and the adapter answers with the
prompt's model. Unreadable inputs and unknown prompt names come back as a `malformed` answer,
never as an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .._analysis import COMPOUND_WORD, light_stem
from ..llm import JsonAnswer
from ..rules import default_rules
from ..strategy import QueryContext, extract
from ..task import heuristic_task_spec
from ._answers import PROMPTS, Evaluation, QueryPlan, Refinement, TaskSpec
from ._evidence import assess
from ._goal_terms import STOPWORDS, GoalTerm, goal_terms
from ._page_evidence import MAX_SOURCE_CHARS, Source
from ._quality import infer_stack

__all__ = [
    "HEURISTIC_MODEL",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_WORDS",
    "MAX_SOURCE_CHARS",
    "ClassifierInput",
    "EvaluatorInput",
    "HeuristicChat",
    "HeuristicModel",
    "OptimiserInput",
    "RefinerInput",
    "Source",
]

M = TypeVar("M", bound=BaseModel)

HEURISTIC_MODEL = "heuristic"
"""The name the heuristic model shows wherever a model's name appears."""
MAX_QUERY_WORDS = 12
MAX_QUERY_CHARS = 200

_LABEL = "heuristic: "
_REASON_CHARS = 1_900
_GOOD_RELEVANCE = 0.7
_GOOD_COVERAGE = 0.6
_WEAK_RELEVANCE = 0.6
_EMPTY_FINDINGS = ("", "nothing readable was found")

_OPERATOR = re.compile(r"\b[a-z]+:\S+", re.IGNORECASE)

_STOPWORDS = STOPWORDS

_DOMAINS: dict[str, tuple[str, ...]] = {
    "python": ("docs.python.org",),
    "asyncio": ("docs.python.org",),
    "tkinter": ("docs.python.org",),
    "pip": ("pip.pypa.io",),
    "pytest": ("docs.pytest.org",),
    "pyside6": ("doc.qt.io",),
    "pyqt": ("doc.qt.io",),
    "pyqt6": ("doc.qt.io",),
    "qt": ("doc.qt.io",),
    "gui": (),
    "django": ("docs.djangoproject.com",),
    "flask": ("flask.palletsprojects.com",),
    "fastapi": ("fastapi.tiangolo.com",),
    "pydantic": ("docs.pydantic.dev",),
    "numpy": ("numpy.org",),
    "pandas": ("pandas.pydata.org",),
    "react": ("react.dev",),
    "vite": ("vite.dev",),
    "typescript": ("www.typescriptlang.org",),
    "javascript": ("developer.mozilla.org",),
    "node": ("nodejs.org",),
    "nodejs": ("nodejs.org",),
    "node.js": ("nodejs.org",),
    "npm": ("docs.npmjs.com",),
    "css": ("developer.mozilla.org",),
    "html": ("developer.mozilla.org",),
    "frontend": ("developer.mozilla.org",),
    "rust": ("doc.rust-lang.org",),
    "cargo": ("doc.rust-lang.org",),
    "tokio": ("docs.rs",),
    "go": ("go.dev",),
    "golang": ("go.dev",),
    "docker": ("docs.docker.com",),
    "kubernetes": ("kubernetes.io",),
    "ubuntu": ("help.ubuntu.com",),
    "git": ("git-scm.com",),
}
"""Stack or entity word (lower-cased) → where its documentation lives."""
_QA_DOMAIN = "stackoverflow.com"


# ---------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True, slots=True)
class OptimiserInput:
    """search_query_optimizer: the goal, the stack hint and the project context (may be empty)."""

    goal: str
    stack_hint: str | None = None
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


@dataclass(frozen=True, slots=True)
class ClassifierInput:
    """task_classifier: the user's latest message."""

    message: str


# ---------------------------------------------------------------------------------------------
# Words


def _stem(word: str) -> str:
    return light_stem(word)


def _words(text: str) -> list[str]:
    return COMPOUND_WORD.findall(text)


def _content(words: Iterable[str]) -> list[str]:
    """`words` without stopwords and repeats (by stem), in their order."""
    seen: set[str] = set()
    kept: list[str] = []
    for word in words:
        stem = _stem(word)
        if word.lower() in _STOPWORDS or stem in seen:
            continue
        seen.add(stem)
        kept.append(word)
    return kept


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in COMPOUND_WORD.findall(text)}


def _context(text: str) -> QueryContext:
    return extract(text, default_rules())


def _entities(context: QueryContext) -> list[str]:
    """The router's entities, best first, without those made only of stopwords."""
    return [
        entity
        for entity in context.entities.candidates
        if any(word.lower() not in _STOPWORDS for word in _words(entity))
    ]


def _labelled(text: str) -> str:
    text = _LABEL + text
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def _quoted(words: Iterable[str], limit: int = 6) -> str:
    items = list(words)
    shown = ", ".join(f"'{word}'" for word in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _fit(words: list[str], rank: list[int]) -> list[str]:
    """`words` cut to the query limits by dropping the lowest ranked, latest words first."""
    keep = list(range(len(words)))

    def too_long() -> bool:
        kept = [words[i] for i in keep]
        return len(kept) > MAX_QUERY_WORDS or len(" ".join(kept)) > MAX_QUERY_CHARS

    while keep and too_long():
        drop = min(keep, key=lambda i: (rank[i], -i))
        keep.remove(drop)
    return [words[i][:MAX_QUERY_CHARS] for i in keep]


_MIN_QUERY_WEIGHT = 0.2
"""Goal terms lighter than this (in most documents of the corpus) only add noise to a query."""
_CORE_TERMS = 3


def _spellings(term: GoalTerm) -> list[str]:
    """How a term goes into a query: a hyphenated compound also joined up (`SHA-256` and
    `SHA256`), as documents often write it."""
    if term.kind == "phrase" and "-" in term.text and " " not in term.text:
        return [term.text, term.text.replace("-", "")]
    return [term.text]


def _domains(words: Iterable[str]) -> list[str]:
    domains: list[str] = []
    for word in words:
        for domain in _DOMAINS.get(word.lower(), ()):
            if domain not in domains:
                domains.append(domain)
    if domains:
        domains.append(_QA_DOMAIN)
    return domains[:5]


# ---------------------------------------------------------------------------------------------
# The model


class HeuristicModel:
    """The four prompts answered by rules (see the module's docstring)."""

    name = HEURISTIC_MODEL

    # -- search_query_optimizer ----------------------------------------------------------------

    def plan_query(self, inputs: OptimiserInput) -> QueryPlan:
        """The first query: the router's entities and the goal's content words in the goal's
        order, then the stack hint's words; at most 12 words and 200 characters."""
        context = _context(inputs.goal)
        entities = _entities(context)
        stack = (inputs.stack_hint or "").strip()
        stack_from = "the stack hint"
        if not stack:
            stack = infer_stack(inputs.goal, inputs.project_context).hint or ""
            stack_from = "the stack inferred from the goal and project context"
        entity_words = {_stem(w) for entity in entities for w in _words(entity)}
        goal_words = _content(_words(context.user_goal or inputs.goal))
        words = list(goal_words)
        rank = [3 if _stem(w) in entity_words else 1 for w in words]
        present = {_stem(w) for w in words}
        for entity in entities:  # entities the goal's words missed (rare: spans split oddly)
            for word in _content(_words(entity)):
                if _stem(word) not in present:
                    present.add(_stem(word))
                    words.append(word)
                    rank.append(3)
        stack_words = [w for w in _content(_words(stack)) if _stem(w) not in present]
        words += stack_words
        rank += [2] * len(stack_words)
        query_words = _fit(words, rank)
        parts = []
        from_entities = [w for w in query_words if _stem(w) in entity_words]
        from_goal = [w for w in query_words if w in goal_words and _stem(w) not in entity_words]
        if from_entities:
            parts.append(f"entities {_quoted(from_entities)} from the strategy router")
        if from_goal:
            parts.append(f"goal words {_quoted(from_goal)}")
        added = [w for w in stack_words if w in query_words]
        if added:
            parts.append(f"{_quoted(added)} from {stack_from} '{stack}'")
        dropped = len(words) - len(query_words)
        if not query_words:
            fallback = " ".join(_words(inputs.goal)[:MAX_QUERY_WORDS])[:MAX_QUERY_CHARS]
            query = fallback or "documentation"
            reason = "the goal has no content words; the query is the goal as written"
            if not fallback:
                reason = "the goal is empty; a generic query"
        else:
            query = " ".join(query_words)
            reason = "; ".join(parts)
            reason += "; stopwords and filler dropped"
            if dropped:
                reason += f"; {dropped} least important word(s) cut to fit 12 words"
        return QueryPlan(
            query=query,
            reason=_labelled(reason),
            expected_domains=_domains([*entities, *_words(stack), *goal_words]),
        )

    # -- research_query_refiner ----------------------------------------------------------------

    def refine(self, inputs: RefinerInput) -> Refinement:
        """The next query after an attempt, or `should_retry=False` with the reason."""
        previous = inputs.previous_query.strip()
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
        context = _context(inputs.goal)
        entities = {_stem(w) for entity in _entities(context) for w in _words(entity)}
        goal_terms = _content(_words(context.user_goal or inputs.goal))
        goal_stems = {_stem(w) for w in goal_terms}
        stack = (inputs.stack_hint or "").strip() or infer_stack(inputs.goal).hint or ""
        stack_stems = {_stem(w) for w in _content(_words(stack))}
        words = _words(_OPERATOR.sub(" ", previous)) or goal_terms or _words(inputs.goal)

        def rank(word: str) -> int:
            stem = _stem(word)
            if stem in entities:
                return 3
            if stem in stack_stems:
                return 2
            return 1 if stem in goal_stems and word.lower() not in _STOPWORDS else 0

        empty = inputs.findings_summary.strip() in _EMPTY_FINDINGS
        status = inputs.status
        if (status is not None and status >= 400) or quality is None or empty:
            if status == 400:
                why = "the provider rejected the query (400)"
            elif status is not None and status >= 400:
                why = f"the provider failed ({status})"
            else:
                why = "the last search found nothing readable"
            return self._shorter(words, rank, previous, why)
        if inputs.terms:
            weighted = self._weighted(inputs.terms, inputs.uncovered, quality, previous)
            if weighted is not None:
                return weighted
        low_relevance = quality.relevance < _WEAK_RELEVANCE
        low_coverage = quality.coverage < _GOOD_COVERAGE
        present = {_stem(w) for w in words}
        candidates: list[tuple[list[str], str]] = []
        missing_stack = [w for w in _content(_words(stack)) if _stem(w) not in present]
        off_goal = [w for w in words if rank(w) == 0]
        missing_goal = sorted(
            (w for w in goal_terms if _stem(w) not in present),
            key=lambda w: -rank(w),
        )[:3]
        found = _stems(inputs.findings_summary)
        uncovered = [w for w in goal_terms if _stem(w) not in found]
        if low_relevance and missing_stack:
            candidates.append(
                (words + missing_stack, f"added the stack '{stack}' to keep results on it")
            )
        if low_relevance and off_goal:
            kept = [w for w in words if rank(w) > 0]
            candidates.append((kept, f"removed over-specific words {_quoted(off_goal)}"))
        if missing_goal:
            candidates.append((words + missing_goal, f"added goal words {_quoted(missing_goal)}"))
        if low_coverage and uncovered:
            anchors = [w for w in words if rank(w) >= 2]
            focus = [w for w in _content([*anchors, *uncovered])]
            candidates.append((focus, f"focused on what no source covered: {_quoted(uncovered)}"))
        scores = f"relevance {quality.relevance:.1f}, coverage {quality.coverage:.1f}"
        for candidate, why in candidates:
            query = " ".join(_fit(candidate, [rank(w) for w in candidate]))
            if query and query.casefold() != previous.casefold():
                return Refinement(
                    query=query, should_retry=True, reason=_labelled(f"{scores}: {why}")
                )
        if low_relevance or low_coverage:
            return self._shorter(words, rank, previous, f"{scores}; a broader query")
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
        core_why = f"kept the goal's rarest terms {_quoted(t.text for t in core)}"
        if skipped:
            core_why += f" ({_quoted(skipped)} in no document)"
        candidates = [(core, core_why)]
        if open_terms and anchors:
            why = (
                f"focused on what no page about the goal covered, "
                f"{_quoted(t.text for t in open_terms)}, anchored on '{anchors[0].text}'"
            )
            candidates.insert(0 if quality.relevance >= _WEAK_RELEVANCE else 1, (focus, why))
        scores = f"relevance {quality.relevance:.1f}, coverage {quality.coverage:.1f}"
        tried = {previous.casefold(), " ".join(sorted(previous.casefold().split()))}
        for chosen, why in candidates:
            words = [w for t in chosen for w in _spellings(t)]
            query = " ".join(_fit(words, [2] * len(words)))
            if query and not {query.casefold(), " ".join(sorted(query.casefold().split()))} & tried:
                return Refinement(
                    query=query, should_retry=True, reason=_labelled(f"{scores}: {why}")
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
        shorter = " ".join(_fit(kept, [rank(w) for w in kept]))
        dropped = [words[i] for i in range(count) if i not in keep]
        if not shorter or shorter.casefold() == previous.casefold():
            return self._stop(previous or shorter, f"{why}; the query cannot change")
        return Refinement(
            query=shorter,
            should_retry=True,
            reason=_labelled(f"{why}: a shorter, simpler query without {_quoted(dropped)}"),
        )

    def _stop(self, query: str, why: str) -> Refinement:
        query = query.strip()[:MAX_QUERY_CHARS].strip() or "documentation"
        return Refinement(query=query, should_retry=False, reason=_labelled(why))

    # -- research_relevance_evaluator ----------------------------------------------------------

    def evaluate(self, inputs: EvaluatorInput) -> Evaluation:
        """The evidence of the sources as a grade (`_evidence.assess`): relevance from the goal
        terms each source supports (rare terms weigh more, titles more than text), coverage
        from the terms supported by sources about the goal, confidence from how many
        independent ones agree (at most 0.4 from one source or host, 0 with none)."""
        terms = inputs.terms if inputs.terms is not None else goal_terms(inputs.goal)
        evidence = assess(terms, inputs.sources, max_sources=inputs.max_sources)
        return Evaluation(
            relevance=evidence.relevance,
            confidence=evidence.confidence,
            coverage=evidence.coverage,
            should_retry=evidence.should_retry,
            reasons=_labelled("; ".join(r.text for r in evidence.reasons) + "."),
        )

    # -- task_classifier -----------------------------------------------------------------------

    def classify(self, inputs: ClassifierInput) -> TaskSpec:
        """The task router's heuristic (`routescope.task`), answering the classifier prompt."""
        return heuristic_task_spec(inputs.message)


# ---------------------------------------------------------------------------------------------
# The ChatClient adapter


class _BadInputError(ValueError):
    pass


def _text(data: dict[str, Any], *keys: str, required: bool = False) -> str:
    for key in keys:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise _BadInputError(f"'{key}' must be a string")
        return value
    if required:
        raise _BadInputError(f"'{keys[0]}' is missing")
    return ""


def _status(data: dict[str, Any]) -> int | None:
    value = data.get("status")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadInputError("'status' must be an integer or null")
    return value


def _quality(data: dict[str, Any]) -> Evaluation | None:
    value = data.get("quality")
    if value is None:
        return None
    try:
        return Evaluation.model_validate(value)
    except ValidationError as exc:
        raise _BadInputError(
            f"'quality' is not an evaluation ({exc.error_count()} error(s))"
        ) from None


def _sources(data: dict[str, Any]) -> tuple[Source, ...]:
    value = data.get("sources", [])
    if not isinstance(value, list):
        raise _BadInputError("'sources' must be a list")
    sources = []
    for item in value:
        if not isinstance(item, dict):
            raise _BadInputError("each source must be an object")
        sources.append(
            Source(
                _text(item, "url"),
                _text(item, "title"),
                _text(item, "text"),
                _text(item, "snippet"),
            )
        )
    return tuple(sources)


def _strings(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _BadInputError(f"'{key}' must be a list of strings")
    return tuple(value)


_KINDS = ("word", "entity", "phrase")


def _terms(data: dict[str, Any]) -> tuple[GoalTerm, ...] | None:
    """The loop's weighed goal terms (`GoalTerm.to_data`), or None when not sent."""
    value = data.get("goal_terms")
    if value is None:
        return None
    if not isinstance(value, list):
        raise _BadInputError("'goal_terms' must be a list")
    terms = []
    for item in value:
        if not isinstance(item, dict):
            raise _BadInputError("each goal term must be an object")
        text, kind = item.get("text"), item.get("kind", "word")
        weight, frequency = item.get("weight", 1.0), item.get("document_frequency")
        if not isinstance(text, str) or not text.strip() or kind not in _KINDS:
            raise _BadInputError("a goal term needs a 'text' and a known 'kind'")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight != weight:
            raise _BadInputError("a goal term's 'weight' must be a number")
        if frequency is not None and (
            isinstance(frequency, bool) or not isinstance(frequency, int) or frequency < 0
        ):
            raise _BadInputError("a goal term's 'document_frequency' must be an integer or null")
        terms.append(GoalTerm.make(text.strip(), kind, float(weight), frequency))
    return tuple(terms)


def _max_sources(data: dict[str, Any]) -> int:
    value = data.get("max_sources", 5)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadInputError("'max_sources' must be an integer")
    return value


class HeuristicChat:
    """A `ChatClient` that answers the research prompts with `HeuristicModel`: the user message
    is the prompt's inputs as one JSON object; `name` picks the prompt (`_answers.PROMPTS`).
    Never raises for its inputs: unreadable JSON, missing or mistyped keys and unknown names
    answer `malformed`; an answer that does not fit `schema` answers `schema`."""

    model = HEURISTIC_MODEL
    source_chars = MAX_SOURCE_CHARS
    """Text of each source the research loop sends: as much as the evidence reads, so the
    grade is the evidence's (a remote model gets less, for its context window)."""

    def __init__(self, model: HeuristicModel | None = None) -> None:
        self._model = model or HeuristicModel()

    def __repr__(self) -> str:
        return "HeuristicChat()"

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]:
        return self.answer(user, schema, name=name)

    def answer(self, user: str, schema: type[M], *, name: str) -> JsonAnswer[M]:
        """`complete_json`, synchronously (the system prompt is not needed)."""
        if name not in PROMPTS:
            return JsonAnswer(None, "malformed", f"the heuristic model has no prompt {name!r}")
        try:
            data = json.loads(user)
        except (ValueError, RecursionError):
            return JsonAnswer(None, "malformed", "the input is not JSON")
        if not isinstance(data, dict):
            return JsonAnswer(None, "malformed", "the input is not a JSON object")
        try:
            value = self._dispatch(name, data)
        except _BadInputError as exc:
            return JsonAnswer(None, "malformed", str(exc))
        raw = value.model_dump_json()
        try:
            result = schema.model_validate(value.model_dump())
        except ValidationError as exc:
            return JsonAnswer(None, "schema", f"{exc.error_count()} validation error(s)", raw)
        return JsonAnswer(result, raw=raw, mode=None, attempts=0)

    def _dispatch(self, name: str, data: dict[str, Any]) -> BaseModel:
        model = self._model
        if name == "search_query_optimizer":
            return model.plan_query(
                OptimiserInput(
                    _text(data, "goal", required=True),
                    _text(data, "stack_hint") or None,
                    _text(data, "project_context") or None,
                )
            )
        if name == "research_query_refiner":
            return model.refine(
                RefinerInput(
                    goal=_text(data, "goal", required=True),
                    previous_query=_text(data, "previous_query"),
                    findings_summary=_text(data, "findings_summary", "findings"),
                    quality=_quality(data),
                    status=_status(data),
                    stack_hint=_text(data, "stack_hint") or None,
                    uncovered=_strings(data, "uncovered"),
                    terms=_terms(data),
                )
            )
        if name == "research_relevance_evaluator":
            return model.evaluate(
                EvaluatorInput(
                    goal=_text(data, "goal", required=True),
                    query=_text(data, "query"),
                    sources=_sources(data),
                    max_sources=_max_sources(data),
                    terms=_terms(data),
                )
            )
        return model.classify(ClassifierInput(_text(data, "message", required=True)))
