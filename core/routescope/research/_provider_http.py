"""The request/response cycle every HTTP search provider shares (`HttpProvider`): the query
fitted to the provider's documented limits, the request sent once with a bounded retry after
a 429 (honouring ``Retry-After``, through an injectable sleep), transport and HTTP failures
mapped to one taxonomy, the answer parsed by the adapter, status, redacted URL and duration
recorded. ``search`` never raises (cancellation aside); the API key never appears in a
``repr``, a response or an error message."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import httpx

from .._errors import one_line
from .._http import Retry, Sleep, send
from .._http_reply import HttpFailure, HttpReply
from .._secrets import Secrets, redact_url
from ._models import ErrorKind, ProviderError, QueryAction, SearchResponse
from ._provider_contract import REDACTED, shorten_query
from ._provider_json import MalformedError, Parsed, collect_hits, error_detail, status_error

__all__ = ["HttpProvider", "header_safe"]

#: The longest a provider may make us wait after a 429 before the single retry.
DEFAULT_MAX_RETRY_WAIT_S = 5.0
#: The wait when a 429 names none (Brave's free plan is about one query per second).
DEFAULT_RETRY_WAIT_S = 1.0
#: A provider's JSON answer larger than this is not read further (``malformed``).
DEFAULT_MAX_BODY_BYTES = 4_000_000
DEFAULT_TIMEOUT_S = 15.0
_MAX_MESSAGE_CHARS = 300


class HttpProvider:
    """The request/response cycle every adapter shares; subclasses build the request and
    parse the payload."""

    name: ClassVar[str]
    #: The provider's documented query limits (reference §4.7); None: none documented.
    max_query_chars: ClassVar[int | None] = None
    max_query_words: ClassVar[int | None] = None
    max_results_limit: ClassVar[int] = 20

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        api_key: str | None = None,
        shorten_long_queries: bool = True,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retry_wait_s: float = DEFAULT_MAX_RETRY_WAIT_S,
        retry_on_429: bool = True,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._client = client
        self.__key = api_key or ""
        self.__secrets = Secrets([self.__key], REDACTED)
        self.shorten_long_queries = shorten_long_queries
        self.timeout_s = timeout_s
        self.max_retry_wait_s = max(0.0, max_retry_wait_s)
        self.retry_on_429 = retry_on_429
        self.max_body_bytes = max_body_bytes
        self._sleep = sleep

    @property
    def _key(self) -> str:
        return self.__key

    @property
    def _secrets(self) -> Secrets:
        return self.__secrets

    def __repr__(self) -> str:
        key = "set" if self.__key else "none"
        return f"{type(self).__name__}(endpoint={self._display_endpoint()!r}, api_key=<{key}>)"

    def _display_endpoint(self) -> str:
        raise NotImplementedError

    def _status_hint(self, status: int) -> str:
        """A provider-specific explanation of an error status, or ''."""
        return ""

    def _key_problem(self) -> str | None:
        """Why the request cannot be sent for want of a usable key; None when it can."""
        return None

    def _build_request(self, query: str, max_results: int) -> httpx.Request:
        raise NotImplementedError

    def _parse(self, payload: object, max_results: int) -> Parsed:
        raise NotImplementedError

    # The cycle.

    def _prepare_query(self, query: str) -> tuple[str, QueryAction, str | None]:
        collapsed = " ".join(query.split())
        if not collapsed:
            return collapsed, "refused", "the query is empty"
        limit_chars, limit_words = self.max_query_chars, self.max_query_words
        too_long = (limit_chars is not None and len(collapsed) > limit_chars) or (
            limit_words is not None and len(collapsed.split()) > limit_words
        )
        if not too_long:
            return collapsed, "sent", None
        limits = " and ".join(
            text
            for text in (
                f"{limit_chars} characters" if limit_chars is not None else "",
                f"{limit_words} words" if limit_words is not None else "",
            )
            if text
        )
        if not self.shorten_long_queries:
            return collapsed, "refused", f"the query exceeds {self.name}'s limit of {limits}"
        short = shorten_query(collapsed, max_chars=limit_chars, max_words=limit_words)
        return short, "shortened", None

    async def search(self, query: str, *, max_results: int = 10) -> SearchResponse:
        started = time.perf_counter()
        secrets = self._secrets
        max_results = min(max(1, max_results), self.max_results_limit)
        sent, action, refusal = self._prepare_query(query)
        state: dict[str, Any] = {
            "provider": self.name,
            "query": secrets.scrub(sent),
            "original_query": secrets.scrub(query),
            "query_action": action,
            "status": None,
            "url": redact_url(self._display_endpoint(), secrets),
        }

        def done(error: ProviderError | None = None, **extra: Any) -> SearchResponse:
            if error is not None:
                error = error.model_copy(update={"message": secrets.scrub(error.message)})
            duration = max(0.0, (time.perf_counter() - started) * 1000.0)
            return SearchResponse(**state, **extra, error=error, duration_ms=duration)

        if refusal is not None:
            return done(ProviderError(kind="bad_request", message=f"not sent: {refusal}"))
        key_problem = self._key_problem()
        if key_problem is not None:
            return done(ProviderError(kind="unauthorized", message=f"not sent: {key_problem}"))
        try:
            request = self._build_request(sent, max_results)
        except httpx.InvalidURL as exc:
            message = one_line(f"InvalidURL: {exc}", _MAX_MESSAGE_CHARS, collapse=True)
            return done(ProviderError(kind="network", message=message, retryable=True))
        state["url"] = redact_url(str(request.url), secrets)

        def answered(outcome: HttpReply | HttpFailure) -> None:
            if outcome.status is not None:
                state["status"] = outcome.status

        outcome = await send(
            self._client,
            request,
            timeout_s=self.timeout_s,
            max_bytes=self.max_body_bytes,
            secrets=secrets,
            retry=self._retry(),
            observe=answered,
        )
        if isinstance(outcome, HttpFailure):
            return done(self._failure(outcome), requests=outcome.attempts)
        return done(**self._results(outcome, max_results), requests=outcome.attempts)

    def _retry(self) -> Retry:
        """One retry after a 429, waiting what the server asks (or a second), within bounds."""
        return Retry(
            retries=1 if self.retry_on_429 else 0,
            max_wait_s=self.max_retry_wait_s,
            backoff_s=DEFAULT_RETRY_WAIT_S,
            reset_header="x-ratelimit-reset",
            sleep=self._sleep,
        )

    def _failure(self, failure: HttpFailure) -> ProviderError:
        """The taxonomy entry of a request that gave no usable answer."""
        status = failure.status
        if failure.kind == "http" and status is not None:
            body = failure.reply.body if failure.reply is not None else b""
            detail = error_detail(body)[:_MAX_MESSAGE_CHARS]
            error = status_error(status, detail, failure.retry_after_s)
            hint = self._status_hint(status)
            if hint:
                error = error.model_copy(update={"message": f"{error.message}; {hint}"})
            return error
        if failure.kind == "too_large":
            message = f"the response is larger than {self.max_body_bytes} bytes"
            return ProviderError(kind="malformed", message=message, status=status)
        if failure.kind in ("timeout", "network"):
            kind: ErrorKind = "timeout" if failure.kind == "timeout" else "network"
            return ProviderError(kind=kind, message=failure.message, retryable=True)
        return ProviderError(kind="malformed", message=failure.message, status=status)

    def _results(self, reply: HttpReply, max_results: int) -> dict[str, Any]:
        """The parsed hits of a 2xx answer, or why there are none (`error`)."""
        status = reply.status
        try:
            payload: object = json.loads(reply.body)
        except (ValueError, RecursionError):
            error = ProviderError(kind="malformed", message="the body is not JSON", status=status)
            return {"error": error}
        try:
            parsed = self._parse(payload, max_results)
        except MalformedError as exc:
            message = f"unexpected JSON shape: {exc}"
            return {"error": ProviderError(kind="malformed", message=message, status=status)}
        outcome = parsed.error
        if outcome is not None and outcome.status is None:
            outcome = outcome.model_copy(update={"status": status})
        return {
            "error": outcome,
            "results": tuple(parsed.hits),
            "skipped": parsed.skipped,
            "duplicates": parsed.duplicates,
        }

    def _collect(
        self,
        items: Sequence[Any],
        max_results: int,
        *,
        snippet_key: str,
        score_key: str | None,
        published_key: str | None,
    ) -> Parsed:
        return collect_hits(
            items,
            provider=self.name,
            max_results=max_results,
            secrets=self._secrets,
            snippet_key=snippet_key,
            score_key=score_key,
            published_key=published_key,
        )


def header_safe(key: str) -> bool:
    return key.isascii() and key.isprintable() and key == key.strip()
