"""Deep research (seed 003): a multi-attempt web research loop with quality scores, safe
fetching and search providers. Built module by module: the search providers and the quality
rules, safe fetching (SSRF-checked, pinned, capped), main-text extraction and the loop itself
(`deep_research`), the offline search backend, the heuristic model, reports and the task
router (`classify`) are here; the window panel is still to come."""

from ._extract import Extracted, extract_main_text
from ._fetch import FetchLimits, FetchOutcome, Hop, SafeFetcher, fetch_all, system_resolver
from ._heuristic import (
    HEURISTIC_MODEL,
    ClassifierInput,
    EvaluatorInput,
    HeuristicChat,
    HeuristicModel,
    OptimiserInput,
    RefinerInput,
    Source,
)
from ._loop import (
    Attempt,
    Budgets,
    DeepResearchResult,
    Finding,
    PageRead,
    PageReader,
    ResearchQuality,
    deep_research,
)
from ._models import ErrorKind, ProviderError, QueryAction, SearchHit, SearchResponse
from ._offline import (
    IndexStats,
    OfflineDocument,
    OfflineIndexError,
    OfflineReader,
    OfflineSearch,
)
from ._policy import DEFAULT_POLICY, Verdict, WebPolicy, address_verdict, verdict
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
from ._reader import WebReader
from ._report import report_data, report_markdown
from ._task import TaskDecision, classify, classify_heuristic, validate_task_spec

__all__ = [
    "DEFAULT_POLICY",
    "HEURISTIC_MODEL",
    "Attempt",
    "BraveSearch",
    "Budgets",
    "ClassifierInput",
    "DeepResearchResult",
    "ErrorKind",
    "EvaluatorInput",
    "Extracted",
    "FetchLimits",
    "FetchOutcome",
    "Finding",
    "HeuristicChat",
    "HeuristicModel",
    "Hop",
    "IndexStats",
    "NextStep",
    "OfflineDocument",
    "OfflineIndexError",
    "OfflineReader",
    "OfflineSearch",
    "OptimiserInput",
    "PageRead",
    "PageReader",
    "ProviderError",
    "ProviderOptions",
    "QueryAction",
    "RefinerInput",
    "ResearchQuality",
    "SafeFetcher",
    "Scores",
    "SearchHit",
    "SearchProvider",
    "SearchResponse",
    "SearxngSearch",
    "Source",
    "StackHint",
    "TaskDecision",
    "TavilySearch",
    "Thresholds",
    "Verdict",
    "WebPolicy",
    "WebReader",
    "address_verdict",
    "best_attempt",
    "classify",
    "classify_heuristic",
    "deep_research",
    "extract_main_text",
    "fetch_all",
    "infer_stack",
    "next_step",
    "redact",
    "redact_url",
    "report_data",
    "report_markdown",
    "score",
    "shorten_query",
    "system_resolver",
    "validate_task_spec",
    "verdict",
]
