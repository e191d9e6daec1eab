"""The engines that turn partitions into chunks, in input order: `local` (this process, or a
`ProcessPoolExecutor` of N workers) and `dask` (Dask distributed: a `LocalCluster`, or a
scheduler's address). Both run the same `run_partition`, so their output is the same; each
keeps a bounded number of partitions in flight, so memory does not grow with the input."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import socket
import sys
from collections import deque
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .._errors import one_line
from ._common import BatchError, Chunk, Job, Partition
from ._lifeline import DRIVER_ENV
from ._work import init_pool_worker, prepare, run_partition, run_pool_partition

__all__ = [
    "CONNECT_TIMEOUT_S",
    "ENGINES",
    "WORKER_PRELOAD",
    "dask_chunks",
    "local_chunks",
    "local_cluster",
    "probe_scheduler",
    "require_dask",
]

ENGINES = ("local", "dask")
CONNECT_TIMEOUT_S = 20.0
"""How long to try reaching a Dask scheduler (a host that does not answer)."""
_TCP_SCHEMES = frozenset({"tcp", "tls", "ws", "wss"})
"""Dask's transports over TCP: their scheduler's port is probed before Dask tries it."""
Results = Generator[tuple[Partition, Chunk], None, None]


def _in_flight(workers: int) -> int:
    return 2 * workers + 1


def local_chunks(partitions: Iterable[Partition], job: Job, workers: int) -> Results:
    """One worker: this process. More: a process pool whose workers each build the engine
    once (`init_pool_worker`), started by a fork server on POSIX (spawn elsewhere)."""
    if workers == 1:
        for partition in partitions:
            yield partition, run_partition(partition, job)
        return
    method = "forkserver" if sys.platform != "win32" else "spawn"
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        preload = ["routescope.batch._die_with_driver", "routescope.batch._work"]
        context.set_forkserver_preload(preload)
        _start_forkserver()
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=init_pool_worker, initargs=(job,)
    )
    pending: deque[tuple[Partition, Future[Chunk]]] = deque()
    try:
        for partition in partitions:
            pending.append((partition, pool.submit(run_pool_partition, partition)))
            if len(pending) >= _in_flight(workers):
                yield _next(pending)
        while pending:
            yield _next(pending)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_forkserver() -> None:
    """Start the fork server (once per process) with the driver's id in its environment, so
    that it dies with the driver, and so do the workers it forks (`_die_with_driver`)."""
    from multiprocessing import forkserver

    before = os.environ.get(DRIVER_ENV)
    os.environ[DRIVER_ENV] = str(os.getpid())
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            del os.environ[DRIVER_ENV]
        else:
            os.environ[DRIVER_ENV] = before


def _next(pending: deque[tuple[Partition, Future[Chunk]]]) -> tuple[Partition, Chunk]:
    partition, future = pending.popleft()
    try:
        return partition, future.result()
    except BrokenProcessPool:
        raise BatchError(
            "a worker process died (out of memory, or killed); re-run to continue from what is done"
        ) from None


def require_dask() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise BatchError(
            "--engine dask needs dask and distributed (pip install 'routescope[batch]')"
        ) from None


def warm(job: Job) -> None:
    """Build this worker's engine now (run on every Dask worker before the first task)."""
    prepare(job)


WORKER_PRELOAD = "routescope.batch._die_with_driver"
"""What each worker of a local Dask cluster imports first: it dies with the driver."""


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """A Dask `LocalCluster` of `workers` processes (one thread each) whose workers die with
    this process, the driver, even when it is killed with SIGKILL: their nannies run here, so
    each worker is this process's child — spawned, the method set so while the cluster lives
    (a fork server in between would be their parent) — and imports `_die_with_driver` first
    (a worker preload, before any configured ones) with the driver's id in its environment."""
    import dask
    from distributed import LocalCluster

    configured = dask.config.get("distributed.worker.preload", default=None) or []
    preload = [WORKER_PRELOAD, *(name for name in configured if name != WORKER_PRELOAD)]
    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
        cluster = LocalCluster(  # type: ignore[no-untyped-call, unused-ignore]
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # a free port: no warning that 8787 is taken
            silence_logs=logging.ERROR,
            preload=preload,
            env={DRIVER_ENV: str(os.getpid())},
        )
        try:
            yield cluster
        finally:
            cluster.close()


def dask_chunks(
    partitions: Iterable[Partition], job: Job, workers: int, scheduler: str | None
) -> Results:
    """The partitions as Dask tasks: on a new `LocalCluster` of `workers` processes (that die
    with this one: `local_cluster`), or on the cluster whose scheduler is at `scheduler` (its
    workers need routescope installed and the inputs and catalog at the same paths)."""
    require_dask()
    if scheduler is not None:
        probe_scheduler(scheduler)
    with contextlib.ExitStack() as stack:
        client = _client(stack, workers, scheduler)
        yield from _dask_run(client, partitions, job)


def _client(stack: contextlib.ExitStack[Any], workers: int, scheduler: str | None) -> Any:
    """A Dask client of a new local cluster or of `scheduler`'s, closed (both) by `stack`."""
    from distributed import Client

    try:
        if scheduler is None:
            cluster = stack.enter_context(local_cluster(workers))
            client = Client(cluster)  # type: ignore[no-untyped-call, unused-ignore]
        else:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)  # type: ignore[no-untyped-call, unused-ignore]
    except (OSError, TimeoutError, ValueError) as exc:
        stack.close()
        where = "start a local Dask cluster" if scheduler is None else f"reach {scheduler}"
        raise BatchError(f"cannot {one_line(where, 200)}: {one_line(exc, 200)}") from None
    stack.callback(client.close)
    return client


def probe_scheduler(scheduler: str) -> None:
    """Connect once to the TCP port of a scheduler's address, so that what fails at once fails
    the batch at once (BatchError): a refused connection (nothing listens there), an unknown
    host, an unreachable network — Dask would retry them until `CONNECT_TIMEOUT_S` ran out. A
    host that does not answer still gets that long. Other addresses are left to Dask."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(scheduler, strict=False)
        host, port = parse_host_port(location)
    except ValueError:  # no port, or not an address: Dask says what is wrong with it
        return
    if scheme not in _TCP_SCHEMES or not host:
        return
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise BatchError(f"cannot reach {one_line(scheduler, 200)}: {_refusal(exc)}") from None


def _refusal(exc: OSError) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (no Dask scheduler listens there)"
    if isinstance(exc, TimeoutError):
        return f"no answer within {CONNECT_TIMEOUT_S:g} s"
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({one_line(exc.strerror or exc, 100)})"
    return one_line(exc.strerror or exc, 200)


def _dask_run(client: Any, partitions: Iterable[Partition], job: Job) -> Results:
    threads = sum(client.nthreads().values()) or 1
    try:
        client.run(warm, job)
        shared = client.scatter(job, broadcast=True, hash=False)
    except ModuleNotFoundError as exc:
        raise BatchError(
            f"a Dask worker cannot run the batch ({one_line(exc)}): install routescope on "
            "every worker"
        ) from None
    pending: deque[tuple[Partition, Any]] = deque()

    def take() -> tuple[Partition, Chunk]:
        partition, future = pending.popleft()
        try:
            chunk: Chunk = future.result()
        except ModuleNotFoundError as exc:
            raise BatchError(
                f"a Dask worker cannot run the batch ({one_line(exc)}): install routescope "
                "on every worker"
            ) from None
        future.release()
        return partition, chunk

    try:
        for partition in partitions:
            pending.append((partition, client.submit(run_partition, partition, shared, pure=False)))
            if len(pending) >= _in_flight(threads):
                yield take()
        while pending:
            yield take()
    finally:
        for _, future in pending:
            future.cancel()
