"""Compare and "why this decision" (issue 19 §3, §5): structured diffs the window and the
command line render.

- `compare(a, b)`: two requests (two prompts, or one prompt under two rule packs, contexts or
  catalogs) run and diffed — flags that flipped, the strategy, the queries with a word-level
  diff, the linter's class, the contract's plan, the tool ranks with their movement, the task
  route (`compare_inspections` diffs two results already run). `compare_suite`: a regression
  suite on both sides, the cases whose results differ.
- `counterfactuals(request)`: each word removed in turn, every deterministic router run
  again; the words whose removal flips a decision, with spans.
- `trace(inspection, entity)`: where an entity flows (queries, intent keywords, linter
  anchors, contract rules, tool matches).
- `close_calls(inspection)`: decisions that were near a threshold or a runner-up.

Data models are frozen dataclasses (JSON: `routescope._json.to_json`). Names load on first
use: only `compare_suite` loads the regression runner, only a tool search loads its engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._close import FIT_MARGIN, TOOL_MARGIN, close_calls, linter_class
    from ._compare import (
        PAIR_SIMILARITY,
        compare,
        compare_inspections,
        compare_requests,
        side_of,
    )
    from ._counterfactual import DECISIONS, MAX_WORDS, counterfactuals, flips
    from ._models import (
        SECTIONS,
        AnchorTrace,
        CallChange,
        CaseComparison,
        CloseCall,
        Comparison,
        Counterfactuals,
        DecisionName,
        Decisions,
        FlagFlip,
        Flip,
        IntentTrace,
        Movement,
        QueryChange,
        QueryTrace,
        RuleTrace,
        Section,
        Side,
        SuiteComparison,
        TextSpan,
        ToolMove,
        ToolTrace,
        Trace,
        ValueChange,
        WordEffect,
    )
    from ._suite import compare_suite
    from ._trace import trace
    from ._words import cut_range, without_word, word_diff, words

__all__ = [
    "DECISIONS",
    "FIT_MARGIN",
    "MAX_WORDS",
    "PAIR_SIMILARITY",
    "SECTIONS",
    "TOOL_MARGIN",
    "AnchorTrace",
    "CallChange",
    "CaseComparison",
    "CloseCall",
    "Comparison",
    "Counterfactuals",
    "DecisionName",
    "Decisions",
    "FlagFlip",
    "Flip",
    "IntentTrace",
    "Movement",
    "QueryChange",
    "QueryTrace",
    "RuleTrace",
    "Section",
    "Side",
    "SuiteComparison",
    "TextSpan",
    "ToolMove",
    "ToolTrace",
    "Trace",
    "ValueChange",
    "WordEffect",
    "close_calls",
    "compare",
    "compare_inspections",
    "compare_requests",
    "compare_suite",
    "counterfactuals",
    "cut_range",
    "flips",
    "linter_class",
    "side_of",
    "trace",
    "without_word",
    "word_diff",
    "words",
]

_MODELS = (
    "SECTIONS",
    "AnchorTrace",
    "CallChange",
    "CaseComparison",
    "CloseCall",
    "Comparison",
    "Counterfactuals",
    "DecisionName",
    "FlagFlip",
    "Flip",
    "IntentTrace",
    "Movement",
    "Decisions",
    "QueryChange",
    "QueryTrace",
    "RuleTrace",
    "Section",
    "Side",
    "SuiteComparison",
    "TextSpan",
    "ToolMove",
    "ToolTrace",
    "Trace",
    "ValueChange",
    "WordEffect",
)
_LAZY = {
    **dict.fromkeys(_MODELS, "_models"),
    "FIT_MARGIN": "_close",
    "TOOL_MARGIN": "_close",
    "close_calls": "_close",
    "linter_class": "_close",
    "PAIR_SIMILARITY": "_compare",
    "compare": "_compare",
    "compare_inspections": "_compare",
    "compare_requests": "_compare",
    "side_of": "_compare",
    "DECISIONS": "_counterfactual",
    "MAX_WORDS": "_counterfactual",
    "counterfactuals": "_counterfactual",
    "flips": "_counterfactual",
    "compare_suite": "_suite",
    "trace": "_trace",
    "cut_range": "_words",
    "word_diff": "_words",
    "without_word": "_words",
    "words": "_words",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
