"""Regression suites for every router: YAML cases, field-by-field diffs, per-class reports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from .._diff import FieldDiff as FieldDiff
    from ._append import append_case as append_case
    from ._checks import is_matcher as is_matcher
    from ._goldens import GoldenUpdate as GoldenUpdate
    from ._goldens import accept_goldens as accept_goldens
    from ._goldens import skipped_goldens as skipped_goldens
    from ._goldens import undo_goldens as undo_goldens
    from ._goldens import update_goldens as update_goldens
    from ._quality import suite_quality as suite_quality
    from ._routers import SuiteRouters as SuiteRouters
    from ._routers import route_quality as route_quality
    from ._run import CaseResult as CaseResult
    from ._run import ClassReport as ClassReport
    from ._run import SuiteResult as SuiteResult
    from ._run import changed_cases as changed_cases
    from ._run import iter_cases as iter_cases
    from ._run import run_case as run_case
    from ._run import run_suite as run_suite
    from ._run import suite_result as suite_result
    from ._suite import Case as Case
    from ._suite import Suite as Suite
    from ._suite import SuiteError as SuiteError
    from ._suite import load_suite as load_suite
    from ._tool_eval import EvalRow as EvalRow
    from ._tool_eval import evaluate as evaluate

__getattr__, __dir__, __all__ = lazy_face(__name__)
