"""The regression model: the suite opened last, its latest run, the goldens accepted, and the
cases opened in the live view.

Suites load, run (in batches, reporting progress) and are updated in a worker lane; a case's
request is built in another. What a run is and which cases changed since the previous one are
`routescope.regress`'s (`suite_result`, `changed_cases`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._lanes import Lane, take_for

if TYPE_CHECKING:
    from routescope.regress import CaseResult, Suite, SuiteResult

__all__ = ["RegressModel"]

_BATCH_SECONDS = 0.05
"""How long a worker runs regression cases before the window hears of its progress."""


class RegressModel(QObject):
    """A regression suite and its runs.

    Attributes:
        suite: the regression suite opened last; result: its latest run (None: not run yet).

    Signals:
        opened: emitted with a `Suite` once it is loaded.
        failed: emitted with a one-line reason when a suite cannot be loaded or run.
        progress: emitted with (cases run, cases in all) while a suite runs.
        finished: emitted with the `SuiteResult` and the ids of the cases whose outcome
            changed since the previous run of the same file (None: no previous run).
        accepted: emitted with (case id, values changed) after "accept as golden".
        case_opened: emitted with a case's exact `Request` (the session makes it its own).
    """

    opened = Signal(object)
    failed = Signal(str)
    progress = Signal(int, int)
    finished = Signal(object, object)
    accepted = Signal(str, int)
    case_opened = Signal(object)

    def __init__(self, *, cache: Path | None = None, parent: QObject | None = None) -> None:
        """`cache` keeps the tool indexes the suites of tool search use."""
        super().__init__(parent)
        self._cache = cache
        self.suite: Suite | None = None
        self.result: SuiteResult | None = None
        self._previous: SuiteResult | None = None
        """The latest run of the suite's file, kept across reloads (accepting a golden)."""
        self._suite_lane = Lane()
        self._case_lane = Lane()

    @property
    def busy(self) -> bool:
        """Whether a suite loads or runs, or a case's request is being built."""
        return self._suite_lane.busy or self._case_lane.busy

    def open(self, path: str | Path) -> None:
        """Load a suite off the UI thread (a run of the previous one stops)."""
        self._suite_lane.submit(
            lambda: routescope.regress.load_suite(path), self._loaded, self.failed.emit
        )

    def _loaded(self, suite: Suite) -> None:
        if self.suite is None or self.suite.path != suite.path:
            self._previous = None
        self.suite, self.result = suite, None
        self.opened.emit(suite)

    def run(self) -> None:
        """Run every case of the suite in worker threads, reporting progress per batch."""
        suite = self.suite
        if suite is None:
            return
        cases = routescope.regress.iter_cases(suite, cache=self._cache)
        results: list[CaseResult] = []

        def next_batch() -> list[CaseResult]:
            return take_for(cases, _BATCH_SECONDS)

        def batch_done(batch: list[CaseResult]) -> None:
            if not batch:
                self._finished(suite, results)
                return
            results.extend(batch)
            self.progress.emit(len(results), len(suite.cases))
            self._suite_lane.submit(next_batch, batch_done, self.failed.emit)

        self.progress.emit(0, len(suite.cases))
        self._suite_lane.submit(next_batch, batch_done, self.failed.emit)

    def _finished(self, suite: Suite, cases: list[CaseResult]) -> None:
        regress = routescope.regress
        result = regress.suite_result(suite, cases)
        previous = self._previous
        changed = None if previous is None else regress.changed_cases(previous, result)
        self.result = self._previous = result
        self.finished.emit(result, changed)

    def accept_golden(self, case_id: str) -> None:
        """Write a failing case's current values into its suite as the new goldens (through
        `regress.update_goldens`), then load the suite again and re-run it."""
        suite, result = self.suite, self.result
        if suite is None or result is None:
            return
        regress = routescope.regress

        def accept() -> tuple[int, Suite]:
            changed = regress.update_goldens(suite, result, only={case_id})
            return changed, regress.load_suite(suite.path)

        def accepted(outcome: tuple[int, Suite]) -> None:
            changed, reloaded = outcome
            self._loaded(reloaded)
            self.accepted.emit(case_id, changed)
            self.run()

        self._suite_lane.submit(accept, accepted, self.failed.emit)

    def open_case(self, case_id: str) -> None:
        """Make a case's exact inputs the request (`Case.request`), built off the UI thread."""
        suite = self.suite
        case = next((c for c in suite.cases if c.id == case_id), None) if suite else None
        if suite is None or case is None:
            return
        self._case_lane.submit(lambda: case.request(suite), self.case_opened.emit, self.failed.emit)
