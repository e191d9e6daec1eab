"""Batch: every deterministic router over logs of thousands to millions of prompts.

`run_batch(inputs, out)` reads JSONL, CSV or plain-text logs (paths or globs, gzip too; chat
logs give their last user message), routes each prompt through the strategy router, the
linter, the contract and the task router (and a catalog's tool search), and writes one
`Outcome` a prompt in input order (`FIELDS`, documented in `routescope._outcome`) as JSON
lines or Parquet. Bad lines are counted and listed beside the output with file, line and
reason. A batch is resumable (re-run the same command) and runs on a process pool or on Dask.

`build_report` and `compare_results` read results files back. Names load on first use:
importing this package loads no router.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .._errors import BatchError as BatchError
    from .._errors import ResultsError as ResultsError
    from .._outcome import FIELDS as FIELDS
    from .._outcome import Outcome as Outcome
    from .._stages import STAGES as STAGES
    from ._changes import Change as Change
    from ._changes import ChangeGroup as ChangeGroup
    from ._changes import ChangeKind as ChangeKind
    from ._changes import ResultsComparison as ResultsComparison
    from ._changes import Transition as Transition
    from ._changes import compare_results as compare_results
    from ._common import DEFAULT_BLOCK_BYTES as DEFAULT_BLOCK_BYTES
    from ._common import MAX_LINE_BYTES as MAX_LINE_BYTES
    from ._common import BadLine as BadLine
    from ._figures import Bar as Bar
    from ._figures import Cooccurrence as Cooccurrence
    from ._figures import CooccurrenceCell as CooccurrenceCell
    from ._figures import Distribution as Distribution
    from ._figures import StageLatency as StageLatency
    from ._html import report_html as report_html
    from ._html import write_report as write_report
    from ._leaks import LEAK_RULES as LEAK_RULES
    from ._leaks import LeakFinding as LeakFinding
    from ._leaks import LeakRule as LeakRule
    from ._leaks import find_leaks as find_leaks
    from ._parquet import parquet_schema as parquet_schema
    from ._read import DEFAULT_FIELDS as DEFAULT_FIELDS
    from ._report import LeakCheck as LeakCheck
    from ._report import Report as Report
    from ._report import ReportBuilder as ReportBuilder
    from ._report import build_report as build_report
    from ._report_json import report_data as report_data
    from ._results import FailedRecord as FailedRecord
    from ._results import PromptRef as PromptRef
    from ._results import Result as Result
    from ._results import parse_result as parse_result
    from ._results import read_results as read_results
    from ._results import result_at as result_at
    from ._run import DEFAULT_K as DEFAULT_K
    from ._run import BatchOptions as BatchOptions
    from ._run import BatchProgress as BatchProgress
    from ._run import BatchSummary as BatchSummary
    from ._run import run_batch as run_batch
    from ._state import out_paths as out_paths
    from ._state import state_of as state_of

_LAZY = {
    "BatchError": "._errors",
    "ResultsError": "._errors",
    "FIELDS": "._outcome",
    "Outcome": "._outcome",
    "STAGES": "._stages",
    **dict.fromkeys(
        [
            "Change",
            "ChangeGroup",
            "ChangeKind",
            "ResultsComparison",
            "Transition",
            "compare_results",
        ],
        "_changes",
    ),
    **dict.fromkeys(["DEFAULT_BLOCK_BYTES", "MAX_LINE_BYTES", "BadLine"], "_common"),
    **dict.fromkeys(
        ["Bar", "Cooccurrence", "CooccurrenceCell", "Distribution", "StageLatency"],
        "_figures",
    ),
    **dict.fromkeys(["report_html", "write_report"], "_html"),
    **dict.fromkeys(["LEAK_RULES", "LeakFinding", "LeakRule", "find_leaks"], "_leaks"),
    "parquet_schema": "_parquet",
    "DEFAULT_FIELDS": "_read",
    **dict.fromkeys(["LeakCheck", "Report", "ReportBuilder", "build_report"], "_report"),
    "report_data": "_report_json",
    **dict.fromkeys(
        ["FailedRecord", "PromptRef", "Result", "parse_result", "read_results", "result_at"],
        "_results",
    ),
    **dict.fromkeys(
        ["DEFAULT_K", "BatchOptions", "BatchProgress", "BatchSummary", "run_batch"], "_run"
    ),
    **dict.fromkeys(["out_paths", "state_of"], "_state"),
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
