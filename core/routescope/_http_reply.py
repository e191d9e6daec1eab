"""An HTTP answer as a value, and its body read under a cap.

`HttpReply` is a 2xx answer; anything else is one `HttpFailure` whose `kind` is

    timeout     the total deadline passed, or one phase of the request timed out
    network     no answer: connection refused, reset, a protocol error…
    too_large   the body passed the cap (the answer's status is kept)
    http        the server answered another status (its body read up to a small cap)
    malformed   the body cannot be decoded (an unknown or corrupt content encoding)

and whose `detail` is one line with every known secret masked. Callers map a failure into their
own error vocabulary. `read_body` reads a body raw and inflates it here (gzip, deflate) under a
byte cap that holds after decompression; `send` (in `_http`) makes the requests.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Literal

import httpx

__all__ = ["Body", "FailureKind", "HttpFailure", "HttpReply", "read_body"]

FailureKind = Literal["timeout", "network", "too_large", "http", "malformed"]

_INFLATED = ("gzip", "x-gzip", "deflate")


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
    """Why a request gave no usable answer (see the module's notes). `exception` names
    what a timeout or network failure raised; `reply` is the server's answer when there was one
    (for `http` with its body, else with none); `retry_after_s` the wait the server asked for;
    `wait_past_deadline_s` that wait as the server said it (not cut to a day), when it is why
    no retry was made: more than the time left (see `_http.Retry.named_wait_must_fit`)."""

    kind: FailureKind
    detail: str
    status: int | None = None
    exception: str = ""
    retry_after_s: float | None = None
    reply: HttpReply | None = None
    attempts: int = 1
    wait_past_deadline_s: float | None = None

    @property
    def message(self) -> str:
        """`detail` after the name of the exception when there is one: `ConnectError: …`."""
        if not self.exception:
            return self.detail
        return f"{self.exception}: {self.detail}" if self.detail else self.exception


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


class Body:
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
    body = Body(response, cap, cut=cut)
    if body.open:  # a refusal by the headers alone reads nothing
        async for chunk in response.aiter_raw():
            if not body.take(chunk):
                break
    return body.result()
