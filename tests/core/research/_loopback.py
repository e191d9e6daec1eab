"""Real HTTP servers on 127.0.0.1 for end-to-end research tests: a scripted search service that
speaks SearXNG, Tavily and Brave, an OpenAI-compatible model, and a page server; each counts
every request it receives. Plus a transport that logs (and refuses anything but 127.0.0.1)
every address the safe fetcher dials.

Nothing here leaves the machine: the servers listen on 127.0.0.1, and :class:`DialLog` refuses
to connect anywhere else even if the fetcher under test asked it to.
"""

from __future__ import annotations

import functools
import json
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import httpx

# --- the servers -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    """One request a server received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class Reply:
    """What a server answers. ``delay_s`` holds the answer back (released early when the server
    closes); without ``content_length`` the body ends when the connection closes."""

    status: int = 200
    body: bytes = b""
    content_type: str | None = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_length: bool = True


Route = Callable[[Request], Reply]


def json_reply(
    payload: object, status: int = 200, headers: Mapping[str, str] | None = None
) -> Reply:
    return Reply(status, json.dumps(payload).encode(), headers=dict(headers or {}))


def html_page(title: str, words: str) -> bytes:
    """A page with enough main text (≥ 150 characters) to count as read."""
    paragraphs = "".join(f"<p>{words} — paragraph {i} of the article body.</p>" for i in range(6))
    return (
        f"<html><head><title>{title}</title></head><body><nav>menu</nav>"
        f"<main><article><h1>{title}</h1>{paragraphs}</article></main></body></html>"
    ).encode()


class LoopbackServer:
    """A threading HTTP server on 127.0.0.1 (a free port) answering every request with
    ``route``, keeping every request it got, in order."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self.requests: list[Request] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5  # an idle connection never holds a thread for long

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                parts = urlsplit(self.path)
                request = Request(
                    method=self.command,
                    path=parts.path,
                    query={k: v[0] for k, v in parse_qs(parts.query).items()},
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                )
                with server._lock:
                    server.requests.append(request)
                reply = server.route(request)
                if reply.delay_s:
                    server.release.wait(reply.delay_s)
                try:
                    self.send_response(reply.status)
                    if reply.content_type is not None:
                        self.send_header("Content-Type", reply.content_type)
                    if reply.content_length:
                        self.send_header("Content-Length", str(len(reply.body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:  # the client gave up (a timeout under test): fine
                    pass

            def do_GET(self) -> None:
                self._handle()

            def do_POST(self) -> None:
                self._handle()

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            # Every answer closes its connection (HTTP/1.0), so N clients connect at once: the
            # socketserver default backlog of 5 drops the connects past it, which the client
            # retries a second later (a batch through a router at concurrency 8 stalled so).
            request_queue_size = 128

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that hung up mid-answer is part of the script

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port: int = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()

    def url(self, path: str = "", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    @property
    def paths(self) -> list[str]:
        with self._lock:
            return [request.path for request in self.requests]

    def hits(self, path: str) -> int:
        return self.paths.count(path)

    def close(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serving(route: Route) -> Iterator[LoopbackServer]:
    server = LoopbackServer(route)
    try:
        yield server
    finally:
        server.close()


# --- the search service ----------------------------------------------------------------------

ProviderName = Literal["searxng", "tavily", "brave"]
PROVIDERS: tuple[ProviderName, ...] = ("searxng", "tavily", "brave")
BRAVE_PATH = "/res/v1/web/search"


@dataclass(frozen=True, slots=True)
class SearchCall:
    provider: ProviderName
    query: str
    n: int
    """0-based index of this request among the service's requests."""
    request: Request


@dataclass(frozen=True, slots=True)
class Hit:
    url: str
    title: str
    snippet: str = "a snippet"


def search_payload(provider: ProviderName, query: str, hits: list[Hit]) -> dict[str, Any]:
    """A well-formed answer in ``provider``'s documented shape (reference §4.2–4.4)."""
    if provider == "searxng":
        results = [
            {"url": h.url, "title": h.title, "content": h.snippet, "engine": "test", "score": 1.0}
            for h in hits
        ]
        return {"query": query, "number_of_results": len(hits), "results": results}
    if provider == "tavily":
        results = [
            {"url": h.url, "title": h.title, "content": h.snippet, "score": 0.9} for h in hits
        ]
        return {"query": query, "results": results, "response_time": 0.01}
    results = [{"url": h.url, "title": h.title, "description": h.snippet} for h in hits]
    return {"query": {"original": query}, "web": {"results": results}}


class SearchService:
    """SearXNG (``GET /search?format=json``), Tavily (``POST /search``) and Brave (``GET
    /res/v1/web/search``) on one server. ``misbehave`` may answer a call instead of the
    well-formed payload of ``hits`` (return None to answer normally)."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.misbehave: Callable[[SearchCall], Reply | None] | None = None
        self.calls: list[SearchCall] = []
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        provider: ProviderName
        if request.method == "GET" and request.path == "/search":
            provider, query = "searxng", request.query.get("q", "")
            if request.query.get("format") != "json":
                return Reply(403, b"format not allowed", "text/html")
        elif request.method == "POST" and request.path == "/search":
            provider, query = "tavily", str(request.json().get("query", ""))
        elif request.method == "GET" and request.path == BRAVE_PATH:
            provider, query = "brave", request.query.get("q", "")
        else:
            return json_reply({"detail": "not found"}, 404)
        with self._lock:
            call = SearchCall(provider, query, len(self.calls), request)
            self.calls.append(call)
        reply = self.misbehave(call) if self.misbehave is not None else None
        return reply or json_reply(search_payload(provider, query, self.hits))

    @property
    def queries(self) -> list[str]:
        return [call.query for call in self.calls]


# --- the model -------------------------------------------------------------------------------

Kind = Literal["optimiser", "refiner", "evaluator"]


@dataclass(frozen=True, slots=True)
class ModelCall:
    kind: Kind
    n: int
    """0-based index among the requests of this kind."""
    mode: str
    """``json_schema``, ``json_object`` or ``prompted``."""
    user: dict[str, Any]
    request: Request


def chat(content: object, *, refusal: str | None = None, finish_reason: str = "stop") -> Reply:
    """A chat completion whose message content is ``content`` (a dict is sent as JSON)."""
    text = content if isinstance(content, str) else json.dumps(content)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if refusal is not None:
        message = {"role": "assistant", "content": None, "refusal": refusal}
    choice = {"index": 0, "message": message, "finish_reason": finish_reason}
    return json_reply({"id": "x", "object": "chat.completion", "choices": [choice]})


PLAN = {"query": "PySide6 QTableView copy selection clipboard", "reason": "API names"}
GOOD = {
    "relevance": 0.8,
    "confidence": 0.7,
    "coverage": 0.7,
    "should_retry": False,
    "reasons": "the pages answer the goal",
}


def default_reply(call: ModelCall) -> Reply:
    """A sensible model: a plan, a narrower query each time, a good grade."""
    if call.kind == "optimiser":
        return chat(PLAN)
    if call.kind == "refiner":
        query = f"QTableView clipboard shortcut {call.n + 1}"
        return chat({"query": query, "should_retry": True, "reason": "narrower"})
    return chat(GOOD)


class FakeModel:
    """An OpenAI-compatible ``/v1/chat/completions``: the prompt is told by its inputs
    (optimiser: ``stack_hint``, refiner: ``previous_query``, evaluator: ``sources``); each kind
    answers with its script, or sensibly by default."""

    def __init__(self) -> None:
        self.scripts: dict[Kind, Callable[[ModelCall], Reply]] = {}
        self.calls: list[ModelCall] = []
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        if request.method != "POST" or request.path != "/v1/chat/completions":
            return json_reply({"error": {"message": "not found"}}, 404)
        body = request.json()
        user = json.loads(body["messages"][1]["content"])
        kind: Kind = (
            "optimiser"
            if "stack_hint" in user
            else "refiner"
            if "previous_query" in user
            else "evaluator"
        )
        mode = (body.get("response_format") or {}).get("type", "prompted")
        with self._lock:
            n = sum(call.kind == kind for call in self.calls)
            call = ModelCall(kind, n, mode, user, request)
            self.calls.append(call)
        return self.scripts.get(kind, default_reply)(call)

    def of(self, kind: Kind) -> list[ModelCall]:
        return [call for call in self.calls if call.kind == kind]


# --- what the fetcher dials ------------------------------------------------------------------


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every client of the session: loading the CA bundle costs
    about 0.1 s per client, and nothing here speaks TLS anyway."""
    return ssl.create_default_context()


class DialLog(httpx.AsyncBaseTransport):
    """The transport under the safe fetcher's pinning layer: logs the address each request
    is pinned to (and its ``Host`` header), and refuses to dial anything but 127.0.0.1, so a
    fetcher bug could never reach another machine. Closing is the test's job (``close``): the
    fetcher closes its client after every batch."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport(
            verify=tls_context(), limits=httpx.Limits(max_keepalive_connections=0), retries=0
        )
        self.dialled: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.dialled.append((request.url.host, request.headers.get("host", "")))
        if request.url.host != "127.0.0.1":
            raise httpx.ConnectError(f"test refuses to dial {request.url.host}", request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        pass

    async def close(self) -> None:
        await self.inner.aclose()
