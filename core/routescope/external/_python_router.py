"""The `python` kind: `module:function` run in worker processes, so that a crash or a hang in
it cannot take the caller (the window, a batch) down.

Each worker is a spawned process that imports the function once (`_worker.serve`); a call
sends the prompt, today and the context over a pipe and waits at most `timeout_s`. A worker
that does not answer in time is killed (a `timeout` result), one that dies is a `crash`
result, and the next call starts a new one; the function raising is a `raised` result. Up to
`concurrency` workers run at once. The function returns a mapping read like an HTTP answer
(`route`, `score`, `scores`, `tools`, `flags`, `signals`, or the declaration's `answer`
paths), or just the route as text.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .._errors import RouterError, one_line
from ._answer import decide
from ._declare import PYTHON_ANSWER, AnswerMap, PythonSpec
from ._http_router import RAW_CHARS
from ._models import ErrorKind, ExternalDecision, ExternalFailure
from ._pace import Pace
from ._worker import serve

__all__ = ["STARTUP_S", "PythonRouter"]

STARTUP_S = 60.0
"""How long a worker may take to import the function (a first import can be slow)."""


class _Worker:
    """One spawned process and the parent's end of its pipe."""

    def __init__(self, function: str, path: str | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=serve, args=(child, function, path), name="routescope-router", daemon=True
        )
        self.process.start()
        child.close()

    def ready(self, timeout_s: float) -> str | None:
        """None once the function is imported; else why it cannot be."""
        if not self.connection.poll(timeout_s):
            self.stop()
            return f"the worker did not import it within {timeout_s:g} s"
        try:
            status, message = self.connection.recv()
        except (EOFError, OSError):
            self.stop()
            return f"the worker died while importing it (exit code {self.process.exitcode})"
        if status != "ready":
            self.stop()
            return str(message)
        return None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()


class PythonRouter:
    kind = "python"

    def __init__(self, name: str, spec: PythonSpec, folder: Path) -> None:
        self.name = name
        self.spec = spec
        self.answer: AnswerMap = spec.answer or PYTHON_ANSWER
        self._path = None if spec.path is None else str((folder / spec.path).resolve())
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(spec.concurrency)
        self._pace = Pace(spec.rate_per_s)
        self._closed = False
        first = self._start()  # a function that does not import is a declaration error
        self._idle.put(first)

    def __repr__(self) -> str:
        return f"PythonRouter({self.name!r}, {self.spec.function!r})"

    def _start(self) -> _Worker:
        worker = _Worker(self.spec.function, self._path)
        problem = worker.ready(STARTUP_S)
        if problem is not None:
            raise RouterError(
                one_line(
                    f"router {self.name!r}: cannot import {self.spec.function}: {problem}", 300
                )
            )
        with self._lock:
            self._all.append(worker)
        return worker

    def _take(self) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._start()

    def _drop(self, worker: _Worker) -> None:
        worker.stop()
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    # --- calling ---------------------------------------------------------------------------

    def route(
        self,
        prompt: str,
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ExternalDecision:
        with self._slots:
            wait = self._pace.reserve()
            if wait > 0:
                time.sleep(wait)
            return self._call(prompt, today, context)

    def route_many(
        self,
        prompts: Sequence[str],
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ExternalDecision]:
        with ThreadPoolExecutor(self.spec.concurrency) as pool:
            return list(pool.map(lambda p: self.route(p, today=today, context=context), prompts))

    def _call(
        self, prompt: str, today: dt.date | None, context: Mapping[str, Any] | None
    ) -> ExternalDecision:
        try:
            worker = self._take()
        except RouterError as exc:  # it imported once: a worker that no longer starts
            return self._failed("crash", str(exc), 0.0)
        started = time.perf_counter()
        day = (today or dt.date.today()).isoformat()
        try:
            worker.connection.send((prompt, day, dict(context or {})))
            answered = worker.connection.poll(self.spec.timeout_s)
            message = worker.connection.recv() if answered else None
        except (EOFError, OSError, BrokenPipeError):
            message, answered = None, True
        latency_ms = (time.perf_counter() - started) * 1000
        if message is None:
            self._drop(worker)
            if not answered:
                return self._failed(
                    "timeout",
                    f"no answer within {self.spec.timeout_s:g} s (worker stopped)",
                    latency_ms,
                )
            code = worker.process.exitcode
            return self._failed("crash", f"the worker process died (exit code {code})", latency_ms)
        self._idle.put(worker)
        status, payload = message
        if status != "ok":
            return self._failed("raised", one_line(payload, 300), latency_ms)
        return self._decision(payload, latency_ms)

    def _decision(self, payload: str, latency_ms: float) -> ExternalDecision:
        raw = payload[:RAW_CHARS]
        answer = json.loads(payload)
        if isinstance(answer, str):
            answer = {"route": answer}
        if not isinstance(answer, dict):
            why = "the function returned neither a mapping nor a route"
            return self._failed("garbage", why, latency_ms, raw)
        return decide(
            answer, self.answer, router=self.name, kind=self.kind, latency_ms=latency_ms, raw=raw
        )

    def _failed(
        self, kind: ErrorKind, detail: str, latency_ms: float, raw: str = ""
    ) -> ExternalDecision:
        failure = ExternalFailure(kind=kind, detail=detail)
        return ExternalDecision.failed(self.name, self.kind, failure, latency_ms, raw)

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.stop()
