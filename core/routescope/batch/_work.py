"""The worker side of a batch: each process (a pool worker, a Dask worker, or the driver with
one worker) parses the rule pack once and builds the tool-search engine once, then turns
partitions into chunks of records."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import one_line
from .._outcome import Outcome
from .._stages import run_stages
from ._common import BatchError, Chunk, Job, Partition, routers_digest
from ._lifeline import die_with_parent
from ._records import OVER_LONG, BadLineError, csv_delimiter, excerpt, iter_records, prompt_of

if TYPE_CHECKING:
    from ..rules import RulePack
    from ..toolsearch import SearchSettings, ToolSearch

__all__ = [
    "Worker",
    "forget",
    "init_pool_worker",
    "prepare",
    "run_partition",
    "run_pool_partition",
]


@dataclass(frozen=True, slots=True)
class Worker:
    """What a process keeps between partitions: the parsed pack and the tool-search engine."""

    rules: RulePack
    tools: ToolSearch | None
    settings: SearchSettings | None
    external: tuple[Any, ...] = ()
    """The external routers of the job, started in this process."""


_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
"""A record as one JSON line (one encoder: `json.dumps` with options builds one a call)."""
_LOCK = threading.Lock()
_WORKERS: dict[tuple[object, ...], Worker] = {}
_POOL_JOB: list[Job] = []


def prepare(job: Job) -> Worker:
    """This process's worker for `job`, built on first use (thread-safe: Dask may run tasks
    in threads of one process)."""
    key = _key(job)
    worker = _WORKERS.get(key)
    if worker is not None:
        return worker
    with _LOCK:
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _build(job)
            _WORKERS[key] = worker
    return worker


def _key(job: Job) -> tuple[object, ...]:
    return (
        job.rules.source,
        job.rules.digest,
        job.catalog,
        job.k,
        job.routers,
        job.routers_digest,
        job.router_names,
        job.share,
    )


def _build(job: Job) -> Worker:
    rules = job.rules.load()
    external = _external(job)
    if job.catalog is None:
        return Worker(rules, None, None, external)
    from ..toolsearch import Engines, SearchSettings

    # Checked against the digest the driver saw: a worker elsewhere reading another file at
    # the same path says so (CatalogError) rather than ranking other tools.
    engine = Engines.shared().get(job.catalog)
    settings = SearchSettings(k=job.k, explain=False)
    engine.search("warm up", settings)  # opens the index and reads (or builds) the vectors
    return Worker(rules, engine, settings, external)


def _external(job: Job) -> tuple[Any, ...]:
    """The job's external routers, each with its declared concurrency and rate shared out
    among the job's worker processes."""
    if job.routers is None:
        return ()
    from ..external import Routers, open_router, parse_routers

    path = Path(job.routers)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BatchError(
            f"{one_line(path)}: cannot read the routers file on {socket.gethostname()}: "
            f"{exc.strerror or exc} (every worker needs it at the same path)"
        ) from None
    if job.routers_digest is not None and routers_digest(data) != job.routers_digest:
        raise BatchError(
            f"{one_line(path)}: the routers file changed while the batch ran; re-run to "
            "continue from what is done"
        )
    declared: Routers = parse_routers(data.decode("utf-8"), path)  # as the driver read it
    shared = {}
    for name in job.router_names:
        spec = declared.spec(name)
        rate = None if spec.rate_per_s is None else spec.rate_per_s / job.share
        concurrency = max(1, spec.concurrency // job.share)
        shared[name] = spec.model_copy(update={"rate_per_s": rate, "concurrency": concurrency})
    scaled = type(declared)(declared.path, {**declared.specs, **shared})
    return tuple(open_router(scaled, name) for name in job.router_names)


def init_pool_worker(job: Job) -> None:
    """A pool worker's start: it dies with its parent, the fork server (which dies with the
    driver: `_die_with_driver`); Ctrl+C is the driver's to handle; the engine is built now."""
    server = sys.modules.get("routescope.batch._die_with_driver")  # imported by the fork server
    # Without it (a fork server other code started first) the parent is taken as it is now.
    die_with_parent(getattr(server, "STARTED_IN", None) or os.getppid())
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _POOL_JOB[:] = [job]
    prepare(job)


def run_pool_partition(partition: Partition) -> Chunk:
    """`run_partition` with the job the pool worker was started with."""
    return run_partition(partition, _POOL_JOB[0])


BLOCK = 512
"""Records read before their prompts are embedded together (`ToolSearch.prefetch`: sorted by
length, in model calls of 64, a prompt seen before not embedded again). Sorted among 512, the
calls pad little: 3.9 ms of model time a prompt against 4.7 ms in blocks of 64 (issue 28)."""
BLOCK_BYTES = 4 << 20
"""…or fewer records when they hold this many bytes (a block of long records stays small)."""
_AHEAD: list[ThreadPoolExecutor] = []
if hasattr(os, "register_at_fork"):  # a forked child has no thread: it starts its own
    os.register_at_fork(after_in_child=_AHEAD.clear)


def _ahead() -> ThreadPoolExecutor:
    """This process's one thread that embeds the next block while the one before is routed
    (the model runs outside the GIL: with a core to spare, routing costs no time of its own)."""
    with _LOCK:
        if not _AHEAD:
            _AHEAD.append(ThreadPoolExecutor(1, thread_name_prefix="routescope-embed"))
        return _AHEAD[0]


def run_partition(partition: Partition, job: Job) -> Chunk:
    """Read one partition, route each of its prompts and serialize each record; with a
    catalog, the prompts of each block of `BLOCK` records are embedded together, in a thread of
    their own while the block before is routed."""
    worker = prepare(job)
    chunk = Chunk(lines=partition.lines)
    pending: list[tuple[int, str, dict[str, Any]]] | None = [] if worker.external else None
    block: list[tuple[int, bytes, str | None]] = []
    held = [0]  # the bytes of the records in `block`

    def add(item: tuple[int, bytes, str | None]) -> None:
        block.append(item)
        held[0] += len(item[1])
        if len(block) >= BLOCK or held[0] >= BLOCK_BYTES:
            flush()

    waiting: list[tuple[list[tuple[int, bytes, str | None]], Future[int] | None]] = []

    def route() -> None:
        """Route the block read before (its prompts embedded by now)."""
        parsed, embedded = waiting.pop()
        if embedded is not None:
            embedded.result()
        for line, data, prompt in parsed:
            if prompt is not None:
                _one(chunk, worker, job, line, data, prompt, pending)
        chunk.bad.sort(key=lambda bad: bad[0])  # in line order, router errors among them

    def flush(last: bool = False) -> None:
        parsed = [(item[0], item[1], _parsed(chunk, job, partition, *item)) for item in block]
        block.clear()
        held[0] = 0
        prompts = [prompt for _, _, prompt in parsed if prompt is not None]
        tools = worker.tools
        embedded = None
        if tools is not None and prompts:
            embedded = _ahead().submit(tools.prefetch, prompts)
        if waiting:
            route()
        waiting.append((parsed, embedded))
        if last or embedded is None:
            route()

    if partition.items is not None:
        for item in partition.items:
            add(item)
        flush(last=True)
        _route_external(chunk, worker, job, pending)
        return chunk
    delimiter = csv_delimiter(partition.format)
    last = 0
    with _open(partition) as stream:
        stream.seek(partition.start)
        for first, lines, _, data, problem in iter_records(
            stream,
            delimiter=delimiter,
            limit=job.max_line_bytes,
            budget=partition.end - partition.start,
        ):
            add((first, data, problem))
            last = first + lines - 1
    flush(last=True)
    chunk.lines = last
    _route_external(chunk, worker, job, pending)
    return chunk


def _open(partition: Partition) -> Any:
    shown = one_line(partition.source)
    try:
        stream = open(partition.path, "rb")  # noqa: SIM115 (returned to a with)
    except OSError as exc:
        raise BatchError(
            f"{shown}: cannot read input on {socket.gethostname()}: {exc.strerror or exc} "
            "(every worker needs the inputs at the same path)"
        ) from None
    size = os.fstat(stream.fileno()).st_size
    if size != partition.size:
        stream.close()
        raise BatchError(
            f"{shown}: the file changed while the batch ran ({partition.size:,} bytes, now "
            f"{size:,}); re-run to continue from what is done"
        )
    return stream


def _parsed(
    chunk: Chunk, job: Job, partition: Partition, line: int, data: bytes, problem: str | None
) -> str | None:
    """A record's prompt, or None with its line counted bad."""
    if problem is not None:
        if problem == OVER_LONG:
            problem = f"over-long record (more than {job.max_line_bytes:,} bytes)"
        chunk.bad.append((line, problem, excerpt(data)))
        return None
    try:
        return prompt_of(
            data,
            partition.format,
            field=job.field,
            column=partition.column,
            first_of_file=partition.first_of_file and line == 1,
        )
    except BadLineError as exc:
        chunk.bad.append((line, str(exc), excerpt(data)))
        return None


def _one(
    chunk: Chunk,
    worker: Worker,
    job: Job,
    line: int,
    data: bytes,
    prompt: str,
    pending: list[tuple[int, str, dict[str, Any]]] | None = None,
) -> None:
    try:
        stages = run_stages(
            prompt, job.today, worker.rules, None, worker.tools, worker.settings, lean=True
        )
        record = Outcome.of(stages).to_record(timings=job.timings)
        if pending is not None:  # its external decisions come with the partition's
            pending.append((line, prompt, record))
            return
        text = _ENCODE(record)
    except Exception as exc:  # a router's bug must not end a run of a million prompts
        reason = f"router error: {type(exc).__name__}: {one_line(exc, 200)}"
        chunk.bad.append((line, reason, excerpt(data)))
        return
    _keep(chunk, line, text)


def _route_external(
    chunk: Chunk, worker: Worker, job: Job, pending: list[tuple[int, str, dict[str, Any]]] | None
) -> None:
    """The partition's prompts through each external router (at its declared concurrency and
    rate), each decision a `routers.NAME` field; then the records, in input order. A router
    that fails on a prompt is that prompt's result (`error`), never a bad line, and is counted
    in the chunk's `router_errors`."""
    if not pending:
        return
    prompts = [prompt for _, prompt, _ in pending]
    decided = [router.route_many(prompts, today=job.today) for router in worker.external]
    for router, decisions in zip(worker.external, decided, strict=True):
        for decision in decisions:
            if decision.error is not None:
                counts = chunk.router_errors.setdefault(router.name, {})
                counts[decision.error.label] = counts.get(decision.error.label, 0) + 1
    for index, (line, _, record) in enumerate(pending):
        fields = {}
        for router, decisions in zip(worker.external, decided, strict=True):
            kept = decisions[index].to_record()
            if not job.timings:
                kept["latency_ms"] = None
            fields[router.name] = kept
        record["routers"] = fields
        _keep(chunk, line, _ENCODE(record))


def _keep(chunk: Chunk, line: int, text: str) -> None:
    if "\u2028" in text or "\u2029" in text:  # line breaks to some JSON readers
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    chunk.record_lines.append(line)
    chunk.rests.append(text[1:])


def forget(job: Job) -> None:
    """Drop this process's worker for `job` (the driver warmed the caches with it)."""
    with _LOCK:
        worker = _WORKERS.pop(_key(job), None)
    for router in worker.external if worker is not None else ():
        router.close()
