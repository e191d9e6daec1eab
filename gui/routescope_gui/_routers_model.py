"""The external routers model: a routers file (`routescope.external`), the routers of it the
analyst chose, and what each one decides about the prompt.

Each router has a worker lane of its own, so a slow router (an HTTP service that takes 500 ms)
never holds up a fast one, nor the typing: the latest prompt wins. While a router answers an
older prompt, a newer one waits (replacing any that waited before it), and the older prompts'
answers are dropped when they come. A failure — a timeout, a 5xx, garbage, a rate limit, a
router that cannot start — is that router's result for the prompt, never an exception.

Routers route only while someone looks at them (`set_enabled`: the External tab is shown), once
the prompt has rested for `ROUTE_DELAY_MS`, and each started router is kept in the file's
`RouterPool` (the compare view asks the same pool).
"""

from __future__ import annotations

import datetime as dt
import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

import routescope
from routescope.external import RouterPool

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request
    from routescope.external import ExternalDecision, Routers

__all__ = ["ROUTE_DELAY_MS", "Routed", "RoutersModel", "router_context"]

ROUTE_DELAY_MS = 120
"""The routers are asked once the prompt has not changed for this long (a request a
keystroke would spend a service's rate limit on prompts nobody reads)."""
_THREADS = 32
"""The most routers asking at once (each router asks one prompt at a time)."""
_FOLLOWED = frozenset({"text", "today", "context", "request"})
"""The request's fields an external router is given (the rule pack and catalog are not)."""


@dataclass(frozen=True, slots=True)
class Routed:
    """One router's decision about one prompt (on its date)."""

    text: str
    today: dt.date
    decision: ExternalDecision


def router_context(request: Request) -> dict[str, Any] | None:
    """The request's router context as an external router is given it (a JSON object)."""
    context = request.context
    return None if context is None else context.model_dump(mode="json", exclude_none=True)


class RoutersModel(QObject):
    """The routers file, the routers chosen, and their decisions about the prompt.

    Attributes:
        declared: the routers file's declaration (None: no file opened).
        pool: its routers, started on first use (None: no file opened).
        chosen: the names of the routers that route the prompt, in the file's order.
        results: each chosen router's latest decision (`Routed`), by name.
        problems: each chosen router that could not route the prompt: why, by name.

    Signals:
        opened: emitted with the `Routers` of a routers file once it is read.
        open_failed: emitted with a one-line reason when a routers file cannot be read.
        chosen_changed: emitted with the names of the routers chosen.
        routing: emitted with a router's name when it is asked about a newer prompt.
        decided: emitted with (name, `Routed`) when a router has decided about the prompt.
        failed: emitted with (name, a one-line reason) when a router cannot route (it cannot
            start); a router that answers with an error has `decided`.
        cleared: emitted when there is nothing to route (a blank prompt).
    """

    opened = Signal(object)
    open_failed = Signal(str)
    chosen_changed = Signal(object)
    routing = Signal(str)
    decided = Signal(str, object)
    failed = Signal(str, str)
    cleared = Signal()

    def __init__(self, request: Callable[[], Request], *, parent: QObject | None = None) -> None:
        """`request` gives the session's current request."""
        super().__init__(parent)
        self._request = request
        self.declared: Routers | None = None
        self.pool: RouterPool | None = None
        self.chosen: list[str] = []
        self.results: dict[str, Routed] = {}
        self.problems: dict[str, str] = {}
        self._enabled = False
        self._asked: dict[str, tuple[str, dt.date, Any]] = {}
        """What each router was last asked (its answer shown or on the way)."""
        self._lanes: dict[str, Lane] = {}
        self._file_lane = Lane()
        self._threads = ThreadPoolExecutor(_THREADS, thread_name_prefix="routescope-router")
        """The routers' own threads: a router that hangs until its timeout holds one of them,
        never one the window's other work needs."""
        self._timer = QTimer(self, singleShot=True, interval=ROUTE_DELAY_MS)
        self._timer.timeout.connect(self._route)

    @property
    def busy(self) -> bool:
        """Whether a file is read, or a router is due to be asked or answering."""
        lanes = (self._file_lane, *self._lanes.values())
        return self._timer.isActive() or any(lane.busy for lane in lanes)

    @property
    def path(self) -> Path | None:
        """The routers file opened (None: none)."""
        return None if self.declared is None else self.declared.path

    # -- the file and the routers chosen -----------------------------------------------------
    def open_file(self, path: str | Path, unticked: Sequence[str] = ()) -> None:
        """Read a routers file off the UI thread (`opened`, or `open_failed` with why); its
        routers route the prompt but those `unticked`. The routers of the file open before
        stop."""
        left_out = list(unticked)
        self._file_lane.submit(
            lambda: routescope.external.load_routers(Path(path).expanduser().resolve()),
            lambda declared: self._adopt(declared, left_out),
            self.open_failed.emit,
        )

    def _adopt(self, declared: Routers, unticked: list[str]) -> None:
        self._stop_pool()
        self.declared = declared
        self.pool = RouterPool(declared)
        self.results.clear()
        self.problems.clear()
        self._asked.clear()
        self.chosen = []
        self.opened.emit(declared)
        self.set_chosen([name for name in declared.names if name not in unticked])

    def unticked(self) -> list[str]:
        """The routers of the file that do not route the prompt."""
        declared = self.declared
        return [n for n in declared.names if n not in self.chosen] if declared else []

    def set_chosen(self, names: Sequence[str]) -> None:
        """Route the prompt with these routers of the file (others are left out)."""
        declared = self.declared
        known = declared.names if declared is not None else []
        chosen = [name for name in known if name in names]
        for name in set(self.chosen) - set(chosen):
            self.results.pop(name, None)
            self.problems.pop(name, None)
            self._asked.pop(name, None)
            lane = self._lanes.get(name)
            if lane is not None:
                lane.cancel()
        changed = chosen != self.chosen
        self.chosen = chosen
        if changed:
            self.chosen_changed.emit(list(chosen))
        self._soon()

    # -- routing -----------------------------------------------------------------------------
    def follow(self, field: str) -> None:
        """The request's `field` changed: ask the routers again once the prompt rests."""
        if field in _FOLLOWED:
            self._soon()

    def set_enabled(self, enabled: bool) -> None:
        """Route while enabled (someone looks at the routers' decisions)."""
        self._enabled = enabled
        if enabled:
            self._soon()
            return
        self._timer.stop()
        for name, lane in self._lanes.items():
            lane.cancel()
            self._asked.pop(name, None)  # what is shown may go stale: ask again when shown

    def refresh(self) -> None:
        """Ask every chosen router again (a service that was down may be up now)."""
        self._asked.clear()
        self._soon()

    def _soon(self) -> None:
        if self._enabled:
            self._timer.start()

    def _route(self) -> None:
        pool = self.pool
        if not self._enabled or pool is None:
            return
        request = self._request()
        text, today, context = request.text, request.today, router_context(request)
        if not text.strip():
            for lane in self._lanes.values():
                lane.cancel()
            self._asked.clear()
            self.results.clear()
            self.problems.clear()
            self.cleared.emit()
            return
        asked = (text, today, _frozen(context))
        for name in self.chosen:
            if self._asked.get(name) == asked:
                continue
            self._asked[name] = asked
            self.routing.emit(name)
            self._lane(name).submit(
                _asking(pool, name, text, today, context),
                functools.partial(self._decided, name),
                functools.partial(self._failed, name),
            )

    def _lane(self, name: str) -> Lane:
        lane = self._lanes.get(name)
        if lane is None:
            lane = self._lanes[name] = Lane(self._threads)
        return lane

    def _decided(self, name: str, routed: Routed) -> None:
        if name not in self.chosen:
            return
        self.problems.pop(name, None)
        self.results[name] = routed
        self.decided.emit(name, routed)

    def _failed(self, name: str, why: str) -> None:
        if name not in self.chosen:
            return
        self.results.pop(name, None)
        self.problems[name] = why
        self.failed.emit(name, why)

    # -- closing -----------------------------------------------------------------------------
    def _stop_pool(self) -> None:
        """The routers of the file open before stop, in a thread (a router still starting
        finishes first): answers still on their way are dropped."""
        for lane in self._lanes.values():
            lane.cancel()
        self._lanes = {}
        pool, self.pool = self.pool, None
        if pool is not None:
            threading.Thread(
                target=pool.close, name="routescope-routers-close", daemon=True
            ).start()

    def close(self) -> None:
        """Stop the routers (the window is closing)."""
        self._enabled = False
        self._timer.stop()
        self._file_lane.cancel()
        for lane in self._lanes.values():
            lane.cancel()
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()
        self._threads.shutdown(wait=False, cancel_futures=True)


def _asking(
    pool: RouterPool, name: str, text: str, today: dt.date, context: Mapping[str, Any] | None
) -> Callable[[], Routed]:
    """The work of asking one router about one prompt (in its lane's worker thread)."""

    def ask() -> Routed:
        router = pool.get(name)
        return Routed(text, today, router.route(text, today=today, context=context))

    return ask


def _frozen(value: Any) -> Any:
    """A JSON value as something hashable and comparable (a context, to see it changed)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value
