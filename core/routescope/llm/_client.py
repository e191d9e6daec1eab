"""An OpenAI-compatible chat-completions client that answers with a validated pydantic model.

`OpenAIChat.complete_json` asks for Structured Outputs (`json_schema`, strict) first; a server
that rejects it (400/422 about the response format) or answers with no JSON object gets
`json_object` next, then plain prompted JSON with the schema in the system prompt. The mode that
worked is remembered for the client's later calls. Failures of the model or the provider never
raise: they come back as a `JsonAnswer` with a one-line error kind —

    timeout     the call's total deadline passed (or the last request timed out)
    http_<n>    the server answered status n (after the retries, for 408/429/5xx)
    network     no answer: connection refused, reset, protocol error…
    too_large   the response body exceeded the size cap
    malformed   the body is not a chat completion, or the reply holds no JSON object
    schema      the reply's JSON does not validate against the schema
    refused     the model refused (`refusal`, or `finish_reason: content_filter`)

The API key is sent in the Authorization header and nowhere else: it is kept in an object whose
repr hides it, and it is scrubbed from every detail and raw text an answer carries.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, Literal, Protocol, TypeVar

import anyio
import httpx
from pydantic import BaseModel, ValidationError

from .._errors import describe, one_line
from .._http import Retry, send
from .._http_reply import HttpFailure, HttpReply
from .._secrets import Secrets
from ._extract import extract_json_object

__all__ = [
    "JSON_MODES",
    "ChatClient",
    "JsonAnswer",
    "JsonMode",
    "OpenAIChat",
    "parse_json_answer",
    "strict_json_schema",
]

M = TypeVar("M", bound=BaseModel)

JsonMode = Literal["json_schema", "json_object", "prompted"]
JSON_MODES: tuple[JsonMode, ...] = ("json_schema", "json_object", "prompted")
"""From the most to the least constrained; a client only ever moves down this list."""

_DETAIL_CHARS = 300
_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "structured", "grammar")
"""Words in a 400/422 body that mean the server rejects the requested output format."""
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_SCHEMA_KEYWORDS = (
    "items",
    "prefixItems",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "additionalProperties",
)


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


class ChatClient(Protocol):
    """What the research loop and the task router need of a model."""

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]: ...


def parse_json_answer(text: str, schema: type[M]) -> JsonAnswer[M]:
    """A model's reply parsed into `schema`: fences, `<think>` blocks and prose around the JSON
    object are looked past. Never raises."""
    data = extract_json_object(text)
    if data is None:
        return JsonAnswer(None, "malformed", "no JSON object in the reply")
    try:
        return JsonAnswer(schema.model_validate(data))
    except ValidationError as exc:
        return JsonAnswer(None, "schema", one_line(describe(exc), _DETAIL_CHARS, collapse=True))
    except RecursionError:
        return JsonAnswer(None, "schema", "nested too deeply")


@functools.cache
def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """`schema`'s JSON Schema as Structured Outputs' strict mode wants it: every object closed
    (`additionalProperties: false`) with all its properties required, and no defaults. Do not
    mutate the result: it is cached."""
    result = copy.deepcopy(schema.model_json_schema())
    _make_strict(result)
    return result


def _make_strict(node: Any) -> None:
    """Close every object schema in `node`, walking only the keywords that hold schemas (so a
    property called `properties` or `default` is left alone)."""
    if isinstance(node, list):
        for value in node:
            _make_strict(value)
        return
    if not isinstance(node, dict):
        return
    node.pop("default", None)
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["additionalProperties"] = False
        node["required"] = list(properties)
        for value in properties.values():
            _make_strict(value)
    definitions = node.get("$defs")
    if isinstance(definitions, dict):
        for value in definitions.values():
            _make_strict(value)
    for key in _SCHEMA_KEYWORDS:
        if key in node:
            _make_strict(node[key])


@functools.cache
def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), ensure_ascii=False, separators=(",", ":"))


def _instructed(system: str, schema: type[BaseModel]) -> str:
    return (
        f"{system.rstrip()}\n\nAnswer with one JSON object and nothing else: no prose, no "
        f"Markdown code fences. It must match this JSON Schema:\n{_schema_text(schema)}"
    )


def _schema_name(name: str) -> str:
    return _NAME_CHARS.sub("_", name)[:64] or "answer"


class _Secret:
    """A value whose repr and str never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<secret>"

    __str__ = __repr__


@dataclass
class _Http:
    """One request's outcome (retries included) as the ladder of output modes reads it."""

    status: int | None = None
    data: Any = None
    text: str = ""
    error: str | None = None
    detail: str = ""


@dataclass
class _Progress:
    """What a call has done so far, kept outside the deadline's scope."""

    mode: JsonMode
    attempts: int = 0
    status: int | None = None
    raw: str = ""


def _error_message(data: Any, text: str) -> str:
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
        if isinstance(data.get("detail"), str):
            return str(data["detail"])
    return text


def _content(data: Any) -> tuple[str | None, str, str]:
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


class OpenAIChat:
    """A client for `POST {base_url}/chat/completions` (OpenAI, Ollama `/v1`, vLLM, llama.cpp).

    `timeout_s` is the total deadline of one `complete_json` call, retries and waits included;
    `max_retries` the retries of one request after a timeout, a network error, 408, 429 or 5xx
    (waiting `Retry-After`, at most `max_retry_after_s`, else an exponential backoff from
    `backoff_s`); `max_body_bytes` caps a response after decompression. A client it creates
    ignores proxy environment variables (`trust_env=False`) and is closed by `aclose`; a client
    passed in is the caller's to close."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        mode: JsonMode = "json_schema",
        temperature: float | None = None,
        max_tokens: int | None = None,
        max_body_bytes: int = 2_000_000,
        max_retry_after_s: float = 30.0,
        backoff_s: float = 0.5,
        raw_chars: int = 4000,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError("base_url must be an http(s) URL with a host")
        if not model.strip():
            raise ValueError("model must not be empty")
        if api_key is not None and (
            not api_key or not api_key.isascii() or not api_key.isprintable() or " " in api_key
        ):
            raise ValueError("api_key must be printable ASCII without spaces")
        if not (timeout_s > 0 and math.isfinite(timeout_s)):
            raise ValueError("timeout_s must be a positive number of seconds")
        if not 0 <= max_retries <= 10:
            raise ValueError("max_retries must be between 0 and 10")
        if mode not in JSON_MODES:
            raise ValueError(f"mode must be one of {', '.join(JSON_MODES)}")
        self._url = str(url).rstrip("/") + "/chat/completions"
        self._shown_url = str(url.copy_with(username=None, password=None)).rstrip("/")
        self._model = model
        self._key = _Secret(api_key) if api_key else None
        self._secrets = Secrets([api_key])
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(
            trust_env=False, follow_redirects=False, timeout=timeout_s
        )
        self._timeout_s = float(timeout_s)
        self._mode: JsonMode = mode
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._max_body = max_body_bytes
        self._retry = Retry(
            retries=max_retries,
            when=_retryable,
            max_wait_s=max_retry_after_s,
            backoff_s=backoff_s,
            sleep=sleep or anyio.sleep,
        )
        self._raw_chars = raw_chars

    def __repr__(self) -> str:
        key = "set" if self._key else "none"
        return f"OpenAIChat({self._shown_url!r}, {self._model!r}, api_key={key}, mode={self._mode})"

    @property
    def mode(self) -> JsonMode:
        """The output mode the next call starts with: the last that worked or was not refused."""
        return self._mode

    @property
    def model(self) -> str:
        return self._model

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> OpenAIChat:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]:
        """The model's answer validated against `schema`; never raises for model or provider
        failures (cancelling the calling task still cancels it)."""
        started = time.monotonic()
        progress = _Progress(mode=self._mode)
        answer: JsonAnswer[M] | None = None
        with anyio.move_on_after(self._timeout_s) as scope:
            answer = await self._complete(system, user, schema, name, progress, scope.deadline)
        if answer is None:
            detail = f"no answer within {self._timeout_s:g} s"
            answer = JsonAnswer(None, "timeout", detail, progress.raw, status=progress.status)
        return replace(  # the key scrubbed before anything is cut short
            answer,
            detail=one_line(self._scrub(answer.detail), _DETAIL_CHARS, collapse=True),
            raw=self._scrub(answer.raw)[: self._raw_chars],
            mode=progress.mode,
            attempts=progress.attempts,
            duration_s=time.monotonic() - started,
        )

    async def _complete(
        self,
        system: str,
        user: str,
        schema: type[M],
        name: str,
        progress: _Progress,
        deadline: float,
    ) -> JsonAnswer[M]:
        mode = self._mode
        while True:
            progress.mode = mode
            lower = _lower(mode)
            body = self._body(system, user, schema, name, mode)
            http = await self._post(body, progress, deadline)
            if http.error is not None:
                if lower is not None and _rejects_format(http):
                    self._remember(lower)
                    mode = lower
                    continue
                return JsonAnswer(None, http.error, http.detail, http.text, status=http.status)
            content, kind, detail = _content(http.data)
            if content is None:
                return JsonAnswer(None, kind, detail, http.text, status=http.status)
            # Scrubbed before parsing, not only in `raw`: a server that echoes the key into
            # the reply would otherwise carry it into the validated value (and a report).
            content = self._scrub(content)
            progress.raw = content
            answer = parse_json_answer(content, schema)
            answer = replace(answer, raw=content, status=http.status)
            if answer.error == "malformed" and _cut_off(http.data):
                answer = replace(answer, detail=f"{answer.detail} (cut off: finish_reason length)")
            if answer.ok:
                self._mode = mode
                return answer
            if answer.error == "malformed" and lower is not None:
                mode = lower  # remembered only if the lower mode then works
                continue
            return answer

    def _remember(self, mode: JsonMode) -> None:
        if JSON_MODES.index(mode) > JSON_MODES.index(self._mode):
            self._mode = mode

    def _body(
        self, system: str, user: str, schema: type[BaseModel], name: str, mode: JsonMode
    ) -> dict[str, Any]:
        if mode != "json_schema":
            system = _instructed(system, schema)
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "stream": False,
        }
        if self._temperature is not None:
            body["temperature"] = self._temperature
        if self._max_tokens is not None:
            body["max_tokens"] = self._max_tokens
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(name),
                    "schema": strict_json_schema(schema),
                    "strict": True,
                },
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    async def _post(self, body: dict[str, Any], progress: _Progress, deadline: float) -> _Http:
        headers = {"Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key.reveal()}"
        request = self._client.build_request("POST", self._url, json=body, headers=headers)

        def attempted(outcome: HttpReply | HttpFailure) -> None:
            progress.attempts += 1
            progress.status = outcome.status

        outcome = await send(
            self._client,
            request,
            timeout_s=deadline - anyio.current_time(),
            max_bytes=self._max_body,
            secrets=self._secrets,
            retry=self._retry,
            observe=attempted,
        )
        return self._read(outcome)

    def _read(self, outcome: HttpReply | HttpFailure) -> _Http:
        if isinstance(outcome, HttpReply):
            text = outcome.text()
            data = _json(text)
            if data is None:
                return _Http(outcome.status, None, text, "malformed", "the response is not JSON")
            return _Http(outcome.status, data, text)
        status = outcome.status
        if outcome.kind == "http" and outcome.reply is not None:
            text = outcome.reply.text()
            data = _json(text)
            detail = f"HTTP {status}: {_error_message(data, text)}"
            return _Http(status, data, text, f"http_{status}", detail)
        if outcome.kind == "too_large":
            detail = f"the response is larger than {self._max_body} bytes"
            return _Http(status, error="too_large", detail=detail)
        if outcome.kind == "timeout":
            return _Http(error="timeout", detail="the request timed out")
        return _Http(status, error=outcome.kind, detail=outcome.message)

    def _scrub(self, text: str) -> str:
        return self._secrets.scrub(text)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _retryable(failure: HttpFailure) -> bool:
    """A timeout, a network failure, 408, 429 or 5xx, but not an exhausted quota."""
    if failure.kind in ("timeout", "network"):
        return True
    body = failure.reply.body if failure.reply is not None else b""
    return failure.status in _RETRY_STATUSES and b"insufficient_quota" not in body


def _lower(mode: JsonMode) -> JsonMode | None:
    index = JSON_MODES.index(mode) + 1
    return JSON_MODES[index] if index < len(JSON_MODES) else None


def _cut_off(data: Any) -> bool:
    try:
        return bool(data["choices"][0]["finish_reason"] == "length")
    except (KeyError, IndexError, TypeError):
        return False


def _rejects_format(http: _Http) -> bool:
    if http.status not in (400, 422):
        return False
    text = http.text.lower()
    return any(word in text for word in _FORMAT_WORDS)
