"""Deep research (seed 003): a multi-attempt web research loop with quality scores.

`run_research(goal, ResearchSettings(...), keys=...)` is the one entry point the command line
and the window use: it puts together a search provider (the offline documentation index,
SearXNG, Tavily or Brave), a page reader (the offline index, or the safe fetcher:
SSRF-checked, pinned, capped) and a model (the heuristic stand-in, or an OpenAI-compatible
endpoint) and runs `deep_research`, the loop itself. Reports (`report_data`,
`report_markdown`, `write_report`), the quality rules (`score`, `best_attempt`, `next_step`,
`infer_stack`) and keys (`KeyStore`: environment or an owner-only file) are here too. The task
router that decides whether a message needs research at all is `routescope.task`.

Cheap to import: the settings and the key store load here, everything else on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import ResearchConfigError
from .._lazy import lazy_names
from ._keys import KeyStore, ResolvedKey, default_key_file, mask_key
from ._settings import (
    KEY_VARIABLES,
    MODEL_NAMES,
    SEARCH_NAMES,
    ModelName,
    ResearchSettings,
    SearchName,
)

if TYPE_CHECKING:
    from ._backends import report_folder_name, run_research
    from ._evidence import (
        AttemptEvidence,
        ScoreReason,
    )
    from ._extract import (
        Extracted,
        extract_main_text,
    )
    from ._fetch import (
        FetchLimits,
        FetchOutcome,
        Hop,
        SafeFetcher,
        fetch_all,
        system_resolver,
    )
    from ._goal_terms import GoalTerm
    from ._heuristic import (
        HEURISTIC_MODEL,
        ClassifierInput,
        EvaluatorInput,
        HeuristicModel,
        OptimiserInput,
        RefinerInput,
        Source,
    )
    from ._heuristic_chat import HeuristicChat
    from ._loop import deep_research
    from ._models import (
        ErrorKind,
        ProviderError,
        QueryAction,
        SearchHit,
        SearchResponse,
    )
    from ._offline import (
        IndexStats,
        OfflineDocument,
        OfflineIndexError,
        OfflineReader,
        OfflineSearch,
    )
    from ._page_evidence import PageEvidence, TermMatch
    from ._policy import (
        DEFAULT_POLICY,
        Verdict,
        WebPolicy,
        address_verdict,
        verdict,
    )
    from ._provider_contract import ProviderOptions, SearchProvider, redact, shorten_query
    from ._providers import (
        BraveSearch,
        SearxngSearch,
        TavilySearch,
        redact_url,
    )
    from ._quality import (
        NextStep,
        Scores,
        StackHint,
        StopReason,
        Thresholds,
        best_attempt,
        decide,
        infer_stack,
        next_step,
        score,
    )
    from ._reader import (
        WebReader,
    )
    from ._records import (
        Attempt,
        Budgets,
        DeepResearchResult,
        Finding,
        PageRead,
        PageReader,
        ResearchQuality,
    )
    from ._report import (
        default_reports_folder,
        report_data,
        report_markdown,
        write_report,
    )

__all__ = [
    "DEFAULT_POLICY",
    "HEURISTIC_MODEL",
    "KEY_VARIABLES",
    "MODEL_NAMES",
    "SEARCH_NAMES",
    "Attempt",
    "AttemptEvidence",
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
    "GoalTerm",
    "HeuristicChat",
    "HeuristicModel",
    "Hop",
    "IndexStats",
    "KeyStore",
    "ModelName",
    "NextStep",
    "OfflineDocument",
    "OfflineIndexError",
    "OfflineReader",
    "OfflineSearch",
    "OptimiserInput",
    "PageEvidence",
    "PageRead",
    "PageReader",
    "ProviderError",
    "ProviderOptions",
    "QueryAction",
    "RefinerInput",
    "ResearchConfigError",
    "ResearchQuality",
    "ResearchSettings",
    "ResolvedKey",
    "SafeFetcher",
    "ScoreReason",
    "Scores",
    "SearchHit",
    "SearchName",
    "SearchProvider",
    "SearchResponse",
    "SearxngSearch",
    "Source",
    "StackHint",
    "StopReason",
    "TavilySearch",
    "TermMatch",
    "Thresholds",
    "Verdict",
    "WebPolicy",
    "WebReader",
    "address_verdict",
    "best_attempt",
    "decide",
    "deep_research",
    "default_key_file",
    "default_reports_folder",
    "extract_main_text",
    "fetch_all",
    "infer_stack",
    "mask_key",
    "next_step",
    "redact",
    "redact_url",
    "report_data",
    "report_folder_name",
    "report_markdown",
    "run_research",
    "score",
    "shorten_query",
    "system_resolver",
    "verdict",
    "write_report",
]

_LAZY = {
    "AttemptEvidence": "_evidence",
    "GoalTerm": "_goal_terms",
    "PageEvidence": "_page_evidence",
    "ScoreReason": "_evidence",
    "TermMatch": "_page_evidence",
    "StopReason": "_quality",
    "decide": "_quality",
    "run_research": "_backends",
    "report_folder_name": "_backends",
    "Extracted": "_extract",
    "extract_main_text": "_extract",
    "FetchLimits": "_fetch",
    "FetchOutcome": "_fetch",
    "Hop": "_fetch",
    "SafeFetcher": "_fetch",
    "fetch_all": "_fetch",
    "system_resolver": "_fetch",
    "ClassifierInput": "_heuristic",
    "EvaluatorInput": "_heuristic",
    "HEURISTIC_MODEL": "_heuristic",
    "HeuristicChat": "_heuristic_chat",
    "HeuristicModel": "_heuristic",
    "OptimiserInput": "_heuristic",
    "RefinerInput": "_heuristic",
    "Source": "_heuristic",
    "Attempt": "_records",
    "Budgets": "_records",
    "DeepResearchResult": "_records",
    "Finding": "_records",
    "PageRead": "_records",
    "PageReader": "_records",
    "ResearchQuality": "_records",
    "deep_research": "_loop",
    "ErrorKind": "_models",
    "ProviderError": "_models",
    "QueryAction": "_models",
    "SearchHit": "_models",
    "SearchResponse": "_models",
    "IndexStats": "_offline",
    "OfflineDocument": "_offline",
    "OfflineIndexError": "_offline",
    "OfflineReader": "_offline",
    "OfflineSearch": "_offline",
    "DEFAULT_POLICY": "_policy",
    "Verdict": "_policy",
    "WebPolicy": "_policy",
    "address_verdict": "_policy",
    "verdict": "_policy",
    "BraveSearch": "_providers",
    "ProviderOptions": "_provider_contract",
    "SearchProvider": "_provider_contract",
    "SearxngSearch": "_providers",
    "TavilySearch": "_providers",
    "redact": "_provider_contract",
    "redact_url": "_providers",
    "shorten_query": "_provider_contract",
    "NextStep": "_quality",
    "Scores": "_quality",
    "StackHint": "_quality",
    "Thresholds": "_quality",
    "best_attempt": "_quality",
    "infer_stack": "_quality",
    "next_step": "_quality",
    "score": "_quality",
    "WebReader": "_reader",
    "default_reports_folder": "_report",
    "report_data": "_report",
    "report_markdown": "_report",
    "write_report": "_report",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
