"""The regression model: the suite opened last, its latest run, the goldens accepted (and their
undo), and the cases opened in the live view.

Suites load, run (in batches, reporting progress) and are updated in a worker lane; a case's
request is built in another, and a request saved as a new case is appended in a third. What
a run is and which cases changed since the previous one are `routescope.regress`'s
(`suite_result`, `changed_cases`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._lanes import Lane, take_for

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.regress import CaseResult, GoldenUpdate, Suite, SuiteResult

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
        undone: emitted with (case id, values put back) after an accept is undone.
        undo_changed: emitted with whether an accept can be undone (and with which case id).
        case_opened: emitted with a case's exact `Request` (the session makes it its own).
        case_saved: emitted with a status line once a request is saved as a new case.
        case_failed: emitted with a one-line reason when it cannot be saved.
    """

    opened = Signal(object)
    failed = Signal(str)
    progress = Signal(int, int)
    finished = Signal(object, object)
    accepted = Signal(str, int)
    undone = Signal(str, int)
    undo_changed = Signal(bool, str)
    case_opened = Signal(object)
    case_saved = Signal(str)
    case_failed = Signal(str)

    def __init__(self, *, cache: Path | None = None, parent: QObject | None = None) -> None:
        """`cache` keeps the tool indexes the suites of tool search use."""
        super().__init__(parent)
        self._cache = cache
        self.suite: Suite | None = None
        self.result: SuiteResult | None = None
        self._previous: SuiteResult | None = None
        """The latest run of the suite's file, kept across reloads (accepting a golden)."""
        self._undo: list[tuple[str, GoldenUpdate]] = []
        """The accepts of the suite opened, oldest first: each case id and what it wrote."""
        self._suite_lane = Lane()
        self._case_lane = Lane()
        self._append_lane = Lane()

    @property
    def busy(self) -> bool:
        """Whether a suite loads or runs, a case's request is being built or one appended."""
        return self._suite_lane.busy or self._case_lane.busy or self._append_lane.busy

    def open(self, path: str | Path) -> None:
        """Load a suite off the UI thread (a run of the previous one stops)."""
        self._suite_lane.submit(
            lambda: routescope.regress.load_suite(path), self._loaded, self.failed.emit
        )

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    def _loaded(self, suite: Suite) -> None:
        if self.suite is None or self.suite.path != suite.path:
            self._previous = None
            self._set_undo([])
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

        def accept() -> tuple[GoldenUpdate, Suite]:
            update = regress.accept_goldens(suite, result, only={case_id})
            return update, regress.load_suite(suite.path)

        def accepted(outcome: tuple[GoldenUpdate, Suite]) -> None:
            update, reloaded = outcome
            self._loaded(reloaded)
            if update.changed:
                self._set_undo([*self._undo, (case_id, update)])
            self.accepted.emit(case_id, update.changed)
            self.run()

        self._suite_lane.submit(accept, accepted, self.failed.emit)

    def undo_accept(self) -> None:
        """Put the suite file back as it was before the last accept, byte for byte (through
        `regress.undo_goldens`: refused when the file changed since), then load it again and
        re-run it. Accepts are undone last first."""
        if not self._undo:
            return
        case_id, update = self._undo[-1]
        regress = routescope.regress

        def undo() -> Suite:
            regress.undo_goldens(update)
            return regress.load_suite(update.path)

        def undone(reloaded: Suite) -> None:
            self._set_undo([entry for entry in self._undo if entry[1] is not update])
            self._loaded(reloaded)
            self.undone.emit(case_id, update.changed)
            self.run()

        def refused(reason: str) -> None:
            self._set_undo([])  # the file is not what the accepts wrote any more
            self.failed.emit(reason)

        self._suite_lane.submit(undo, undone, refused)

    def _set_undo(self, stack: list[tuple[str, GoldenUpdate]]) -> None:
        self._undo = stack
        self.undo_changed.emit(bool(stack), stack[-1][0] if stack else "")

    def open_case(self, case_id: str) -> None:
        """Make a case's exact inputs the request (`Case.request`), built off the UI thread."""
        suite = self.suite
        case = next((c for c in suite.cases if c.id == case_id), None) if suite else None
        if suite is None or case is None:
            return
        self._case_lane.submit(lambda: case.request(suite), self.case_opened.emit, self.failed.emit)

    def save_case(
        self, path: str | Path, case_id: str, request: Request, inspection: Inspection
    ) -> None:
        """Append `request` to a suite file as case `case_id`, its `inspection`'s results as
        the expectations (`regress.append_case`, atomic), off the UI thread."""

        def work() -> None:
            routescope.regress.append_case(path, case_id, request, inspection)

        self._append_lane.submit(
            work,
            lambda _none: self.case_saved.emit(f"case {case_id} saved to {path}"),
            self.case_failed.emit,
        )
