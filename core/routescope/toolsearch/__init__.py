"""Hybrid tool routing search (seed 004): catalog, Tantivy keyword index with field boosts,
vector search, reciprocal-rank fusion, intent strategies and rerank, every rank explained."""

from ._catalog import Catalog, CatalogError, Tool, load_catalog, standardise
from ._embed import (
    Embedder,
    EmbedderError,
    MiniLMOnnx,
    OpenAIEmbeddings,
    VectorIndex,
    default_embedder,
    embedding_text,
)
from ._eval import EvalRow, evaluate, expected_families
from ._keyword import KeywordIndex, canonical, tokens
from ._search import (
    KeywordSignal,
    RrfTerm,
    SearchSettings,
    Signals,
    ToolHit,
    ToolSearch,
    ToolSearchResult,
    VectorSignal,
    WhyNot,
    cache_folder,
    why_not,
)

__all__ = [
    "Catalog",
    "CatalogError",
    "Embedder",
    "EmbedderError",
    "EvalRow",
    "KeywordIndex",
    "KeywordSignal",
    "MiniLMOnnx",
    "OpenAIEmbeddings",
    "RrfTerm",
    "SearchSettings",
    "Signals",
    "Tool",
    "ToolHit",
    "ToolSearch",
    "ToolSearchResult",
    "VectorIndex",
    "VectorSignal",
    "WhyNot",
    "cache_folder",
    "canonical",
    "default_embedder",
    "embedding_text",
    "evaluate",
    "expected_families",
    "load_catalog",
    "standardise",
    "tokens",
    "why_not",
]
