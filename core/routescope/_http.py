"""The core's one HTTP edge: a bounded request over an injected httpx client.

`send` (async) and `send_sync` make one request, and under a `Retry` a bounded few more, within
a total deadline that covers connecting and reading the whole body. The body is read raw and
inflated under a byte cap that holds after decompression (`_http_reply.read_body`).
`retry_after` reads `retry-after-ms` and `Retry-After` (seconds or an HTTP date). Every outcome
is a value: an `HttpReply` for a 2xx answer, else one `HttpFailure` (`_http_reply` lists its
kinds) whose `detail` is one line with every known secret masked (`_secrets.Secrets`).
"""

from __future__ import annotations

import asyncio
import functools
import math
import ssl
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

from ._errors import one_line
from ._http_reply import Body, FailureKind, HttpFailure, HttpReply, read_body
from ._secrets import NO_SECRETS, Secrets

__all__ = [
    "ERROR_BODY_BYTES",
    "MAX_RETRY_AFTER_S",
    "Retry",
    "Sleep",
    "retry_after",
    "send",
    "send_sync",
    "tls_context",
]

Sleep = Callable[[float], Awaitable[None]]

MAX_RETRY_AFTER_S = 86_400.0
"""A server's wait is believed up to a day; an HTTP date in the year 9999 is not."""
ERROR_BODY_BYTES = 64 * 1024
"""An error answer is read this far (enough for its message) and cut there, never refused."""
_DETAIL_CHARS = 300


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for the process: loading the CA bundle costs 20–40 ms, which a
    client made per call (an external router's prompt) must not pay each time."""
    return ssl.create_default_context()


def retry_after(headers: httpx.Headers, *, reset_header: str | None = None) -> float | None:
    """Seconds a server asks to wait: `retry-after-ms`, else `Retry-After` (seconds or an HTTP
    date), else the first number of `reset_header` (Brave's `X-RateLimit-Reset: 1, 1419704`);
    from 0 to `MAX_RETRY_AFTER_S`; None when none of them is usable."""
    seconds = _asked_wait(headers, reset_header)
    return None if seconds is None else min(seconds, MAX_RETRY_AFTER_S)


def _asked_wait(headers: httpx.Headers, reset_header: str | None) -> float | None:
    """`retry_after` as the server said it: at least 0, but not cut to `MAX_RETRY_AFTER_S`."""
    reset = headers.get(reset_header) if reset_header else None
    for seconds in (
        _number(headers.get("retry-after-ms"), scale=0.001),
        _delay(headers.get("retry-after")),
        _number(reset.split(",")[0] if reset else None),
    ):
        if seconds is not None:
            return max(0.0, seconds)
    return None


def _number(text: str | None, scale: float = 1.0) -> float | None:
    try:
        value = float(text.strip()) * scale if text is not None else math.nan
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _delay(text: str | None) -> float | None:
    seconds = _number(text)
    if text is None or seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime.now(UTC)).total_seconds()


def _on_429(failure: HttpFailure) -> bool:
    return failure.status == 429


@dataclass(frozen=True)
class Retry:
    """Up to `retries` more requests after a failure that `when` accepts, each after the wait
    the server named or else `backoff_s` doubled per retry, at most `max_wait_s`, and never a
    wait that would outlast the deadline. `reset_header` is also read for the wait.

    `named_wait_must_fit`: a wait the server named that the time left cannot hold ends the
    request at once, without a shorter wait and a retry the server asked not to get; the
    failure keeps that wait as the server said it (`HttpFailure.wait_past_deadline_s`)."""

    retries: int = 0
    when: Callable[[HttpFailure], bool] = _on_429
    max_wait_s: float = 5.0
    backoff_s: float = 1.0
    reset_header: str | None = None
    sleep: Sleep = asyncio.sleep
    named_wait_must_fit: bool = False

    def wait(self, outcome: HttpReply | HttpFailure) -> float | None:
        """Seconds to wait before asking again; None: do not ask again."""
        if isinstance(outcome, HttpReply) or outcome.attempts > self.retries:
            return None
        if not self.when(outcome):
            return None
        wanted = outcome.retry_after_s
        if wanted is None:
            wanted = self.backoff_s * 2 ** (outcome.attempts - 1)
        return min(wanted, self.max_wait_s)


_NO_RETRY = Retry()


async def send(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    timeout_s: float,
    max_bytes: int,
    secrets: Secrets = NO_SECRETS,
    retry: Retry = _NO_RETRY,
    observe: Callable[[HttpReply | HttpFailure], None] | None = None,
) -> HttpReply | HttpFailure:
    """`request` sent through `client` within `timeout_s` in all (retries and waits included),
    its body capped at `max_bytes`; its per-phase timeouts and `Accept-Encoding` are set here.
    `observe` hears of every attempt as it ends, so a caller cancelled meanwhile still knows
    what was done."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    attempts = 0
    while True:
        attempts += 1
        outcome = await _attempt(
            client, request, deadline, timeout_s, max_bytes, retry.reset_header
        )
        outcome = _settled(outcome, secrets, attempts)
        if observe is not None:
            observe(outcome)
        wait = retry.wait(outcome)
        if wait is None:
            return outcome
        left = deadline - loop.time()
        if retry.named_wait_must_fit and isinstance(outcome, HttpFailure):
            named = _named_wait(outcome, retry.reset_header)
            if named is not None and named >= left:
                return replace(outcome, wait_past_deadline_s=named)
        if wait >= left:
            return outcome
        await retry.sleep(wait)


def _named_wait(failure: HttpFailure, reset_header: str | None) -> float | None:
    """The wait the server named in its answer, as it said it (None: it named none)."""
    if failure.retry_after_s is None or failure.reply is None:
        return None
    return _asked_wait(failure.reply.headers, reset_header)


async def _attempt(
    client: httpx.AsyncClient,
    request: httpx.Request,
    deadline: float,
    timeout_s: float,
    max_bytes: int,
    reset_header: str | None,
) -> HttpReply | HttpFailure:
    _prepare(request, deadline - asyncio.get_running_loop().time())
    try:
        async with asyncio.timeout_at(deadline):
            response = await client.send(request, stream=True)
            try:
                cap, cut = _cap(response, max_bytes)
                body = await read_body(response, cap, cut=cut)
            finally:
                await response.aclose()
    except TimeoutError:
        return _late(timeout_s)
    except Exception as exc:  # a transport that fails in its own way: still a value
        return _transport_failure(exc)
    return _outcome(response, body, reset_header)


def send_sync(
    client: httpx.Client,
    request: httpx.Request,
    *,
    timeout_s: float,
    max_bytes: int,
    secrets: Secrets = NO_SECRETS,
) -> HttpReply | HttpFailure:
    """`send` for a blocking client, once: the request runs on a helper thread, so the deadline
    holds while a name resolves or a read blocks; the thread, left behind, stops at its next
    chunk or its own timeout."""
    deadline = time.monotonic() + timeout_s
    outcome: list[HttpReply | HttpFailure] = []
    done, late = threading.Event(), threading.Event()

    def run() -> None:
        try:
            outcome.append(_attempt_sync(client, request, deadline, late, timeout_s, max_bytes))
        finally:
            done.set()

    threading.Thread(target=run, name="routescope-http", daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic()) + 0.05) or not outcome:
        late.set()
        return _settled(_late(timeout_s), secrets, 1)
    return _settled(outcome[0], secrets, 1)


def _attempt_sync(
    client: httpx.Client,
    request: httpx.Request,
    deadline: float,
    late: threading.Event,
    timeout_s: float,
    max_bytes: int,
) -> HttpReply | HttpFailure:
    _prepare(request, deadline - time.monotonic())
    try:
        response = client.send(request, stream=True)
        try:
            cap, cut = _cap(response, max_bytes)
            body = Body(response, cap, cut=cut)
            chunks = response.iter_raw() if body.open else iter(())
            for chunk in chunks:
                if late.is_set() or time.monotonic() > deadline:
                    return _late(timeout_s)
                if not body.take(chunk):
                    break
            result = body.result()
        finally:
            response.close()
    except Exception as exc:  # a transport that fails in its own way: still a value
        return _transport_failure(exc)
    return _outcome(response, result, None)


def _prepare(request: httpx.Request, remaining: float) -> None:
    """Every phase bounded by the time left; only the encodings `Body` inflates asked for."""
    request.extensions = {
        **request.extensions,
        "timeout": httpx.Timeout(max(0.001, remaining)).as_dict(),
    }
    if request.headers.get("accept-encoding", "").strip().lower() != "identity":
        request.headers["Accept-Encoding"] = "gzip, deflate"


def _cap(response: httpx.Response, max_bytes: int) -> tuple[int, bool]:
    """The cap of this answer's body, and whether a longer one is cut (an error's) or refused."""
    if response.is_success:
        return max_bytes, False
    return min(max_bytes, ERROR_BODY_BYTES), True


def _outcome(
    response: httpx.Response, body: bytes | HttpFailure, reset_header: str | None
) -> HttpReply | HttpFailure:
    if isinstance(body, HttpFailure):
        return body
    reply = HttpReply(response.status_code, response.reason_phrase, response.headers, body)
    if response.is_success:
        return reply
    return HttpFailure(
        "http",
        f"HTTP {reply.status} {reply.reason}".rstrip(),
        reply.status,
        retry_after_s=retry_after(response.headers, reset_header=reset_header),
        reply=reply,
    )


def _late(timeout_s: float) -> HttpFailure:
    return HttpFailure(
        "timeout", f"no complete answer within {timeout_s:g} s", None, "TimeoutError"
    )


def _transport_failure(exc: Exception) -> HttpFailure:
    kind: FailureKind = "timeout" if isinstance(exc, httpx.TimeoutException) else "network"
    return HttpFailure(kind, str(exc), None, type(exc).__name__)


def _settled(
    outcome: HttpReply | HttpFailure, secrets: Secrets, attempts: int
) -> HttpReply | HttpFailure:
    if isinstance(outcome, HttpReply):
        return replace(outcome, attempts=attempts)
    detail = one_line(
        secrets.scrub(outcome.detail), _DETAIL_CHARS, collapse=True
    )  # scrubbed before it is cut short
    return replace(outcome, detail=detail, attempts=attempts)
