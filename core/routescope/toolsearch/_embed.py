"""Embedders: what one is (`Embedder`), the text a tool is embedded as, and which one a process
uses (`default_embedder`): the bundled MiniLM (`_minilm`) or an OpenAI-compatible endpoint
(`_openai_embeddings`). The tool vectors and their search are in `_vectors`."""

from __future__ import annotations

import os
from typing import Protocol

import numpy as np

from .._errors import EmbedderError
from .._secrets import redact_url
from ._catalog import Tool
from ._keyword import canonical
from ._minilm import MiniLMOnnx
from ._openai_embeddings import OpenAIEmbeddings, shown_url

__all__ = [
    "Embedder",
    "EmbedderError",
    "MiniLMOnnx",
    "OpenAIEmbeddings",
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
        return f"openai:{settings[1]}@{shown_url(settings[0])}"
    return MiniLMOnnx.model_id
