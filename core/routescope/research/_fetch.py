"""The safe page fetcher of deep research (reference §5, the SSRF checklist).

For every URL and every redirect hop: the policy's verdict before any I/O; resolve the host and
check **every** address; connect to the checked address only (:class:`PinnedTransport` rewrites
the connection target while the ``Host`` header, TLS SNI and certificate check keep the name);
``trust_env=False``, no keep-alive across hosts, no cookies; redirects followed by hand; the
content type gated before the body is read; the body capped **after** decompression (the
shared `routescope._http_reply.read_body` inflates gzip/deflate itself, never more than the cap);
per-phase timeouts and a total deadline over every hop. Every failure is a
:class:`FetchOutcome` with an error kind, never an exception.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

import httpx

from .._http_reply import HttpFailure, read_body
from ._policy import (
    DEFAULT_POLICY,
    Verdict,
    WebPolicy,
    literal_address,
    normalise_host,
)

FetchErrorKind = Literal[
    "blocked",  # the URL policy or the address check refused (the verdict says which rule)
    "dns",  # the host did not resolve
    "connect",  # no connection (refused, TLS, unreachable)
    "timeout",  # a phase timeout or the total deadline
    "status",  # HTTP 4xx/5xx
    "redirects",  # too many hops, or a redirect without a usable Location
    "content-type",  # not a text type we read
    "too-large",  # the body passed the cap (after decompression)
    "decode",  # an unsupported or corrupt content encoding
    "network",  # any other transport or protocol failure
]

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

PIN_EXTENSION: Final = "routescope.pinned_address"
REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
USER_AGENT: Final = "Routescope/0.1 (deep research; +https://github.com/routescope)"


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """Every address ``getaddrinfo`` gives for ``host`` (duplicates removed, order kept)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """Budgets of one fetch: bytes after decompression, redirect hops and timeouts (seconds)."""

    max_bytes: int = 2 * 1024 * 1024
    max_redirects: int = 5
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    total_timeout: float = 20.0
    content_types: tuple[str, ...] = ("text/html", "application/xhtml+xml", "text/plain")

    def timeout(self) -> httpx.Timeout:
        return httpx.Timeout(
            self.read_timeout, connect=self.connect_timeout, pool=self.connect_timeout
        )


@dataclass(frozen=True, slots=True)
class Hop:
    """One request of a redirect chain: its URL, its verdict, the address dialled, the status."""

    url: str
    verdict: Verdict
    address: str | None = None
    status: int | None = None


@dataclass(frozen=True, slots=True)
class FetchOutcome:
    """What fetching one URL gave: the page, or the error kind and reason, and the chain."""

    url: str
    final_url: str
    status: int | None
    verdict: Verdict
    content_type: str | None
    body: bytes
    error: FetchErrorKind | None
    reason: str
    duration_ms: float
    address: str | None = None
    charset: str | None = None
    hops: tuple[Hop, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def size(self) -> int:
        return len(self.body)

    def text(self) -> str:
        """The body decoded with the declared charset (UTF-8 if none or unknown)."""
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")


class PinnedTransport(httpx.AsyncBaseTransport):
    """Connects to the vetted address carried by the request, never to what the URL names.

    A request without ``extensions[PIN_EXTENSION]`` is refused: nothing reaches the network
    without having been checked. The ``Host`` header stays the request's (built from the
    original URL); for https the original name is the TLS SNI and the certificate's name.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport(
            limits=httpx.Limits(max_keepalive_connections=0), retries=0
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        extensions = dict(request.extensions)
        pinned = extensions.pop(PIN_EXTENSION, None)
        if not isinstance(pinned, str) or not pinned:
            raise httpx.ConnectError("refused: no vetted address for this request", request=request)
        host = request.url.host
        request.url = request.url.copy_with(host=pinned)
        if request.url.scheme == "https":
            extensions.setdefault("sni_hostname", host)
        request.extensions = extensions
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _FetchError(Exception):
    def __init__(self, kind: FetchErrorKind, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.kind: FetchErrorKind = kind
        self.reason = reason
        self.status = status


@dataclass
class _Progress:
    url: str
    verdict: Verdict = field(default_factory=lambda: Verdict(False, "not-checked", "not checked"))
    address: str | None = None
    hops: list[Hop] = field(default_factory=list)


class SafeFetcher:
    """Fetches result pages under a :class:`WebPolicy` (see the module documentation).

    ``resolver`` maps a host name and port to its addresses (injectable for tests and for
    custom DNS); ``transport`` replaces the inner HTTP transport under the pinning layer.
    """

    def __init__(
        self,
        policy: WebPolicy = DEFAULT_POLICY,
        limits: FetchLimits | None = None,
        *,
        resolver: Resolver = system_resolver,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.policy = policy
        self.limits = limits or FetchLimits()
        self._resolver = resolver
        self._transport = transport
        self._user_agent = user_agent

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=PinnedTransport(self._transport),
            trust_env=False,
            follow_redirects=False,
            timeout=self.limits.timeout(),
        )

    async def fetch(self, url: str) -> FetchOutcome:
        """Fetch one URL; every failure is an outcome with an error kind."""
        async with self._client() as client:
            return await self._fetch(client, url)

    async def fetch_all(
        self, urls: Iterable[str], limit: int | None = None, concurrency: int = 4
    ) -> list[FetchOutcome]:
        """Fetch the first ``limit`` URLs (default: the policy's ``max_results``), at most
        ``concurrency`` at a time; outcomes in the order of the URLs."""
        chosen = list(urls)[: self.policy.max_results if limit is None else max(limit, 0)]
        gate = asyncio.Semaphore(max(concurrency, 1))
        async with self._client() as client:

            async def one(url: str) -> FetchOutcome:
                async with gate:
                    return await self._fetch(client, url)

            return list(await asyncio.gather(*(one(url) for url in chosen)))

    async def _fetch(self, client: httpx.AsyncClient, url: str) -> FetchOutcome:
        started = time.perf_counter()
        progress = _Progress(url)

        def failed(kind: FetchErrorKind, reason: str, status: int | None = None) -> FetchOutcome:
            return FetchOutcome(
                url=url,
                final_url=progress.url,
                status=status,
                verdict=progress.verdict,
                content_type=None,
                body=b"",
                error=kind,
                reason=reason,
                duration_ms=(time.perf_counter() - started) * 1000,
                address=progress.address,
                hops=tuple(progress.hops),
            )

        try:
            async with asyncio.timeout(self.limits.total_timeout):
                outcome = await self._follow(client, url, progress, started)
        except TimeoutError:
            return failed(
                "timeout", f"the total deadline of {self.limits.total_timeout:g} s passed"
            )
        except _FetchError as failure:
            return failed(failure.kind, failure.reason, failure.status)
        except httpx.TimeoutException as exc:
            return failed("timeout", f"{type(exc).__name__}: {exc}")
        except httpx.ConnectError as exc:
            return failed("connect", f"could not connect: {exc}")
        except (httpx.HTTPError, OSError, ValueError, UnicodeError) as exc:
            return failed("network", f"{type(exc).__name__}: {exc}")
        return outcome

    async def _follow(
        self, client: httpx.AsyncClient, url: str, progress: _Progress, started: float
    ) -> FetchOutcome:
        current = url
        for hop_index in range(self.limits.max_redirects + 1):
            progress.url = current
            request = await self._vet(current, progress)
            try:
                response = await client.send(request, stream=True)
            except httpx.RemoteProtocolError as exc:
                # httpx parses a redirect's Location itself (even without following it) and
                # raises on one it cannot parse (`http://0177.0.0.1/`): an unusable redirect,
                # as below — it was reported as a network failure.
                if "location header" not in str(exc).lower():
                    raise
                raise _FetchError("redirects", f"unusable Location: {exc}") from None
            try:
                progress.hops[-1] = Hop(
                    current, progress.verdict, progress.address, response.status_code
                )
                if response.status_code in REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        raise _FetchError(
                            "redirects", "a redirect without a Location", response.status_code
                        )
                    if hop_index == self.limits.max_redirects:
                        raise _FetchError(
                            "redirects",
                            f"more than {self.limits.max_redirects} redirects",
                            response.status_code,
                        )
                    try:
                        current = str(httpx.URL(current).join(location))
                    except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
                        raise _FetchError(
                            "redirects", f"unusable Location {location!r}: {exc}"
                        ) from exc
                    continue
                return await self._read(url, response, progress, started)
            finally:
                await response.aclose()
        raise AssertionError("unreachable")  # pragma: no cover

    async def _vet(self, url: str, progress: _Progress) -> httpx.Request:
        """Policy verdict, resolution, the check of every address; the pinned request."""
        verdict = self.policy.verdict(url)
        progress.verdict, progress.address = verdict, None
        progress.hops.append(Hop(url, verdict))
        if not verdict.allowed:
            raise _FetchError("blocked", f"{verdict.rule}: {verdict.detail}")
        parsed = httpx.URL(url)
        host = normalise_host(parsed.raw_host.decode("ascii"))
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        literal = literal_address(host)
        if literal is not None:
            addresses: Sequence[str] = [str(literal)]
        else:
            try:
                addresses = await self._resolver(host, port)
            except (OSError, UnicodeError) as exc:
                raise _FetchError("dns", f"{host} did not resolve: {exc}") from exc
            if not addresses:
                raise _FetchError("dns", f"{host} resolved to no address")
        for address in addresses:
            checked = self.policy.address_verdict(address)
            if not checked.allowed:
                progress.verdict = Verdict(False, checked.rule, f"{host} → {checked.detail}")
                progress.hops[-1] = Hop(url, progress.verdict)
                raise _FetchError("blocked", f"{checked.rule}: {host} → {checked.detail}")
        progress.address = addresses[0].split("%", 1)[0]
        progress.hops[-1] = Hop(url, verdict, progress.address)
        headers = {
            "User-Agent": self._user_agent,
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9",
            "Accept-Encoding": "gzip, deflate",
        }
        return httpx.Request(
            "GET",
            parsed,
            headers=headers,
            extensions={
                PIN_EXTENSION: progress.address,
                "timeout": self.limits.timeout().as_dict(),
            },
        )

    async def _read(
        self, url: str, response: httpx.Response, progress: _Progress, started: float
    ) -> FetchOutcome:
        status = response.status_code
        if status >= 400 or status < 200:
            raise _FetchError("status", f"HTTP {status}", status)
        raw_type = response.headers.get("content-type", "")
        media = raw_type.split(";", 1)[0].strip().lower()
        if media not in self.limits.content_types:
            raise _FetchError(
                "content-type", f"content type {media or '(none)'!r} is not read", status
            )
        body = await read_body(response, self.limits.max_bytes)
        if isinstance(body, HttpFailure):
            kind: FetchErrorKind = "too-large" if body.kind == "too_large" else "decode"
            raise _FetchError(kind, body.detail, status)
        return FetchOutcome(
            url=url,
            final_url=progress.url,
            status=status,
            verdict=progress.verdict,
            content_type=media,
            body=body,
            error=None,
            reason="",
            duration_ms=(time.perf_counter() - started) * 1000,
            address=progress.address,
            charset=response.charset_encoding,
            hops=tuple(progress.hops),
        )


async def fetch_all(
    urls: Iterable[str],
    limit: int | None = None,
    concurrency: int = 4,
    *,
    fetcher: SafeFetcher | None = None,
) -> list[FetchOutcome]:
    """:meth:`SafeFetcher.fetch_all` with the default policy (or the given fetcher)."""
    return await (fetcher or SafeFetcher()).fetch_all(urls, limit, concurrency)
