"""Search provider adapters (reference §4): SearXNG, Tavily and Brave behind one contract.

Every adapter takes an injected ``httpx.AsyncClient`` (the test seam), enforces its provider's
documented query limits before sending, maps HTTP and transport failures to one taxonomy,
honours ``Retry-After`` on a 429 up to a bound (one retry, through an injectable sleep), parses
the result JSON strictly (a wrong shape is ``malformed``; a bad single result is skipped, the
good ones kept; repeated URLs dropped) and records status, redacted URL and duration.
``search`` never raises (cancellation aside). API keys come from parameters and never appear in
a ``repr``, a response, an error message or the recorded URL: every string passes ``redact``.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypedDict, Unpack, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

import httpx

from .._errors import one_line
from .._http import Retry, Sleep, send
from .._http_reply import HttpFailure, HttpReply
from .._secrets import Secrets, redact_url
from ._models import (
    ErrorKind,
    ProviderError,
    QueryAction,
    SearchHit,
    SearchResponse,
)

__all__ = [
    "BraveSearch",
    "ProviderOptions",
    "SearchProvider",
    "SearxngSearch",
    "TavilySearch",
    "redact",
    "redact_url",
    "shorten_query",
]

REDACTED = "[REDACTED]"
#: The longest a provider may make us wait after a 429 before the single retry.
DEFAULT_MAX_RETRY_WAIT_S = 5.0
#: The wait when a 429 names none (Brave's free plan is about one query per second).
DEFAULT_RETRY_WAIT_S = 1.0
#: A provider's JSON answer larger than this is not read further (``malformed``).
DEFAULT_MAX_BODY_BYTES = 4_000_000
DEFAULT_TIMEOUT_S = 15.0
_MAX_URL_CHARS = 2048
_MAX_MESSAGE_CHARS = 300


class ProviderOptions(TypedDict, total=False):
    """The options every adapter takes besides its client, endpoint and key."""

    #: Shorten an over-long query on a word boundary (True) or refuse it unsent (False).
    shorten_long_queries: bool
    #: The total deadline of one search: connecting, reading, the retry and its wait.
    timeout_s: float
    #: The most a 429's ``Retry-After`` may make us wait before the single retry.
    max_retry_wait_s: float
    retry_on_429: bool
    #: The response body is not read past this many bytes (``malformed``).
    max_body_bytes: int
    #: The sleep used for ``Retry-After`` (injectable for tests).
    sleep: Sleep


@runtime_checkable
class SearchProvider(Protocol):
    """The normalised contract: one call, one ``SearchResponse``, failures as values."""

    @property
    def name(self) -> str: ...

    async def search(self, query: str, *, max_results: int = 10) -> SearchResponse: ...


# --- secrets ---------------------------------------------------------------------------------


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every non-empty secret, raw or URL-encoded, replaced by ``[REDACTED]``."""
    return Secrets(secrets, REDACTED).scrub(text)


# --- queries ---------------------------------------------------------------------------------


def shorten_query(query: str, *, max_chars: int | None, max_words: int | None) -> str:
    """``query`` with whitespace collapsed, cut on a word boundary to at most ``max_words``
    words and ``max_chars`` characters (a single over-long word is cut hard)."""
    words = query.split()
    if max_words is not None:
        words = words[:max_words]
    text = " ".join(words)
    if max_chars is None or len(text) <= max_chars:
        return text
    cut = text[: max_chars + 1]
    space = cut.rfind(" ")
    return cut[:space] if space > 0 else text[:max_chars]


# --- parsing helpers -------------------------------------------------------------------------


class _MalformedError(Exception):
    """Raised inside parsing only; becomes a ``malformed`` error value."""


@dataclass
class _Parsed:
    hits: list[SearchHit] = field(default_factory=list)
    skipped: int = 0
    duplicates: int = 0
    error: ProviderError | None = None


def _valid_url(value: object) -> str | None:
    if not isinstance(value, str) or not value or len(value) > _MAX_URL_CHARS:
        return None
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        return None
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on an invalid port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return value


def _dedupe_key(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    path = parts.path if parts.path not in ("", "/") else ""
    return urlunsplit((scheme, host, path.rstrip("/") or path, parts.query, ""))


def _optional_str(item: Mapping[str, Any], key: str) -> str | None:
    """The string at ``key``; None when absent or null; ``_MalformedError`` for another type."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _MalformedError(key)
    return value


def _optional_score(item: Mapping[str, Any], key: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _MalformedError(key)
    score = float(value)
    if not math.isfinite(score):
        raise _MalformedError(key)
    return score


def _collect(
    items: Sequence[Any],
    *,
    provider: str,
    max_results: int,
    secrets: Secrets,
    snippet_key: str,
    score_key: str | None,
    published_key: str | None,
) -> _Parsed:
    """The valid, deduplicated hits of ``items``, ranked from 1 and capped at ``max_results``."""
    parsed = _Parsed()
    seen: set[str] = set()
    for item in items:
        if len(parsed.hits) >= max_results:
            break
        if not isinstance(item, dict):
            parsed.skipped += 1
            continue
        url = _valid_url(item.get("url"))
        try:
            title = _optional_str(item, "title") or ""
            snippet = _optional_str(item, snippet_key) or ""
            score = _optional_score(item, score_key) if score_key else None
            published = _optional_str(item, published_key) if published_key else None
        except _MalformedError:
            url = None
        if url is None:
            parsed.skipped += 1
            continue
        key = _dedupe_key(url)
        if key in seen:
            parsed.duplicates += 1
            continue
        seen.add(key)
        parsed.hits.append(
            SearchHit(
                url=secrets.scrub(url),
                title=secrets.scrub(title.strip()),
                snippet=secrets.scrub(snippet.strip()),
                rank=len(parsed.hits) + 1,
                provider=provider,
                score=score,
                published=published if published is None else secrets.scrub(published),
            )
        )
    if not parsed.hits:
        if parsed.skipped and not parsed.duplicates:
            parsed.error = ProviderError(
                kind="malformed",
                message=f"all {parsed.skipped} results had missing or wrongly typed fields",
            )
        else:
            parsed.error = ProviderError(kind="empty", message="no results")
    return parsed


def _error_detail(body: bytes) -> str:
    """A short human detail from an error body (``detail``/``error``/``message``), or ''."""
    try:
        payload: object = json.loads(body)
    except (ValueError, RecursionError):
        return ""
    for _ in range(3):
        if isinstance(payload, str):
            return payload
        if not isinstance(payload, dict):
            return ""
        for key in ("detail", "error", "message"):
            if key in payload:
                payload = payload[key]
                break
        else:
            return ""
    return payload if isinstance(payload, str) else ""


def _status_error(status: int, detail: str, retry_after: float | None) -> ProviderError:
    """The taxonomy entry for an HTTP error ``status``; ``retry_after`` is kept for a 429."""
    kind: ErrorKind
    if status in (400, 413, 414, 422):
        kind, retryable = "bad_request", False
    elif status in (401, 403):
        kind, retryable = "unauthorized", False
    elif status in (402, 432, 433):
        kind, retryable = "quota", False
    elif status == 429:
        kind, retryable = "rate_limited", True
    elif 500 <= status <= 599:
        kind, retryable = "server_error", True
    else:
        kind, retryable = "http_error", False
    message = f"HTTP {status}"
    if detail:
        message = f"{message}: {detail}"
    return ProviderError(
        kind=kind,
        message=message,
        status=status,
        retry_after_s=retry_after if status == 429 else None,
        retryable=retryable,
    )


# --- the shared adapter ----------------------------------------------------------------------


class _HttpProvider:
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

    def _parse(self, payload: object, max_results: int) -> _Parsed:
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
            detail = _error_detail(body)[:_MAX_MESSAGE_CHARS]
            error = _status_error(status, detail, failure.retry_after_s)
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
        except _MalformedError as exc:
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
    ) -> _Parsed:
        return _collect(
            items,
            provider=self.name,
            max_results=max_results,
            secrets=self._secrets,
            snippet_key=snippet_key,
            score_key=score_key,
            published_key=published_key,
        )


def _header_safe(key: str) -> bool:
    return key.isascii() and key.isprintable() and key == key.strip()


def _require_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _MalformedError(f"{what} is not an object")
    return value


def _require_list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _MalformedError(f"{what} is not a list")
    return value


# --- the adapters ----------------------------------------------------------------------------


class SearxngSearch(_HttpProvider):
    """SearXNG: ``GET {base}/search?format=json&q=…`` (reference §4.4). The base URL (often a
    self-hosted ``localhost``) is trusted configuration; SearXNG needs no key, but an instance
    behind an authenticating proxy gets ``api_key`` as ``Authorization: Bearer``. No documented
    query limit: a 2 000-character cap keeps the GET URL under common server limits. No
    result-count parameter: results are sliced here. Empty results with unresponsive engines
    are a ``server_error``."""

    name: ClassVar[str] = "searxng"
    max_query_chars: ClassVar[int | None] = 2000
    max_results_limit: ClassVar[int] = 50

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        *,
        api_key: str | None = None,
        **options: Unpack[ProviderOptions],
    ) -> None:
        super().__init__(client, api_key=api_key, **options)
        self.base_url = base_url.rstrip("/")

    def _display_endpoint(self) -> str:
        return redact_url(f"{self.base_url}/search", self._secrets)

    def _key_problem(self) -> str | None:
        if self._key and not _header_safe(self._key):
            return "the SearXNG API key has characters an HTTP header cannot carry"
        return None

    def _status_hint(self, status: int) -> str:
        if status == 403:
            return "SearXNG answers 403 when format=json is not in settings.yml search.formats"
        return ""

    def _build_request(self, query: str, max_results: int) -> httpx.Request:
        return self._client.build_request(
            "GET",
            f"{self.base_url}/search",
            params={"q": query, "format": "json"},
            headers=(
                {"Accept": "application/json", "Authorization": f"Bearer {self._key}"}
                if self._key
                else {"Accept": "application/json"}
            ),
            timeout=self.timeout_s,
        )

    def _parse(self, payload: object, max_results: int) -> _Parsed:
        data = _require_dict(payload, "the response")
        items = _require_list(data.get("results", []), "results")
        parsed = self._collect(
            items,
            max_results,
            snippet_key="content",
            score_key="score",
            published_key="publishedDate",
        )
        unresponsive = data.get("unresponsive_engines")
        if not items and isinstance(unresponsive, list) and unresponsive:
            names = []
            for entry in unresponsive[:10]:
                if isinstance(entry, list) and entry and all(isinstance(x, str) for x in entry):
                    names.append(" ".join(entry[:2]))
            parsed.error = ProviderError(
                kind="server_error",
                message="every engine was unresponsive: " + ", ".join(names or ["unknown"]),
                retryable=True,
            )
        return parsed


class TavilySearch(_HttpProvider):
    """Tavily: ``POST https://api.tavily.com/search`` with ``Authorization: Bearer <key>``
    (reference §4.2). Queries longer than 400 characters get a 400, so they are shortened (or
    refused). ``max_results`` 1–20; 432/433 (plan limits) are ``quota``."""

    name: ClassVar[str] = "tavily"
    max_query_chars: ClassVar[int | None] = 400
    endpoint_default: ClassVar[str] = "https://api.tavily.com/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str | None,
        *,
        endpoint: str = endpoint_default,
        search_depth: str = "basic",
        **options: Unpack[ProviderOptions],
    ) -> None:
        super().__init__(client, api_key=api_key, **options)
        self.endpoint = endpoint
        self.search_depth = search_depth

    def _display_endpoint(self) -> str:
        return redact_url(self.endpoint, self._secrets)

    def _key_problem(self) -> str | None:
        if not self._key:
            return "no Tavily API key is configured"
        if not _header_safe(self._key):
            return "the Tavily API key has characters an HTTP header cannot carry"
        return None

    def _build_request(self, query: str, max_results: int) -> httpx.Request:
        return self._client.build_request(
            "POST",
            self.endpoint,
            json={"query": query, "max_results": max_results, "search_depth": self.search_depth},
            headers={"Authorization": f"Bearer {self._key}", "Accept": "application/json"},
            timeout=self.timeout_s,
        )

    def _parse(self, payload: object, max_results: int) -> _Parsed:
        data = _require_dict(payload, "the response")
        if "results" not in data:
            raise _MalformedError("no results field")
        items = _require_list(data["results"], "results")
        return self._collect(
            items, max_results, snippet_key="content", score_key="score", published_key=None
        )


class BraveSearch(_HttpProvider):
    """Brave: ``GET https://api.search.brave.com/res/v1/web/search`` with
    ``X-Subscription-Token`` (reference §4.3). ``q`` at most 400 characters and 50 words
    (shortened or refused); ``count`` 1–20; results under ``web.results`` (absent ``web``: no
    results)."""

    name: ClassVar[str] = "brave"
    max_query_chars: ClassVar[int | None] = 400
    max_query_words: ClassVar[int | None] = 50
    endpoint_default: ClassVar[str] = "https://api.search.brave.com/res/v1/web/search"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str | None,
        *,
        endpoint: str = endpoint_default,
        **options: Unpack[ProviderOptions],
    ) -> None:
        super().__init__(client, api_key=api_key, **options)
        self.endpoint = endpoint

    def _display_endpoint(self) -> str:
        return redact_url(self.endpoint, self._secrets)

    def _key_problem(self) -> str | None:
        if not self._key:
            return "no Brave API key is configured"
        if not _header_safe(self._key):
            return "the Brave API key has characters an HTTP header cannot carry"
        return None

    def _build_request(self, query: str, max_results: int) -> httpx.Request:
        return self._client.build_request(
            "GET",
            self.endpoint,
            params={"q": query, "count": str(max_results), "text_decorations": "false"},
            headers={"X-Subscription-Token": self._key, "Accept": "application/json"},
            timeout=self.timeout_s,
        )

    def _parse(self, payload: object, max_results: int) -> _Parsed:
        data = _require_dict(payload, "the response")
        web = data.get("web")
        if web is None:
            return self._collect(
                [], max_results, snippet_key="description", score_key=None, published_key=None
            )
        web = _require_dict(web, "web")
        items = _require_list(web.get("results", []), "web.results")
        return self._collect(
            items,
            max_results,
            snippet_key="description",
            score_key=None,
            published_key="page_age",
        )
