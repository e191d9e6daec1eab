"""An OpenAI-compatible chat-completions client that answers with a validated pydantic model.

`OpenAIChat.complete_json` asks for Structured Outputs (`json_schema`, strict) first; a server
that rejects it (400/422 about the response format) or answers with no JSON object gets
`json_object` next, then plain prompted JSON with the schema in the system prompt. The mode that
worked is remembered for the client's later calls. Failures of the model or the provider never
raise: they come back as a `JsonAnswer` with a one-line error kind —

    timeout     the call's total deadline passed (or the last request timed out)
    http_<n>    the server answered status n (after the retries, for 408/429/5xx; at once
                when it asks to be retried later than the deadline allows)
    network     no answer: connection refused, reset, protocol error…
    too_large   the response body exceeded the size cap
    malformed   the body is not a chat completion, or the reply holds no JSON object
    schema      the reply's JSON does not validate against the schema
    refused     the model refused (`refusal`, or `finish_reason: content_filter`)

The API key is sent in the Authorization header and nowhere else: it is kept in an object whose
repr hides it, and it is scrubbed from every detail and raw text an answer carries.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypedDict, TypeVar, Unpack

import anyio
import httpx
from pydantic import BaseModel

from .._errors import one_line
from .._http import Retry, send
from .._http_reply import HttpFailure, HttpReply
from .._secrets import Secrets
from ._answer import (
    DETAIL_CHARS,
    JSON_MODES,
    JsonAnswer,
    JsonMode,
    completion_text,
    cut_off,
    error_message,
    parse_json_answer,
)
from ._schema import instructed, schema_name, strict_json_schema

__all__ = ["ChatClient", "ChatOptions", "ChatSettings", "OpenAIChat"]

M = TypeVar("M", bound=BaseModel)

_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "structured", "grammar")
"""Words in a 400/422 body that mean the server rejects the requested output format."""


class ChatClient(Protocol):
    """What the research loop and the task router need of a model."""

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]: ...


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """How an `OpenAIChat` calls its model, checked once when made. The API key is not one of
    them: it stays in the client, out of any value that may be printed or kept."""

    timeout_s: float = 60.0
    """The total deadline of one `complete_json` call, retries and waits included."""
    max_retries: int = 2
    """Retries of one request after a timeout, a network error, 408, 429 or 5xx (0 to 10)."""
    mode: JsonMode = "json_schema"
    """The output mode the first call starts with."""
    temperature: float | None = None
    max_tokens: int | None = None
    max_body_bytes: int = 2_000_000
    """The largest response body, after decompression."""
    max_retry_after_s: float = 30.0
    """The longest wait before a retry: a longer `Retry-After` is waited this long. One that
    the call's deadline cannot hold is not retried at all: the call fails at once."""
    backoff_s: float = 0.5
    """The first wait of the exponential backoff when the server names none."""
    raw_chars: int = 4000
    """How much of the model's reply a `JsonAnswer.raw` keeps."""

    def __post_init__(self) -> None:
        if not (self.timeout_s > 0 and math.isfinite(self.timeout_s)):
            raise ValueError("timeout_s must be a positive number of seconds")
        if not 0 <= self.max_retries <= 10:
            raise ValueError("max_retries must be between 0 and 10")
        if self.mode not in JSON_MODES:
            raise ValueError(f"mode must be one of {', '.join(JSON_MODES)}")


class ChatOptions(TypedDict, total=False):
    """`ChatSettings`' fields as keywords of `OpenAIChat` (each overrides its `settings`)."""

    timeout_s: float
    max_retries: int
    mode: JsonMode
    temperature: float | None
    max_tokens: int | None
    max_body_bytes: int
    max_retry_after_s: float
    backoff_s: float
    raw_chars: int


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


class OpenAIChat:
    """A client for `POST {base_url}/chat/completions` (OpenAI, Ollama `/v1`, vLLM, llama.cpp).

    How it calls the model is a `ChatSettings` (`settings`, or its fields as keywords, which
    override it): the total deadline of one `complete_json` call, the retries of one request
    after a timeout, a network error, 408, 429 or 5xx (waiting `Retry-After`, at most
    `max_retry_after_s`, else an exponential backoff from `backoff_s`; a `Retry-After` past
    what is left of the deadline fails the call at once, saying so), the cap on a response
    after decompression. A client it creates ignores proxy environment variables
    (`trust_env=False`) and is closed by `aclose`; a client passed in is the caller's to
    close."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        settings: ChatSettings | None = None,
        **options: Unpack[ChatOptions],
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
        # made (and so checked) after the address, the model and the key, as they were before
        # the settings were one value: the same bad input fails with the same message
        self.settings = replace(settings or ChatSettings(), **options)
        self._url = str(url).rstrip("/") + "/chat/completions"
        self._shown_url = str(url.copy_with(username=None, password=None)).rstrip("/")
        self._model = model
        self._key = _Secret(api_key) if api_key else None
        self._secrets = Secrets([api_key])
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(
            trust_env=False, follow_redirects=False, timeout=self.settings.timeout_s
        )
        self._mode: JsonMode = self.settings.mode
        self._retry = Retry(
            retries=self.settings.max_retries,
            when=_retryable,
            max_wait_s=self.settings.max_retry_after_s,
            backoff_s=self.settings.backoff_s,
            sleep=sleep or anyio.sleep,
            named_wait_must_fit=True,
        )

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
        with anyio.move_on_after(float(self.settings.timeout_s)) as scope:
            answer = await self._complete(system, user, schema, name, progress, scope.deadline)
        if answer is None:
            detail = f"no answer within {float(self.settings.timeout_s):g} s"
            answer = JsonAnswer(None, "timeout", detail, progress.raw, status=progress.status)
        return replace(  # the key scrubbed before anything is cut short
            answer,
            detail=one_line(self._scrub(answer.detail), DETAIL_CHARS, collapse=True),
            raw=self._scrub(answer.raw)[: self.settings.raw_chars],
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
            content, kind, detail = completion_text(http.data)
            if content is None:
                return JsonAnswer(None, kind, detail, http.text, status=http.status)
            # Scrubbed before parsing, not only in `raw`: a server that echoes the key into
            # the reply would otherwise carry it into the validated value (and a report).
            content = self._scrub(content)
            progress.raw = content
            answer = parse_json_answer(content, schema)
            answer = replace(answer, raw=content, status=http.status)
            if answer.error == "malformed" and cut_off(http.data):
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
            system = instructed(system, schema)
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "stream": False,
        }
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        if self.settings.max_tokens is not None:
            body["max_tokens"] = self.settings.max_tokens
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(name),
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
            max_bytes=self.settings.max_body_bytes,
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
            detail = f"HTTP {status}: {error_message(data, text)}"
            if outcome.wait_past_deadline_s is not None:
                detail = f"HTTP {status}: {self._past_deadline(outcome.wait_past_deadline_s)}"
            return _Http(status, data, text, f"http_{status}", detail)
        if outcome.kind == "too_large":
            detail = f"the response is larger than {self.settings.max_body_bytes} bytes"
            return _Http(status, error="too_large", detail=detail)
        if outcome.kind == "timeout":
            return _Http(error="timeout", detail="the request timed out")
        return _Http(status, error=outcome.kind, detail=outcome.message)

    def _past_deadline(self, wait_s: float) -> str:
        """Why a call failed without the retry its server asked for: the wait would not fit."""
        total = float(self.settings.timeout_s)
        beyond = "the" if wait_s >= total else "what is left of the"
        asked = f"model server asked to retry after {_seconds(wait_s)} s"
        return f"{asked}, beyond {beyond} {total:g} s deadline"

    def _scrub(self, text: str) -> str:
        return self._secrets.scrub(text)


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _seconds(value: float) -> str:
    """999999 as 999999 (not 1e+06), 2.5 as 2.5."""
    return f"{value:.0f}" if value >= 100 else f"{value:g}"


def _retryable(failure: HttpFailure) -> bool:
    """A timeout, a network failure, 408, 429 or 5xx, but not an exhausted quota."""
    if failure.kind in ("timeout", "network"):
        return True
    body = failure.reply.body if failure.reply is not None else b""
    return failure.status in _RETRY_STATUSES and b"insufficient_quota" not in body


def _lower(mode: JsonMode) -> JsonMode | None:
    index = JSON_MODES.index(mode) + 1
    return JSON_MODES[index] if index < len(JSON_MODES) else None


def _rejects_format(http: _Http) -> bool:
    if http.status not in (400, 422):
        return False
    text = http.text.lower()
    return any(word in text for word in _FORMAT_WORDS)
