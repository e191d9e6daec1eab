"""Deep research (seed 003): a multi-attempt web research loop with quality scores, safe
fetching and search providers. Built module by module: the search providers and the quality
rules are here; the loop, safe fetching and the window panel are still to come."""

from ._models import ErrorKind, ProviderError, QueryAction, SearchHit, SearchResponse
from ._providers import (
    BraveSearch,
    ProviderOptions,
    SearchProvider,
    SearxngSearch,
    TavilySearch,
    redact,
    redact_url,
    shorten_query,
)
from ._quality import (
    NextStep,
    Scores,
    StackHint,
    Thresholds,
    best_attempt,
    infer_stack,
    next_step,
    score,
)

__all__ = [
    "BraveSearch",
    "ErrorKind",
    "NextStep",
    "ProviderError",
    "ProviderOptions",
    "QueryAction",
    "Scores",
    "SearchHit",
    "SearchProvider",
    "SearchResponse",
    "SearxngSearch",
    "StackHint",
    "TavilySearch",
    "Thresholds",
    "best_attempt",
    "infer_stack",
    "next_step",
    "redact",
    "redact_url",
    "score",
    "shorten_query",
]
