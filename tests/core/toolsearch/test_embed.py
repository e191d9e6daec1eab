"""Embedders (`routescope.toolsearch._embed`) and the vector index (`_vectors`).

The OpenAI-compatible client is tested through an injected `httpx.MockTransport`; one test talks
to a real HTTP server on 127.0.0.1. The bundled MiniLM model runs in-process, and once in a
subprocess with its own HOME to prove that onnxruntime's telemetry stays off.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import numpy as np
import pytest

from routescope import resources_root
from routescope.toolsearch import EmbedderError, ToolSearch, load_catalog
from routescope.toolsearch._embed import MiniLMOnnx, OpenAIEmbeddings

SAMPLE = Path(str(resources_root() / "catalog"))
MODEL_FOLDER = Path(str(resources_root() / "models" / "all-MiniLM-L6-v2"))
# The upstream sentence-transformers/all-MiniLM-L6-v2 tokenizer.json (see its NOTICE).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
BASE_URL = "http://embeddings.test/v1"


@pytest.fixture(scope="module")
def minilm() -> MiniLMOnnx:
    return MiniLMOnnx()


# -- the bundled MiniLM model ---------------------------------------------------------------
def test_the_tokenizer_ships_with_its_origin_and_licence() -> None:
    tokenizer = MODEL_FOLDER / "tokenizer.json"
    assert hashlib.sha256(tokenizer.read_bytes()).hexdigest() == TOKENIZER_SHA256
    notice = (MODEL_FOLDER / "NOTICE").read_text(encoding="utf-8")
    assert "sentence-transformers/all-MiniLM-L6-v2" in notice and "Apache" in notice
    assert "Apache License" in (MODEL_FOLDER / "LICENSE").read_text(encoding="utf-8")


def test_the_bundled_model_embeds_offline(minilm: MiniLMOnnx) -> None:
    vectors = minilm.embed(["show git status", "what changed in my repository", "bake a cake"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_the_bundled_model_is_the_one_measured(minilm: MiniLMOnnx) -> None:
    """A known sentence, a known vector: a different model or tokenizer fails here."""
    (vector,) = minilm.embed(["show git status"])
    assert vector.shape == (384,)
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-5)
    assert vector[:4].tolist() == pytest.approx([0.0347, -0.0083, -0.0155, 0.0303], abs=2e-3)
    # the same tokenizer file given explicitly gives the same vector
    explicit = MiniLMOnnx(tokenizer_path=MODEL_FOLDER / "tokenizer.json")
    assert np.array_equal(explicit.embed(["show git status"])[0], vector)


def test_long_texts_are_cut_not_refused(minilm: MiniLMOnnx) -> None:
    vectors = minilm.embed(["word " * 2_000, "x"])
    assert vectors.shape == (2, 384) and np.isfinite(vectors).all()


@pytest.mark.parametrize("missing", ["model_path", "tokenizer_path"])
def test_a_missing_model_file_is_an_embedder_error(tmp_path: Path, missing: str) -> None:
    path = tmp_path / "nowhere" / "file"
    with pytest.raises(EmbedderError, match=r"^no embedding model (tokenizer )?at .*nowhere"):
        MiniLMOnnx(**{missing: path})


def test_a_corrupt_model_file_is_an_embedder_error(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(b"not an onnx file")
    with pytest.raises(EmbedderError, match=r"^embedding model cannot load: "):
        MiniLMOnnx(model_path=model)


def test_vectors_are_cached_by_model_and_catalog(tmp_path: Path, minilm: MiniLMOnnx) -> None:
    catalog = load_catalog(SAMPLE)
    first = ToolSearch(catalog, embedder=minilm, cache=tmp_path).vector
    again = ToolSearch(catalog, embedder=minilm, cache=tmp_path).vector
    assert first is not None and again is not None and first.built and not again.built
    assert np.array_equal(first.matrix, again.matrix)
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 1
    smaller = type(catalog)(tools=catalog.tools[:5], source="x")
    rebuilt = ToolSearch(smaller, embedder=minilm, cache=tmp_path).vector
    assert rebuilt is not None and rebuilt.built
    assert len(list(tmp_path.glob("vectors-*.npy"))) == 2


class _Unavailable:
    model_id = "unavailable"

    def embed(self, texts: list[str]) -> np.ndarray:
        raise EmbedderError("no embedding model installed (test)")


def test_without_a_model_the_search_says_so_and_runs_keyword_only(tmp_path: Path) -> None:
    search = ToolSearch(load_catalog(SAMPLE), embedder=_Unavailable(), cache=tmp_path)
    result = search.search("what changed in my repo")
    assert search.vector is None
    assert result.semantic == "unavailable: no embedding model installed (test)"
    assert result.strategy == "exact" and "keyword only" in result.strategy_reason
    assert all(h.signals.vector is None for h in result.results)
    assert result.results and not list(tmp_path.glob("vectors-*.npy"))


# -- onnxruntime telemetry ------------------------------------------------------------------
# onnxruntime >= 1.29 has 1DS telemetry on Linux and macOS: as soon as it loads it writes
# $XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db}, and about nine
# seconds after start its uploader resolves and calls mobile.events.data.microsoft.com. That
# uploader is native code (static libcurl), so patching Python's `socket` cannot see it. libcurl
# does honour the proxy variables, though: the child gets a proxy on 127.0.0.1 that records every
# CONNECT and answers nothing. A control run with `ORT_DISABLE_TELEMETRY=0` (an explicit opt-in,
# which Routescope respects) shows the probe sees telemetry when there is some.
TELEMETRY_WINDOW_S = 12.0  # the first upload attempt came 9.2 s after start (onnxruntime 1.32)

_EMBED_IN_CHILD = """
import json, os, socket, sys, time

calls = []


def refuse(name):
    def call(*args, **kwargs):
        calls.append(f"{name}{args[:2]!r}")
        raise OSError(f"{name} refused by the test")

    return call


for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "create_connection"):
    setattr(socket, name, refuse(name))
socket.socket.connect = refuse("socket.connect")
socket.socket.connect_ex = refuse("socket.connect_ex")

from routescope.toolsearch._embed import MiniLMOnnx

started = time.monotonic()
shape = list(MiniLMOnnx().embed(["show git status"]).shape)
time.sleep(max(0.0, float(sys.argv[1]) - (time.monotonic() - started)))
opt_out = os.environ.get("ORT_DISABLE_TELEMETRY")
print(json.dumps({"calls": calls, "shape": shape, "opt_out": opt_out}))
"""


class _ProxyTrap:
    """An HTTP proxy on 127.0.0.1 that records the first bytes of every request and closes."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"

    def __enter__(self) -> _ProxyTrap:
        self._thread.start()
        return self

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(2.0)
                try:
                    self.requests.append(connection.recv(1024).decode(errors="replace"))
                except OSError as exc:
                    self.requests.append(f"(a connection without a request: {exc})")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._server.close()


@dataclass
class _Child:
    home: Path
    cwd: Path
    trap: _ProxyTrap
    process: subprocess.Popen[str]

    def result(self) -> dict[str, object]:
        out, err = self.process.communicate(timeout=TELEMETRY_WINDOW_S + 120)
        assert self.process.returncode == 0, err
        report: dict[str, object] = json.loads(out)
        return report

    def written(self) -> list[str]:
        return sorted(
            str(path.relative_to(self.cwd.parent))
            for path in [*self.home.rglob("*"), *self.cwd.rglob("*")]
        )


def _start_child(folder: Path, trap: _ProxyTrap, extra_env: dict[str, str]) -> _Child:
    home, cwd = folder / "home", folder / "cwd"
    home.mkdir(parents=True)
    cwd.mkdir()
    # nothing inherited: no CI variable (onnxruntime stays silent in CI), no ORT_*, no proxy
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
        **{name: trap.url for name in ("http_proxy", "https_proxy", "HTTPS_PROXY", "ALL_PROXY")},
        **extra_env,
    }
    process = subprocess.Popen(
        [sys.executable, "-c", _EMBED_IN_CHILD, str(TELEMETRY_WINDOW_S)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return _Child(home, cwd, trap, process)


@pytest.mark.slow  # waits out onnxruntime's first upload window (about 12 s)
def test_onnxruntime_telemetry_stays_off(tmp_path: Path) -> None:
    with _ProxyTrap() as trap, _ProxyTrap() as control_trap:
        child = _start_child(tmp_path / "default", trap, {})
        control = _start_child(tmp_path / "opted-in", control_trap, {"ORT_DISABLE_TELEMETRY": "0"})
        report, control_report = child.result(), control.result()

    assert report["shape"] == [1, 384] and report["opt_out"] == "1"
    assert child.written() == [], "onnxruntime wrote telemetry state into HOME or the cwd"
    assert trap.requests == [], "something tried to reach the network through the proxy"
    assert report["calls"] == [], "Python code looked up a host or opened a connection"

    # the control: same probe, telemetry left on by an explicit user choice
    assert control_report["opt_out"] == "0"
    assert any("Microsoft" in path for path in control.written()), (
        f"the probe no longer sees onnxruntime's telemetry files ({control.written()}): "
        "re-check how this onnxruntime version stores and disables telemetry"
    )
    assert any("events.data.microsoft.com" in request for request in control_trap.requests), (
        f"the probe no longer sees onnxruntime's upload ({control_trap.requests}): re-check how "
        "this onnxruntime version uploads telemetry and how it is disabled"
    )


# -- OpenAI-compatible endpoint, through an injected client ----------------------------------
Handler = Callable[[httpx.Request], httpx.Response]


def _client(handler: Handler) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


def _answer(vectors: list[list[float]], order: list[int] | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        indices = order if order is not None else list(range(len(vectors)))
        data = [{"index": i, "embedding": vectors[i]} for i in indices]
        return httpx.Response(200, json={"object": "list", "data": data, "model": "m"})

    return handler


def test_openai_embeddings_posts_the_texts_and_normalises() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return _answer([[3.0, 4.0], [0.0, 2.0]])(request)

    embedder = OpenAIEmbeddings(BASE_URL + "/", "nomic", api_key="k", client=_client(handler))
    vectors = embedder.embed(["git status", "cake"])
    assert vectors.dtype == np.float32
    assert np.allclose(vectors, [[0.6, 0.8], [0.0, 1.0]])
    (request,) = seen
    assert request.method == "POST" and str(request.url) == BASE_URL + "/embeddings"
    assert json.loads(request.content) == {"model": "nomic", "input": ["git status", "cake"]}
    assert request.headers["Authorization"] == "Bearer k"
    assert embedder.model_id == f"openai:nomic@{BASE_URL}/"


def test_openai_embeddings_are_ordered_by_index_not_by_position() -> None:
    vectors = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    embedder = OpenAIEmbeddings(BASE_URL, "m", client=_client(_answer(vectors, order=[2, 0, 1])))
    rows = embedder.embed(["a", "b", "c"])
    assert rows[0].tolist() == pytest.approx([1.0, 0.0])
    assert rows[1].tolist() == pytest.approx([0.0, 1.0])
    assert rows[2].tolist() == pytest.approx([2**-0.5, 2**-0.5])


def _json_response(status: int, body: object) -> Handler:
    return lambda request: httpx.Response(status, json=body)


def _raw_response(status: int, body: bytes) -> Handler:
    return lambda request: httpx.Response(status, content=body)


def _unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        (_answer([[1.0, 0.0]]), "returned 1 vectors for 2 texts"),
        (
            _json_response(500, {"error": "model\nnot loaded"}),
            'answered HTTP 500 Internal Server Error: {"error":"model\\\\nnot loaded"}',
        ),
        (_raw_response(404, b""), "answered HTTP 404 Not Found$"),
        (_raw_response(200, b"<html>\nnot json</html>"), "did not answer JSON: <html> not json"),
        (_raw_response(200, b""), r"did not answer JSON: \(empty body\)"),
        (_json_response(200, {"embeddings": [[1.0]]}), "not an embeddings list"),
        (_json_response(200, {"data": [{"embedding": [1.0]}, {}]}), "not an embeddings list"),
        (
            _json_response(200, {"data": [{"index": 0, "embedding": [1.0]}, {"index": 1}]}),
            "not an embeddings list",
        ),
        (
            _json_response(
                200,
                {"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]},
            ),
            "not lists of numbers of one length",
        ),
        (
            _json_response(
                200, {"data": [{"index": 0, "embedding": "x"}, {"index": 1, "embedding": "y"}]}
            ),
            "not lists of numbers of one length",
        ),
        (_unreachable, r"unreachable: \[Errno 111\] Connection refused"),
    ],
    ids=[
        "wrong-count",
        "http-500",
        "http-404-empty",
        "not-json",
        "empty-body",
        "no-data",
        "no-index",
        "no-embedding",
        "ragged",
        "not-numbers",
        "unreachable",
    ],
)
def test_openai_embeddings_failures_are_one_line_embedder_errors(
    handler: Handler, message: str
) -> None:
    embedder = OpenAIEmbeddings(BASE_URL, "m", client=_client(handler))
    with pytest.raises(EmbedderError, match=message) as caught:
        embedder.embed(["a", "b"])
    text = str(caught.value)
    assert text.startswith(f"embeddings endpoint {BASE_URL}/embeddings ") and "\n" not in text


# -- OpenAI-compatible endpoint, one real server on 127.0.0.1 --------------------------------
class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """`/v1/embeddings`: a 3-dimensional vector made from each text, answered in reverse order."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/v1/embeddings":
            self.send_error(404)
            return
        data = [
            {"index": i, "embedding": [float(len(t) % 7), 1.0, float("git" in t)]}
            for i, t in enumerate(body["input"])
        ]
        payload = json.dumps({"data": data[::-1], "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def embeddings_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)  # 127.0.0.1 is reached directly
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_openai_compatible_server_on_loopback(embeddings_server: str, tmp_path: Path) -> None:
    embedder = OpenAIEmbeddings(embeddings_server, "test-model")
    vectors = embedder.embed(["git status", "cake"])
    assert vectors.shape == (2, 3) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ np.array([0.0, 0.0, 1.0]) > 0 and vectors[1][2] == 0.0
    search = ToolSearch(load_catalog(SAMPLE), embedder=embedder, cache=tmp_path)
    assert search.semantic_status == "ready"
    assert search.search("git status").results[0].signals.vector is not None
    with pytest.raises(EmbedderError, match="answered HTTP 404"):
        OpenAIEmbeddings(embeddings_server + "/nope", "test-model").embed(["x"])
