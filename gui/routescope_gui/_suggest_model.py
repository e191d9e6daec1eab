"""The suggestions model: pack edits the current judged set's errors suggest
(`routescope.judge.suggest`, what `routescope suggest --labels` prints for the set exported),
each measured on the set — on its held-out part too when it has one — and on the built-in
strategy suite (resources/fixtures/strategy.yaml), which an edit may never break.

Suggesting re-routes the set once per candidate edit: seconds on a large set. It runs in a
worker lane, `SUGGEST_DELAY_MS` after the pack or the set last changed, only while the list is
shown (`set_enabled`); a change while it runs makes its result stale and is suggested from
once it rests.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._judged_work import JudgedSetWork

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.judge import LabelledCase, Suggestion

__all__ = ["GUARD_SUITE", "SUGGEST_DELAY_MS", "Suggested", "SuggestionsModel", "suggest_for"]

SUGGEST_DELAY_MS = 600
"""Suggestions are made again once the pack and the set have not changed for this long."""
GUARD_SUITE = "strategy.yaml"
"""The built-in suite (resources/fixtures/) whose cases an edit may never break."""
LIMIT = 20


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


class SuggestionsModel(JudgedSetWork):
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
        super().__init__(request, judged, delay_ms=delay_ms, parent=parent)
        self.result: Suggested | None = None

    def refresh(self) -> None:
        """Suggest again now, even for the same pack and set."""
        self.run_now()

    def _work(self, name: str, cases: list[LabelledCase], rules: RulesRef) -> Suggested | None:
        return suggest_for(name, cases, rules)

    def _started(self, name: str, cases: list[LabelledCase]) -> None:
        self.suggesting.emit(name, len(cases))

    def _finished(self, result: Suggested | None) -> None:
        self.suggested.emit(result)

    def _failed(self, message: str) -> None:
        self.failed.emit(message)
