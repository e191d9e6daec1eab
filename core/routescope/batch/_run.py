"""`run_batch`: every prompt of a set of logs through every deterministic router, one record
a prompt in input order, resumable, on this machine or a Dask cluster."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shutil
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .._errors import one_line
from .._request import CatalogRef, RulesRef, default_today
from ._common import DEFAULT_BLOCK_BYTES, MAX_LINE_BYTES, BadLine, BatchError, Chunk, Job, Partition
from ._read import Column, InputFile, Position, csv_column, expand_inputs, plan_partitions
from ._state import OutPaths, Output, State, finish, open_output, out_paths

__all__ = [
    "CHECKPOINT_S",
    "DEFAULT_K",
    "BatchOptions",
    "BatchProgress",
    "BatchSummary",
    "ProgressHook",
    "run_batch",
]

CHECKPOINT_S = 0.5
"""How often (at most) what was written is committed to the state."""
DEFAULT_K = 5
MAX_WORKERS = 512
BAD_LINES_KEPT = 10
"""How many bad lines the summary lists (all of them are in the bad-lines file)."""

ProgressHook = Callable[[int, int], None]
"""Called after each chunk is written with the prompts and bad lines written so far."""


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """How far a running batch got: told to `on_progress` once it has planned its work, then
    after each chunk written. Counts are of the whole output (earlier runs included)."""

    prompts: int
    bad: int
    done_before: int
    """Prompts and bad lines an earlier, interrupted run had already written."""
    read: int
    """Input bytes done (compressed, for gzip), earlier runs included."""
    read_before: int
    """Input bytes an earlier run had done."""
    size: int
    """Input bytes in all."""
    seconds: float
    """Since this run started."""

    @property
    def share(self) -> float:
        """The share of the input done, 0 to 1."""
        return min(self.read / self.size, 1.0) if self.size else 1.0

    @property
    def rate(self) -> float:
        """Lines (prompts and bad) per second in this run."""
        new = self.prompts + self.bad - self.done_before
        return new / self.seconds if self.seconds > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        """At this run's pace so far (None until it has read something)."""
        read = self.read - self.read_before
        if read <= 0 or self.seconds <= 0:
            return None
        return max(self.size - self.read, 0) * self.seconds / read


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """What a batch did. Counts are of the whole output (earlier runs included)."""

    out: str
    bad_lines_file: str | None
    """Where the bad lines are (None when there are none)."""
    files: int
    prompts: int
    """Records in the output."""
    bad: int
    """Bad lines, each in the bad-lines file with its file, line and reason."""
    done_before: int
    """Prompts and bad lines an earlier, interrupted run had already written."""
    seconds: float
    rate: float
    """Lines (prompts and bad) per second in this run."""
    complete: bool
    already_complete: bool
    today: str
    engine: str
    workers: int
    first_bad: list[BadLine] = field(default_factory=list)
    """The first bad lines of this run (at most `BAD_LINES_KEPT`)."""
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How a batch routes and where it runs: what the command line, the window and the engines
    share (frozen: a run's options never change under it).

    `field`: a dotted path to the prompt in JSON records (a CSV column name); `today`: the date
    the routers see (default: the interrupted run's, else the local date); `rules`: a rule pack
    (default: built in); `catalog`: also rank this catalog's tools (top `k`, default 5);
    `engine` "dask" with `scheduler` (an address; default: a new `LocalCluster` of `workers`
    processes); `timings`: without them two runs give byte-identical files; `block_size`: input
    bytes per partition; `max_line_bytes`: a longer record is a bad line."""

    field: str | None = None
    workers: int = 1
    today: dt.date | None = None
    rules: RulesRef | str | Path | None = None
    catalog: str | Path | None = None
    k: int | None = None
    engine: Literal["local", "dask"] = "local"
    scheduler: str | None = None
    timings: bool = True
    block_size: int = DEFAULT_BLOCK_BYTES
    max_line_bytes: int = MAX_LINE_BYTES

    def check(self) -> None:
        """BatchError (one line) for options no batch can run with."""
        workers, engine = self.workers, self.engine
        if not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
            raise BatchError(f"workers must be a whole number from 1 to {MAX_WORKERS}")
        if engine not in ("local", "dask"):
            raise BatchError(f"unknown engine {one_line(engine)!r} (local or dask)")
        if self.scheduler is not None and engine != "dask":
            raise BatchError("a scheduler address goes with the dask engine (--engine dask)")
        if self.block_size < 4096:
            raise BatchError("the block size must be at least 4,096 bytes")
        if self.max_line_bytes < 1024:
            raise BatchError("the line limit must be at least 1,024 bytes")
        if self.k is not None and (self.catalog is None or self.k < 1):
            raise BatchError("k (how many tools) is at least 1, and goes with a catalog")


def run_batch(
    inputs: Sequence[str],
    out: str | Path,
    options: BatchOptions | None = None,
    *,
    progress: bool | None = None,
    on_chunk: ProgressHook | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> BatchSummary:
    """Route every prompt of `inputs` (paths or globs: JSONL, CSV or text, gzip too) into
    `out` (JSON lines, or Parquet when it ends in `.parquet`) with `options`. Re-running with
    the same `out` continues where an interrupted run stopped, or does nothing when it finished.

    `progress`: a progress bar on stderr (default: when stderr is a terminal); `on_progress`:
    told how far the batch got, once it has planned and after each chunk (a window's
    progress); `cancel`: once set, the batch stops after the chunk it is writing, keeps what it
    wrote and returns (`complete` False): re-running resumes. Bad input or options raise
    `BatchError` (one line)."""
    started = time.monotonic()
    options = options or BatchOptions()
    options.check()
    field, rules, catalog, k = options.field, options.rules, options.catalog, options.k
    timings, max_line_bytes = options.timings, options.max_line_bytes
    field_path = _field_path(field)
    rules_ref = rules if isinstance(rules, RulesRef) else _rules_ref(rules)
    catalog_ref, catalog_id, notes = _catalog(catalog)
    files = expand_inputs(inputs)
    paths = out_paths(out)
    if paths.parquet:
        from ._parquet import require_pyarrow

        require_pyarrow()
    if options.engine == "dask":
        from ._engines import require_dask

        require_dask()
    columns = {
        index: csv_column(file, field, max_line_bytes)
        for index, file in enumerate(files)
        if file.format in ("csv", "tsv")
    }
    kept = {
        "rules": rules_ref.digest,
        "field": field,
        "catalog": catalog_id,
        "k": (k or DEFAULT_K) if catalog is not None else None,
        "timings": timings,
        "parquet": paths.parquet,
        "max_line_bytes": max_line_bytes,
    }
    given_today = None if options.today is None else options.today.isoformat()
    output, state = open_output(paths, files, kept, given_today, default_today().isoformat())
    summary = _Summary(paths, state, len(files), options.engine, options.workers, notes, started)
    if output is None:
        return summary.build(already_complete=True)
    job = Job(
        today=dt.date.fromisoformat(state.today),
        rules=rules_ref,
        field=field_path,
        catalog=catalog_ref,
        k=k or DEFAULT_K,
        timings=timings,
        max_line_bytes=max_line_bytes,
    )
    hooks = _Hooks(progress, on_chunk, on_progress, cancel)
    try:
        finished = _drive(output, files, columns, job, summary, options, hooks)
    finally:
        output.close()
    if not finished:
        lines = state.prompts + state.bad
        summary.notes.append(f"cancelled after {lines:,} lines: run again to continue")
        return summary.build(already_complete=False)
    if paths.parquet:
        from ._parquet import write_parquet

        write_parquet(paths.journal, paths.out)
    finish(paths, state)
    return summary.build(already_complete=False)


def _field_path(field: str | None) -> tuple[str, ...] | None:
    if field is None:
        return None
    parts = tuple(field.split("."))
    if not field or any(not part for part in parts):
        raise BatchError(f"--field {one_line(field)!r}: a dotted path such as request.prompt")
    return parts


def _rules_ref(path: str | Path | None) -> RulesRef:
    return RulesRef.builtin() if path is None else RulesRef.from_path(path)


def _catalog(catalog: str | Path | None) -> tuple[CatalogRef | None, str | None, list[str]]:
    """The catalog (its absolute path and digest), its identity (tools and model) and what was
    skipped."""
    if catalog is None:
        return None, None, []
    from ..toolsearch import load_catalog

    loaded = load_catalog(Path(catalog).resolve())
    ref = CatalogRef.of(loaded)
    skipped, _ = loaded.skipped(10)
    notes = [f"catalog: skipped {one_line(problem, 200)}" for problem in skipped]
    return ref, f"{ref.digest}/{ref.model}", notes


@dataclass(frozen=True, slots=True)
class _Hooks:
    """Who hears of a batch's progress, and the event that cancels it."""

    bar: bool | None
    on_chunk: ProgressHook | None
    on_progress: Callable[[BatchProgress], None] | None
    cancel: threading.Event | None


class _Summary:
    """The running counts of a batch, and its summary at the end."""

    def __init__(
        self,
        paths: OutPaths,
        state: State,
        files: int,
        engine: str,
        workers: int,
        notes: list[str],
        started: float,
    ) -> None:
        self.paths, self.state, self.files = paths, state, files
        self.engine, self.workers, self.notes, self.started = engine, workers, notes, started
        self.done_before = state.prompts + state.bad
        self.first_bad: list[BadLine] = []

    def build(self, *, already_complete: bool) -> BatchSummary:
        seconds = time.monotonic() - self.started
        state = self.state
        new = state.prompts + state.bad - self.done_before
        return BatchSummary(
            out=str(self.paths.out),
            bad_lines_file=str(self.paths.bad) if state.bad else None,
            files=self.files,
            prompts=state.prompts,
            bad=state.bad,
            done_before=self.done_before,
            seconds=round(seconds, 3),
            rate=round(new / seconds, 1) if seconds > 0 else 0.0,
            complete=state.complete,
            already_complete=already_complete,
            today=state.today,
            engine=self.engine,
            workers=self.workers,
            first_bad=list(self.first_bad),
            notes=list(self.notes),
        )


def _drive(
    output: Output,
    files: list[InputFile],
    columns: dict[int, Column],
    job: Job,
    summary: _Summary,
    options: BatchOptions,
    hooks: _Hooks,
) -> bool:
    """Plan from where the state says, run the engine, and write its chunks in order. False:
    cancelled (what was written is committed)."""
    state = output.state
    start = state.position
    partitions = plan_partitions(files, columns, start, options.block_size, job.max_line_bytes)
    size, read = _input_bytes(files, start)
    read_before = read
    bar = _bar(hooks.bar, size, read, summary.done_before)

    def tell() -> None:
        if hooks.on_progress is not None:
            seconds = time.monotonic() - summary.started
            hooks.on_progress(
                BatchProgress(
                    state.prompts, state.bad, summary.done_before, read, read_before, size, seconds
                )
            )

    tell()
    if hooks.cancel is not None and hooks.cancel.is_set():
        return False
    chunks = _chunks(partitions, job, options)
    finished = False
    committed = time.monotonic()
    whole = True  # the state in memory matches the files: every chunk written whole
    try:
        for partition, chunk in chunks:
            base = _line_base(state.position, partition, columns)
            records, bad = _lines(partition, chunk, base, summary)
            whole = False
            output.append(records, bad)
            state.prompts += len(chunk.rests)
            state.bad += len(chunk.bad)
            state.position = Position(partition.file, partition.end, base + chunk.lines)
            whole = True
            if time.monotonic() - committed >= CHECKPOINT_S:
                output.commit()
                committed = time.monotonic()
            read += partition.progress
            if bar is not None:
                bar.step(partition.progress, state.prompts, state.bad)
            if hooks.on_chunk is not None:
                hooks.on_chunk(state.prompts, state.bad)
            tell()
            if hooks.cancel is not None and hooks.cancel.is_set():
                break
        else:
            state.position = Position(len(files), 0, 0)
            finished = True
    except BaseException:
        _stop(chunks, bar)
        if whole:  # keep what was written (a failed write is cut off on the next run)
            with contextlib.suppress(BatchError):
                output.commit()
        raise
    _stop(chunks, bar)
    output.commit()
    return finished


def _stop(chunks: Generator[tuple[Partition, Chunk], None, None], bar: _Bar | None) -> None:
    chunks.close()
    if bar is not None:
        bar.close()


def _chunks(
    partitions: Iterator[Partition], job: Job, options: BatchOptions
) -> Generator[tuple[Partition, Chunk], None, None]:
    from ._engines import dask_chunks, local_chunks

    engine, workers, scheduler = options.engine, options.workers, options.scheduler
    if job.catalog is not None and ((engine == "dask" and scheduler is None) or workers > 1):
        _warm_caches(job)
    if engine == "dask":
        return dask_chunks(partitions, job, workers, scheduler)
    return local_chunks(partitions, job, workers)


def _warm_caches(job: Job) -> None:
    """Build the catalog's index and vectors here once, so that workers on this machine read
    them from the cache rather than all building them at the same time."""
    from ._work import forget, prepare

    prepare(job)
    forget(job)


def _line_base(position: Position, partition: Partition, columns: dict[int, Column]) -> int:
    """Physical lines of the file before the partition."""
    column = columns.get(partition.file)
    data_start = column.data_start if column is not None else 0
    if partition.file == position.file and position.offset >= data_start:
        return position.line
    return column.header_lines if column is not None else 0


def _lines(partition: Partition, chunk: Chunk, base: int, summary: _Summary) -> tuple[bytes, bytes]:
    source = json.dumps(partition.source, ensure_ascii=False)
    prefix = '{"source":' + source + ',"line":'
    records = "".join(
        f"{prefix}{base + line},{rest}\n"
        for line, rest in zip(chunk.record_lines, chunk.rests, strict=True)
    )
    bad = []
    for line, reason, excerpt in chunk.bad:
        entry = {"source": partition.source, "line": base + line, "reason": reason}
        line_text = json.dumps(
            {**entry, "excerpt": excerpt}, ensure_ascii=False, separators=(",", ":")
        )
        bad.append(line_text + "\n")
        if len(summary.first_bad) < BAD_LINES_KEPT:
            summary.first_bad.append(BadLine(partition.source, base + line, reason, excerpt))
    return _utf8(records), _utf8("".join(bad))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class _Bar:
    """A tqdm progress bar over input bytes, with prompts, rate and bad lines beside it."""

    def __init__(self, total: int, initial: int, lines_before: int) -> None:
        from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

        self.started = time.monotonic()
        self.lines_before = lines_before
        size = shutil.get_terminal_size((100, 24))
        self.bar = tqdm(
            total=total,
            initial=initial,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            desc="routescope batch",
            file=sys.stderr,
            # a terminal that reports no size (0 × 0) still shows the bar
            ncols=size.columns,
            nrows=size.lines,
            mininterval=0.25,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}B/{total_fmt}B "
            "[{elapsed}<{remaining}{postfix}]",
        )

    def step(self, done: int, prompts: int, bad: int) -> None:
        elapsed = time.monotonic() - self.started
        rate = (prompts + bad - self.lines_before) / elapsed if elapsed > 0 else 0.0
        self.bar.set_postfix_str(f"{prompts:,} prompts, {rate:,.0f}/s, {bad:,} bad", refresh=False)
        self.bar.update(done)

    def close(self) -> None:
        self.bar.close()


def _input_bytes(files: list[InputFile], start: Position) -> tuple[int, int]:
    """The input's bytes in all, and those done before `start` (compressed, for gzip)."""
    total = sum(file.size for file in files)
    before = sum(file.size for file in files[: start.file])
    if start.file < len(files) and not files[start.file].gzip:
        before += min(start.offset, files[start.file].size)
    return total, before


def _bar(progress: bool | None, total: int, before: int, lines_before: int) -> _Bar | None:
    if progress is None:
        progress = sys.stderr is not None and sys.stderr.isatty()
    if not progress:
        return None
    try:
        import tqdm  # noqa: F401
    except ImportError:  # the bar is a comfort, not a reason to fail
        return None
    return _Bar(total, before, lines_before)
