"""`routescope._http`, the core's one HTTP edge, over `httpx.MockTransport`: the total deadline,
the body cap (that keeps the status), `Retry-After` and the bounded retry, credential scrubbing
and every failure kind; then once over a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gzip
import importlib
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any, TypeVar

import httpx
import pytest

from routescope._http import (
    ERROR_BODY_BYTES,
    MAX_RETRY_AFTER_S,
    Retry,
    retry_after,
    send,
    send_sync,
)
from routescope._http_reply import HttpFailure, HttpReply, read_body
from routescope._secrets import Secrets, redact_url
from routescope.research import _providers as research_providers
from tests.core.research._loopback import Reply, Request, serving

T = TypeVar("T")
KEY = "sk-SECRET+key/42"
URL = "http://api.test/v1/things"
Handler = Callable[[httpx.Request], httpx.Response]


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def ask(
    handler: Handler | Callable[[httpx.Request], Coroutine[Any, Any, httpx.Response]],
    *,
    timeout_s: float = 5.0,
    max_bytes: int = 1000,
    **options: Any,
) -> HttpReply | HttpFailure:
    async def go() -> HttpReply | HttpFailure:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            request = client.build_request("GET", URL)
            return await send(client, request, timeout_s=timeout_s, max_bytes=max_bytes, **options)

    return run(go())


def failure(outcome: HttpReply | HttpFailure) -> HttpFailure:
    assert isinstance(outcome, HttpFailure), outcome
    return outcome


def answers(*responses: httpx.Response) -> Handler:
    queue = iter(responses)
    return lambda request: next(queue)


def always(status: int, **headers: str) -> Handler:
    return lambda request: httpx.Response(status, headers=headers)


class Chunks(httpx.AsyncByteStream, httpx.SyncByteStream):
    """A body without Content-Length, in chunks; `then_hang`: the last chunk never comes."""

    def __init__(self, *chunks: bytes, then_hang: bool = False) -> None:
        self.chunks, self.then_hang = chunks, then_hang

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        if self.then_hang:
            await asyncio.sleep(30)

    def __iter__(self) -> Any:
        return iter(self.chunks)


# -- answers and the body cap ------------------------------------------------------------------
def test_a_2xx_answer_is_a_reply() -> None:
    reply = ask(lambda r: httpx.Response(201, json={"a": 1}))
    assert isinstance(reply, HttpReply)
    assert (reply.status, reply.reason, reply.attempts, reply.body) == (
        201,
        "Created",
        1,
        b'{"a":1}',
    )


def test_a_declared_oversize_body_is_refused_unread_with_its_status() -> None:
    outcome = failure(ask(lambda r: httpx.Response(203, content=b"x" * 5000)))
    assert (outcome.kind, outcome.status) == ("too_large", 203)
    assert outcome.detail == "Content-Length 5000 is over 1000 bytes"
    assert outcome.reply is not None and outcome.reply.body == b""


def test_a_streamed_oversize_body_keeps_its_status() -> None:
    outcome = failure(ask(lambda r: httpx.Response(200, stream=Chunks(b"x" * 600, b"y" * 600))))
    assert (outcome.kind, outcome.status, outcome.detail) == (
        "too_large",
        200,
        "the body passed 1000 bytes",
    )


def test_a_gzip_bomb_stops_at_the_cap_after_decompression() -> None:
    bomb = gzip.compress(b"\0" * 20_000_000, compresslevel=9)
    chunks = [bomb[i : i + 4096] for i in range(0, len(bomb), 4096)]
    headers = {"Content-Encoding": "gzip"}
    outcome = ask(lambda r: httpx.Response(200, headers=headers, stream=Chunks(*chunks)))
    assert (failure(outcome).kind, failure(outcome).status) == ("too_large", 200)
    small = gzip.compress(b"hello")
    reply = ask(lambda r: httpx.Response(200, headers=headers, stream=Chunks(small)))
    assert isinstance(reply, HttpReply) and reply.body == b"hello"


def test_an_error_answer_is_cut_not_refused() -> None:
    outcome = failure(ask(lambda r: httpx.Response(500, content=b"e" * 200_000), max_bytes=10**6))
    assert (outcome.kind, outcome.status, outcome.detail) == (
        "http",
        500,
        "HTTP 500 Internal Server Error",
    )
    assert outcome.reply is not None and outcome.reply.body == b"e" * ERROR_BODY_BYTES


@pytest.mark.parametrize(
    ("encoding", "body", "detail"),
    [
        ("br", b"xx", "content encoding 'br' is not supported"),
        ("gzip", b"not gzip at all", "corrupt compressed body"),
    ],
)
def test_an_undecodable_body_is_malformed(encoding: str, body: bytes, detail: str) -> None:
    headers = {"Content-Encoding": encoding}
    outcome = failure(ask(lambda r: httpx.Response(200, headers=headers, stream=Chunks(body))))
    assert (outcome.kind, outcome.status) == ("malformed", 200)
    assert outcome.detail.startswith(detail)


def test_read_body_cuts_when_asked() -> None:
    async def go() -> bytes | HttpFailure:
        response = httpx.Response(200, stream=Chunks(b"abc", b"defgh"))
        return await read_body(response, 5, cut=True)

    assert run(go()) == b"abcde"


# -- the deadline, transport failures ------------------------------------------------------------
def test_the_total_deadline_ends_a_hanging_answer() -> None:
    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return httpx.Response(200)

    outcome = failure(ask(hang, timeout_s=0.05))
    assert (outcome.kind, outcome.status, outcome.exception) == ("timeout", None, "TimeoutError")
    assert outcome.message == "TimeoutError: no complete answer within 0.05 s"


def test_the_deadline_covers_a_body_that_never_ends() -> None:
    trickle = Chunks(b"{", then_hang=True)
    outcome = failure(ask(lambda r: httpx.Response(200, stream=trickle), timeout_s=0.05))
    assert outcome.kind == "timeout"


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (httpx.ReadTimeout, "timeout"),
        (httpx.ConnectError, "network"),
        (httpx.RemoteProtocolError, "network"),
    ],
)
def test_transport_failures(error: type[httpx.TransportError], kind: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise error(f"refused by {KEY}\nsecond line", request=request)

    outcome = failure(ask(fail, secrets=Secrets([KEY])))
    assert (outcome.kind, outcome.status, outcome.exception) == (kind, None, error.__name__)
    assert outcome.message == f"{error.__name__}: refused by *** second line"


def test_a_transport_failing_in_its_own_way_is_still_a_value() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise RuntimeError("boom")

    assert failure(ask(broken)).message == "RuntimeError: boom"


# -- Retry-After and the bounded retry ---------------------------------------------------------
def _date(seconds: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds), usegmt=True)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"Retry-After": "3"}, 3.0),
        ({"Retry-After": " 0.5 "}, 0.5),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"Retry-After": "Fri, 01 Jan 9999 00:00:00 GMT"}, MAX_RETRY_AFTER_S),
        ({"Retry-After": "1e999"}, None),
        ({"retry-after-ms": "1500", "Retry-After": "9"}, 1.5),
        ({"retry-after-ms": "later", "Retry-After": "9"}, 9.0),
        ({"X-RateLimit-Reset": "1, 1419704"}, None),  # read only when asked for
    ],
)
def test_retry_after_forms(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after(httpx.Headers(headers)) == expected


def test_retry_after_dates_and_the_reset_header() -> None:
    wait = retry_after(httpx.Headers({"Retry-After": _date(60)}))
    assert wait is not None and 55 <= wait <= 60
    headers = httpx.Headers({"X-RateLimit-Reset": "1, 1419704"})
    assert retry_after(headers, reset_header="x-ratelimit-reset") == 1.0


def test_a_429_is_retried_once_after_the_bounded_wait() -> None:
    sleeps = Sleeps()
    seen: list[int | None] = []
    handler = answers(httpx.Response(429, headers={"Retry-After": "9999"}), httpx.Response(200))
    retry = Retry(retries=1, max_wait_s=2.0, sleep=sleeps)
    reply = ask(handler, retry=retry, observe=lambda outcome: seen.append(outcome.status))
    assert isinstance(reply, HttpReply) and reply.attempts == 2
    assert sleeps.waits == [2.0] and seen == [429, 200]


def test_retries_are_bounded_and_keep_the_servers_wait() -> None:
    sleeps = Sleeps()
    outcome = failure(
        ask(always(429, **{"Retry-After": "2"}), retry=Retry(retries=1, sleep=sleeps))
    )
    assert (outcome.kind, outcome.status, outcome.attempts) == ("http", 429, 2)
    assert outcome.retry_after_s == 2.0 and sleeps.waits == [2.0]


def test_without_a_named_wait_the_backoff_doubles() -> None:
    sleeps = Sleeps()
    retry = Retry(retries=2, when=lambda f: f.status == 503, backoff_s=0.5, sleep=sleeps)
    outcome = failure(ask(always(503), retry=retry))
    assert outcome.attempts == 3 and sleeps.waits == [0.5, 1.0]


def test_a_wait_past_the_deadline_is_not_made() -> None:
    sleeps = Sleeps()
    retry = Retry(retries=3, max_wait_s=30.0, sleep=sleeps)
    outcome = failure(ask(always(429, **{"Retry-After": "20"}), timeout_s=5.0, retry=retry))
    assert outcome.attempts == 1 and sleeps.waits == []


@pytest.mark.parametrize(
    ("headers", "asked"),
    [
        ({"Retry-After": "999999"}, 999999.0),
        ({"Retry-After": "5"}, 5.0),
        ({"retry-after-ms": "1e12"}, 1e9),
    ],
)
def test_a_named_wait_that_must_fit_ends_the_retries_at_once(
    headers: dict[str, str], asked: float
) -> None:
    """Issue 25: past the time left, the server's wait is kept as it said it (not cut to a
    day) and no shorter wait nor retry is made."""
    sleeps = Sleeps()
    retry = Retry(retries=3, max_wait_s=2.0, sleep=sleeps, named_wait_must_fit=True)
    outcome = failure(ask(always(429, **headers), timeout_s=5.0, retry=retry))
    assert (outcome.status, outcome.attempts, sleeps.waits) == (429, 1, [])
    assert outcome.wait_past_deadline_s == asked
    assert outcome.retry_after_s == min(asked, MAX_RETRY_AFTER_S)


def test_a_named_wait_that_fits_is_still_made_and_bounded() -> None:
    sleeps = Sleeps()
    retry = Retry(retries=1, max_wait_s=2.0, sleep=sleeps, named_wait_must_fit=True)
    outcome = failure(ask(always(429, **{"Retry-After": "3"}), timeout_s=5.0, retry=retry))
    assert (outcome.attempts, sleeps.waits, outcome.wait_past_deadline_s) == (2, [2.0], None)
    backoff = Retry(
        retries=1, when=lambda f: f.status == 503, sleep=sleeps, named_wait_must_fit=True
    )
    outcome = failure(ask(always(503), timeout_s=5.0, retry=backoff))  # no wait named: backoff
    assert (outcome.attempts, sleeps.waits[1:], outcome.wait_past_deadline_s) == (2, [1.0], None)


def test_no_retry_unless_asked_for() -> None:
    outcome = failure(ask(always(429, **{"Retry-After": "1"})))
    assert (outcome.attempts, outcome.retry_after_s) == (1, 1.0)


# -- credentials -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:s3cretTOKEN@127.0.0.1:9/v1", "http://***@127.0.0.1:9/v1"),
        ("https://ghp_token@host/v1", "https://***@host/v1"),
        ("user:pw@host/v1", "***@host/v1"),
        ("http://u:p@ss@host/v1", "http://***@host/v1"),
        (
            "http://h/s?q=python+asyncio&api_key=A1&access_token=B2&sig=C3&format=json",
            "http://h/s?q=python+asyncio&api_key=***&access_token=***&sig=***&format=json",
        ),
        ("http://host/v1#token=abc", "http://host/v1#***"),
        ("http://[::1", "http://[::1"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_url_masks_known_secrets_in_any_form() -> None:
    encoded = "sk-SECRET%2Bkey%2F42"
    assert redact_url(f"http://h/{KEY}/x?k={encoded}", [KEY]) == "http://h/***/x?k=***"
    masked = redact_url(f"http://me:pw@h/?k={KEY}", Secrets([KEY], "[REDACTED]"))
    assert masked == "http://[REDACTED]@h/?k=[REDACTED]"


def test_one_redact_url_for_the_whole_core() -> None:
    # (imported by name: the package's lazy attributes hold only a module imported before)
    embed = importlib.import_module("routescope.toolsearch._embed")
    assert research_providers.redact_url is redact_url
    assert embed.redact_url is redact_url


def test_secrets_hide_themselves_and_an_error_body_stays_out_of_the_detail() -> None:
    secrets = Secrets([KEY, None, ""])
    assert KEY not in repr(secrets) and secrets.scrub(f"a {KEY} b") == "a *** b"
    body = f"bad key {KEY}".encode()
    outcome = failure(ask(lambda r: httpx.Response(401, content=body), secrets=secrets))
    assert outcome.detail == "HTTP 401 Unauthorized"
    assert outcome.reply is not None and outcome.reply.body == body  # the caller's to scrub


def test_a_secret_is_scrubbed_before_the_detail_is_cut_short() -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("x" * 290 + KEY + "y" * 50, request=request)

    outcome = failure(ask(fail, secrets=Secrets([KEY])))
    assert KEY[:6] not in outcome.detail and len(outcome.detail) == 300


# -- the blocking twin -------------------------------------------------------------------------
def test_send_sync_answers_and_caps() -> None:
    with httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200))) as client:
        reply = send_sync(client, client.build_request("GET", URL), timeout_s=5, max_bytes=10)
    assert isinstance(reply, HttpReply) and reply.status == 200
    big = httpx.MockTransport(lambda r: httpx.Response(200, stream=Chunks(b"x" * 8, b"y" * 8)))
    with httpx.Client(transport=big) as client:
        outcome = send_sync(client, client.build_request("GET", URL), timeout_s=5, max_bytes=10)
    assert (failure(outcome).kind, failure(outcome).status) == ("too_large", 200)


def test_send_sync_keeps_its_deadline_while_the_transport_blocks() -> None:
    release = threading.Event()

    def block(request: httpx.Request) -> httpx.Response:
        release.wait(10)
        return httpx.Response(200)

    try:
        with httpx.Client(transport=httpx.MockTransport(block)) as client:
            request = client.build_request("GET", URL)
            outcome = send_sync(client, request, timeout_s=0.05, max_bytes=10)
    finally:
        release.set()
    assert failure(outcome).message == "TimeoutError: no complete answer within 0.05 s"


# -- one real server on 127.0.0.1 ----------------------------------------------------------------
def _route(request: Request) -> Reply:
    if request.path == "/gzip":
        return Reply(body=gzip.compress(b"hello " * 100), headers={"Content-Encoding": "gzip"})
    if request.path == "/endless":  # no Content-Length: the body ends when the server hangs up
        return Reply(body=b"x" * 300_000, content_length=False)
    return Reply(503, b'{"error": "busy"}', headers={"Retry-After": "1"})


def test_over_loopback() -> None:
    sleeps = Sleeps()

    async def go(base: str) -> list[HttpReply | HttpFailure]:
        async with httpx.AsyncClient(trust_env=False) as client:
            return [
                await send(
                    client,
                    client.build_request("GET", f"{base}{path}"),
                    timeout_s=5,
                    max_bytes=100_000,
                    retry=Retry(retries=1, when=lambda f: f.status == 503, sleep=sleeps),
                )
                for path in ("/gzip", "/endless", "/busy")
            ]

    with serving(_route) as server:
        inflated, endless, busy = run(go(server.url()))
        with httpx.Client(trust_env=False) as client:
            request = client.build_request("GET", server.url("/endless"))
            blocking = send_sync(client, request, timeout_s=5, max_bytes=100_000)
        accepted = {r.headers.get("accept-encoding") for r in server.requests}
    assert isinstance(inflated, HttpReply) and inflated.body == b"hello " * 100
    assert (failure(endless).kind, failure(endless).status) == ("too_large", 200)
    assert (failure(blocking).kind, failure(blocking).status) == ("too_large", 200)
    assert (failure(busy).status, failure(busy).attempts, sleeps.waits) == (503, 2, [1.0])
    assert accepted == {"gzip, deflate"}  # only what the cap can be kept for
