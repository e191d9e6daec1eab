"""The core's one HTTP edge: a bounded request over an injected httpx client.

`send` (async) and `send_sync` make one request, and under a `Retry` a bounded few more, within
a total deadline that covers connecting and reading the whole body. The body is read raw and
inflated here (gzip, deflate) under a byte cap that holds after decompression. `retry_after`
reads `retry-after-ms` and `Retry-After` (seconds or an HTTP date). Every outcome is a value: an
`HttpReply` for a 2xx answer, else one `HttpFailure` whose `kind` is

    timeout     the total deadline passed, or one phase of the request timed out
    network     no answer: connection refused, reset, a protocol error…
    too_large   the body passed the cap (the answer's status is kept)
    http        the server answered another status (its body read up to a small cap)
    malformed   the body cannot be decoded (an unknown or corrupt content encoding)

and whose `detail` is one line with every known secret masked. Callers map a failure into their
own error vocabulary. `redact_url` shows a URL without its credentials.
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal
from urllib.parse import quote, quote_plus

import httpx

from ._errors import one_line

__all__ = [
    "ERROR_BODY_BYTES",
    "MASK",
    "MAX_RETRY_AFTER_S",
    "FailureKind",
    "HttpFailure",
    "HttpReply",
    "Retry",
    "Secrets",
    "Sleep",
    "read_body",
    "redact_url",
    "retry_after",
    "send",
    "send_sync",
]

FailureKind = Literal["timeout", "network", "too_large", "http", "malformed"]
Sleep = Callable[[float], Awaitable[None]]

MASK = "***"
MAX_RETRY_AFTER_S = 86_400.0
"""A server's wait is believed up to a day; an HTTP date in the year 9999 is not."""
ERROR_BODY_BYTES = 64 * 1024
"""An error answer is read this far (enough for its message) and cut there, never refused."""
_DETAIL_CHARS = 300
_SECRET_NAMES = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|cred|session|cookie|code|jwt", re.I
)
_INFLATED = ("gzip", "x-gzip", "deflate")


class Secrets:
    """Strings never to be shown (each also percent-encoded, as a URL carries it) and the
    `mask` shown in their place. Its repr shows neither."""

    __slots__ = ("_forms", "mask")

    def __init__(self, values: Iterable[str | None] = (), mask: str = MASK) -> None:
        forms: set[str] = set()
        for value in values:
            if value:
                forms.update({value, quote(value), quote(value, safe=""), quote_plus(value)})
        # Longest first, so that a secret holding another is masked whole.
        self._forms = tuple(sorted(forms, key=len, reverse=True))
        self.mask = mask

    def scrub(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, self.mask)
        return text

    def __repr__(self) -> str:
        return f"Secrets(<{len(self._forms)} hidden>)"


_NO_SECRETS = Secrets()


def redact_url(url: str, secrets: Secrets | Iterable[str] = ()) -> str:
    """`url` for a message or a record: its userinfo (`http://***@host/…`), the value of every
    query parameter named like a credential (`?api_key=***`), its fragment and every known
    secret masked. Never raises, also for a URL that cannot be parsed."""
    known = secrets if isinstance(secrets, Secrets) else Secrets(secrets)
    mask = known.mask
    text = str(url)
    userinfo = r"^([^:/?#]*://)[^/?#]*@" if "://" in text else r"^()[^/?#]*@"
    text = re.sub(userinfo, lambda m: f"{m[1]}{mask}@", text)
    text = re.sub(r"#.*$", lambda m: f"#{mask}", text, flags=re.DOTALL)
    text = re.sub(
        r"([?&;])([^=&;#]*)=([^&;#]*)",
        lambda m: f"{m[1]}{m[2]}={mask}" if _SECRET_NAMES.search(m[2]) else m[0],
        text,
    )
    return known.scrub(text)


def retry_after(headers: httpx.Headers, *, reset_header: str | None = None) -> float | None:
    """Seconds a server asks to wait: `retry-after-ms`, else `Retry-After` (seconds or an HTTP
    date), else the first number of `reset_header` (Brave's `X-RateLimit-Reset: 1, 1419704`);
    from 0 to `MAX_RETRY_AFTER_S`; None when none of them is usable."""
    reset = headers.get(reset_header) if reset_header else None
    for seconds in (
        _number(headers.get("retry-after-ms"), scale=0.001),
        _delay(headers.get("retry-after")),
        _number(reset.split(",")[0] if reset else None),
    ):
        if seconds is not None:
            return min(max(0.0, seconds), MAX_RETRY_AFTER_S)
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


@dataclass(frozen=True)
class HttpReply:
    """A server's answer: status, headers and the body as far as it was read."""

    status: int
    reason: str
    headers: httpx.Headers
    body: bytes
    attempts: int = 1

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class HttpFailure:
    """Why a request gave no usable answer (see the module documentation). `exception` names
    what a timeout or network failure raised; `reply` is the server's answer when there was one
    (for `http` with its body, else with none); `retry_after_s` the wait the server asked for."""

    kind: FailureKind
    detail: str
    status: int | None = None
    exception: str = ""
    retry_after_s: float | None = None
    reply: HttpReply | None = None
    attempts: int = 1

    @property
    def message(self) -> str:
        """`detail` after the name of the exception when there is one: `ConnectError: …`."""
        if not self.exception:
            return self.detail
        return f"{self.exception}: {self.detail}" if self.detail else self.exception


def _on_429(failure: HttpFailure) -> bool:
    return failure.status == 429


@dataclass(frozen=True)
class Retry:
    """Up to `retries` more requests after a failure that `when` accepts, each after the wait
    the server named or else `backoff_s` doubled per retry, at most `max_wait_s`, and never a
    wait that would outlast the deadline. `reset_header` is also read for the wait."""

    retries: int = 0
    when: Callable[[HttpFailure], bool] = _on_429
    max_wait_s: float = 5.0
    backoff_s: float = 1.0
    reset_header: str | None = None
    sleep: Sleep = asyncio.sleep

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


class _Inflater:
    """gzip or deflate decoding that never produces more than one byte past the room left."""

    def __init__(self, encoding: str) -> None:
        self._deflate = encoding == "deflate"
        self._obj = zlib.decompressobj(zlib.MAX_WBITS if self._deflate else 16 + zlib.MAX_WBITS)
        self._first = True

    def feed(self, data: bytes, room: int, *, last: bool) -> bytes:
        if last:
            return self._obj.flush()
        try:
            out = self._obj.decompress(data, room + 1)
        except zlib.error:
            if not (self._deflate and self._first):
                raise
            # "deflate" sent as a raw stream without the zlib header (common in the wild).
            self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._obj.decompress(data, room + 1)
        self._first = False
        return out


class _Body:
    """A body taken raw chunk by chunk under `cap` bytes after decompression: httpx would
    inflate a whole chunk at once, and a small gzip bomb is gigabytes. `cut`: keep the first
    `cap` bytes of a longer (or undecodable) body instead of refusing it."""

    def __init__(self, response: httpx.Response, cap: int, *, cut: bool) -> None:
        self._response, self._cap, self._cut = response, cap, cut
        self.data = bytearray()
        self.failure: HttpFailure | None = None
        self.open = True
        self._inflater: _Inflater | None = None
        loaded = _loaded(response)
        encoding = response.headers.get("content-encoding", "").strip().lower()
        declared = response.headers.get("content-length", "")
        if loaded is not None:
            encoding = ""  # httpx decoded it already
        if encoding in _INFLATED:
            self._inflater = _Inflater("deflate" if encoding == "deflate" else "gzip")
        elif encoding not in ("", "identity"):
            self._stop("malformed", f"content encoding {encoding!r} is not supported")
        if not cut and declared.isdigit() and int(declared) > cap:
            self._stop("too_large", f"Content-Length {declared} is over {cap} bytes")
        if loaded is not None and self.open:
            self.take(loaded)
            self.open = False  # taken whole: nothing is left to read

    def take(self, chunk: bytes, *, last: bool = False) -> bool:
        """Adds a raw chunk (`last`: the decoder's tail); False once nothing more is to be read."""
        if self._inflater is None:
            return self._add(chunk)
        try:
            return self._add(self._inflater.feed(chunk, self._cap - len(self.data), last=last))
        except zlib.error as exc:
            return self._stop("malformed", f"corrupt compressed body: {exc}")

    def result(self) -> bytes | HttpFailure:
        if self.open:
            self.take(b"", last=True)
        return self.failure or bytes(self.data)

    def _add(self, piece: bytes) -> bool:
        room = self._cap - len(self.data)
        self.data += piece[:room]
        return len(piece) <= room or self._stop("too_large", f"the body passed {self._cap} bytes")

    def _stop(self, kind: FailureKind, detail: str) -> bool:
        if self.open and not self._cut:
            response = self._response
            reply = HttpReply(response.status_code, response.reason_phrase, response.headers, b"")
            self.failure = HttpFailure(kind, detail, response.status_code, reply=reply)
        self.open = False
        return False


def _loaded(response: httpx.Response) -> bytes | None:
    """The body of a response built in memory (`httpx.Response(content=…)`, as a mock
    transport answers): httpx has read it at once, so there is no raw stream left to read."""
    if not response.is_stream_consumed:
        return None
    try:
        return response.content
    except httpx.ResponseNotRead:
        return None


async def read_body(
    response: httpx.Response, cap: int, *, cut: bool = False
) -> bytes | HttpFailure:
    """The body of a streamed `response`, at most `cap` bytes after decompression (gzip and
    deflate are inflated here): else a `too_large` or `malformed` failure that keeps the status.
    `cut`: the first `cap` bytes instead. Transport errors are raised."""
    body = _Body(response, cap, cut=cut)
    if body.open:  # a refusal by the headers alone reads nothing
        async for chunk in response.aiter_raw():
            if not body.take(chunk):
                break
    return body.result()


async def send(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    timeout_s: float,
    max_bytes: int,
    secrets: Secrets = _NO_SECRETS,
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
        if wait is None or loop.time() + wait >= deadline:
            return outcome
        await retry.sleep(wait)


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
    secrets: Secrets = _NO_SECRETS,
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
            body = _Body(response, cap, cut=cut)
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
    """Every phase bounded by the time left; only the encodings `_Body` inflates asked for."""
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
