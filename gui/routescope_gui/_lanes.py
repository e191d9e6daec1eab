"""Worker lanes: how the models run slow work off the UI thread.

A `Lane` runs one kind of work (loading an engine, ranking, a regression batch, …) in a worker
thread from the asyncio loop (qasync) and delivers the result on the UI thread, unless a newer
job has made it stale. Every model owns the lanes of its own work.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, TypeVar

import routescope

__all__ = ["Lane", "report_crash", "take_for"]

_T = TypeVar("_T")


@dataclass(slots=True)
class _Job:
    generation: int
    work: Callable[[], Any]
    deliver: Callable[[Any], None]
    fail: Callable[[str], None]


class Lane:
    """One kind of slow work, run in a worker thread from the asyncio loop.

    One job runs at a time; a job submitted meanwhile waits, replacing any job already
    waiting. A job's result (or its `RoutescopeError`, as a message) is delivered on the UI
    thread only if no job was submitted, and the lane was not cancelled, after it.
    """

    def __init__(self, executor: Executor | None = None) -> None:
        """`executor` runs the work (default: the loop's own threads, which every lane shares:
        work that may block for long — an external router's call — brings threads of its
        own)."""
        self._executor = executor
        self._generation = 0
        self._waiting: _Job | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def submit(
        self, work: Callable[[], _T], deliver: Callable[[_T], None], fail: Callable[[str], None]
    ) -> None:
        self._generation += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            # No loop runs any more (the window is closing and flushes, e.g. the last history
            # entry): do the work now; nothing is left on screen to deliver to.
            self._waiting = None
            with contextlib.suppress(routescope.RoutescopeError):
                work()
            return
        self._waiting = _Job(self._generation, work, deliver, fail)
        if not self.busy:
            self._task = loop.create_task(self._drain())
            self._task.add_done_callback(report_crash)

    def cancel(self) -> None:
        """Make the running job's result stale and drop the waiting one."""
        self._generation += 1
        self._waiting = None

    async def _drain(self) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # qasync stepped the task while the window's loop shuts down (a debounced job
            # submitted just before): nobody is left to deliver to.
            return
        while (job := self._waiting) is not None:
            self._waiting = None
            try:
                if self._executor is None:
                    result = await asyncio.to_thread(job.work)
                else:
                    loop = asyncio.get_running_loop()
                    result = await loop.run_in_executor(self._executor, job.work)
            except routescope.RoutescopeError as exc:
                if job.generation == self._generation:
                    job.fail(str(exc))
                continue
            if job.generation == self._generation:
                job.deliver(result)


def report_crash(task: asyncio.Task[Any]) -> None:
    """A bug in background work reaches `sys.excepthook` (pytest-qt fails the test with it)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        sys.excepthook(type(error), error, error.__traceback__)


def take_for(items: Iterator[_T], seconds: float) -> list[_T]:
    """The next items of `items`, as many as are made within about `seconds` (at least one)."""
    deadline = time.perf_counter() + seconds
    batch: list[_T] = []
    for item in items:
        batch.append(item)
        if time.perf_counter() >= deadline:
            break
    return batch
