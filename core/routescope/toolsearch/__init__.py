"""Hybrid tool routing search (seed 004): catalogs in the formats people have, a Tantivy keyword
index with field boosts, vector search, two fusions (the seed's reciprocal-rank fusion, and the
default weighted fusion chosen by `make eval`), intent strategies and rerank, requests split
into steps, a "no tool fits" verdict, every rank explained.

The settings and result models (`SearchSettings`, `ToolSearchResult`, …) and `canonical()` are
cheap to import; the engine (`ToolSearch`: Tantivy, numpy, an embedding model) loads on first use.
`Engines` keeps one engine per catalog, checked against the catalog's digest when it loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import CatalogError, EmbedderError
from .._lazy import lazy_names
from ._canonical import canonical, default_boosts
from ._equation import boost_label, score_equation
from ._models import (
    CALIBRATED_FIT_THRESHOLDS,
    FUSIONS,
    Fusion,
    KeywordSignal,
    RrfTerm,
    SearchSettings,
    SearchStrategy,
    Signals,
    Step,
    StepResult,
    ToolHit,
    ToolSearchResult,
    VectorSignal,
    WhyNot,
)

if TYPE_CHECKING:
    from ._catalog import Catalog, Tool, load_catalog, standardise
    from ._embed import (
        Embedder,
        MiniLMOnnx,
        OpenAIEmbeddings,
        default_embedder,
        default_model_id,
        embedding_text,
        redact_url,
    )
    from ._engines import CatalogKey, Engines
    from ._keyword import KeywordIndex, tokens
    from ._search import ToolSearch, cache_folder
    from ._vectors import ProgressCallback, VectorIndex, VectorScores
    from ._why_not import why_not

__all__ = [
    "CALIBRATED_FIT_THRESHOLDS",
    "FUSIONS",
    "Catalog",
    "CatalogError",
    "CatalogKey",
    "Embedder",
    "EmbedderError",
    "Engines",
    "Fusion",
    "KeywordIndex",
    "KeywordSignal",
    "MiniLMOnnx",
    "OpenAIEmbeddings",
    "ProgressCallback",
    "RrfTerm",
    "SearchSettings",
    "SearchStrategy",
    "Signals",
    "Step",
    "StepResult",
    "Tool",
    "ToolHit",
    "ToolSearch",
    "ToolSearchResult",
    "VectorIndex",
    "VectorScores",
    "VectorSignal",
    "WhyNot",
    "boost_label",
    "cache_folder",
    "canonical",
    "default_boosts",
    "default_embedder",
    "default_model_id",
    "embedding_text",
    "load_catalog",
    "redact_url",
    "score_equation",
    "standardise",
    "tokens",
    "why_not",
]

_LAZY = {
    "Catalog": "_catalog",
    "Tool": "_catalog",
    "load_catalog": "_catalog",
    "standardise": "_catalog",
    "CatalogKey": "_engines",
    "Engines": "_engines",
    "Embedder": "_embed",
    "MiniLMOnnx": "_embed",
    "OpenAIEmbeddings": "_embed",
    "ProgressCallback": "_vectors",
    "redact_url": "_embed",
    "VectorIndex": "_vectors",
    "VectorScores": "_vectors",
    "default_embedder": "_embed",
    "default_model_id": "_embed",
    "embedding_text": "_embed",
    "KeywordIndex": "_keyword",
    "tokens": "_keyword",
    "ToolSearch": "_search",
    "cache_folder": "_search",
    "why_not": "_why_not",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
