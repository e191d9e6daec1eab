"""The compare view's routers model: two routers side by side — external routers of the
routers file, or one against a built-in decision — on the compared prompts (the live prompt,
and B's while B is another prompt), and over a suite or labelled set (`routescope.compare`'s
`said_by` and `agreement_over`).

Everything runs in worker lanes, once the prompts rest, only while someone looks; the
external routers come from the routers file's pool (started once, shared with the External
panel).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

import routescope
from routescope.compare import (
    BUILTIN_ROUTERS,
    CaseRow,
    Pick,
    PromptAgreement,
    SuiteAgreement,
    agreement_over,
    said_by,
)

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request
    from routescope.external import RouterPool, Routers

__all__ = ["COMPARE_DELAY_MS", "RouterCompareModel"]

COMPARE_DELAY_MS = 250
"""The routers are compared once the prompts have not changed for this long."""


@dataclass(frozen=True, slots=True)
class _Job:
    a: Pick
    b: Pick
    prompts: tuple[tuple[str, str], ...]
    today: dt.date
    rules: Any
    context: Any


class RouterCompareModel(QObject):
    """Two routers, compared on the prompts and over a set.

    Attributes:
        a, b: the routers compared (`Pick`).
        result: the prompts' comparison shown last; suite_result: the latest set's.

    Signals:
        choices_changed: emitted with the routers one can pick (`Pick`s) when they change.
        compared: emitted with the `PromptAgreement`s of the prompts (empty: no prompt).
        failed: emitted with a one-line reason when the prompts cannot be compared.
        suite_started: emitted with a set's file name when it starts.
        suite_compared: emitted with the `SuiteAgreement` of a set.
        suite_failed: emitted with a one-line reason when a set cannot be run.
        case_opened: emitted with a case's `Request` to open it live.
    """

    choices_changed = Signal(object)
    compared = Signal(object)
    failed = Signal(str)
    suite_started = Signal(str)
    suite_compared = Signal(object)
    suite_failed = Signal(str)
    case_opened = Signal(object)

    def __init__(
        self,
        request: Callable[[], Request],
        routers: Callable[[], tuple[Routers | None, RouterPool | None]],
        text_b: Callable[[], str | None],
        *,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the live request (A's prompt); `routers` the routers file's
        declaration and its pool (None, None: no file); `text_b` B's prompt when B is another
        prompt (None otherwise)."""
        super().__init__(parent)
        self._request = request
        self._routers = routers
        self._text_b = text_b
        self.a = Pick("builtin", "strategy")
        self.b = Pick("builtin", "task_route")
        self.result: list[PromptAgreement] = []
        self.suite_result: SuiteAgreement | None = None
        self._enabled = False
        self._done_for: _Job | None = None
        self._lane = Lane()
        self._suite_lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=COMPARE_DELAY_MS)
        self._timer.timeout.connect(self._compare)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or self._lane.busy or self._suite_lane.busy

    def choices(self) -> list[Pick]:
        """The built-in decisions, then the routers of the file."""
        picks = [Pick("builtin", name) for name, _label in BUILTIN_ROUTERS]
        declared, _pool = self._routers()
        names = declared.names if declared is not None else []
        return picks + [Pick("external", name) for name in names]

    def routers_opened(self, *_declared: object) -> None:
        """Another routers file is open: its routers can be picked (B: the first of them)."""
        choices = self.choices()
        externals = [pick for pick in choices if pick.kind == "external"]
        if self.b not in choices or (self.b.kind == "builtin" and externals):
            self.b = externals[0] if externals else Pick("builtin", "task_route")
        if self.a not in choices:
            self.a = Pick("builtin", "strategy")
        self.choices_changed.emit(choices)
        self._done_for = None
        self._soon()

    def set_picks(self, a: str, b: str) -> None:
        """Compare the routers of these keys (`Pick.key`)."""
        self.a, self.b = Pick.of(a), Pick.of(b)
        self._soon()

    def follow(self, field: str) -> None:
        del field
        self._soon()

    def set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled
        if enabled:
            self._soon()
            return
        self._timer.stop()
        self._lane.cancel()
        self._done_for = None

    def _soon(self) -> None:
        if self._enabled:
            self._lane.cancel()
            self._timer.start()

    def _job(self) -> _Job:
        request = self._request()
        prompts = [("A", request.text)]
        text_b = self._text_b()
        if text_b is not None and text_b.strip():
            prompts.append(("B", text_b))
        prompts = [(label, text) for label, text in prompts if text.strip()]
        return _Job(self.a, self.b, tuple(prompts), request.today, request.rules, request.context)

    def _compare(self) -> None:
        job = self._job()
        if not self._enabled or job == self._done_for:
            return
        self._done_for = job
        if not job.prompts:
            self._lane.cancel()
            self._show([])
            return
        _declared, pool = self._routers()
        self._lane.submit(lambda: _run(job, pool), self._show, self._fail)

    def _show(self, result: list[PromptAgreement]) -> None:
        self.result = result
        self.compared.emit(result)

    def _fail(self, message: str) -> None:
        self._done_for = None
        self.failed.emit(message)

    # -- a set -------------------------------------------------------------------------------
    def run_suite(self, path: str | Path) -> None:
        """Both routers over every case of a suite or labelled set, off the UI thread."""
        a, b, (_declared, pool) = self.a, self.b, self._routers()
        rules = self._request().rules
        self.suite_started.emit(Path(path).name)

        def run() -> SuiteAgreement:
            return agreement_over(path, a, b, rules.load(), pool)

        def done(result: SuiteAgreement) -> None:
            self.suite_result = result
            self.suite_compared.emit(result)

        self._suite_lane.submit(run, done, self.suite_failed.emit)

    def open_case(self, row: CaseRow) -> None:
        """A case of the set in the live view (its date and context hold until the prompt is
        edited)."""
        request = self._request()
        try:
            case = routescope.Request.build(
                row.prompt, today=row.today, rules=request.rules, context=row.context
            )
        except routescope.RoutescopeError as exc:
            self.suite_failed.emit(str(exc))
            return
        self.case_opened.emit(case.replace(search=request.search, catalog=request.catalog))

    def close(self) -> None:
        self._enabled = False
        self._timer.stop()
        self._lane.cancel()
        self._suite_lane.cancel()


def _run(job: _Job, pool: RouterPool | None) -> list[PromptAgreement]:
    """In the worker: both routers on each prompt."""
    pack = job.rules.load()
    return [
        PromptAgreement(
            label,
            text,
            said_by(job.a, text, job.today, pack, job.context, pool),
            said_by(job.b, text, job.today, pack, job.context, pool),
        )
        for label, text in job.prompts
    ]
