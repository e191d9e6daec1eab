"""The inspection model: the request's `Inspection` (context, strategy, plan, lint, contract),
the step-through of the decision's plan, and its export to a file.

`inspect()` of an ordinary prompt takes about a millisecond, so it runs on the UI thread: at
once for the first change in a turn of the event loop, and once more at the end of the turn
when a burst of changes came in. A prompt longer than `BACKGROUND_CHARS`, and any prompt under
a pack whose flags the nearest labelled examples vote on (`[intents.examples]`: an embedding,
about 5 ms, the model's load the first time), is inspected in a worker thread instead.
Exports are written in a worker thread too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.contract import CallResult, PlanProgress
    from routescope.toolsearch import Engines

__all__ = ["BACKGROUND_CHARS", "NOTHING_INSPECTED", "InspectionModel"]

BACKGROUND_CHARS = 20_000
"""Prompts longer than this are inspected off the UI thread."""
_FIELDS = frozenset({"text", "today", "rules", "context", "request"})
"""The request's fields an inspection depends on ("request": all of them at once)."""
NOTHING_INSPECTED = "Nothing inspected yet: type a prompt first."


class InspectionModel(QObject):
    """The latest inspection of the request and the plan's step-through.

    Attributes:
        result: the latest `Inspection` of the request (None: blank prompt or an error).
        plan_results: the steps of the decision's plan run so far (the step-through).

    Signals:
        inspected: emitted with the `Inspection` of the current request, or None when the
            prompt is blank.
        failed: emitted with a one-line reason when the request cannot be inspected.
        plan_stepped: emitted when the step-through of the plan moved.
        exported: emitted with a status line once an export is written.
        export_failed: emitted with a one-line reason when an export cannot be written.
    """

    inspected = Signal(object)
    failed = Signal(str)
    plan_stepped = Signal()
    exported = Signal(str)
    export_failed = Signal(str)

    def __init__(
        self,
        request: Callable[[], Request],
        parent: QObject | None = None,
        *,
        engines: Engines | None = None,
    ) -> None:
        """`request` gives the session's current request; `engines` the session's tool search
        engines (an export ranks the catalog's tools, as `inspect --json` does: with the
        engine the Tools tab loaded, else one built then; default: the process's shared)."""
        super().__init__(parent)
        self._request = request
        self._engines = engines
        self.result: Inspection | None = None
        self.plan_results: list[CallResult] = []
        self._lane = Lane()
        self._export_lane = Lane()
        # Active from an inspection until the event loop comes round: changes meanwhile wait.
        self._turn = QTimer(self, singleShot=True, interval=0)
        self._turn.timeout.connect(self._end_turn)
        self._pending = False

    @property
    def busy(self) -> bool:
        """Whether an inspection is under way or due at the end of this turn."""
        return self._turn.isActive() or self._lane.busy or self._export_lane.busy

    def follow(self, field: str) -> None:
        """The request's `field` changed: inspect it again if the inspection depends on it."""
        if field in _FIELDS:
            self._inspect_soon()

    def _inspect_soon(self) -> None:
        request = self._request()
        if len(request.text) > BACKGROUND_CHARS or _embeds(request):
            self._pending = False
            self._lane.submit(lambda: routescope.inspect(request), self._show, self._fail)
            return
        self._lane.cancel()  # a large prompt still in the works is stale now
        if self._turn.isActive():
            self._pending = True
            return
        self._turn.start()
        if not request.text.strip():
            self._show(None)
            return
        try:
            inspection = routescope.inspect(request)
        except routescope.RoutescopeError as exc:
            self._fail(str(exc))
            return
        self._show(inspection)

    def _end_turn(self) -> None:
        if self._pending:
            self._pending = False
            self._inspect_soon()

    def _show(self, inspection: Inspection | None) -> None:
        self.result = inspection
        self.plan_results = []
        self.inspected.emit(inspection)

    def _fail(self, message: str) -> None:
        self.result = None
        self.plan_results = []
        self.failed.emit(message)

    # -- the plan's step-through -------------------------------------------------------------
    def plan_progress(self) -> PlanProgress | None:
        """What the decision's plan does next after the steps run so far (None: no decision)."""
        decision = self.result.decision if self.result else None
        if decision is None:
            return None
        return routescope.contract.prepare_step(
            decision, self.plan_results, rules=self._request().rules.load()
        )

    def step_plan(self) -> None:
        """Run the plan's next step, as if it succeeded."""
        step = self.plan_progress()
        if step is None or step.next is None:
            return
        result = routescope.contract.CallResult(tool=step.next.tool, args=step.next.args)
        self.plan_results.append(result)
        self.plan_stepped.emit()

    def reset_plan(self) -> None:
        self.plan_results = []
        self.plan_stepped.emit()

    # -- export ------------------------------------------------------------------------------
    def export(self, path: str | Path, kind: Literal["json", "md"]) -> None:
        """Write the request's inspection to `path` as JSON ("json": exactly what `routescope
        inspect --json` prints for it — `routescope.inspect_all`, the ranking of its catalog's
        tools included, the sample catalog's when the Tools tab never opened one) or Markdown
        ("md", the same inspection), off the UI thread, atomically."""
        if self.result is None:
            self.export_failed.emit(NOTHING_INSPECTED)
            return
        request, engines = self._request(), self._engines

        def work() -> Path:
            ran, inspection = routescope.inspect_all(request, engines=engines)
            return routescope.history.export_inspection(path, inspection, kind, ran)

        self._export_lane.submit(
            work,
            lambda _path: self.exported.emit(f"inspection exported to {path}"),
            self.export_failed.emit,
        )


def _embeds(request: Request) -> bool:
    """Whether inspecting under the request's pack embeds the prompt (its example votes)."""
    try:
        return request.rules.load().intents.examples is not None
    except routescope.RoutescopeError:
        return False  # the inspection itself reports the pack's error
