"""A hostile or failing embeddings endpoint (F12, F13, F14, F17): a total deadline and a body
limit per request, a memory of failures, one-line `EmbedderError`s for every malformed answer,
credentials never shown, and searches that go keyword-only for the query that cannot be
embedded instead of failing. Servers listen on 127.0.0.1 only, started and stopped by fixtures;
every ToolSearch keeps its cache under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import numpy as np
import pytest

from routescope import resources_root
from routescope._json import to_json
from routescope.toolsearch import (
    EmbedderError,
    SearchSettings,
    ToolSearch,
    _embed,
    default_model_id,
    load_catalog,
    why_not,
)
from routescope.toolsearch._embed import OpenAIEmbeddings, default_embedder, redact_url
from routescope.toolsearch._vectors import VectorIndex

SAMPLE = Path(str(resources_root() / "catalog"))
BASE_URL = "http://embeddings.test/v1"
TRICKLE_LIMIT_S = 20.0  # a trickling answer ends by itself after this, whatever the client does


# -- a hostile server on 127.0.0.1 -------------------------------------------------------------
class _Server(ThreadingHTTPServer):
    daemon_threads = True
    hits: Counter[str]
    stop: threading.Event


class _Hostile(BaseHTTPRequestHandler):
    """`/<behaviour>/v1/embeddings`: good, trickle, stall, declared-huge, endless, echo."""

    server: _Server
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        behaviour = self.path.strip("/").split("/", 1)[0]
        self.server.hits[behaviour] += 1
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        stop = self.server.stop
        if behaviour == "good":
            data = [
                {"index": i, "embedding": [float(len(t) % 7) + 1.0, 1.0, float("git" in t)]}
                for i, t in enumerate(body["input"])
            ]
            self._send(200, json.dumps({"data": data[::-1]}).encode())
        elif behaviour == "echo":  # an error page that repeats what it was sent
            echoed = f"bad key {self.headers.get('Authorization')} for {self.path}"
            self._send(401, echoed.encode())
        elif behaviour in ("trickle", "stall"):
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            ends = time.monotonic() + TRICKLE_LIMIT_S
            while not stop.is_set() and time.monotonic() < ends:
                if behaviour == "trickle":
                    try:
                        self.wfile.write(b" ")
                        self.wfile.flush()
                    except OSError:
                        return
                stop.wait(0.2)
        elif behaviour == "declared-huge":
            self.send_response(200)
            self.send_header("Content-Length", str(200_000_000))
            self.end_headers()
            self.wfile.write(b"[" * 1000)
        elif behaviour == "endless":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"[" * 65_536
            for _ in range(2_000):  # 128 MB at most
                if stop.is_set():
                    return
                try:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                except OSError:
                    return
        else:
            self._send(404, b"no such behaviour")

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Hostile:
    def __init__(self, server: _Server) -> None:
        self.server = server
        self.root = f"http://127.0.0.1:{server.server_address[1]}"

    def url(self, behaviour: str) -> str:
        return f"{self.root}/{behaviour}/v1"

    @property
    def hits(self) -> Counter[str]:
        return self.server.hits


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    server = _Server(("127.0.0.1", 0), _Hostile)
    server.hits, server.stop = Counter(), threading.Event()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield Hostile(server)
    server.stop.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(autouse=True)
def _close_clients(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every OpenAIEmbeddings made by a test (directly or from the environment) is closed at
    its end, so no connection outlives the test."""
    made: list[OpenAIEmbeddings] = []
    original = OpenAIEmbeddings.__init__

    def tracking(self: OpenAIEmbeddings, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(OpenAIEmbeddings, "__init__", tracking)
    monkeypatch.setattr(_embed, "_ENDPOINTS", {})
    yield
    for embedder in made:
        embedder.close()


def _one_line_error(call: Callable[[], object], *fragments: str) -> str:
    with pytest.raises(EmbedderError) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


# -- F12: a total deadline, a body limit, a memory of failures ----------------------------------
@pytest.mark.parametrize("behaviour", ["trickle", "stall"])
def test_a_slow_answer_meets_the_total_deadline(hostile: Hostile, behaviour: str) -> None:
    embedder = OpenAIEmbeddings(hostile.url(behaviour), "m", timeout_s=1.0)
    _one_line_error(lambda: embedder.embed(["x"]), "did not answer within 1 s")


def test_a_failed_endpoint_is_not_asked_again_at_once(hostile: Hostile) -> None:
    embedder = OpenAIEmbeddings(hostile.url("stall"), "m", timeout_s=0.5, retry_after_s=600)
    _one_line_error(lambda: embedder.embed(["x"]), "did not answer within 0.5 s")
    again = _one_line_error(lambda: embedder.embed(["y"]), "did not answer within 0.5 s")
    assert "(not asked again for " in again
    assert hostile.hits["stall"] == 1


def test_the_endpoint_is_asked_again_after_the_pause(hostile: Hostile) -> None:
    embedder = OpenAIEmbeddings(hostile.url("echo"), "m", retry_after_s=0.0)
    _one_line_error(lambda: embedder.embed(["x"]), "HTTP 401")
    _one_line_error(lambda: embedder.embed(["x"]), "HTTP 401")
    assert hostile.hits["echo"] == 2


def test_one_client_per_endpoint_shares_that_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROUTESCOPE_EMBEDDINGS_URL", "http://127.0.0.1:9/v1")
    assert default_embedder() is default_embedder()


def test_a_declared_huge_body_is_refused_before_reading(hostile: Hostile) -> None:
    embedder = OpenAIEmbeddings(hostile.url("declared-huge"), "m")
    _one_line_error(lambda: embedder.embed(["x"]), "answered 200,000,000 bytes, more than")


def test_an_endless_body_is_cut_at_the_limit(hostile: Hostile) -> None:
    embedder = OpenAIEmbeddings(hostile.url("endless"), "m", max_body_bytes=1_000_000)
    _one_line_error(lambda: embedder.embed(["x"]), "answered more than 1,000,000 bytes")


# -- F13: malformed answers are one-line EmbedderErrors ------------------------------------
def _client(body: bytes | Callable[[httpx.Request], httpx.Response]) -> httpx.Client:
    if callable(body):
        return httpx.Client(transport=httpx.MockTransport(body))
    return httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body)))


def _data(*vectors: object) -> bytes:
    return json.dumps(
        {"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}
    ).encode()


MALFORMED: dict[str, tuple[bytes, str]] = {
    "ragged": (_data([1.0, 2.0], [1.0]), "not lists of numbers of one length"),
    "strings": (_data(["a", "b"], ["c", "d"]), "not lists of numbers of one length"),
    "numeric-strings": (_data(["1.5", "2"], ["1", "2"]), "not lists of numbers of one length"),
    "dicts": (_data({"x": 1}, {"y": 2}), "not lists of numbers of one length"),
    "booleans": (_data([True, False], [False, True]), "not lists of numbers of one length"),
    "nested": (_data([[1.0]], [[2.0]]), "not lists of numbers of one length"),
    "empty-vectors": (_data([], []), "not lists of numbers of one length"),
    "nan": (
        b'{"data": [{"index": 0, "embedding": [NaN, 1]}, {"index": 1, "embedding": [1, 1]}]}',
        "not finite numbers",
    ),
    "infinity": (
        b'{"data": [{"index": 0, "embedding": [Infinity, 1]}, {"index": 1, "embedding": [1, 1]}]}',
        "not finite numbers",
    ),
    "float32-overflow": (_data([1e39, 1.0], [1.0, 1.0]), "not finite numbers"),
    "huge-int": (
        b'{"data": [{"index": 0, "embedding": [' + b"1" * 5_000 + b", 1]}, "
        b'{"index": 1, "embedding": [1, 1]}]}',
        "not finite numbers",
    ),
    "int-over-float": (_data([10**400, 1], [1, 1]), "not finite numbers"),
    "deep-json": (b"[" * 100_000 + b"]" * 100_000, "did not answer JSON"),
    "deep-data": (b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "did not answer JSON"),
    "duplicate-index": (
        json.dumps(
            {"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [2.0]}]}
        ).encode(),
        "indices that are not 0 to 1, once each",
    ),
    "index-out-of-range": (
        json.dumps(
            {"data": [{"index": 0, "embedding": [1.0]}, {"index": 5, "embedding": [2.0]}]}
        ).encode(),
        "indices that are not 0 to 1, once each",
    ),
    "bool-index": (
        json.dumps(
            {"data": [{"index": False, "embedding": [1.0]}, {"index": True, "embedding": [2.0]}]}
        ).encode(),
        "not an embeddings list",
    ),
    "data-not-list": (b'{"data": {"index": 0}}', "not an embeddings list"),
    "list-payload": (b"[1, 2]", "not an embeddings list"),
    "not-utf8": (b"\xff\xfe\x00garbage", "did not answer JSON"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_answers_are_one_line_embedder_errors(case: str) -> None:
    body, fragment = MALFORMED[case]
    embedder = OpenAIEmbeddings(BASE_URL, "m", client=_client(body))
    message = _one_line_error(lambda: embedder.embed(["a", "b"]), fragment)
    assert message.startswith(f"embeddings endpoint {BASE_URL}/embeddings ")


def test_a_later_answer_of_another_width_is_refused() -> None:
    widths = iter([2, 3])

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=_data([1.0] * next(widths)))

    embedder = OpenAIEmbeddings(BASE_URL, "m", client=_client(answer), retry_after_s=0)
    assert embedder.embed(["a"]).shape == (1, 2) and embedder.dimension == 2
    _one_line_error(lambda: embedder.embed(["b"]), "vectors of 3 dimensions, earlier ones had 2")


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://[::1", "invalid URL"),
        ("ftp://127.0.0.1/v1", "expected http:// or https://"),
        ("not a url", "expected http:// or https://"),
        ("http:///v1", "expected http:// or https://"),
    ],
)
def test_an_invalid_url_is_an_embedder_error(url: str, fragment: str) -> None:
    _one_line_error(lambda: OpenAIEmbeddings(url, "m"), fragment)


def test_an_invalid_url_in_the_environment_means_keyword_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROUTESCOPE_EMBEDDINGS_URL", "http://[::1")
    assert default_model_id() == "openai:nomic-embed-text@http://[::1"
    search = ToolSearch(load_catalog(SAMPLE), cache=tmp_path)
    assert search.semantic_status.startswith("unavailable: embeddings endpoint ")
    assert "invalid URL" in search.semantic_status
    result = search.search("what changed in my repo")
    assert result.strategy == "exact" and result.results


# -- F14: the endpoint goes down after the vectors were cached ----------------------------------
def test_a_query_that_cannot_be_embedded_runs_keyword_only(
    hostile: Hostile, tmp_path: Path
) -> None:
    catalog = load_catalog(SAMPLE)
    url = hostile.url("good")
    warm = ToolSearch(catalog, embedder=OpenAIEmbeddings(url, "m"), cache=tmp_path)
    assert warm.search("git status").semantic == "ready"
    hostile.server.shutdown()
    hostile.server.server_close()  # the same URL now refuses connections

    down = ToolSearch(catalog, embedder=OpenAIEmbeddings(url, "m"), cache=tmp_path)
    for requested in ("auto", "hybrid", "semantic"):
        result = down.search("what changed in my repo", SearchSettings(strategy=requested))
        assert result.strategy == "exact" and result.results
        assert result.semantic.startswith("unavailable for this search: embeddings endpoint ")
        assert "unreachable" in result.semantic and "\n" not in result.semantic
        assert "the query could not be embedded" in result.strategy_reason
        assert all(h.signals.vector is None for h in result.results)
    assert down.semantic_status == "ready" and down.vector is not None and not down.vector.built
    assert down.embed_query("what changed") is None  # the GUI's path: no exception either
    named = why_not(down, "what changed in my repo", "git.diff", SearchSettings())
    assert named.similarity is None


def test_a_bad_query_vector_runs_keyword_only(tmp_path: Path) -> None:
    search = ToolSearch(load_catalog(SAMPLE), embedder=_embed.MiniLMOnnx(), cache=tmp_path)
    good = search.embed_query("what changed in my repo")
    assert good is not None
    for bad, fragment in [
        (np.full_like(good, np.nan), "not finite"),
        (good[:7], "the query vector has shape (7,)"),
        (np.array([good, good]), "the query vector has shape (2, 384)"),
    ]:
        result = search.search("what changed in my repo", query_vector=bad)
        assert result.strategy == "exact" and fragment in result.semantic
        parsed = json.loads(to_json(result), parse_constant=_no_constants)
        assert parsed["results"]


def _no_constants(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


def test_no_nan_reaches_the_results(tmp_path: Path) -> None:
    class NaNs:
        model_id, dimension = "nan-model", 4

        def embed(self, texts: list[str]) -> np.ndarray:
            return np.full((len(texts), 4), np.nan, dtype=np.float32)

    search = ToolSearch(load_catalog(SAMPLE), embedder=NaNs(), cache=tmp_path)
    result = search.search("what changed in my repo")
    assert result.strategy == "exact" and "not finite" in result.semantic
    json.loads(to_json(result), parse_constant=_no_constants)
    with pytest.raises(EmbedderError, match="not finite"):
        VectorIndex.from_matrix(np.full((3, 4), np.nan, np.float32), NaNs())


def test_a_model_that_changed_width_rebuilds_the_vectors(tmp_path: Path) -> None:
    catalog = load_catalog(SAMPLE)
    width = {"now": 3}

    def answer(request: httpx.Request) -> httpx.Response:
        texts = json.loads(request.content)["input"]
        vectors = [[1.0 + (hash(t) % 5)] + [1.0] * (width["now"] - 1) for t in texts]
        return httpx.Response(200, content=_data(*vectors))

    def engine() -> ToolSearch:
        embedder = OpenAIEmbeddings(BASE_URL, "m", client=_client(answer))
        return ToolSearch(catalog, embedder=embedder, cache=tmp_path)

    assert engine().search("what changed").strategy == "hybrid"
    width["now"] = 5  # the server swapped models under the same name
    search = engine()
    first = search.search("what changed")
    assert first.strategy == "exact" and "rebuilt on the next search" in first.semantic
    second = search.search("what changed")
    assert second.strategy == "hybrid" and search.vector is not None and search.vector.width == 5


# -- F17: credentials are never shown --------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:s3cretTOKEN@127.0.0.1:9/v1", "http://***@127.0.0.1:9/v1"),
        ("https://tok@host/v1", "https://***@host/v1"),
        ("http://host/v1?api_key=SECRET&x=1", "http://host/v1?api_key=***&x=1"),  # by name
        ("http://host/v1#token=abc", "http://host/v1#***"),
        ("http://u:p@ss@host/v1", "http://***@host/v1"),
        ("user:pw@host/v1", "***@host/v1"),
        ("http://[::1", "http://[::1"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_credentials_never_reach_messages_model_ids_or_status(
    hostile: Hostile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = hostile.root.rsplit(":", 1)[1]
    url = f"http://user:s3cretTOKEN@127.0.0.1:{port}/echo/v1?api_key=SECRETKEY123"
    embedder = OpenAIEmbeddings(url, "m", api_key="sk-APIKEY-999")
    assert "s3cret" not in embedder.model_id and "SECRETKEY" not in embedder.model_id
    message = _one_line_error(lambda: embedder.embed(["x"]), "HTTP 401")
    for secret in ("s3cretTOKEN", "SECRETKEY123", "sk-APIKEY-999", "user:"):
        assert secret not in message
    monkeypatch.setenv("ROUTESCOPE_EMBEDDINGS_URL", url)
    monkeypatch.setenv("ROUTESCOPE_EMBEDDINGS_API_KEY", "sk-APIKEY-999")
    search = ToolSearch(load_catalog(SAMPLE), cache=tmp_path)
    result = search.search("what changed in my repo")
    shown = json.dumps([default_model_id(), search.semantic_status, result.semantic])
    assert "unavailable" in result.semantic and "***" in shown
    for secret in ("s3cretTOKEN", "SECRETKEY123", "sk-APIKEY-999"):
        assert secret not in shown


def test_the_cli_degrades_and_hides_credentials(hostile: Hostile, tmp_path: Path) -> None:
    """F14 and F17 end to end: vectors cached while the endpoint answered, then it goes away;
    `tools --json` still ranks (keyword-only, exit 0, valid JSON) and prints no credential."""
    port = hostile.root.rsplit(":", 1)[1]
    url = f"http://user:s3cretTOKEN@127.0.0.1:{port}/good/v1?api_key=SECRETKEY123"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "ROUTESCOPE_EMBEDDINGS_URL": url,
        "ROUTESCOPE_EMBEDDINGS_API_KEY": "sk-APIKEY-999",
    }
    command = [sys.executable, "-m", "routescope", "tools", "--json", "what changed in my repo"]

    def run() -> tuple[dict[str, object], str]:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        for secret in ("s3cretTOKEN", "SECRETKEY123", "sk-APIKEY-999"):
            assert secret not in done.stdout + done.stderr
        parsed: dict[str, object] = json.loads(done.stdout, parse_constant=_no_constants)
        return parsed, done.stderr

    up, _ = run()
    assert up["semantic"] == "ready" and up["strategy"] == "hybrid"
    hostile.server.shutdown()
    hostile.server.server_close()
    down, _ = run()
    assert down["strategy"] == "exact" and down["results"]
    assert str(down["semantic"]).startswith("unavailable for this search: embeddings endpoint")
