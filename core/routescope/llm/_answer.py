"""A model's answer (`JsonAnswer`): a chat completion's reply text read out of its body (or why
there is none), and the JSON object in it validated against a pydantic schema. Never raises
for what a model or a provider sends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from .._errors import describe, one_line
from ._extract import extract_json_object

__all__ = [
    "DETAIL_CHARS",
    "JSON_MODES",
    "JsonAnswer",
    "JsonMode",
    "completion_text",
    "cut_off",
    "error_message",
    "parse_json_answer",
]

M = TypeVar("M", bound=BaseModel)

JsonMode = Literal["json_schema", "json_object", "prompted"]
JSON_MODES: tuple[JsonMode, ...] = ("json_schema", "json_object", "prompted")
"""From the most to the least constrained; a client only ever moves down this list."""

DETAIL_CHARS = 300
"""The longest `JsonAnswer.detail`."""


@dataclass(frozen=True)
class JsonAnswer(Generic[M]):
    """A model's answer: `value` when it validated, else `error` (a one-line kind) and `detail`.
    `raw` is the model's reply (or the error body), bounded and with the key scrubbed; `mode`
    the output mode of the last request; `attempts` the HTTP requests made."""

    value: M | None
    error: str | None = None
    detail: str = ""
    raw: str = ""
    mode: JsonMode | None = None
    attempts: int = 0
    duration_s: float = 0.0
    status: int | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def parse_json_answer(text: str, schema: type[M]) -> JsonAnswer[M]:
    """A model's reply parsed into `schema`: fences, `<think>` blocks and prose around the JSON
    object are looked past. Never raises."""
    data = extract_json_object(text)
    if data is None:
        return JsonAnswer(None, "malformed", "no JSON object in the reply")
    try:
        return JsonAnswer(schema.model_validate(data))
    except ValidationError as exc:
        return JsonAnswer(None, "schema", one_line(describe(exc), DETAIL_CHARS, collapse=True))
    except RecursionError:
        return JsonAnswer(None, "schema", "nested too deeply")


def error_message(data: Any, text: str) -> str:
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if isinstance(data.get("detail"), str):
            return str(data["detail"])
    return text


def completion_text(data: Any) -> tuple[str | None, str, str]:
    """The reply text of a chat completion, or None with an error kind and detail."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None, "malformed", "the response is not a chat completion (no choices)"
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        return None, "malformed", "the response is not a chat completion (no message)"
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return None, "refused", refusal
    if choice.get("finish_reason") == "content_filter":
        return None, "refused", "the answer was withheld by a content filter"
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    if not isinstance(content, str):
        return None, "malformed", "the answer has no text content"
    return content, "", ""


def cut_off(data: Any) -> bool:
    try:
        return bool(data["choices"][0]["finish_reason"] == "length")
    except (KeyError, IndexError, TypeError):
        return False
