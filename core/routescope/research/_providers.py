"""Search provider adapters (reference §4): SearXNG, Tavily and Brave behind one contract.

Every adapter takes an injected ``httpx.AsyncClient`` (the test seam), enforces its provider's
documented query limits before sending, maps HTTP and transport failures to one taxonomy,
honours ``Retry-After`` on a 429 up to a bound (one retry, through an injectable sleep), parses
the result JSON strictly (a wrong shape is ``malformed``; a bad single result is skipped, the
good ones kept; repeated URLs dropped) and records status, redacted URL and duration.
``search`` never raises (cancellation aside). API keys come from parameters and never appear in
a ``repr``, a response, an error message or the recorded URL: every string passes ``redact``.
The contract is `_provider_contract`, the shared cycle `_provider_http`, the JSON reading
`_provider_json`; each adapter here says how to ask its provider and read its answer.
"""

from __future__ import annotations

from typing import ClassVar, Unpack

import httpx

from .._secrets import redact_url
from ._models import ProviderError
from ._provider_contract import ProviderOptions
from ._provider_http import HttpProvider, header_safe
from ._provider_json import MalformedError, Parsed, require_dict, require_list

__all__ = [  # redact_url: for the package's lazy names
    "BraveSearch",
    "SearxngSearch",
    "TavilySearch",
    "redact_url",
]


class SearxngSearch(HttpProvider):
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
        if self._key and not header_safe(self._key):
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

    def _parse(self, payload: object, max_results: int) -> Parsed:
        data = require_dict(payload, "the response")
        items = require_list(data.get("results", []), "results")
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


class TavilySearch(HttpProvider):
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
        if not header_safe(self._key):
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

    def _parse(self, payload: object, max_results: int) -> Parsed:
        data = require_dict(payload, "the response")
        if "results" not in data:
            raise MalformedError("no results field")
        items = require_list(data["results"], "results")
        return self._collect(
            items, max_results, snippet_key="content", score_key="score", published_key=None
        )


class BraveSearch(HttpProvider):
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
        if not header_safe(self._key):
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

    def _parse(self, payload: object, max_results: int) -> Parsed:
        data = require_dict(payload, "the response")
        web = data.get("web")
        if web is None:
            return self._collect(
                [], max_results, snippet_key="description", score_key=None, published_key=None
            )
        web = require_dict(web, "web")
        items = require_list(web.get("results", []), "web.results")
        return self._collect(
            items,
            max_results,
            snippet_key="description",
            score_key=None,
            published_key="page_age",
        )
