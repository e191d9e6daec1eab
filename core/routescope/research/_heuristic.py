"""The heuristic model: an offline, deterministic stand-in for the four research prompts
(query optimiser, refiner, relevance evaluator, task classifier), labelled "heuristic" in every
reason it gives.

Queries come from the goal's content words, the strategy router's entities and the stack hint;
scores come from the fetched text itself: which of the goal's terms and entities the sources
contain (titles weigh more), how many distinct hosts they come from and how far they agree.
No clock, no randomness, no network: the same inputs always give the same answers, in time
linear in the text (each source's text is cut at `MAX_SOURCE_CHARS`).

`HeuristicChat` plays a `ChatClient`: the research loop sends each prompt's inputs as one JSON
object in the user message (the keys of `OptimiserInput`, `RefinerInput` — whose summary may be
sent as `findings` — `EvaluatorInput` and `ClassifierInput`), and the adapter answers with the
prompt's model. Unreadable inputs and unknown prompt names come back as a `malformed` answer,
never as an exception.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from ..llm import JsonAnswer
from ..rules import default_rules
from ..strategy import QueryContext, extract
from ..task import heuristic_task_spec
from ._answers import PROMPTS, Evaluation, QueryPlan, Refinement, TaskSpec
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
MAX_SOURCE_CHARS = 20_000
"""Text of one source that the evaluator reads; the rest is ignored."""
MAX_SOURCES = 50
"""Sources the evaluator reads at most."""

_LABEL = "heuristic: "
_REASON_CHARS = 1_900
_GOOD_RELEVANCE = 0.7
_GOOD_COVERAGE = 0.6
_WEAK_RELEVANCE = 0.6
_OFF_TOPIC = 0.3
_EMPTY_FINDINGS = ("", "nothing readable was found")

_WORD = re.compile(r"\w[\w+#]*(?:[.\-]\w[\w+#]*)*")
_OPERATOR = re.compile(r"\b[a-z]+:\S+", re.IGNORECASE)

_STOPWORD_TEXT = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own
    same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself
    please pls help hi hello hey thanks thank want wanted need needs trying try tried know
    tell show explain give let lets like way ways something anything thing things really
    actually maybe possible possibly someone somebody question questions ok okay
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English stopwords and request filler ("how do I", "please", "can you help me")."""

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


@dataclass(frozen=True, slots=True)
class Source:
    """One fetched page as the evaluator sees it."""

    url: str
    title: str = ""
    text: str = ""


@dataclass(frozen=True, slots=True)
class EvaluatorInput:
    """research_relevance_evaluator: one attempt's query and the pages it read. `max_sources`
    is how many pages an attempt may read (the loop's `Budgets.max_results`)."""

    goal: str
    query: str
    sources: Sequence[Source] = field(default_factory=tuple)
    max_sources: int = 5


@dataclass(frozen=True, slots=True)
class ClassifierInput:
    """task_classifier: the user's latest message."""

    message: str


# ---------------------------------------------------------------------------------------------
# Words


def _stem(word: str) -> str:
    """A light stemmer: lower-cased, without a plural s or an -ing."""
    word = word.lower()
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


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
    return {_stem(word) for word in _WORD.findall(text)}


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


def _domains(words: Iterable[str]) -> list[str]:
    domains: list[str] = []
    for word in words:
        for domain in _DOMAINS.get(word.lower(), ()):
            if domain not in domains:
                domains.append(domain)
    if domains:
        domains.append(_QA_DOMAIN)
    return domains[:5]


def _score(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return round(min(1.0, max(0.0, value)), 1)


def _host(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return host.removeprefix("www.")


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
        """Scores from the sources' text: relevance (the goal's terms in the best sources,
        titles weighing more), coverage (goal terms and entities found by any source) and
        confidence (distinct hosts and agreement; at most 0.4 with one source, 0 with none)."""
        context = _context(inputs.goal)
        entities = [
            stems
            for stems in (
                [_stem(w) for w in _content(_words(entity))] for entity in _entities(context)
            )
            if stems
        ]
        entity_stems = {stem for stems in entities for stem in stems}
        terms = [_stem(w) for w in _content(_words(context.user_goal or inputs.goal))]
        for stem in sorted(entity_stems - set(terms)):
            terms.append(stem)
        sources = [
            (
                source,
                _stems(source.title),
                _stems(source.title + " " + source.text[:MAX_SOURCE_CHARS]),
            )
            for source in list(inputs.sources)[:MAX_SOURCES]
            if source.title.strip() or source.text.strip()
        ]
        limit = max(1, inputs.max_sources)
        if not sources or not terms:
            why = "no readable source" if not sources else "the goal has no content words"
            return Evaluation(
                relevance=0.0,
                confidence=0.0,
                coverage=0.0,
                should_retry=len(sources) < limit or not sources,
                reasons=_labelled(f"{why}: nothing to grade"),
            )
        weights = {term: 2.0 if term in entity_stems else 1.0 for term in terms}
        total = sum(weights.values())
        per_source: list[float] = []
        for _, title, body in sources:
            got = sum(
                weights[t] * (1.0 if t in title else 0.75 if t in body else 0.0) for t in terms
            )
            per_source.append(got / total)
        best = max(per_source)
        relevance = _score(0.7 * best + 0.3 * sum(per_source) / len(per_source))
        best_index = per_source.index(best)
        best_body = sources[best_index][2]
        in_best = [t for t in terms if t in best_body]
        in_title = [t for t in terms if t in sources[best_index][1]]

        covered_by = {t: sum(t in body for _, _, body in sources) for t in terms}
        phrases = [stems for stems in entities if len(stems) > 1]
        phrases_covered = [
            stems
            for stems in phrases
            if any(all(s in body for s in stems) for _, _, body in sources)
        ]
        found = [t for t in terms if covered_by[t]]
        missing = [t for t in terms if not covered_by[t]]
        items = len(terms) + len(phrases)
        coverage = _score((len(found) + len(phrases_covered)) / items)

        hosts = sorted({_host(source.url) or source.url for source, _, _ in sources})
        agreed = [t for t in found if covered_by[t] >= 2]
        agreement = len(agreed) / len(found) if found and len(sources) > 1 else 0.0
        raw = (0.1 + 0.3 * min(len(hosts), 4) / 4 + 0.4 * agreement) * (0.4 + 0.6 * relevance)
        text_chars = sum(min(len(source.text), MAX_SOURCE_CHARS) for source, _, _ in sources)
        thin = text_chars / len(sources) < 400
        if thin:
            raw *= 0.6
        single = len(sources) == 1 or len(hosts) <= 1
        if single:
            raw = min(raw, 0.4)
        confidence = _score(min(raw, 0.9))

        retry = relevance < _WEAK_RELEVANCE and (len(sources) < limit or relevance < _OFF_TOPIC)
        reasons = [
            f"relevance {relevance:.1f}: the best source has {len(in_best)} of {len(terms)} "
            f"goal terms ({len(in_title)} in its title)",
            f"coverage {coverage:.1f}: {len(found)} of {len(terms)} terms covered"
            + (f", missing {_quoted(missing)}" if missing else ""),
            f"confidence {confidence:.1f}: {len(sources)} source(s) from {len(hosts)} host(s), "
            f"{len(agreed)} term(s) confirmed by two or more"
            + ("; thin text" if thin else "")
            + ("; capped for a single source" if single else ""),
        ]
        if retry:
            reasons.append("another query may find better sources")
        return Evaluation(
            relevance=relevance,
            confidence=confidence,
            coverage=coverage,
            should_retry=retry,
            reasons=_labelled("; ".join(reasons) + "."),
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
        sources.append(Source(_text(item, "url"), _text(item, "title"), _text(item, "text")))
    return tuple(sources)


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
                )
            )
        if name == "research_relevance_evaluator":
            return model.evaluate(
                EvaluatorInput(
                    goal=_text(data, "goal", required=True),
                    query=_text(data, "query"),
                    sources=_sources(data),
                    max_sources=_max_sources(data),
                )
            )
        return model.classify(ClassifierInput(_text(data, "message", required=True)))
