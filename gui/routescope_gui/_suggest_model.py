"""The suggestions model: pack edits the current judged set's errors suggest
(`routescope.judge.suggest`, what `routescope suggest --labels` prints for the set exported),
each measured on the set — on its held-out part too when it has one — and on the built-in
strategy suite (resources/fixtures/strategy.yaml), which an edit may never break.

Suggesting re-routes the set once per candidate edit: seconds on a large set. It runs in a
worker lane, `SUGGEST_DELAY_MS` after the pack or the set last changed, only while the list is
shown (`set_enabled`); a change while it runs is suggested from once it is done.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.judge import LabelledCase, Suggestion

__all__ = ["GUARD_SUITE", "SUGGEST_DELAY_MS", "Suggested", "SuggestionsModel", "suggest_for"]

SUGGEST_DELAY_MS = 600
"""Suggestions are made again once the pack and the set have not changed for this long."""
GUARD_SUITE = "strategy.yaml"
"""The built-in suite (resources/fixtures/) whose cases an edit may never break."""
LIMIT = 20
_FIELDS = frozenset({"rules", "request"})


@dataclass(frozen=True, slots=True)
class Suggested:
    """The edits suggested for a pack from a judged set.

    Attributes:
        set_name, pack: what they were made from and for; suggestions: best first (those that
        hold before those that do not); cases: the set's cases by id (the prompts an edit fixes
        and breaks); held_out: whether the set has a held-out part to measure on; seconds: how
        long it took.
    """

    set_name: str
    pack: str
    suggestions: tuple[Suggestion, ...]
    cases: dict[str, LabelledCase]
    held_out: bool
    seconds: float


@functools.cache
def _guard_cases() -> tuple[LabelledCase, ...]:
    """The guard suite's cases, read once (in the worker)."""
    from routescope.judge import read_labelled

    return tuple(read_labelled(str(routescope.resources_root() / "fixtures" / GUARD_SUITE)))


def suggest_for(
    set_name: str, cases: Sequence[LabelledCase], rules: RulesRef, limit: int = LIMIT
) -> Suggested | None:
    """The edits `cases` suggest for `rules` (None: no case); the work of a worker thread."""
    from routescope.judge import suggest

    if not cases:
        return None
    started = time.perf_counter()
    pack = rules.load()
    found = suggest(cases, pack, guards=_guard_cases(), limit=limit)
    return Suggested(
        set_name=set_name,
        pack=pack.name,
        suggestions=tuple(found),
        cases={case.id: case for case in cases},
        held_out=any(case.part not in (None, "tune") for case in cases),
        seconds=time.perf_counter() - started,
    )


class SuggestionsModel(QObject):
    """The suggestions for the request's pack from the current judged set.

    Attributes:
        result: the latest `Suggested` (None: the set is empty or nothing was suggested yet).

    Signals:
        suggesting: emitted with (set name, prompts) when suggesting starts.
        suggested: emitted with the `Suggested` (None: the set has no judged prompt).
        failed: emitted with a one-line reason.
    """

    suggesting = Signal(str, int)
    suggested = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        request: Callable[[], Request],
        judged: Callable[[], tuple[str, list[LabelledCase]]],
        *,
        delay_ms: int = SUGGEST_DELAY_MS,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's request (its pack is the one edited); `judged` the
        current judged set's name and cases."""
        super().__init__(parent)
        self._request = request
        self._judged = judged
        self.result: Suggested | None = None
        self._enabled = False
        self._changes = 0
        self._made_for: tuple[int, str] | None = None
        self._lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self._suggest)

    @property
    def busy(self) -> bool:
        return self._timer.isActive() or self._lane.busy

    def follow(self, field: str) -> None:
        """The request's `field` changed: suggest again if the pack did."""
        if field in _FIELDS:
            self._soon()

    def set_changed(self, *_args: object) -> None:
        """The judged set changed: suggest again once it rests."""
        self._changes += 1
        self._soon()

    def _soon(self) -> None:
        if self._enabled:
            self._timer.start()

    def set_enabled(self, enabled: bool) -> None:
        """Suggest while enabled (the list is shown); what changed meanwhile, when it is."""
        self._enabled = enabled
        if enabled:
            self._timer.start()
        else:
            self._timer.stop()

    def refresh(self) -> None:
        """Suggest again now, even for the same pack and set."""
        self._timer.stop()
        self._made_for = None
        self._suggest()

    def _suggest(self) -> None:
        rules = self._request().rules
        key = (self._changes, rules.digest)
        if key == self._made_for:
            return
        self._made_for = key
        name, cases = self._judged()
        self.suggesting.emit(name, len(cases))
        self._lane.submit(lambda: suggest_for(name, cases, rules), self._show, self._fail)

    def _show(self, suggested: Suggested | None) -> None:
        self.result = suggested
        self.suggested.emit(suggested)

    def _fail(self, message: str) -> None:
        self._made_for = None
        self.failed.emit(message)

    def close(self) -> None:
        self._timer.stop()
        self._lane.cancel()
