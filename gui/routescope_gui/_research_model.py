"""The research model: deep research on the prompt, its attempts as they are graded, and the
reports of runs over the network.

A run goes through `routescope.research.run_research` in a worker thread, on an event loop of
its own (`_ResearchRun`), and reports each attempt as it is graded. With the offline backends
research is cheap and follows the prompt: a newer prompt cancels the run under way and a new
one starts once the prompt rests. With network providers a run starts when asked (`run`) and
is never cancelled by the prompt changing: it goes on for the prompt it started with, and
`stale` says that the prompt moved away from it; `cancel` (Esc) stops it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import report_crash

if TYPE_CHECKING:
    from routescope import Request
    from routescope.research import (
        Attempt,
        DeepResearchResult,
        KeyStore,
        OfflineSearch,
        ResearchSettings,
    )

__all__ = [
    "BY_YOU",
    "NEW_RUN",
    "PROMPT_CHANGED",
    "RESEARCH_DELAY_MS",
    "SETTINGS_CHANGED",
    "TAB_HIDDEN",
    "WINDOW_CLOSED",
    "ResearchModel",
    "SearchFactory",
]

RESEARCH_DELAY_MS = 300
"""Offline research starts once the prompt has not changed for this long (a run per keystroke
would waste the worker)."""
SearchFactory = Callable[[Path | None], "OfflineSearch"]
"""Makes the offline search backend for a cache folder (None: the user's cache folder)."""

# Why a run under way was cancelled (what `cancelled` says, after "research").
BY_YOU = "cancelled by you"
PROMPT_CHANGED = "cancelled: the prompt changed"
SETTINGS_CHANGED = "cancelled: the research settings changed"
TAB_HIDDEN = "cancelled: the Research tab was hidden"
NEW_RUN = "cancelled: a new run started"
WINDOW_CLOSED = "cancelled: the window closed"


class ResearchModel(QObject):
    """Deep research on the request's prompt.

    Attributes:
        result: the run shown last (None: none yet, or a blank prompt).
        settings: the backends (None: the offline defaults).

    Signals:
        started: emitted with the goal when a run starts.
        attempt: emitted with each `Attempt` of the run under way as it is graded.
        finished: emitted with the `DeepResearchResult` of the run (None: blank prompt).
        failed: emitted with a one-line reason when a run cannot start (the offline index
            cannot be opened or built, a provider without its key or URL) or its report cannot
            be saved.
        cancelled: emitted with why (`BY_YOU`, `PROMPT_CHANGED`, …) when a run under way was
            cancelled.
        saved: emitted with the path of a report written for a finished run.
        stale: emitted with the goal of the network run under way, or of the network result
            shown, when the prompt moved away from it; with "" when the prompt is that goal
            again, or nothing shown depends on it any more (offline research follows the
            prompt, so it is never stale).
    """

    started = Signal(str)
    attempt = Signal(object)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal(str)
    saved = Signal(str)
    stale = Signal(str)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        cache: Path | None = None,
        search: SearchFactory | None = None,
        keys: KeyStore | None = None,
        reports: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request; the offline research index is kept
        under `cache`/research (default: the user's cache folder), made by `search` (default:
        `OfflineSearch` over the machine's documentation); `keys` holds the providers' keys
        (default: the user's key file); reports of runs over the network are kept in `reports`
        (default: the user's data folder)."""
        super().__init__(parent)
        self._request = request
        self.result: DeepResearchResult | None = None
        self.settings: ResearchSettings | None = None
        self._keys = keys
        self._reports = reports
        self._enabled = False
        self._researched_for: str | None = None
        self._run: _ResearchRun | None = None
        self._stale = ""
        self._offline = _OnceSearch(
            search or _offline_search, cache / "research" if cache else None
        )
        self._timer = QTimer(self, singleShot=True, interval=RESEARCH_DELAY_MS)
        self._timer.timeout.connect(self._research)

    @property
    def live(self) -> bool:
        """Research follows the typing (offline backends) rather than running when asked."""
        return self.settings is None or self.settings.offline

    @property
    def busy(self) -> bool:
        """Whether a run is under way or due once the prompt rests."""
        return self._timer.isActive() or self._run is not None

    @property
    def running_goal(self) -> str | None:
        """The goal of the run under way (None: no run)."""
        return self._run.goal if self._run is not None else None

    def key_store(self) -> KeyStore:
        if self._keys is None:
            self._keys = routescope.research.KeyStore()
        return self._keys

    def set_settings(self, settings: ResearchSettings) -> None:
        """Use other backends; a run under way is cancelled, and offline backends research the
        prompt again."""
        self.settings = settings
        self._cancel(SETTINGS_CHANGED)
        self._researched_for = None
        if self.live:
            self._prompt_changed()
        self._update_stale()

    def set_grounding(self, mode: str) -> None:
        """The window's grounding toggle: `auto` (from the goal), `required` or `not_required`
        for the runs from now on (the settings' other fields stay); offline research runs
        again."""
        current = self.settings or routescope.research.ResearchSettings()
        if mode == current.grounding or mode not in routescope.research.GROUNDING_MODES:
            return
        self.set_settings(dataclasses.replace(current, grounding=mode))

    def set_enabled(self, enabled: bool) -> None:
        """Research the prompt while enabled (someone looks at the research). When disabled,
        an offline run under way is cancelled; a run over the network goes on (it was asked
        for, and it costs)."""
        self._enabled = enabled
        if enabled:
            if self.live:
                self._research()
            return
        self._timer.stop()
        if self._run is not None and self._run.settings.offline:
            self._cancel(TAB_HIDDEN)
            self._researched_for = None  # nothing was shown for it: run again when enabled

    def follow(self, field: str) -> None:
        """The request's `field` changed: research follows the prompt."""
        if field in ("text", "request"):
            self._prompt_changed()

    def run(self) -> None:
        """Research the prompt now (Ctrl+Enter), whichever the backends; again if it was."""
        self._researched_for = None
        self._research(asked=True)

    def cancel(self) -> None:
        """Stop the run under way (Esc); what was shown stays."""
        self._timer.stop()
        self._cancel(BY_YOU)

    def close(self) -> None:
        """Stop background research (the window is closing): a run under way is cancelled,
        and so is a build of the offline index's passage vectors (it starts again next time)."""
        self._timer.stop()
        self._enabled = False
        self._cancel(WINDOW_CLOSED)
        self._offline.close()

    def _prompt_changed(self) -> None:
        """A run over the network goes on for the prompt it started with (and is marked
        stale); an offline one is stale now, and a new one starts once the prompt rests."""
        run = self._run
        if self._enabled and (run is None or run.settings.offline):
            self._cancel(PROMPT_CHANGED)
            if self.live:
                self._timer.start()
        self._update_stale()

    def _cancel(self, reason: str, *, restarting: bool = False) -> None:
        run, self._run = self._run, None
        if run is not None:
            run.cancel()
            self._researched_for = None
            self.cancelled.emit(reason)
            if not restarting:  # (else the new run says what is stale)
                self._update_stale()

    def _research(self, *, asked: bool = False) -> None:
        """Research the prompt off the UI thread, unless it is shown already."""
        self._timer.stop()
        goal = self._request().text
        if not asked and (not self._enabled or not self.live):
            return
        if goal == self._researched_for:
            return
        self._cancel(NEW_RUN, restarting=True)
        self._researched_for = goal
        if not goal.strip():
            self._show(None)
            return
        settings = self.settings or routescope.research.ResearchSettings()
        keys = {} if settings.offline else self.key_store().keys()
        loop = asyncio.get_running_loop()
        run = _ResearchRun(goal, settings, keys, self._offline)
        run.on_attempt = lambda attempt: loop.call_soon_threadsafe(self._attempted, run, attempt)
        self._run = run
        self.started.emit(goal)
        self._update_stale()
        task = loop.create_task(self._await(run))
        task.add_done_callback(report_crash)

    def _attempted(self, run: _ResearchRun, attempt: Attempt) -> None:
        if run is self._run:
            self.attempt.emit(attempt)

    async def _await(self, run: _ResearchRun) -> None:
        error: str | None = None
        result: DeepResearchResult | None = None
        try:
            result = await asyncio.to_thread(run.execute)
        except _ResearchFailedError as exc:
            error = str(exc)
        if run is not self._run:  # cancelled, or superseded by a newer prompt
            return
        self._run = None
        if error is not None:
            self._researched_for = None
            self.failed.emit(error)
            self._update_stale()
        elif result is not None:
            self._show(result)
            if not run.settings.offline:  # a run over the network is kept: it cost something
                self.save_report()

    def _show(self, result: DeepResearchResult | None) -> None:
        self.result = result
        self.finished.emit(result)
        self._update_stale()

    def _update_stale(self) -> None:
        """Say whether the prompt moved away from the network run under way, or from the
        network result shown."""
        run = self._run
        goal: str | None = None
        if run is not None:
            goal = None if run.settings.offline else run.goal
        elif self.result is not None and not self.live:
            goal = self.result.goal
        stale = goal if goal is not None and goal != self._request().text else ""
        if stale != self._stale:
            self._stale = stale
            self.stale.emit(stale)

    def save_report(self, folder: Path | None = None) -> Path | None:
        """Write the shown run's report (report.md, report.json) into `folder` (default: a new
        folder under the reports folder, named by time and goal); its path, or None when there
        is nothing to save or it cannot be written (`failed` says why)."""
        result = self.result
        if result is None:
            return None
        research = routescope.research
        if folder is None:
            reports = self._reports or research.default_reports_folder()
            folder = reports / research.report_folder_name(result.goal)
        try:
            path = research.write_research_report(result, folder)
        except OSError as exc:
            self.failed.emit(f"cannot save the report in {folder}: {exc.strerror or exc}")
            return None
        self.saved.emit(str(path))
        return path


def _offline_search(cache: Path | None) -> OfflineSearch:
    search = routescope.research.OfflineSearch(cache=cache)
    search.wait_for_passages = False  # the first runs go on terms alone while they are built
    return search


class _OnceSearch:
    """The offline search backend, made once, on first use, in whichever worker needs it
    first (making it is cheap; its index is opened or built on its first search)."""

    def __init__(self, factory: SearchFactory, cache: Path | None) -> None:
        self._factory, self._cache = factory, cache
        self._lock = threading.Lock()
        self._search: OfflineSearch | None = None

    def get(self) -> OfflineSearch:
        with self._lock:
            if self._search is None:
                self._search = self._factory(self._cache)
            return self._search

    def close(self) -> None:
        """Stop the search's background work, if it was made (`OfflineSearch.close`)."""
        with self._lock:
            search = self._search
        if search is not None:
            search.close()


class _ResearchFailedError(Exception):
    """A research run could not start (one line)."""


class _ResearchRun:
    """One research run, in a worker thread on an event loop of its own: the offline index is
    opened (or built: seconds, the first time) when the settings use it, then `run_research`
    runs there. `cancel()`, from any thread, stops it at its next await; a cancelled run's
    result is None. `on_attempt` hears of each attempt, in the worker thread."""

    def __init__(
        self, goal: str, settings: ResearchSettings, keys: dict[str, str], search: _OnceSearch
    ) -> None:
        self.goal = goal
        self.settings = settings
        self.on_attempt: Callable[[Attempt], object] | None = None
        self._keys = keys
        self._search = search
        self._lock = threading.Lock()
        self._cancelled = False
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._task is not None:
                loop, task = self._task
                loop.call_soon_threadsafe(task.cancel)

    def execute(self) -> DeepResearchResult | None:
        """Run in a worker thread. Raises `_ResearchFailedError` when the run cannot start."""
        if self.settings.search == "offline":
            try:
                self._search.get().open()
            except routescope.OfflineIndexError as exc:
                raise _ResearchFailedError(str(exc)) from None
        if self._cancelled:
            return None
        with asyncio.Runner() as runner:
            try:
                return runner.run(self._research())
            except asyncio.CancelledError:
                return None
            except routescope.ResearchConfigError as exc:
                raise _ResearchFailedError(str(exc)) from None
            finally:
                with self._lock:
                    self._task = None

    async def _research(self) -> DeepResearchResult | None:
        task = asyncio.current_task()
        assert task is not None
        with self._lock:
            if self._cancelled:
                return None
            self._task = (asyncio.get_running_loop(), task)
        return await routescope.research.run_research(
            self.goal,
            self.settings,
            keys=self._keys,
            offline=self._search.get,
            on_attempt=self._attempted,
        )

    def _attempted(self, attempt: Attempt) -> None:
        if self.on_attempt is not None and not self._cancelled:
            self.on_attempt(attempt)
