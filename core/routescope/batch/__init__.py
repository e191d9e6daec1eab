"""Batch: every deterministic router over logs of thousands to millions of prompts.

`run_batch(inputs, out)` reads JSONL, CSV or plain-text logs (paths or globs, gzip too; chat
logs give their last user message), routes each prompt through the strategy router, the
linter, the contract and the task router (and a catalog's tool search), and writes one
`Outcome` a prompt in input order (its fields documented in `routescope._outcome`) as JSON
lines or Parquet. Bad lines are counted and listed beside the output with file, line and
reason. A batch is resumable (re-run the same command) and runs on a process pool or on Dask.

`build_report` and `compare_results` read results files back. Names load on first use:
importing this package loads no router.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from .._errors import BatchError as BatchError
    from .._errors import ResultsError as ResultsError
    from ._agreement import BUILTIN as BUILTIN
    from ._agreement import Agreement as Agreement
    from ._changes import ResultsComparison as ResultsComparison
    from ._changes import compare_results as compare_results
    from ._figures import Bar as Bar
    from ._figures import Distribution as Distribution
    from ._figures import MatrixCell as MatrixCell
    from ._figures import StageLatency as StageLatency
    from ._html import write_report as write_report
    from ._options import BatchOptions as BatchOptions
    from ._progress import BatchProgress as BatchProgress
    from ._progress import BatchSummary as BatchSummary
    from ._quality import BatchQuality as BatchQuality
    from ._quality import LabelsFile as LabelsFile
    from ._quality import Quality as Quality
    from ._quality import QualityChange as QualityChange
    from ._quality import QualityChanges as QualityChanges
    from ._report import LeakCheck as LeakCheck
    from ._report import Report as Report
    from ._report import RouterFigures as RouterFigures
    from ._report import build_report as build_report
    from ._report_json import report_data as report_data
    from ._results import FailedRecord as FailedRecord
    from ._results import PromptRef as PromptRef
    from ._results import Result as Result
    from ._results import result_at as result_at
    from ._run import run_batch as run_batch
    from ._state import state_of as state_of
    from ._vocabulary import VocabularyNote as VocabularyNote
    from ._vocabulary import VocabularyTally as VocabularyTally

__getattr__, __dir__, __all__ = lazy_face(__name__)
