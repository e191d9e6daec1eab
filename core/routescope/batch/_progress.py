"""How a batch tells how far it got: `BatchProgress` while it runs, a progress bar on a
terminal, and its `BatchSummary` at the end."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ._common import BadLine
from ._quality import BatchQuality
from ._state import OutPaths, State, listed_bad_lines

__all__ = [
    "BAD_LINES_KEPT",
    "BatchProgress",
    "BatchSummary",
    "ProgressBar",
    "ProgressHook",
    "Summary",
    "progress_bar",
]

BAD_LINES_KEPT = 10
"""How many bad lines the summary lists, the batch's first (the first `BAD_LINES_WRITTEN` of
all are in the bad-lines file)."""

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
    """The first bad lines of the batch (at most `BAD_LINES_KEPT`): a resumed run reads
    those of earlier runs back from the bad-lines file."""
    bad_not_listed: dict[str, int] = field(default_factory=dict)
    """Bad lines past the bad-lines file's cap (`BAD_LINES_WRITTEN`), not in it: their
    count by reason (the reason's text before any detail). Included in `bad`."""
    notes: list[str] = field(default_factory=list)
    quality: BatchQuality | None = None
    """With `labels`: the results scored against them (once the batch is complete)."""
    routers: list[str] = field(default_factory=list)
    """The external routers that routed every prompt (`--router`)."""
    router_errors: dict[str, dict[str, int]] = field(default_factory=dict)
    """Each external router's failures (prompts whose decision is an error), by label:
    `timeout`, `rate_limited`, `http 5xx`, `garbage`, … (`ExternalFailure.label`); a router
    without failures is absent."""

    def router_error_count(self, router: str) -> int:
        return sum(self.router_errors.get(router, {}).values())


class Summary:
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
        self.routers: tuple[str, ...] = ()
        # resumed: the batch's first bad lines are those earlier runs wrote, then this one's
        self.first_bad: list[BadLine] = listed_bad_lines(paths, state, BAD_LINES_KEPT)

    def build(self, *, already_complete: bool, quality: BatchQuality | None = None) -> BatchSummary:
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
            bad_not_listed=dict(self.state.bad_not_listed),
            notes=list(self.notes),
            quality=quality,
            routers=list(self.routers),
            router_errors={
                router: dict(sorted(kinds.items(), key=lambda item: (-item[1], item[0])))
                for router, kinds in sorted(state.router_errors.items())
            },
        )


class ProgressBar:
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


def progress_bar(
    progress: bool | None, total: int, before: int, lines_before: int
) -> ProgressBar | None:
    if progress is None:
        progress = sys.stderr is not None and sys.stderr.isatty()
    if not progress:
        return None
    try:
        import tqdm  # noqa: F401
    except ImportError:  # the bar is a comfort, not a reason to fail
        return None
    return ProgressBar(total, before, lines_before)
