"""The batch model: `routescope batch` over a log in a worker thread, with progress and
cancel, then the report of its results; the report of a results file opened as it is; and the
prompts behind a figure opened in the live view.

A batch runs `routescope.batch.run_batch` in a worker lane with the request's date and rule
pack. Its progress reaches the UI thread through the event loop; `cancel` sets the batch's
cancel event, so it stops after the chunk it is writing and keeps what it wrote: running the
same log into the same results again continues where it stopped (`BatchSummary.done_before`).
The report (`routescope.batch.build_report`) is read in the same worker once the batch is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.batch import BatchProgress, BatchSummary, PromptRef, Report

__all__ = ["BLOCK_BYTES", "BatchModel", "BatchOutcome"]

BLOCK_BYTES = 64 << 10
"""Input bytes per partition of a batch run from the window: progress and a cancel come at
least this often (the command line's 256 KiB would leave a small log with one step). The size
is no option of the results: a batch begun here resumes from the command line and back."""
_CUT = "…"
"""How the report ends a prompt it cut (a cut prompt is read whole from the results)."""


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """What a worker hands back: the batch's summary (None: results opened, not run) and the
    report of the results (None: the batch was cancelled)."""

    summary: BatchSummary | None
    report: Report | None
    results: Path
    rules: RulesRef | None
    """The rule pack the prompts were routed with, when known."""
    note: str = ""


class BatchModel(QObject):
    """Batches over logs, and the report shown.

    Attributes:
        summary: the last batch's `BatchSummary` (None: the report is of a results file opened
            as it is); report: the `Report` shown (None: none yet); results: its file.

    Signals:
        started: emitted with (log, results file) when a batch starts.
        progress: emitted with a `BatchProgress` once the batch has planned and after each
            chunk it writes.
        reading: emitted with the results file while its report is read.
        finished: emitted with (`BatchSummary` or None when results were opened, `Report`).
        failed: emitted with a one-line reason (a log or results file that cannot be read,
            options a resumed batch was not begun with, a prompt that cannot be opened).
        cancelled: emitted with the `BatchSummary` of a cancelled batch (what it kept).
        prompt_opened: emitted with the `Request` of a prompt behind a figure (the session
            makes it its own).
        prompt_judged: emitted with the `Request` of a prompt behind a figure, to judge.
        note: emitted with a remark on the report shown ("" when there is none), such as
            results routed with another rule pack than the one their prompts open with.
    """

    started = Signal(str, str)
    progress = Signal(object)
    reading = Signal(str)
    finished = Signal(object, object)
    failed = Signal(str)
    cancelled = Signal(object)
    prompt_opened = Signal(object)
    prompt_judged = Signal(object)
    note = Signal(str)

    def __init__(self, current: Callable[[], Request], *, parent: QObject | None = None) -> None:
        """`current` is the request of the session: a batch routes with its date and rules."""
        super().__init__(parent)
        self._current = current
        self.summary: BatchSummary | None = None
        self.report: Report | None = None
        self.results: Path | None = None
        self._rules: RulesRef | None = None
        self._cancel: threading.Event | None = None
        self._generation = 0
        self._run_lane = Lane()
        self._report_lane = Lane()
        self._prompt_lane = Lane()

    @property
    def busy(self) -> bool:
        """Whether a batch runs, a report is read or a prompt is being opened."""
        return self._run_lane.busy or self._report_lane.busy or self._prompt_lane.busy

    @property
    def running(self) -> bool:
        """Whether a batch runs (and can be cancelled)."""
        return self._cancel is not None

    def run(
        self,
        log: str,
        out: str | Path,
        *,
        catalog: str | Path | None = None,
        workers: int = 1,
    ) -> None:
        """Route every prompt of `log` (a path or a glob) into `out`, then read the report. An
        `out` a cancelled batch left continues where it stopped. Ignored while a batch runs."""
        if self._cancel is not None:
            return
        request = self._current()
        rules, today = request.rules, request.today
        cancel = self._cancel = threading.Event()
        self._generation += 1
        generation = self._generation
        loop = asyncio.get_running_loop()

        def tell(progress: BatchProgress) -> None:
            _post(loop, self._progressed, generation, progress)

        def work() -> BatchOutcome:
            batch = routescope.batch
            options = batch.BatchOptions(
                today=today,
                rules=rules,
                catalog=catalog or None,
                workers=workers,
                block_size=BLOCK_BYTES,
            )
            summary = batch.run_batch(
                [log],
                out,
                options,
                progress=False,
                on_progress=tell,
                cancel=cancel,
            )
            results = Path(summary.out)
            if not summary.complete:
                return BatchOutcome(summary, None, results, rules)
            _post(loop, self._reading, generation, str(results))
            return BatchOutcome(summary, batch.build_report(results), results, rules)

        self.started.emit(log, str(out))
        self._run_lane.submit(work, self._ran, self._run_failed)

    def cancel(self) -> None:
        """Stop the batch after the chunk it is writing; what it wrote is kept (run it again to
        continue). `cancelled` follows once it has stopped."""
        if self._cancel is not None:
            self._cancel.set()

    def close(self) -> None:
        """The window is closing: stop the batch (its results stay resumable) and deliver
        nothing more."""
        self.cancel()
        for lane in (self._run_lane, self._report_lane, self._prompt_lane):
            lane.cancel()

    def open_results(self, path: str | Path) -> None:
        """Show the report of a results file (JSON lines, gzip, Parquet) without running."""
        rules = self._current().rules

        def work() -> BatchOutcome:
            results = Path(path)
            report = routescope.batch.build_report(results)
            routed, note = _rules_of(results, rules)
            return BatchOutcome(None, report, results, routed, note)

        self.reading.emit(str(path))
        self._report_lane.submit(work, self._show, self.failed.emit)

    def open_prompt(self, ref: PromptRef) -> None:
        """Make a prompt of the report the request: its whole text (read from the results when
        the report cut it) on its batch's date, with the batch's rule pack."""
        self._request_of(ref, self.prompt_opened.emit)

    def judge_prompt(self, ref: PromptRef) -> None:
        """The request of a prompt of the report (as `open_prompt` makes it), to judge
        (`prompt_judged`)."""
        self._request_of(ref, self.prompt_judged.emit)

    def _request_of(self, ref: PromptRef, deliver: Callable[[Request], None]) -> None:
        report, results = self.report, self.results
        if report is None or results is None:
            return
        base = self._current()
        rules = self._rules or base.rules
        today = report.first_today if report.first_today == report.last_today else None

        def build() -> Request:
            text, day = ref.prompt, today
            if text.endswith(_CUT) or day is None:
                text, given = _prompt_at(results, ref.record)
                day = given or day
            date = dt.date.fromisoformat(day) if day else base.today
            return base.replace(text=text, today=date, rules=rules, context=None)

        self._prompt_lane.submit(build, deliver, self.failed.emit)

    # -- results from the workers -------------------------------------------------------------
    def _progressed(self, generation: int, progress: BatchProgress) -> None:
        if generation == self._generation and self._cancel is not None:
            self.progress.emit(progress)

    def _reading(self, generation: int, results: str) -> None:
        if generation == self._generation and self._cancel is not None:
            self.reading.emit(results)

    def _ran(self, outcome: BatchOutcome) -> None:
        self._cancel = None
        if outcome.report is None:
            self.cancelled.emit(outcome.summary)
            return
        self._show(outcome)

    def _run_failed(self, message: str) -> None:
        self._cancel = None
        self.failed.emit(message)

    def _show(self, outcome: BatchOutcome) -> None:
        self.summary, self.report = outcome.summary, outcome.report
        self.results, self._rules = outcome.results, outcome.rules
        self.finished.emit(outcome.summary, outcome.report)
        self.note.emit(outcome.note)


def _post(loop: asyncio.AbstractEventLoop, slot: Callable[..., object], *args: object) -> None:
    """Call `slot` on the UI thread (from a worker); nothing when the loop has closed."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(slot, *args)


def _prompt_at(results: Path, record: int) -> tuple[str, str | None]:
    """The whole prompt on line (row) `record` of a results file, and its date."""
    found = routescope.batch.result_at(results, record)
    if found is None:
        raise routescope.batch.ResultsError(f"{results}: no result at line {record}")
    if isinstance(found, routescope.batch.FailedRecord):
        return found.prompt, None
    return found.outcome.prompt, found.outcome.today


def _rules_of(results: Path, current: RulesRef) -> tuple[RulesRef | None, str]:
    """The rule pack the results were routed with, as far as the batch's state beside them
    says (it keeps the pack's digest): the current pack or the built-in one when it is one of
    them; else (None, a note that the prompts open with the current pack)."""
    state = routescope.batch.state_of(results)
    if state is None:
        return None, ""  # no state beside them (copied, or made elsewhere): nothing to tell
    digest = state.rules_digest
    builtin = routescope.RulesRef.builtin()
    for rules in (current, builtin):
        if digest == rules.digest:
            return rules, ""
    return None, (
        f"these results were routed with another rule pack ({str(digest)[:12]}…) than the "
        "current one: prompts open live with the current pack"
    )
