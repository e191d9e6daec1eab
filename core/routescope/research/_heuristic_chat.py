"""`HeuristicChat`: the heuristic model (`_heuristic`) playing a `ChatClient`. The research
loop sends each prompt's inputs as one JSON object in the user message (the keys of
`OptimiserInput`, `RefinerInput` — whose summary may be sent as `findings` — `EvaluatorInput`
and `ClassifierInput`), and the adapter answers with the prompt's model. Unreadable inputs and
unknown prompt names come back as a `malformed` answer, never as an exception."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..llm import JsonAnswer
from ..optimise._goal_terms import GoalTerm
from ._answers import PROMPTS, Evaluation
from ._heuristic import (
    HEURISTIC_MODEL,
    ClassifierInput,
    EvaluatorInput,
    HeuristicModel,
    OptimiserInput,
    RefinerInput,
)
from ._page_evidence import MAX_SOURCE_CHARS, Source

__all__ = ["HeuristicChat"]

M = TypeVar("M", bound=BaseModel)


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


def _hint(data: dict[str, Any]) -> str | None:
    """The stack hint as sent: None when absent or null (infer one), "" when blank (none)."""
    if data.get("stack_hint") is None:
        return None
    return _text(data, "stack_hint").strip()


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
                _similarity(item.get("similarity")),
                _text(item, "passage"),
                _similarities(item.get("aspect_similarities")),
            )
        )
    return tuple(sources)


def _similarity(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise _BadInputError("a source's 'similarity' must be a number or null")
    return max(-1.0, min(1.0, float(value)))


def _similarities(value: object) -> tuple[float, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _BadInputError("a source's 'aspect_similarities' must be a list of numbers")
    found = [_similarity(item) for item in value]
    return tuple(0.0 if item is None else item for item in found)


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
        named = item.get("named", False)
        if not isinstance(named, bool):
            raise _BadInputError("a goal term's 'named' must be true or false")
        terms.append(GoalTerm.make(text.strip(), kind, float(weight), frequency, named=named))
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
                    _hint(data),
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
                    suggested=_strings(data, "suggested_words"),
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
                    aspects=_strings(data, "goal_aspects"),
                )
            )
        return model.classify(ClassifierInput(_text(data, "message", required=True)))
