"""Regression suites for every router: YAML cases, field-by-field diffs, per-class reports."""

from .._diff import MISSING, FieldDiff, resolve
from ._append import append_case, case_expectations
from ._checks import MATCHERS, is_matcher
from ._goldens import GoldenUpdate, accept_goldens, skipped_goldens, undo_goldens, update_goldens
from ._run import (
    CaseResult,
    ClassReport,
    SuiteResult,
    changed_cases,
    class_report,
    iter_cases,
    run_case,
    run_suite,
    suite_result,
)
from ._suite import SUITE_TODAY, Case, Suite, SuiteError, load_suite
from ._tool_eval import EvalRow, evaluate, expected_families

__all__ = [
    "MATCHERS",
    "MISSING",
    "SUITE_TODAY",
    "Case",
    "CaseResult",
    "ClassReport",
    "EvalRow",
    "FieldDiff",
    "GoldenUpdate",
    "Suite",
    "SuiteError",
    "SuiteResult",
    "accept_goldens",
    "append_case",
    "case_expectations",
    "changed_cases",
    "class_report",
    "evaluate",
    "expected_families",
    "is_matcher",
    "iter_cases",
    "load_suite",
    "resolve",
    "run_case",
    "run_suite",
    "skipped_goldens",
    "suite_result",
    "undo_goldens",
    "update_goldens",
]
