"""Batch: every deterministic router over logs of thousands to millions of prompts.

`run_batch(inputs, out)` reads JSONL, CSV or plain-text logs (paths or globs, gzip too; chat
logs give their last user message), routes each prompt through the strategy router, the
linter, the contract and the task router (and a catalog's tool search), and writes one flat
record a prompt in input order (`FIELDS`, documented in `routescope.batch._record`) as JSON
lines or Parquet. Bad lines are counted and listed beside the output with file, line and
reason. A batch is resumable (re-run the same command) and runs on a process pool or on Dask.

`route_record` is the record of one prompt; `record_from_inspection` the same record from an
`Inspection`. Names load on first use: importing this package loads no router.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._common import DEFAULT_BLOCK_BYTES, MAX_LINE_BYTES, BadLine, BatchError
    from ._html import report_html, write_report
    from ._parquet import parquet_schema
    from ._read import DEFAULT_FIELDS
    from ._record import FIELDS, STAGES, flat_record, record_from_inspection, route_record
    from ._report import (
        LEAK_RULES,
        Bar,
        Change,
        ChangeGroup,
        ChangeKind,
        Comparison,
        Cooccurrence,
        CooccurrenceCell,
        Distribution,
        FailedRecord,
        LeakCheck,
        LeakFinding,
        LeakRule,
        PromptRef,
        Report,
        ReportBuilder,
        ResultRecord,
        ResultsError,
        StageLatency,
        Transition,
        build_report,
        compare_results,
        find_leaks,
        parse_record,
        read_results,
        report_data,
    )
    from ._run import DEFAULT_K, BatchProgress, BatchSummary, run_batch
    from ._state import out_paths

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "DEFAULT_FIELDS",
    "DEFAULT_K",
    "FIELDS",
    "LEAK_RULES",
    "MAX_LINE_BYTES",
    "STAGES",
    "BadLine",
    "Bar",
    "BatchError",
    "BatchProgress",
    "BatchSummary",
    "Change",
    "ChangeGroup",
    "ChangeKind",
    "Comparison",
    "Cooccurrence",
    "CooccurrenceCell",
    "Distribution",
    "FailedRecord",
    "LeakCheck",
    "LeakFinding",
    "LeakRule",
    "PromptRef",
    "Report",
    "ReportBuilder",
    "ResultRecord",
    "ResultsError",
    "StageLatency",
    "Transition",
    "build_report",
    "compare_results",
    "find_leaks",
    "flat_record",
    "out_paths",
    "parquet_schema",
    "parse_record",
    "read_results",
    "record_from_inspection",
    "report_data",
    "report_html",
    "route_record",
    "run_batch",
    "write_report",
]

_LAZY = {
    "DEFAULT_BLOCK_BYTES": "_common",
    "MAX_LINE_BYTES": "_common",
    "BadLine": "_common",
    "BatchError": "_common",
    "parquet_schema": "_parquet",
    "DEFAULT_FIELDS": "_read",
    "FIELDS": "_record",
    "STAGES": "_record",
    "flat_record": "_record",
    "record_from_inspection": "_record",
    "route_record": "_record",
    "DEFAULT_K": "_run",
    "BatchProgress": "_run",
    "BatchSummary": "_run",
    "run_batch": "_run",
    "out_paths": "_state",
    # the report
    **dict.fromkeys(
        [
            "LEAK_RULES",
            "Bar",
            "Change",
            "ChangeGroup",
            "ChangeKind",
            "Comparison",
            "Cooccurrence",
            "CooccurrenceCell",
            "Distribution",
            "FailedRecord",
            "LeakCheck",
            "LeakFinding",
            "LeakRule",
            "PromptRef",
            "Report",
            "ReportBuilder",
            "ResultRecord",
            "ResultsError",
            "StageLatency",
            "Transition",
            "build_report",
            "compare_results",
            "find_leaks",
            "parse_record",
            "read_results",
            "report_data",
        ],
        "_report",
    ),
    "report_html": "_html",
    "write_report": "_html",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
