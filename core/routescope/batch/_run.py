"""`run_batch`: every prompt of a set of logs through every deterministic router, one record
a prompt in input order, resumable, on this machine or a Dask cluster."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._errors import one_line
from .._request import CatalogRef, RulesRef, default_today
from ._common import BadLine, BatchError, Chunk, Job, Partition, routers_digest
from ._options import DEFAULT_K, BatchOptions
from ._progress import (
    BAD_LINES_KEPT,
    BatchProgress,
    BatchSummary,
    ProgressBar,
    ProgressHook,
    Summary,
    progress_bar,
)
from ._quality import LabelsFile, batch_quality
from ._read import Column, InputFile, Position, csv_column, expand_inputs, plan_partitions
from ._state import Output, finish, open_output, out_paths, record_labels

__all__ = ["BAD_LINES_WRITTEN", "BAD_REASONS_COUNTED", "CHECKPOINT_S", "run_batch"]

CHECKPOINT_S = 0.5
"""How often (at most) what was written is committed to the state."""
BAD_LINES_WRITTEN = 10_000
"""The bad-lines file holds the first this many bad lines of a batch in full; the rest are
only counted by reason (in the state and the summary's `bad_not_listed`): a log of nothing
but bad lines cannot fill the disk."""
BAD_REASONS_COUNTED = 100
"""Distinct reasons counted past the cap; further ones are counted as `other`."""
_OTHER = "other"


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
    wrote and returns (`complete` False): re-running resumes. `options.labels`: the complete
    batch's summary scores the results against them (`quality`). Bad input or options raise
    `BatchError` (one line); a bad labelled set, `LabelsError`, before anything is written."""
    started = time.monotonic()
    options = options or BatchOptions()
    options.check()
    field, rules, catalog, k = options.field, options.rules, options.catalog, options.k
    timings, max_line_bytes = options.timings, options.max_line_bytes
    field_path = _field_path(field)
    rules_ref = rules if isinstance(rules, RulesRef) else RulesRef.given(rules)
    catalog_ref, catalog_id, notes = _catalog(catalog)
    labels = None if options.labels is None else LabelsFile.read(options.labels)
    routers_file, routers_id = _routers(options)
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
    kept: dict[str, object] = {
        "rules": rules_ref.digest,
        "field": field,
        "catalog": catalog_id,
        "k": (k or DEFAULT_K) if catalog is not None else None,
        "timings": timings,
        "parquet": paths.parquet,
        "max_line_bytes": max_line_bytes,
    }
    if routers_id is not None:  # (absent without routers: older states stay compatible)
        kept["routers"] = routers_id
    given_today = None if options.today is None else options.today.isoformat()
    output, state = open_output(paths, files, kept, given_today, default_today().isoformat())
    summary = Summary(paths, state, len(files), options.engine, options.workers, notes, started)
    summary.routers = options.router_names
    if output is None:
        if labels is not None:
            if state.labels != labels.record():
                record_labels(paths, state, labels.record())
            return summary.build(already_complete=True, quality=batch_quality(paths.out, labels))
        return summary.build(already_complete=True)
    if labels is not None:
        state.labels = labels.record()  # committed with the records
    job = Job(
        today=dt.date.fromisoformat(state.today),
        rules=rules_ref,
        field=field_path,
        catalog=catalog_ref,
        k=k or DEFAULT_K,
        timings=timings,
        max_line_bytes=max_line_bytes,
        routers=routers_file,
        routers_digest=None if routers_id is None else str(routers_id["digest"]),
        router_names=options.router_names,
        share=options.workers,
    )
    hooks = _Hooks(progress, on_chunk, on_progress, cancel)
    try:
        finished = _drive(output, files, columns, job, summary, options, hooks)
    finally:
        output.close()
        if job.routers is not None:  # routers this process started (one worker): stop them
            from ._work import forget

            forget(job)
    if not finished:
        lines = state.prompts + state.bad
        summary.notes.append(f"cancelled after {lines:,} lines: run again to continue")
        if labels is not None:
            summary.notes.append("labels: the results are scored when the batch is complete")
        return summary.build(already_complete=False)
    if paths.parquet:
        from ._parquet import write_parquet

        write_parquet(paths.journal, paths.out, routers=options.router_names)
    finish(paths, state)
    quality = None if labels is None else batch_quality(paths.out, labels)
    return summary.build(already_complete=False, quality=quality)


def _routers(options: BatchOptions) -> tuple[str | None, dict[str, object] | None]:
    """The routers file (absolute) and what a resumed batch must find the same: the file's
    digest and the names routed (RouterError now, before anything is written, for a file
    that does not read or a name it does not declare)."""
    if options.routers is None:
        return None, None
    from ..external import load_routers

    declared = load_routers(options.routers)
    for name in options.router_names:
        declared.spec(name)
    digest = routers_digest(declared.path.read_bytes())
    return str(declared.path.resolve()), {"digest": digest, "names": list(options.router_names)}


def _field_path(field: str | None) -> tuple[str, ...] | None:
    if field is None:
        return None
    parts = tuple(field.split("."))
    if not field or any(not part for part in parts):
        raise BatchError(f"--field {one_line(field)!r}: a dotted path such as request.prompt")
    return parts


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


def _drive(
    output: Output,
    files: list[InputFile],
    columns: dict[int, Column],
    job: Job,
    summary: Summary,
    options: BatchOptions,
    hooks: _Hooks,
) -> bool:
    """Plan from where the state says, run the engine, and write its chunks in order. False:
    cancelled (what was written is committed)."""
    state = output.state
    start = state.position
    size, read = _input_bytes(files, start)
    block = options.partition_bytes(size - read)
    partitions = plan_partitions(files, columns, start, block, job.max_line_bytes)
    read_before = read
    bar = progress_bar(hooks.bar, size, read, summary.done_before)

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
            records, bad, not_listed = _lines(partition, chunk, base, summary)
            whole = False
            output.append(records, bad)
            state.prompts += len(chunk.rests)
            state.bad += len(chunk.bad)
            _count_not_listed(state.bad_not_listed, not_listed)
            _count_router_errors(state.router_errors, chunk.router_errors)
            state.position = Position(partition.file, partition.end, base + chunk.lines)
            del chunk, records, bad  # written: not held while the next chunk is awaited
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


def _stop(chunks: Generator[tuple[Partition, Chunk], None, None], bar: ProgressBar | None) -> None:
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


def _lines(
    partition: Partition, chunk: Chunk, base: int, summary: Summary
) -> tuple[bytes, bytes, list[str]]:
    """The chunk's records and bad lines as the files' bytes, and the reasons of the bad lines
    past the cap (`BAD_LINES_WRITTEN`), which are not written."""
    source = json.dumps(partition.source, ensure_ascii=False)
    prefix = '{"source":' + source + ',"line":'
    records = "".join(
        f"{prefix}{base + line},{rest}\n"
        for line, rest in zip(chunk.record_lines, chunk.rests, strict=True)
    )
    state = summary.state
    room = max(BAD_LINES_WRITTEN - (state.bad - sum(state.bad_not_listed.values())), 0)
    listed, past = chunk.bad[:room], chunk.bad[room:]
    bad = []
    for line, reason, excerpt in listed:
        entry = {"source": partition.source, "line": base + line, "reason": reason}
        line_text = json.dumps(
            {**entry, "excerpt": excerpt}, ensure_ascii=False, separators=(",", ":")
        )
        bad.append(line_text + "\n")
        if len(summary.first_bad) < BAD_LINES_KEPT:
            summary.first_bad.append(BadLine(partition.source, base + line, reason, excerpt))
    return _utf8(records), _utf8("".join(bad)), [reason for _, reason, _ in past]


def _count_not_listed(counts: dict[str, int], reasons: list[str]) -> None:
    """Count bad lines not written by reason: the reason's text before any detail (`: …`,
    ` (…)`), at most `BAD_REASONS_COUNTED` distinct ones (then `other`)."""
    for reason in reasons:
        key = reason.split(": ", 1)[0].split(" (", 1)[0].strip()[:80] or _OTHER
        if key not in counts and len(counts) >= BAD_REASONS_COUNTED:
            key = _OTHER
        counts[key] = counts.get(key, 0) + 1


def _count_router_errors(
    counts: dict[str, dict[str, int]], chunk: dict[str, dict[str, int]]
) -> None:
    for router, kinds in chunk.items():
        kept = counts.setdefault(router, {})
        for label, count in kinds.items():
            kept[label] = kept.get(label, 0) + count


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _input_bytes(files: list[InputFile], start: Position) -> tuple[int, int]:
    """The input's bytes in all, and those done before `start` (compressed, for gzip)."""
    total = sum(file.size for file in files)
    before = sum(file.size for file in files[: start.file])
    if start.file < len(files) and not files[start.file].gzip:
        before += min(start.offset, files[start.file].size)
    return total, before
