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
- `said_by(pick, …)`, `agreement_over(path, a, b, …)`: two routers — a built-in decision or
  an external router of a routers file (`Pick`) — on a prompt, and over a suite or labelled
  set (`SuiteAgreement`: each case's routes, A's route × B's route, how often each is right).

Data models are frozen dataclasses (JSON: `routescope._json.to_json`). Names load on first
use: only `compare_suite` loads the regression runner, only a tool search loads its engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._close import close_calls as close_calls
    from ._compare import compare as compare
    from ._compare import compare_requests as compare_requests
    from ._counterfactual import counterfactuals as counterfactuals
    from ._models import CaseComparison as CaseComparison
    from ._models import CloseCall as CloseCall
    from ._models import Comparison as Comparison
    from ._models import Counterfactuals as Counterfactuals
    from ._models import Decisions as Decisions
    from ._models import Flip as Flip
    from ._models import QueryChange as QueryChange
    from ._models import Side as Side
    from ._models import SuiteComparison as SuiteComparison
    from ._models import TextSpan as TextSpan
    from ._models import ToolMove as ToolMove
    from ._models import Trace as Trace
    from ._models import WordEffect as WordEffect
    from ._routers import BUILTIN_ROUTERS as BUILTIN_ROUTERS
    from ._routers import CaseRow as CaseRow
    from ._routers import Pick as Pick
    from ._routers import PromptAgreement as PromptAgreement
    from ._routers import Said as Said
    from ._routers import SuiteAgreement as SuiteAgreement
    from ._routers import agreement_over as agreement_over
    from ._routers import said_by as said_by
    from ._suite import compare_suite as compare_suite
    from ._trace import trace as trace

__getattr__, __dir__, __all__ = lazy_face(__name__)
