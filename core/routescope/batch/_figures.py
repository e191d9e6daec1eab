"""The figures of a report, counted in one pass with bounded memory: bars with their first
prompts, the intent co-occurrence, and a latency sketch per stage."""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ._results import PromptRef

__all__ = [
    "Bar",
    "Cooccurrence",
    "Distribution",
    "MatrixCell",
    "StageLatency",
]

LABEL_CAPACITY = 2_000
"""Labels of an open-ended figure (entities, tools) counted exactly until twice this many are
seen; then only the most frequent this many are kept and the figure is marked approximate."""
EXACT_LATENCIES = 20_000
"""Stage timings kept exactly per stage; beyond, a log histogram of 1 % wide buckets."""
_INTENT_ORDER = ("tech", "local", "purchase", "troubleshooting", "time_sensitive")
"""The strategy router's intent flags in their fixed order (`routescope.rules.INTENTS`)."""
_MAX_INTENT_NAMES = 32
_T = TypeVar("_T")
_INF = math.inf

# --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bar:
    """One label of a figure: how many, what share of the figure's total, and the first prompts
    behind it (in input order, at most the report's `examples`)."""

    label: str
    count: int
    share: float
    examples: tuple[PromptRef, ...]


@dataclass(frozen=True, slots=True)
class Distribution:
    """A bar chart's numbers. `total` is what the shares are of (`of` says what it counts);
    `other` counts what the bars beyond `bars` hold; `approximate`: the labels were too many to
    count exactly (see `LABEL_CAPACITY`), so rare labels' counts are lower bounds."""

    key: str
    title: str
    of: str
    total: int
    bars: tuple[Bar, ...]
    distinct: int
    other: int
    approximate: bool

    def bar(self, label: str) -> Bar | None:
        return next((bar for bar in self.bars if bar.label == label), None)

    def count(self, label: str) -> int:
        bar = self.bar(label)
        return bar.count if bar else 0


class Tally(Generic[_T]):
    """Counts per label and the first `cap` examples of each, for at most ~2x`capacity` labels."""

    __slots__ = ("added", "approximate", "cap", "capacity", "counts", "examples")

    def __init__(self, cap: int, capacity: int = LABEL_CAPACITY) -> None:
        self.cap = cap
        self.capacity = capacity
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[_T]] = {}
        self.approximate = False
        self.added = 0

    def add(self, label: str, example: _T) -> None:
        self.added += 1
        count = self.counts.get(label)
        if count is None:
            self.counts[label] = 1
            self.examples[label] = [example] if self.cap else []
            if len(self.counts) > 2 * self.capacity:
                self._prune()
        else:
            self.counts[label] = count + 1
            shown = self.examples[label]
            if len(shown) < self.cap:
                shown.append(example)

    def _prune(self) -> None:
        kept = heapq.nlargest(self.capacity, self.counts.items(), key=lambda item: item[1])
        self.counts = dict(kept)
        self.examples = {label: self.examples[label] for label in self.counts}
        self.approximate = True

    def ordered(self, known: Sequence[str] = ()) -> list[tuple[str, int]]:
        counts = {label: 0 for label in known} | self.counts
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


class RefTally(Tally[PromptRef]):
    """A tally of prompts: one figure's bars."""

    def distribution(
        self,
        key: str,
        title: str,
        *,
        total: int,
        of: str = "prompts",
        top: int | None = None,
        known: Sequence[str] = (),
    ) -> Distribution:
        ordered = self.ordered(known)
        shown = ordered if top is None else ordered[:top]
        bars = tuple(
            Bar(label, count, count / total if total else 0.0, tuple(self.examples.get(label, ())))
            for label, count in shown
        )
        other = self.added - sum(bar.count for bar in bars)
        return Distribution(key, title, of, total, bars, len(ordered), other, self.approximate)


@dataclass(frozen=True, slots=True)
class MatrixCell:
    """One cell of a matrix figure: how many prompts are (row, column), and the first of them.
    The intent co-occurrence: prompts with both flags on (`row == column`: with that flag);
    the agreement of two routers: prompts the first gave `row` and the second `column`."""

    row: str
    column: str
    count: int
    examples: tuple[PromptRef, ...]


@dataclass(frozen=True, slots=True)
class Cooccurrence:
    """Which intent flags come on together: a symmetric matrix over `names` (upper triangle and
    diagonal in `cells`)."""

    names: tuple[str, ...]
    total: int
    cells: tuple[MatrixCell, ...]

    def count(self, row: str, column: str) -> int:
        for cell in self.cells:
            if {cell.row, cell.column} == {row, column} and (row == column) == (
                cell.row == cell.column
            ):
                return cell.count
        return 0

    def matrix(self) -> list[list[int]]:
        return [[self.count(row, column) for column in self.names] for row in self.names]


def intent_key(name: str) -> tuple[int, str]:
    return (_INTENT_ORDER.index(name) if name in _INTENT_ORDER else len(_INTENT_ORDER), name)


class IntentPairs:
    __slots__ = ("cap", "counts", "examples", "names")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.names: set[str] = set()
        self.counts: dict[tuple[str, str], int] = {}
        self.examples: dict[tuple[str, str], list[PromptRef]] = {}

    def add(self, intents: Sequence[str], ref: PromptRef) -> None:
        for name in intents:
            if name not in self.names and len(self.names) < _MAX_INTENT_NAMES:
                self.names.add(name)
        on = sorted({n for n in intents if n in self.names}, key=intent_key)
        for i, row in enumerate(on):
            for column in on[i:]:
                pair = (row, column)
                self.counts[pair] = self.counts.get(pair, 0) + 1
                shown = self.examples.setdefault(pair, [])
                if len(shown) < self.cap:
                    shown.append(ref)

    def result(self, total: int) -> Cooccurrence:
        names = tuple(sorted(self.names, key=intent_key))
        cells = tuple(
            MatrixCell(
                row,
                column,
                self.counts.get((row, column), 0),
                tuple(self.examples.get((row, column), ())),
            )
            for i, row in enumerate(names)
            for column in names[i:]
        )
        return Cooccurrence(names, total, cells)


@dataclass(frozen=True, slots=True)
class StageLatency:
    """One stage's timings in microseconds; `exact`: every timing kept (else the quantiles
    come from 1 %-wide buckets and are within 1 % of the true ones)."""

    stage: str
    count: int
    p50: float
    p95: float
    max: float
    mean: float
    exact: bool


_BUCKETS_PER_E = 1 / math.log(1.01)


_FLUSH_EVERY = 1 << 16
_ZERO_BUCKET = -(10**9)


class LatencySketch:
    """One stage's timings: every one kept until there are more than `EXACT_LATENCIES`, then
    counted in 1 %-wide log buckets (added in bulk, with numpy)."""

    __slots__ = ("buckets", "flushed", "limit", "max", "total", "values")

    def __init__(self) -> None:
        self.values: array[float] = array("d")
        self.limit = EXACT_LATENCIES
        self.buckets: dict[int, int] = {}
        self.flushed = 0
        self.max = 0.0
        self.total = 0.0

    def add(self, micros: float) -> None:
        values = self.values
        values.append(micros)
        if len(values) > self.limit:
            self._flush()

    def _flush(self) -> None:
        import numpy as np

        values = np.frombuffer(self.values, dtype=np.float64)
        if not len(values):
            return
        self.max = max(self.max, float(values.max()))
        self.total += float(values.sum())
        positive = values[values > 0]
        zeros = len(values) - len(positive)
        if zeros:
            self.buckets[_ZERO_BUCKET] = self.buckets.get(_ZERO_BUCKET, 0) + zeros
        keys, counts = np.unique(
            np.floor(np.log(positive) * _BUCKETS_PER_E).astype(np.int64), return_counts=True
        )
        for key, count in zip(keys.tolist(), counts.tolist(), strict=True):
            self.buckets[key] = self.buckets.get(key, 0) + count
        self.flushed += len(values)
        del values, positive
        self.values = array("d")
        self.limit = _FLUSH_EVERY

    @property
    def exact(self) -> bool:
        return not self.flushed

    def quantile(self, q: float) -> float:
        count = self.flushed + len(self.values)
        rank = max(1, math.ceil(q * count))  # nearest rank
        if self.exact:
            return sorted(self.values)[rank - 1]
        self._flush()
        seen = 0
        for key in sorted(self.buckets):
            seen += self.buckets[key]
            if seen >= rank:
                if key == _ZERO_BUCKET:
                    return 0.0
                return min(self.max, math.exp((key + 0.5) / _BUCKETS_PER_E))
        return self.max

    def result(self, stage: str) -> StageLatency:
        exact = self.exact
        p50, p95 = self.quantile(0.5), self.quantile(0.95)
        if exact:
            values = self.values
            return StageLatency(
                stage, len(values), p50, p95, max(values), sum(values) / len(values), True
            )
        return StageLatency(
            stage, self.flushed, p50, p95, self.max, self.total / self.flushed, False
        )


_STAGE_ORDER = ("extract", "route", "plan", "sanitize", "lint", "decide", "task", "tools", "total")
MAX_STAGES = 64


def stage_key(stage: str) -> tuple[int, str]:
    return (_STAGE_ORDER.index(stage) if stage in _STAGE_ORDER else len(_STAGE_ORDER) - 1, stage)
