"""The safe fetcher against a real HTTP server on 127.0.0.1.

The policy refuses loopback, so the "allowed" cases trust 127.0.0.1 for *resolved names* only
(`WebPolicy.trusted_addresses`) and a test resolver maps fake public names to it; every refusal
is proven by the server's request counter staying put.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from routescope.research._fetch import (
    PIN_EXTENSION,
    FetchLimits,
    FetchOutcome,
    PinnedTransport,
    Resolver,
    SafeFetcher,
    fetch_all,
)
from routescope.research._policy import DEFAULT_BLOCKED_HOSTS, WebPolicy

Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class Server:
    port: int
    routes: dict[str, Route]
    hits: Counter[str] = field(default_factory=Counter)
    hosts: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def total(self) -> int:
        return sum(self.hits.values())

    def url(self, path: str, host: str = "public.test") -> str:
        return f"http://{host}:{self.port}{path}"


def _send(
    handler: BaseHTTPRequestHandler,
    body: bytes,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    merged = {"Content-Type": "text/html; charset=utf-8", "Content-Length": str(len(body))}
    merged.update(headers or {})
    for name, value in merged.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


PAGE = b"<html><head><title>Hello</title></head><body><p>Caf\xc3\xa9 page</p></body></html>"


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server(port=0, routes={})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            with state.lock:
                state.hits[path] += 1
                state.hosts.append(self.headers.get("Host", ""))
            route = state.routes.get(path)
            if route is None:
                _send(self, b"missing", status=404)
            else:
                route(self)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def resolver_for(table: dict[str, Sequence[str]]) -> Resolver:
    async def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, f"unknown test name {host}")
        return table[host]

    return resolve


NAMES: dict[str, Sequence[str]] = {
    "public.test": ["127.0.0.1"],
    "other.test": ["127.0.0.1"],
    "blocked.test": ["127.0.0.1"],
    "internal.test": ["10.0.0.5"],
    "mixed.test": ["127.0.0.1", "10.0.0.7"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "nat64.test": ["64:ff9b::7f00:1"],
}


def fetcher(
    server: Server, *, trusted: bool = True, limits: FetchLimits | None = None
) -> SafeFetcher:
    policy = WebPolicy(
        allowed_hosts=(),
        blocked_hosts=(*DEFAULT_BLOCKED_HOSTS, "blocked.test"),
        allowed_ports=(server.port,),
        trusted_addresses=("127.0.0.1",) if trusted else (),
    )
    resolve = resolver_for(NAMES)
    return SafeFetcher(policy, limits or FetchLimits(total_timeout=10), resolver=resolve)


def run(fetch: SafeFetcher, url: str) -> FetchOutcome:
    return asyncio.run(fetch.fetch(url))


def test_an_allowed_page_is_fetched_through_the_pinned_address(server: Server) -> None:
    server.routes["/page"] = lambda h: _send(h, PAGE)
    outcome = run(fetcher(server), server.url("/page"))
    assert outcome.ok, outcome
    assert (outcome.status, outcome.content_type, outcome.charset) == (200, "text/html", "utf-8")
    assert outcome.text().startswith("<html>") and "Café" in outcome.text()
    assert outcome.address == "127.0.0.1"
    assert outcome.verdict.allowed and outcome.verdict.rule == "any-host"
    assert server.hosts == [f"public.test:{server.port}"]  # the Host header keeps the name
    assert outcome.duration_ms >= 0


LOOPBACK_HOSTS = [
    "127.0.0.1",
    "127.0.0.1.",
    "2130706433",
    "0x7f000001",
    "0x7f.1",
    "127.1",
    "017700000001",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[64:ff9b::7f00:1]",
    "[2002:7f00:1::]",
    "[::1]",
    "localhost",
    "LocalHost.",
    "public.test@127.0.0.1",
    "blocked.test",
]


@pytest.mark.parametrize("host", LOOPBACK_HOSTS)
def test_result_urls_in_private_spellings_are_refused_without_contact(
    server: Server, host: str
) -> None:
    server.routes["/secret"] = lambda h: _send(h, b"secret")
    outcome = run(fetcher(server), server.url("/secret", host))
    assert outcome.error == "blocked", outcome
    assert not outcome.verdict.allowed
    assert outcome.body == b""
    assert server.total == 0


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("internal.test", "address-blocked"),
        ("mixed.test", "address-blocked"),  # one trusted/public, one private: refuse
        ("mapped.test", "address-blocked"),
        ("nat64.test", "address-blocked"),
    ],
)
def test_names_resolving_to_private_addresses_are_refused(
    server: Server, name: str, rule: str
) -> None:
    server.routes["/secret"] = lambda h: _send(h, b"secret")
    outcome = run(fetcher(server), server.url("/secret", name))
    assert (outcome.error, outcome.verdict.rule) == ("blocked", rule), outcome
    assert name in outcome.reason
    assert server.total == 0


def test_a_name_resolving_to_loopback_is_refused_without_trust(server: Server) -> None:
    server.routes["/page"] = lambda h: _send(h, PAGE)
    outcome = run(fetcher(server, trusted=False), server.url("/page"))
    assert outcome.error == "blocked" and "loopback" in outcome.verdict.detail
    assert server.total == 0


def test_an_unknown_name_is_a_dns_error(server: Server) -> None:
    outcome = run(fetcher(server), server.url("/page", "nowhere.test"))
    assert outcome.error == "dns" and server.total == 0


def _redirect(location: str, status: int = 302) -> Route:
    return lambda h: _send(h, b"", status=status, headers={"Location": location})


def test_redirects_are_followed_and_recorded(server: Server) -> None:
    server.routes["/a"] = _redirect("/b", 301)
    server.routes["/b"] = _redirect(server.url("/c", "other.test"), 307)
    server.routes["/c"] = lambda h: _send(h, PAGE)
    outcome = run(fetcher(server), server.url("/a"))
    assert outcome.ok, outcome
    assert outcome.final_url == server.url("/c", "other.test")
    assert [hop.status for hop in outcome.hops] == [301, 307, 200]
    assert all(hop.verdict.allowed and hop.address == "127.0.0.1" for hop in outcome.hops)
    assert server.hosts[-1] == f"other.test:{server.port}"


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "localhost"]
)
def test_a_redirect_to_a_private_address_is_refused_without_contact(
    server: Server, host: str
) -> None:
    server.routes["/start"] = _redirect(f"http://{host}:{server.port}/secret")
    server.routes["/secret"] = lambda h: _send(h, b"secret")
    outcome = run(fetcher(server), server.url("/start"))
    assert outcome.error == "blocked", outcome
    assert server.hits == Counter({"/start": 1})
    assert [hop.status for hop in outcome.hops] == [302, None]
    assert not outcome.hops[-1].verdict.allowed


@pytest.mark.parametrize(
    ("target", "rule"),
    [
        ("http://blocked.test:{port}/secret", "blocked-host"),
        ("http://internal.test:{port}/secret", "address-blocked"),
        ("http://public.test:1/secret", "port"),
        ("file:///etc/passwd", "scheme"),
        ("http://user@public.test:{port}/secret", "userinfo"),
    ],
)
def test_a_redirect_refused_by_policy_names_the_rule(
    server: Server, target: str, rule: str
) -> None:
    server.routes["/start"] = _redirect(target.format(port=server.port))
    server.routes["/secret"] = lambda h: _send(h, b"secret")
    outcome = run(fetcher(server), server.url("/start"))
    assert (outcome.error, outcome.verdict.rule) == ("blocked", rule), outcome
    assert server.hits == Counter({"/start": 1})


def test_too_many_redirects(server: Server) -> None:
    server.routes["/loop"] = _redirect("/loop")
    outcome = run(fetcher(server, limits=FetchLimits(max_redirects=3)), server.url("/loop"))
    assert outcome.error == "redirects"
    assert server.hits["/loop"] == 4
    assert len(outcome.hops) == 4


def test_a_gzip_bomb_stops_at_the_cap(server: Server) -> None:
    bomb = gzip.compress(b"\0" * (50 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 100_000
    server.routes["/bomb"] = lambda h: _send(h, bomb, headers={"Content-Encoding": "gzip"})
    outcome = run(fetcher(server, limits=FetchLimits(max_bytes=256 * 1024)), server.url("/bomb"))
    assert outcome.error == "too-large" and outcome.body == b""


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data, wbits=-zlib.MAX_WBITS)),
    ],
)
def test_compressed_pages_are_decoded(
    server: Server, encoding: str, encode: Callable[[bytes], bytes]
) -> None:
    server.routes["/z"] = lambda h: _send(h, encode(PAGE), headers={"Content-Encoding": encoding})
    outcome = run(fetcher(server), server.url("/z"))
    assert outcome.ok and outcome.body == PAGE


def test_corrupt_or_unknown_encodings_are_decode_errors(server: Server) -> None:
    server.routes["/bad"] = lambda h: _send(h, b"not gzip", headers={"Content-Encoding": "gzip"})
    server.routes["/br"] = lambda h: _send(h, b"xx", headers={"Content-Encoding": "br"})
    assert run(fetcher(server), server.url("/bad")).error == "decode"
    assert run(fetcher(server), server.url("/br")).error == "decode"


def test_an_oversize_body_is_refused(server: Server) -> None:
    big = b"<p>" + b"x" * 200_000

    def chunked(handler: BaseHTTPRequestHandler) -> None:  # no Content-Length to trust
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(big)

    server.routes["/big"] = lambda h: _send(h, big)
    server.routes["/stream"] = chunked
    limits = FetchLimits(max_bytes=100_000)
    declared = run(fetcher(server, limits=limits), server.url("/big"))
    streamed = run(fetcher(server, limits=limits), server.url("/stream"))
    assert declared.error == "too-large" and "Content-Length" in declared.reason
    assert streamed.error == "too-large" and "passed" in streamed.reason


@pytest.mark.parametrize(
    "content_type", ["application/octet-stream", "image/png", "application/json", ""]
)
def test_wrong_content_types_are_refused(server: Server, content_type: str) -> None:
    server.routes["/bin"] = lambda h: _send(h, b"\x89PNG", headers={"Content-Type": content_type})
    outcome = run(fetcher(server), server.url("/bin"))
    assert outcome.error == "content-type" and outcome.status == 200 and outcome.body == b""


@pytest.mark.parametrize("content_type", ["text/plain", "application/xhtml+xml; charset=utf-8"])
def test_text_content_types_are_read(server: Server, content_type: str) -> None:
    server.routes["/t"] = lambda h: _send(h, b"hello", headers={"Content-Type": content_type})
    assert run(fetcher(server), server.url("/t")).body == b"hello"


@pytest.mark.parametrize("status", [403, 404, 500])
def test_http_errors_are_outcomes(server: Server, status: int) -> None:
    server.routes["/e"] = lambda h: _send(h, b"no", status=status)
    outcome = run(fetcher(server), server.url("/e"))
    assert (outcome.error, outcome.status) == ("status", status)


def test_a_slow_server_passes_the_deadline(server: Server) -> None:
    def slow(handler: BaseHTTPRequestHandler) -> None:
        server.release.wait(timeout=10)
        _send(handler, PAGE)

    server.routes["/slow"] = slow
    limits = FetchLimits(total_timeout=0.3, read_timeout=5)
    outcome = run(fetcher(server, limits=limits), server.url("/slow"))
    assert outcome.error == "timeout" and "deadline" in outcome.reason
    read_limited = run(fetcher(server, limits=FetchLimits(read_timeout=0.2)), server.url("/slow"))
    assert read_limited.error == "timeout"


def test_a_closed_port_is_a_connect_error(server: Server) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free_port = sock.getsockname()[1]
    policy = WebPolicy(
        allowed_hosts=(), allowed_ports=(free_port,), trusted_addresses=("127.0.0.1",)
    )
    fetch = SafeFetcher(policy, resolver=resolver_for(NAMES))
    outcome = run(fetch, f"http://public.test:{free_port}/")
    assert outcome.error == "connect"


def test_proxy_environment_variables_are_ignored(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://10.255.255.1:9")
    server.routes["/page"] = lambda h: _send(h, PAGE)
    assert run(fetcher(server), server.url("/page")).ok
    assert server.total == 1


def test_fetch_all_keeps_order_limits_and_bounds_concurrency(server: Server) -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    def page(handler: BaseHTTPRequestHandler) -> None:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        server.release.wait(timeout=0.05)
        with lock:
            active -= 1
        _send(handler, PAGE)

    for index in range(6):
        server.routes[f"/p{index}"] = page
    urls = [server.url(f"/p{index}") for index in range(6)]
    urls.insert(2, "http://127.0.0.1/")
    fetch = fetcher(server)
    outcomes = asyncio.run(fetch.fetch_all(urls, limit=5, concurrency=2))
    assert [outcome.url for outcome in outcomes] == urls[:5]
    assert [outcome.error for outcome in outcomes] == [None, None, "blocked", None, None]
    assert server.total == 4
    assert peak <= 2


def test_module_fetch_all_uses_the_policy_max_results() -> None:
    urls = [f"http://127.0.0.{index}/" for index in range(1, 9)]
    outcomes = asyncio.run(fetch_all(urls))
    assert len(outcomes) == 5 and all(outcome.error == "blocked" for outcome in outcomes)


def test_the_pinned_transport_rewrites_the_target_and_keeps_name_and_sni() -> None:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200)

    async def go() -> None:
        transport = PinnedTransport(httpx.MockTransport(record))
        request = httpx.Request(
            "GET", "https://docs.python.org/3/", extensions={PIN_EXTENSION: "2a04:4e42::223"}
        )
        await transport.handle_async_request(request)
        with pytest.raises(httpx.ConnectError):
            await transport.handle_async_request(httpx.Request("GET", "https://example.com/"))
        await transport.aclose()

    asyncio.run(go())
    (request,) = seen
    assert request.url.host == "2a04:4e42::223"
    assert request.headers["Host"] == "docs.python.org"
    assert request.extensions["sni_hostname"] == "docs.python.org"
    assert PIN_EXTENSION not in request.extensions
