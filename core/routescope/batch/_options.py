"""`BatchOptions`: how a batch routes and where it runs."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .._errors import one_line
from .._request import RulesRef
from ._common import DEFAULT_BLOCK_BYTES, MAX_LINE_BYTES, BatchError

__all__ = ["DEFAULT_K", "MAX_WORKERS", "BatchOptions"]

DEFAULT_K = 5
"""Tools kept per prompt when a catalog is ranked (`k`)."""
MAX_WORKERS = 512
PARTITIONS_PER_WORKER = 4
"""With several workers and no block size given, a small input is cut into this many
partitions a worker (down to `SPREAD_FLOOR` bytes each), so that every worker has work."""
SPREAD_FLOOR = 16 << 10


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """How a batch routes and where it runs: what the command line, the window and the engines
    share (frozen: a run's options never change under it).

    `field`: a dotted path to the prompt in JSON records (a CSV column name); `today`: the date
    the routers see (default: the interrupted run's, else the local date); `rules`: a rule pack
    file, or a built-in pack by name (default: built in); `catalog`: also rank this catalog's
    tools (top `k`, default 5); `engine` "dask" with `scheduler` (an address; default: a new
    `LocalCluster` of `workers` processes); `timings`: without them two runs give
    byte-identical files; `block_size`: input bytes per partition (default: `partition_bytes`);
    `max_line_bytes`: a longer record is a bad line; `labels`: a labelled set
    (`routescope.judge`) the results are scored against when the batch completes, recorded in
    its state for `report` (it changes no routing: a resumed batch may name another)."""

    field: str | None = None
    workers: int = 1
    today: dt.date | None = None
    rules: RulesRef | str | Path | None = None
    catalog: str | Path | None = None
    k: int | None = None
    engine: Literal["local", "dask"] = "local"
    scheduler: str | None = None
    timings: bool = True
    block_size: int | None = None
    max_line_bytes: int = MAX_LINE_BYTES
    labels: str | Path | None = None
    routers: str | Path | None = None
    """A routers file (`routescope.external`): each of `router_names` also routes every prompt,
    its decision a `routers.NAME` field of the record (Parquet: `router_NAME_*` columns),
    within the router's declared concurrency and rate, shared by the workers."""
    router_names: tuple[str, ...] = ()

    def partition_bytes(self, remaining: int) -> int:
        """Input bytes per partition for `remaining` bytes still to read: `block_size`, else
        256 KiB, cut down for a small input run by several workers to about
        `PARTITIONS_PER_WORKER` partitions a worker (3,000 prompts ranked over a catalog — 12 s
        of work — are one 256 KiB partition: one worker would rank them all)."""
        if self.block_size is not None:
            return self.block_size
        if self.workers < 2:
            return DEFAULT_BLOCK_BYTES
        spread = -(-remaining // (PARTITIONS_PER_WORKER * self.workers))
        return max(SPREAD_FLOOR, min(DEFAULT_BLOCK_BYTES, spread))

    def check(self) -> None:
        """BatchError (one line) for options no batch can run with."""
        workers, engine = self.workers, self.engine
        if not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
            raise BatchError(f"workers must be a whole number from 1 to {MAX_WORKERS}")
        if engine not in ("local", "dask"):
            raise BatchError(f"unknown engine {one_line(engine)!r} (local or dask)")
        if self.scheduler is not None and engine != "dask":
            raise BatchError("a scheduler address goes with the dask engine (--engine dask)")
        if self.block_size is not None and self.block_size < 4096:
            raise BatchError("the block size must be at least 4,096 bytes")
        if self.max_line_bytes < 1024:
            raise BatchError("the line limit must be at least 1,024 bytes")
        if bool(self.router_names) != (self.routers is not None):
            raise BatchError("--router NAME goes with --routers FILE (and needs at least one)")
        if self.k is not None and (self.catalog is None or self.k < 1):
            raise BatchError("k (how many tools) is at least 1, and goes with a catalog")
