"""Regression suites for every router: YAML cases, field-by-field diffs, per-class reports."""

from ._run import (
    CaseResult,
    ClassReport,
    FieldDiff,
    SuiteResult,
    class_report,
    resolve,
    rules_path,
    run_case,
    run_suite,
    update_goldens,
)
from ._suite import MATCHERS, Case, Suite, SuiteError, is_matcher, load_suite
from ._tool_eval import EvalRow, evaluate, expected_families

__all__ = [
    "MATCHERS",
    "Case",
    "CaseResult",
    "ClassReport",
    "EvalRow",
    "FieldDiff",
    "Suite",
    "SuiteError",
    "SuiteResult",
    "class_report",
    "evaluate",
    "expected_families",
    "is_matcher",
    "load_suite",
    "resolve",
    "rules_path",
    "run_case",
    "run_suite",
    "update_goldens",
]
