"""Slow work on the current judged set under the request's pack (the Quality view's scores,
the Suggestions list's edits): one skeleton for both.

The work runs in a worker lane `delay_ms` after the pack or the set last changed, and only while
someone looks (`set_enabled`): what changed meanwhile is done when it is shown again. The same
set (counted by its changes) under the same pack (by its digest) is not worked on twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.judge import LabelledCase

__all__ = ["JudgedSetWork"]

_FIELDS = frozenset({"rules", "request"})
"""The request's fields the work depends on (each case has its own prompt, date and context)."""


class JudgedSetWork(QObject):
    """The skeleton: subclasses say what the work is (`_work`), what starting it says
    (`_started`) and how its result is told (`_finished`, `_failed`).

    Attributes:
        result: the latest result (None: the set is empty or nothing was done yet).
    """

    def __init__(
        self,
        request: Callable[[], Request],
        judged: Callable[[], tuple[str, list[LabelledCase]]],
        *,
        delay_ms: int,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's request (its pack is the one worked on); `judged` the
        current judged set's name and cases."""
        super().__init__(parent)
        self._request = request
        self._judged = judged
        self.result: Any = None
        self._enabled = False
        self._stale = True
        self._changes = 0
        """How many times the judged set changed (with the pack's digest: what was done)."""
        self._done_for: tuple[int, str] | None = None
        self._lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self._run)

    # -- what a subclass says ---------------------------------------------------------------
    def _work(self, name: str, cases: list[LabelledCase], rules: RulesRef) -> object:
        """The work of a worker thread."""
        raise NotImplementedError

    def _started(self, name: str, cases: list[LabelledCase]) -> None:
        raise NotImplementedError

    def _finished(self, result: Any) -> None:
        raise NotImplementedError

    def _failed(self, message: str) -> None:
        raise NotImplementedError

    # -- the skeleton -----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._timer.isActive() or self._lane.busy

    def follow(self, field: str) -> None:
        """The request's `field` changed: work again if the result depends on it."""
        if field in _FIELDS:
            self._soon()

    def set_changed(self, *_args: object) -> None:
        """The judged set changed: work again once it rests."""
        self._changes += 1
        self._soon()

    def _soon(self) -> None:
        self._stale = True
        self._lane.cancel()
        if self._enabled:
            self._timer.start()

    def set_enabled(self, enabled: bool) -> None:
        """Work while enabled (the view is shown); a change meanwhile is worked on when it is
        enabled again."""
        self._enabled = enabled
        if not enabled:
            self._timer.stop()
            if self._lane.busy:
                self._lane.cancel()
                self._stale = True
                self._done_for = None
        elif self._stale:
            self._timer.start()

    def run_now(self) -> None:
        """Work now (after the changes so far), even if the set and pack were worked on."""
        self._timer.stop()
        self._done_for = None
        self._run()

    def _run(self) -> None:
        self._stale = False
        rules = self._request().rules
        key = (self._changes, rules.digest)
        if key == self._done_for:
            return  # (another prompt opened live: the same pack, the same set)
        self._done_for = key
        name, cases = self._judged()
        self._started(name, cases)
        self._lane.submit(lambda: self._work(name, cases, rules), self._show, self._fail)

    def _show(self, result: object) -> None:
        self.result = result
        self._finished(result)

    def _fail(self, message: str) -> None:
        self._done_for = None
        self._failed(message)

    def close(self) -> None:
        self._timer.stop()
        self._lane.cancel()
