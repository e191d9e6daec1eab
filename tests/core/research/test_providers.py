"""The search provider adapters through ``httpx.MockTransport``, plus one real loopback
request per adapter against a tiny ``http.server`` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx
import pytest

from routescope._secrets import Secrets
from routescope.research._models import SearchResponse
from routescope.research._provider_contract import SearchProvider, redact, shorten_query
from routescope.research._providers import (
    BraveSearch,
    SearxngSearch,
    TavilySearch,
    redact_url,
)

KEY = "tvly-SECRET+key/42"
Handler = Callable[[httpx.Request], httpx.Response]
Provider = SearxngSearch | TavilySearch | BraveSearch


class RecordingSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@dataclass(frozen=True)
class Spec:
    id: str
    snippet_key: str
    max_chars: int
    max_words: int | None

    def make(self, client: httpx.AsyncClient, **options: Any) -> Provider:
        if self.id == "searxng":
            return SearxngSearch(
                client, "http://searx.test", api_key=options.pop("api_key", KEY), **options
            )
        if self.id == "tavily":
            return TavilySearch(client, options.pop("api_key", KEY), **options)
        return BraveSearch(client, options.pop("api_key", KEY), **options)

    def payload(self, items: list[Any]) -> dict[str, Any]:
        renamed = [
            {(self.snippet_key if k == "snippet" else k): v for k, v in item.items()}
            if isinstance(item, dict)
            else item
            for item in items
        ]
        if self.id == "brave":
            return {"query": {"original": "q"}, "web": {"results": renamed}}
        if self.id == "tavily":
            return {"query": "q", "results": renamed, "response_time": 0.5}
        return {"query": "q", "results": renamed, "unresponsive_engines": []}


SPECS = [
    Spec("searxng", "content", 2000, None),
    Spec("tavily", "content", 400, None),
    Spec("brave", "description", 400, 50),
]
ITEMS = [
    {"url": "https://docs.python.org/3/library/asyncio.html", "title": "asyncio", "snippet": "A"},
    {"url": "https://example.org/b", "title": "B", "snippet": "Bee"},
]


@pytest.fixture(params=SPECS, ids=lambda spec: spec.id)
def spec(request: pytest.FixtureRequest) -> Spec:
    result: Spec = request.param
    return result


def search(
    spec: Spec,
    handler: Handler,
    query: str = "python asyncio tutorial",
    *,
    max_results: int = 10,
    **options: Any,
) -> tuple[SearchResponse, str]:
    """Runs one search through a mock transport; returns the response and the provider's repr,
    after checking that the key shows nowhere."""

    async def go() -> tuple[SearchResponse, str]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            provider = spec.make(client, **options)
            assert isinstance(provider, SearchProvider)
            response = await provider.search(query, max_results=max_results)
            return response, repr(provider)

    response, provider_repr = asyncio.run(go())
    for text in (repr(response), response.model_dump_json(), str(response), provider_repr):
        assert KEY not in text
        assert "SECRET" not in text
    return response, provider_repr


def json_response(payload: object, status: int = 200, **headers: str) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=payload, headers=headers)

    return handler


def raw_response(body: bytes, status: int = 200) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers={"content-type": "application/json"})

    return handler


# --- success and the request each adapter sends ----------------------------------------------


def test_success_normalises_hits(spec: Spec) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=spec.payload(ITEMS))

    response, _ = search(spec, handler, "  python   asyncio tutorial ")
    assert response.ok and response.error is None
    assert response.status == 200 and response.requests == 1
    assert response.provider == spec.id
    assert response.query == "python asyncio tutorial" and response.query_action == "sent"
    assert [hit.url for hit in response.results] == [item["url"] for item in ITEMS]
    assert [hit.rank for hit in response.results] == [1, 2]
    assert response.results[1].snippet == "Bee" and response.results[1].title == "B"
    assert all(hit.provider == spec.id for hit in response.results)
    assert response.duration_ms >= 0
    (request,) = seen
    assert response.url == str(request.url)
    if spec.id == "searxng":
        assert request.method == "GET" and request.url.path == "/search"
        assert request.url.params["format"] == "json"
        assert request.url.params["q"] == "python asyncio tutorial"
        assert request.headers["authorization"] == f"Bearer {KEY}"
    elif spec.id == "tavily":
        assert request.method == "POST" and str(request.url) == "https://api.tavily.com/search"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        body = json.loads(request.content)
        assert body["query"] == "python asyncio tutorial" and body["max_results"] == 10
        assert "api_key" not in body
    else:
        assert request.method == "GET"
        assert request.url.path == "/res/v1/web/search"
        assert request.headers["x-subscription-token"] == KEY
        assert request.url.params["q"] == "python asyncio tutorial"
        assert request.url.params["count"] == "10"


def test_results_are_capped_and_deduplicated(spec: Spec) -> None:
    items = [
        {"url": "https://a.test/page", "title": "1", "snippet": ""},
        {"url": "https://A.test/page/#frag", "title": "dup", "snippet": ""},
        *({"url": f"https://a.test/{i}", "title": str(i), "snippet": ""} for i in range(30)),
    ]
    response, _ = search(spec, json_response(spec.payload(items)), max_results=5)
    assert response.ok
    assert [hit.title for hit in response.results] == ["1", "0", "1", "2", "3"]
    assert response.duplicates == 1
    assert [hit.rank for hit in response.results] == [1, 2, 3, 4, 5]


def test_bad_results_are_skipped_and_good_ones_kept(spec: Spec) -> None:
    items: list[Any] = [
        {"url": 42, "title": "wrong type"},
        {"url": "javascript:alert(1)", "title": "not http"},
        {"url": "https://ok.test/1", "title": ["list"], "snippet": ""},
        "a string",
        None,
        {"url": "https://ok.test/2", "title": "good", "snippet": None},
        {"url": "https://ok test/3", "title": "space in host"},
    ]
    response, _ = search(spec, json_response(spec.payload(items)))
    assert response.ok
    assert [hit.url for hit in response.results] == ["https://ok.test/2"]
    assert response.results[0].snippet == ""
    assert response.skipped == 6


def test_all_results_bad_is_malformed(spec: Spec) -> None:
    items: list[Any] = [{"url": 1}, {"title": "no url"}]
    response, _ = search(spec, json_response(spec.payload(items)))
    assert response.error is not None and response.error.kind == "malformed"
    assert response.results == () and response.status == 200


def test_empty_results(spec: Spec) -> None:
    response, _ = search(spec, json_response(spec.payload([])))
    assert response.error is not None and response.error.kind == "empty"
    assert response.status == 200 and response.results == ()


# --- query limits ----------------------------------------------------------------------------


def test_long_query_is_shortened_before_sending(spec: Spec) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            sent.append(json.loads(request.content)["query"])
        else:
            sent.append(request.url.params["q"])
        return httpx.Response(200, json=spec.payload(ITEMS))

    query = " ".join(f"word{i:03d}" for i in range(300))  # 2 399 characters, 300 words
    response, _ = search(spec, handler, query)
    assert response.query_action == "shortened"
    assert sent == [response.query]
    assert len(response.query) <= spec.max_chars
    assert query.startswith(response.query) and query[len(response.query)] == " "
    if spec.max_words is not None:
        assert len(response.query.split()) <= spec.max_words
    assert response.original_query == query


def test_long_query_is_refused_when_shortening_is_off(spec: Spec) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    query = "x " * 1500
    response, _ = search(spec, handler, query, shorten_long_queries=False)
    assert response.query_action == "refused" and response.requests == 0
    assert response.error is not None and response.error.kind == "bad_request"
    assert response.status is None and "limit" in response.error.message


def test_empty_query_is_refused(spec: Spec) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    response, _ = search(spec, handler, "   \n ")
    assert response.query_action == "refused"
    assert response.error is not None and response.error.kind == "bad_request"


# --- HTTP errors -----------------------------------------------------------------------------


def test_400_is_bad_request(spec: Spec) -> None:
    body = {"detail": {"error": "Query is too long. Max query length is 400 characters."}}
    response, _ = search(spec, json_response(body, 400))
    assert response.error is not None and response.error.kind == "bad_request"
    assert response.error.status == 400 == response.status
    assert "too long" in response.error.message and not response.error.retryable


@pytest.mark.parametrize("status", [401, 403])
def test_401_and_403_are_unauthorized_and_an_echoed_key_is_redacted(
    spec: Spec, status: int
) -> None:
    body = {"detail": {"error": f"Unauthorized: invalid API key {KEY}"}}
    response, _ = search(spec, json_response(body, status))
    assert response.error is not None and response.error.kind == "unauthorized"
    assert "[REDACTED]" in response.error.message
    if spec.id == "searxng" and status == 403:
        assert "format=json" in response.error.message


def test_500_is_server_error(spec: Spec) -> None:
    response, _ = search(spec, raw_response(b"<html>oops</html>", 503))
    assert response.error is not None and response.error.kind == "server_error"
    assert response.error.retryable and response.status == 503


def test_other_status_is_http_error(spec: Spec) -> None:
    response, _ = search(spec, raw_response(b"", 404))
    assert response.error is not None and response.error.kind == "http_error"


@pytest.mark.parametrize("status", [432, 433, 402])
def test_plan_limits_are_quota(status: int) -> None:
    response, _ = search(SPECS[1], json_response({"detail": {"error": "limit"}}, status))
    assert response.error is not None and response.error.kind == "quota"
    assert not response.error.retryable


# --- 429 and Retry-After ---------------------------------------------------------------------


def test_429_waits_the_bounded_retry_after_and_retries_once(spec: Spec) -> None:
    answers = iter(
        [
            httpx.Response(429, json={"detail": "slow down"}, headers={"Retry-After": "30"}),
            httpx.Response(200, json=spec.payload(ITEMS)),
        ]
    )
    sleep = RecordingSleep()
    response, _ = search(spec, lambda request: next(answers), sleep=sleep)
    assert sleep.calls == [5.0]
    assert response.ok and response.requests == 2 and response.status == 200


def test_429_twice_is_rate_limited_with_the_servers_wait(spec: Spec) -> None:
    sleep = RecordingSleep()
    handler = json_response({"detail": "slow"}, 429, **{"Retry-After": "2"})
    response, _ = search(spec, handler, sleep=sleep, max_retry_wait_s=3.0)
    assert sleep.calls == [2.0]
    assert response.error is not None and response.error.kind == "rate_limited"
    assert response.error.retry_after_s == 2.0 and response.error.retryable
    assert response.requests == 2 and response.status == 429


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, 1.0),
        ({"X-RateLimit-Reset": "1, 1419704"}, 1.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "nan"}, 1.0),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past
        ({"Retry-After": "Fri, 01 Jan 9999 00:00:00 GMT"}, 5.0),  # far future, bounded
        ({"Retry-After": "soon"}, 1.0),
    ],
)
def test_retry_after_forms(headers: dict[str, str], expected: float) -> None:
    sleep = RecordingSleep()
    search(SPECS[2], json_response({}, 429, **headers), sleep=sleep)
    assert sleep.calls == [expected]


def test_429_retry_can_be_disabled() -> None:
    sleep = RecordingSleep()
    handler = json_response({}, 429, **{"Retry-After": "1"})
    response, _ = search(SPECS[0], handler, sleep=sleep, retry_on_429=False)
    assert sleep.calls == [] and response.requests == 1
    assert response.error is not None and response.error.retry_after_s == 1.0


# --- bodies that are not the documented JSON -------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        b"not json at all",
        b'```json\n{"results": []}\n```',
        b"<!doctype html><html><body>Just a moment...</body></html>",
        b"",
        b"\xff\xfe\x00garbage",
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["text", "fenced", "html", "empty-body", "binary", "deep"],
)
def test_garbage_bodies_are_malformed(spec: Spec, body: bytes) -> None:
    response, _ = search(spec, raw_response(body))
    assert response.error is not None and response.error.kind == "malformed"
    assert response.status == 200


@pytest.mark.parametrize(
    "payload",
    [
        [],
        "results",
        {"results": {"url": "https://a.test"}},
        {"web": "results"},
        {"web": {"results": 7}},
    ],
    ids=["list", "string", "results-dict", "web-string", "web-results-int"],
)
def test_wrong_shapes_are_malformed(spec: Spec, payload: object) -> None:
    if spec.id == "brave" and isinstance(payload, dict) and "results" in payload:
        payload = {"web": payload}
    if spec.id != "brave" and isinstance(payload, dict) and "web" in payload:
        payload = {"results": payload["web"]}
    response, _ = search(spec, json_response(payload))
    assert response.error is not None and response.error.kind == "malformed"


def test_oversized_body_is_malformed(spec: Spec) -> None:
    response, _ = search(spec, raw_response(b" " * 5000), max_body_bytes=1000)
    assert response.error is not None and response.error.kind == "malformed"
    assert "larger" in response.error.message


def test_searxng_unresponsive_engines_are_a_server_error() -> None:
    payload = {"results": [], "unresponsive_engines": [["duckduckgo", "CAPTCHA"], ["brave", "t"]]}
    response, _ = search(SPECS[0], json_response(payload))
    assert response.error is not None and response.error.kind == "server_error"
    assert "duckduckgo CAPTCHA" in response.error.message


def test_brave_without_web_section_is_empty() -> None:
    response, _ = search(SPECS[2], json_response({"query": {"original": "q"}}))
    assert response.error is not None and response.error.kind == "empty"


# --- transport failures ----------------------------------------------------------------------


def test_timeout(spec: Spec) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout(f"timed out reading {KEY}", request=request)

    response, _ = search(spec, handler)
    assert response.error is not None and response.error.kind == "timeout"
    assert response.error.retryable and response.status is None
    assert "[REDACTED]" in response.error.message


def test_network_error(spec: Spec) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    response, _ = search(spec, handler)
    assert response.error is not None and response.error.kind == "network"


# --- keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["", None, "bad\nkey", "clé"])
@pytest.mark.parametrize("spec_id", ["searxng", "tavily", "brave"])
def test_unusable_keys_are_unauthorized_without_a_request(key: str | None, spec_id: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    spec = next(s for s in SPECS if s.id == spec_id)
    if spec_id == "searxng" and not key:
        return  # SearXNG needs no key
    response, provider_repr = search(spec, handler, api_key=key)
    assert response.error is not None and response.error.kind == "unauthorized"
    assert response.requests == 0
    if key:
        assert key not in response.model_dump_json() and key not in provider_repr


def test_repr_names_the_endpoint_but_not_the_key(spec: Spec) -> None:
    _, provider_repr = search(spec, json_response(spec.payload(ITEMS)))
    assert "api_key=<set>" in provider_repr
    assert ("searx.test" if spec.id == "searxng" else "https://api.") in provider_repr


def test_adapters_satisfy_the_protocol_statically() -> None:
    async def go() -> list[str]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(raw_response(b""))) as client:
            providers: list[SearchProvider] = [
                SearxngSearch(client, "http://searx.test"),
                TavilySearch(client, KEY),
                BraveSearch(client, KEY),
            ]
            return [provider.name for provider in providers]

    assert asyncio.run(go()) == ["searxng", "tavily", "brave"]


def test_searxng_base_url_credentials_are_redacted() -> None:
    async def go() -> SearchResponse:
        transport = httpx.MockTransport(json_response(SPECS[0].payload(ITEMS)))
        async with httpx.AsyncClient(transport=transport) as client:
            provider = SearxngSearch(client, "http://me:hunter2@searx.test/")
            assert "hunter2" not in repr(provider)
            return await provider.search("q")

    response = asyncio.run(go())
    assert response.ok and "hunter2" not in response.url
    assert response.url.startswith("http://[REDACTED]@searx.test/search?")  # the user too


def test_redact() -> None:
    assert redact(f"a {KEY} b", [KEY, ""]) == "a [REDACTED] b"
    assert redact("k=tvly-SECRET%2Bkey%2F42", [KEY]) == "k=[REDACTED]"
    assert redact("k=tvly-SECRET%2Bkey/42", [KEY]) == "k=[REDACTED]"
    assert redact("nothing", []) == "nothing"
    assert redact_url(f"https://u:pw@h.test/p?x={KEY}", Secrets([KEY], "[REDACTED]")) == (
        "https://[REDACTED]@h.test/p?x=[REDACTED]"
    )


def test_shorten_query() -> None:
    assert shorten_query("a  b\tc", max_chars=None, max_words=None) == "a b c"
    assert shorten_query("alpha beta gamma", max_chars=10, max_words=None) == "alpha beta"
    assert shorten_query("alpha beta gamma", max_chars=11, max_words=None) == "alpha beta"
    assert shorten_query("alpha beta gamma", max_chars=None, max_words=2) == "alpha beta"
    assert shorten_query("x" * 50, max_chars=10, max_words=None) == "x" * 10


# --- one real request per adapter over loopback ----------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str, dict[str, str], bytes]]] = []
    items: ClassVar[list[dict[str, Any]]] = [
        {"url": "https://docs.python.org/3/", "title": "Python", "content": "docs"}
    ]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _answer(self, body: bytes) -> None:
        self.seen.append((self.command, self.path, dict(self.headers.items()), body))
        if self.path.startswith("/search?"):
            payload: dict[str, Any] = {"results": self.items}
        elif self.path == "/tavily":
            payload = {"results": self.items}
        else:
            brave = [{"url": i["url"], "title": i["title"], "description": "d"} for i in self.items]
            payload = {"web": {"results": brave}}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self._answer(self.rfile.read(min(length, 100_000)))


@pytest.fixture(scope="module")
def loopback() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize("spec_id", ["searxng", "tavily", "brave"])
def test_loopback_round_trip(loopback: str, spec_id: str) -> None:
    async def go() -> SearchResponse:
        async with httpx.AsyncClient(trust_env=False, timeout=5.0) as client:
            provider: Provider
            if spec_id == "searxng":
                provider = SearxngSearch(client, loopback, timeout_s=5.0)
            elif spec_id == "tavily":
                provider = TavilySearch(client, KEY, endpoint=f"{loopback}/tavily", timeout_s=5.0)
            else:
                provider = BraveSearch(client, KEY, endpoint=f"{loopback}/brave", timeout_s=5.0)
            return await asyncio.wait_for(provider.search("python docs", max_results=3), 10)

    _Handler.seen.clear()
    response = asyncio.run(go())
    assert response.ok, response.error
    assert [hit.url for hit in response.results] == ["https://docs.python.org/3/"]
    assert response.status == 200 and response.url.startswith(loopback)
    assert KEY not in response.model_dump_json()
    ((method, path, headers, body),) = _Handler.seen
    lowered = {k.lower(): v for k, v in headers.items()}
    if spec_id == "searxng":
        assert method == "GET" and "format=json" in path and "q=python+docs" in path
    elif spec_id == "tavily":
        assert method == "POST" and lowered["authorization"] == f"Bearer {KEY}"
        assert json.loads(body)["query"] == "python docs"
    else:
        assert method == "GET" and lowered["x-subscription-token"] == KEY
