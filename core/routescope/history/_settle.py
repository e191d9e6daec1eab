"""What the history keeps of a prompt typed live: the prompt the analyst settled on, not each
pause on the way to it.

A window inspects the prompt at every keystroke. `Recorder` holds the latest inspection
(`offer`) until the prompt has rested `settle_s` (`settled`), or hands it over at once when the
analyst runs it, leaves the prompt, changes tabs or closes the window (`take`). Then `keep`
decides, from the latest entry it kept:

- **skip** a request equal to the latest one kept (same fingerprint): never the same row twice;
- **replace** the latest entry when the new request extends it — its text starts with the
  latest's (a prefix the analyst paused on), every other input equal (a catalog may have
  joined) — and it came within `merge_s` of it: the prefix's entry goes, unless it was
  already in the history before (it is a prompt of its own then) or pinned meanwhile;
- **add** it otherwise.

And when a catalog joins a prompt kept without one (the Tools tab was opened), the entry this
recorder made for it without the catalog goes (the same conditions): one row per prompt.

No wall clock is read here but through `clock` (tests drive it); nothing here needs Qt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .._inspect import Inspection
    from .._request import Request
    from ._rows import Entry
    from ._store import History

__all__ = ["MERGE_S", "SETTLE_S", "Kept", "Pending", "Recorder", "decide", "extends"]

SETTLE_S = 2.0
"""A prompt is settled once it has not changed for this long (seconds)."""
MERGE_S = 30.0
"""A settled prompt that extends the one kept less than this long before replaces its entry
(seconds, from the one's last change to the other's)."""

Decision = Literal["skip", "replace", "add"]


@dataclass(frozen=True, slots=True)
class Pending:
    """An inspection waiting for its prompt to settle: `since` is when the prompt last
    changed (the recorder's clock)."""

    request: Request
    inspection: Inspection
    since: float


@dataclass(frozen=True, slots=True)
class Kept:
    """The latest request kept: its entry, when its prompt last changed, and whether keeping
    it made the entry (only such an entry is ever replaced)."""

    request: Request
    entry: Entry
    since: float
    new: bool


def extends(request: Request, earlier: Request) -> bool:
    """Whether `request` carries on from `earlier`: its text starts with the earlier one's and
    its other inputs are the same (the catalog may have joined: the Tools tab was opened)."""
    return (
        request.text.startswith(earlier.text)
        and request.today == earlier.today
        and request.rules.digest == earlier.rules.digest
        and request.context == earlier.context
        and request.search == earlier.search
        and earlier.catalog in (None, request.catalog)
    )


def decide(request: Request, since: float, latest: Kept | None, merge_s: float) -> Decision:
    """What becomes of `request` (its prompt last changed at `since`) after `latest`."""
    if latest is None:
        return "add"
    if request.fingerprint() == latest.request.fingerprint():
        return "skip"
    recent = since - latest.since <= merge_s
    if recent and latest.new and extends(request, latest.request):
        return "replace"
    return "add"


class Recorder:
    """Which of a live prompt's inspections the history keeps (see the module's doc).

    `offer`, `settled`, `take` and `clear` are called from one thread (the window's); `keep`
    may run in a worker thread, one call at a time or not (it holds a lock).

    Attributes:
        latest: the latest request kept (None: none yet in this recorder's life).
    """

    def __init__(
        self,
        *,
        settle_s: float = SETTLE_S,
        merge_s: float = MERGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settle_s = settle_s
        self.merge_s = merge_s
        self._clock = clock
        self._pending: Pending | None = None
        self._lock = threading.Lock()
        self._made: dict[str, int] = {}
        """The entries keeping made, by their request's fingerprint."""
        self.latest: Kept | None = None

    # -- the prompt as it is typed ---------------------------------------------------------
    @property
    def pending(self) -> bool:
        return self._pending is not None

    def offer(self, request: Request, inspection: Inspection) -> None:
        """The prompt as it stands now was inspected: it waits to settle."""
        self._pending = Pending(request, inspection, self._clock())

    def clear(self) -> None:
        """Nothing waits any more (a blank prompt)."""
        self._pending = None

    def wait_s(self) -> float | None:
        """How long until the waiting prompt has settled (0: it has; None: none waits)."""
        pending = self._pending
        if pending is None:
            return None
        return max(0.0, pending.since + self.settle_s - self._clock())

    def settled(self) -> Pending | None:
        """The waiting inspection, handed over once its prompt has rested `settle_s`."""
        if self.wait_s() == 0.0:
            return self.take()
        return None

    def take(self) -> Pending | None:
        """The waiting inspection, now (the prompt was run, left, or the window closes)."""
        pending, self._pending = self._pending, None
        return pending

    # -- the history -----------------------------------------------------------------------
    def keep(self, history: History, pending: Pending) -> Entry | None:
        """Record `pending` in `history` as `decide` says: its entry (the latest one's when
        skipped), or None when the history keeps nothing (off, or the prompt too long)."""
        with self._lock:
            latest = self.latest
            decision = decide(pending.request, pending.since, latest, self.merge_s)
            if decision == "skip" and latest is not None:
                return latest.entry
            entry = history.record(pending.request, pending.inspection)
            if entry is None:
                return None
            request = pending.request
            if decision == "replace" and latest is not None:
                _retire(history, entry, latest.entry.id if latest.new else None)
            if request.catalog is not None:  # the same prompt kept before its catalog joined
                alone = request.replace(catalog=None).fingerprint()
                _retire(history, entry, self._made.pop(alone, None))
            new = entry.count == 1
            if new:
                self._made[request.fingerprint()] = entry.id
            self.latest = Kept(request, entry, pending.since, new=new)
            return entry


def _retire(history: History, kept: Entry, entry_id: int | None) -> None:
    """Delete the entry `kept` stands for now — if it still holds only that one record and
    is not pinned."""
    if entry_id is None or entry_id == kept.id:
        return
    before = history.get(entry_id)
    if before is not None and before.count == 1 and not before.pinned:
        history.delete(before.id)
