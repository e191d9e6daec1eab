"""The batch report (issue 18): figures over a results file, computed in one streaming pass.

A results file holds one routed prompt per line (JSON Lines, gzip too; Parquet with pyarrow).
`build_report(path)` reads it once and keeps only counters, capped example lists and a bounded
latency sketch, so a file of a million lines takes the memory of a few thousand. Every bar of
every figure, every leak and every change of a comparison carries the (capped) list of the
prompts behind it as `PromptRef`s (source file and line of the prompt, the record's line in the
results file), so a view can list them when the bar is clicked.

The leak checks are the seed's (000, strategy router) three promises, as named rules:
`site:` searches only for the tech strategy, the OpenClaw searches only for tech prompts that
mention OpenClaw, and "as of <date>" only on time-sensitive queries.

`compare_results(a, b)` reads two results files over the same prompts (two rule packs over one
log) side by side and groups the prompts whose routing changed by kind of change."""

from __future__ import annotations

import gzip
import heapq
import io
import json
import math
import os
import re
import stat
import zlib
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from .._errors import RoutescopeError, one_line

__all__ = [
    "LEAK_RULES",
    "Bar",
    "Change",
    "ChangeGroup",
    "ChangeKind",
    "Comparison",
    "Cooccurrence",
    "CooccurrenceCell",
    "Distribution",
    "FailedRecord",
    "LeakCheck",
    "LeakFinding",
    "LeakRule",
    "PromptRef",
    "Report",
    "ReportBuilder",
    "ResultRecord",
    "ResultsError",
    "StageLatency",
    "Transition",
    "build_report",
    "compare_results",
    "find_leaks",
    "parse_record",
    "read_results",
]


class ResultsError(RoutescopeError):
    """A results file cannot be read, or a line of it is not a routed prompt; the message names
    the file and the line."""


PROMPT_CHARS = 300
"""Prompts kept in example lists are cut to this many characters (source and line lead to the
whole prompt)."""
LINE_LIMIT = 64 << 20
"""The longest line a results file may have (a prompt is at most 10 million characters)."""
LABEL_CAPACITY = 2_000
"""Labels of an open-ended figure (entities, tools) counted exactly until twice this many are
seen; then only the most frequent this many are kept and the figure is marked approximate."""
EXACT_LATENCIES = 20_000
"""Stage timings kept exactly per stage; beyond, a log histogram of 1 % wide buckets."""
PENDING_LIMIT = 100_000
"""Comparing: prompts of one file waiting for their match in the other; past this, the oldest
one waiting counts as missing from the other file."""

TIME_SENSITIVE = frozenset({"time_sensitive", "timeSensitive"})
_INTENT_ORDER = ("tech", "local", "purchase", "troubleshooting", "time_sensitive")
"""The strategy router's intent flags in their fixed order (`routescope.rules.INTENTS`)."""
_MAX_INTENT_NAMES = 32
NONE_LABEL = "(none)"
NO_CONTRACT = "(contract off)"
NO_FIT = "(no tool fits)"


# --- the records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PromptRef:
    """One prompt behind a figure: where it came from and its text (cut to `PROMPT_CHARS`)."""

    source: str
    line: int
    prompt: str
    record: int
    """The line of the results file (the row, for Parquet) that holds this prompt's result."""


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """The fields of one results line that the report reads (the others are checked, not kept)."""

    ref: PromptRef
    prompt: str
    today: str | None
    strategy: str
    intents: tuple[str, ...]
    entities: tuple[str, ...]
    has_openclaw: bool
    queries: tuple[str, ...]
    lint_class: str
    agent: str | None
    mode: str | None
    task_route: str | None
    ranked: bool
    """A tool search ran for this prompt (`tools` is a list)."""
    top_tool: str | None
    tool_fits: bool | None
    timings_us: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class FailedRecord:
    """A line that records a prompt the batch could not route (`{"error": "…"}`)."""

    ref: PromptRef
    error: str


def _cut(text: str, limit: int = PROMPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string"}.get(
        type(value), "a list" if isinstance(value, list) else "an object"
    )


_MISSING = object()
_STR = {str}
_INF = math.inf
_T = TypeVar("_T")


class _FieldError(Exception):
    """A field of one record is missing or has the wrong type (becomes a ResultsError)."""


def _str(data: Mapping[str, Any], name: str) -> str:
    if name not in data:
        raise _FieldError(f"missing field {name!r}")
    value = data[name]
    if not isinstance(value, str):
        raise _FieldError(f"field {name!r} must be a string, not {_kind(value)}")
    return value


def _opt_str(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise _FieldError(f"field {name!r} must be a string or null, not {_kind(value)}")
    return value


def _strs(data: Mapping[str, Any], name: str, *, required: bool = True) -> tuple[str, ...]:
    if name not in data and not required:
        return ()
    value = data.get(name, _MISSING)
    if value is _MISSING:
        raise _FieldError(f"missing field {name!r}")
    if (type(value) is not list and type(value) is not tuple) or not set(map(type, value)) <= _STR:
        raise _FieldError(f"field {name!r} must be a list of strings")
    return tuple(value)


def _opt_strs(data: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    return None if data.get(name) is None else _strs(data, name)


def _opt_bool(data: Mapping[str, Any], name: str) -> bool | None:
    value = data.get(name)
    if value is not None and not isinstance(value, bool):
        raise _FieldError(f"field {name!r} must be true, false or null, not {_kind(value)}")
    return value


def _timings(data: Mapping[str, Any]) -> dict[str, float]:
    value = data.get("timings_us")
    if value is None:
        return {}
    if isinstance(value, list):  # a Parquet map column reads as a list of (key, value) pairs
        try:
            value = dict(value)
        except (TypeError, ValueError):
            raise _FieldError(
                "field 'timings_us' must be an object of stage: microseconds"
            ) from None
    if not isinstance(value, Mapping):
        raise _FieldError(f"field 'timings_us' must be an object, not {_kind(value)}")
    timings: dict[str, float] = {}
    for stage, micros in value.items():
        kind = type(micros)
        if (kind is float or kind is int) and 0 <= micros < _INF and type(stage) is str:
            timings[stage] = micros
        elif micros is not None:  # a bool, a string, NaN, a negative or infinite number
            raise _FieldError(f"field 'timings_us' must map stages to microseconds (at {stage!r})")
    return timings


def _contract(data: Mapping[str, Any]) -> tuple[str | None, str | None]:
    value = data.get("contract")
    if value is None:
        return None, None
    if not isinstance(value, Mapping):
        raise _FieldError(f"field 'contract' must be an object or null, not {_kind(value)}")
    try:
        return _str(value, "agent"), _str(value, "mode")
    except _FieldError as exc:
        raise _FieldError(f"contract: {exc}") from None


def parse_record(data: object, record: int = 0) -> ResultRecord | FailedRecord:
    """One line of a results file, checked; `record` is its line number in that file.
    Raises ResultsError ("line N: field 'strategy' must be a string, not null")."""
    try:
        if not isinstance(data, Mapping):
            raise _FieldError(f"expected a JSON object (one result per line), not {_kind(data)}")
        line = data.get("line")
        if isinstance(line, bool) or not isinstance(line, int):
            raise _FieldError(
                "missing field 'line'" if line is None else "field 'line' must be a number"
            )
        prompt = _str(data, "prompt")
        ref = PromptRef(_str(data, "source"), line, _cut(prompt), record)
        if "strategy" not in data and isinstance(data.get("error"), str):
            return FailedRecord(ref, data["error"])
        agent, mode = _contract(data)
        tools = _opt_strs(data, "tools")
        top_tool = _opt_str(data, "top_tool")
        has_openclaw = data.get("has_openclaw")
        if not isinstance(has_openclaw, bool):
            raise _FieldError(
                f"field 'has_openclaw' must be true or false, not {_kind(has_openclaw)}"
            )
        return ResultRecord(
            ref=ref,
            prompt=prompt,
            today=_opt_str(data, "today"),
            strategy=_str(data, "strategy"),
            intents=_strs(data, "intents"),
            entities=_strs(data, "entities", required=False),
            has_openclaw=has_openclaw,
            queries=_strs(data, "queries"),
            lint_class=_str(data, "lint_class"),
            agent=agent,
            mode=mode,
            task_route=_opt_str(data, "task_route"),
            ranked=tools is not None or top_tool is not None,
            top_tool=top_tool,
            tool_fits=_opt_bool(data, "tool_fits"),
            timings_us=_timings(data),
        )
    except _FieldError as exc:
        raise ResultsError(f"line {record}: {exc}") from None


# --- reading ------------------------------------------------------------------------------------


def _open(path: Path) -> io.BufferedReader:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise ResultsError(f"{path}: cannot read results: a directory")
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
            raise ResultsError(f"{path}: cannot read results: not a regular file")
        return open(path, "rb")
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read results: {exc.strerror or exc}") from None


def _json_lines(stream: io.BufferedIOBase, path: Path) -> Iterator[tuple[int, object]]:
    number = 0
    while True:
        raw = stream.readline(LINE_LIMIT + 1)
        if not raw:
            return
        number += 1
        if len(raw) > LINE_LIMIT:
            raise ResultsError(f"{path}: line {number}: longer than {LINE_LIMIT >> 20} MB")
        if not raw.strip():
            continue
        try:
            yield number, json.loads(raw)
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            problem = one_line(exc, 120)
            raise ResultsError(f"{path}: line {number}: not a JSON object ({problem})") from None


def _parquet(path: Path) -> Iterator[tuple[int, object]]:
    try:
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        raise ResultsError(f"{path}: a Parquet file: install pyarrow to read it") from None
    try:
        number = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
            for row in batch.to_pylist():
                number += 1
                yield number, _nested(row)
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise ResultsError(f"{path}: not a readable Parquet file ({one_line(exc, 120)})") from None


_TIMING_COLUMN = "timings_us_"


def _nested(row: dict[str, Any]) -> dict[str, Any]:
    """A Parquet row with its flattened columns nested again, as in JSON Lines:
    `contract_agent`/`_mode`/`_tools` → `contract`, `timings_us_<stage>` → `timings_us`, a date
    column `today` → "YYYY-MM-DD"."""
    if "contract" not in row and "contract_agent" in row:
        agent = row.pop("contract_agent")
        mode, tools = row.pop("contract_mode", None), row.pop("contract_tools", None)
        row["contract"] = None if agent is None else {"agent": agent, "mode": mode, "tools": tools}
    if "timings_us" not in row:
        stages = [name for name in row if name.startswith(_TIMING_COLUMN)]
        if stages:
            row["timings_us"] = {name[len(_TIMING_COLUMN) :]: row.pop(name) for name in stages}
    today = row.get("today")
    if today is not None and not isinstance(today, str) and hasattr(today, "isoformat"):
        row["today"] = today.isoformat()
    return row


def read_results(path: str | Path) -> Iterator[tuple[int, object]]:
    """Each line of a results file (JSON Lines, gzip-compressed or not, or Parquet, told by
    their first bytes) as (line number, decoded JSON value), streamed. Raises ResultsError."""
    path = Path(path)
    stream = _open(path)
    with stream:
        try:
            head = stream.peek(4)[:4]
            if head == b"PAR1":
                yield from _parquet(path)
                return
            if head[:2] == b"\x1f\x8b":
                with gzip.GzipFile(fileobj=stream, mode="rb") as unpacked:
                    yield from _json_lines(unpacked, path)
                return
            yield from _json_lines(stream, path)
        except EOFError:
            raise ResultsError(f"{path}: the gzip data is cut short") from None
        except (OSError, zlib.error) as exc:
            raise ResultsError(f"{path}: cannot read results: {one_line(exc, 120)}") from None


def _records(path: Path) -> Iterator[ResultRecord | FailedRecord]:
    for number, value in read_results(path):
        try:
            yield parse_record(value, number)
        except ResultsError as exc:
            raise ResultsError(f"{path}: {exc}") from None


# --- leak rules ---------------------------------------------------------------------------------


_SITE = re.compile(r"(?<![\w.-])site:[^\s()\"']+", re.IGNORECASE)
_OPENCLAW_SEARCH = re.compile(r"(?<![\w.-])site:[^\s()\"']*openclaw[^\s()\"']*", re.IGNORECASE)
_AS_OF = re.compile(r"(?<!\w)as\s+of(?!\w)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LeakFinding:
    """One offending query of one prompt; `start`/`end` mark the offending part of `query`."""

    rule: str
    ref: PromptRef
    strategy: str
    query: str
    start: int
    end: int
    detail: str


Offence = tuple[str, int, int, str]
"""(query, start, end, detail): what a leak rule finds in one record."""


def _site_outside_tech(record: ResultRecord) -> list[Offence]:
    if record.strategy == "tech":
        return []
    found = []
    for query in record.queries:
        match = _SITE.search(query)
        if match:
            found.append((query, match.start(), match.end(), f"strategy {record.strategy}"))
    return found


def _openclaw_outside_gate(record: ResultRecord) -> list[Offence]:
    if record.strategy == "tech" and record.has_openclaw:
        return []
    detail = (
        f"strategy {record.strategy}"
        if record.strategy != "tech"
        else "tech, but the prompt does not mention OpenClaw"
    )
    found = []
    for query in record.queries:
        match = _OPENCLAW_SEARCH.search(query)
        if match:
            found.append((query, match.start(), match.end(), detail))
    return found


def _as_of_not_time_sensitive(record: ResultRecord) -> list[Offence]:
    if TIME_SENSITIVE.intersection(record.intents):
        return []
    said = len(_AS_OF.findall(record.prompt))
    flags = f"not time-sensitive (flags: {', '.join(record.intents) or 'none'})"
    found = []
    for query in record.queries:
        matches = list(_AS_OF.finditer(query))
        if len(matches) > said:  # the user's own "as of" is not a leak
            last = matches[-1]
            found.append((query, last.start(), len(query), flags))
    return found


@dataclass(frozen=True, slots=True)
class LeakRule:
    """One promise of the seed that a routed prompt can break; `check` lists its offences."""

    name: str
    title: str
    description: str
    check: Callable[[ResultRecord], list[Offence]]


LEAK_RULES: tuple[LeakRule, ...] = (
    LeakRule(
        "site_outside_tech",
        "site: query outside the tech strategy",
        "Only the tech strategy may search with site: operators; general and local plan two "
        "plain searches.",
        _site_outside_tech,
    ),
    LeakRule(
        "openclaw_outside_gate",
        "OpenClaw search outside tech + OpenClaw",
        "The two canonical OpenClaw searches (site:docs.openclaw.ai, site:github.com/openclaw) "
        "belong only to tech prompts that mention OpenClaw.",
        _openclaw_outside_gate,
    ),
    LeakRule(
        "as_of_not_time_sensitive",
        '"as of" on a query that is not time-sensitive',
        'The sanitizer appends "as of <today>" only when the prompt is time-sensitive; an '
        '"as of" the prompt itself says is not counted.',
        _as_of_not_time_sensitive,
    ),
)


def find_leaks(record: ResultRecord) -> list[LeakFinding]:
    """Every offence of every leak rule in one routed prompt."""
    return [
        LeakFinding(rule.name, record.ref, record.strategy, query, start, end, detail)
        for rule in LEAK_RULES
        for query, start, end, detail in rule.check(record)
    ]


# --- the figures --------------------------------------------------------------------------------


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


class _Tally(Generic[_T]):
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


class _Refs(_Tally[PromptRef]):
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
class CooccurrenceCell:
    """Prompts with both intent flags on (`row == column`: prompts with that flag)."""

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
    cells: tuple[CooccurrenceCell, ...]

    def count(self, row: str, column: str) -> int:
        for cell in self.cells:
            if {cell.row, cell.column} == {row, column} and (row == column) == (
                cell.row == cell.column
            ):
                return cell.count
        return 0

    def matrix(self) -> list[list[int]]:
        return [[self.count(row, column) for column in self.names] for row in self.names]


def _intent_key(name: str) -> tuple[int, str]:
    return (_INTENT_ORDER.index(name) if name in _INTENT_ORDER else len(_INTENT_ORDER), name)


class _Pairs:
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
        on = sorted({n for n in intents if n in self.names}, key=_intent_key)
        for i, row in enumerate(on):
            for column in on[i:]:
                pair = (row, column)
                self.counts[pair] = self.counts.get(pair, 0) + 1
                shown = self.examples.setdefault(pair, [])
                if len(shown) < self.cap:
                    shown.append(ref)

    def result(self, total: int) -> Cooccurrence:
        names = tuple(sorted(self.names, key=_intent_key))
        cells = tuple(
            CooccurrenceCell(
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


class _Latency:
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
_MAX_STAGES = 64


def _stage_key(stage: str) -> tuple[int, str]:
    return (_STAGE_ORDER.index(stage) if stage in _STAGE_ORDER else len(_STAGE_ORDER) - 1, stage)


# --- the report ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeakCheck:
    """One leak rule over the whole file: offending queries (`count`) in how many prompts, and
    the first `findings` (at most the report's `leak_examples`)."""

    rule: str
    title: str
    description: str
    count: int
    prompts: int
    findings: tuple[LeakFinding, ...]


@dataclass(frozen=True, slots=True)
class Report:
    """The figures of one results file. `prompts` counts routed prompts; `failed`, lines that
    record a prompt the batch could not route (by error message)."""

    sources: tuple[str, ...]
    prompts: int
    failed: Distribution
    first_today: str | None
    last_today: str | None
    leaks: tuple[LeakCheck, ...]
    leak_prompts: int
    """Prompts with at least one leak (of any rule)."""
    strategies: Distribution
    lint_classes: Distribution
    intents: Distribution
    intent_sets: Distribution
    cooccurrence: Cooccurrence
    entities: Distribution
    agents: Distribution
    modes: Distribution
    task_routes: Distribution
    top_tools: Distribution
    """Over prompts with a tool ranking; `NO_FIT` counts those where no tool fits."""
    ranked: int
    no_fit: int
    latency: tuple[StageLatency, ...]
    examples: int
    top: int

    @property
    def leak_count(self) -> int:
        return sum(check.count for check in self.leaks)

    @property
    def no_fit_share(self) -> float | None:
        return self.no_fit / self.ranked if self.ranked else None

    def figures(self) -> tuple[Distribution, ...]:
        """The bar figures in page order."""
        return (
            self.strategies,
            self.lint_classes,
            self.intents,
            self.intent_sets,
            self.entities,
            self.agents,
            self.modes,
            self.top_tools,
            self.task_routes,
        )

    def leak(self, rule: str) -> LeakCheck:
        return next(check for check in self.leaks if check.rule == rule)


class ReportBuilder:
    """The streaming aggregator: `add` each record (a decoded results line), then `report()`.
    Memory is bounded whatever the number of records: counters, the first `examples` prompts per
    bar, the first `leak_examples` findings per leak rule, a bounded latency sketch."""

    def __init__(
        self,
        *,
        examples: int = 20,
        top: int = 20,
        leak_examples: int = 200,
        sources: Sequence[str] = (),
        capacity: int = LABEL_CAPACITY,
    ) -> None:
        if examples < 0 or top < 1 or leak_examples < 0 or capacity < 1:
            raise ValueError("examples and leak_examples must be >= 0, top and capacity >= 1")
        self.examples = examples
        self.top = top
        self.leak_examples = leak_examples
        self.sources = tuple(sources)
        self.prompts = 0
        self.ranked = 0
        self.no_fit = 0
        self.first_today: str | None = None
        self.last_today: str | None = None
        entity_cap = min(examples, 5)  # open-ended labels keep fewer examples each
        self._failed = _Refs(examples, capacity)
        self._strategies = _Refs(examples)
        self._lint = _Refs(examples)
        self._intents = _Refs(examples)
        self._intent_sets = _Refs(examples)
        self._pairs = _Pairs(examples)
        self._entities = _Refs(entity_cap, capacity)
        self._agents = _Refs(examples)
        self._modes = _Refs(examples)
        self._routes = _Refs(examples)
        self._tools = _Refs(entity_cap, capacity)
        self._stages: dict[str, _Latency] = {}
        self._leaks = {rule.name: _LeakTally() for rule in LEAK_RULES}
        self.leak_prompts = 0

    def add(self, data: object, record: int = 0) -> ResultRecord | FailedRecord:
        """Check and count one results line; returns what it read. Raises ResultsError."""
        parsed = parse_record(data, record)
        self.add_record(parsed)
        return parsed

    def add_record(self, record: ResultRecord | FailedRecord) -> None:
        ref = record.ref
        if isinstance(record, FailedRecord):
            self._failed.add(_cut(one_line(record.error), 120), ref)
            return
        self.prompts += 1
        if record.today is not None:
            if self.first_today is None or record.today < self.first_today:
                self.first_today = record.today
            if self.last_today is None or record.today > self.last_today:
                self.last_today = record.today
        self._strategies.add(record.strategy, ref)
        self._lint.add(record.lint_class, ref)
        intents = sorted(set(record.intents), key=_intent_key)
        for name in intents:
            self._intents.add(name, ref)
        self._intent_sets.add(" + ".join(intents) or NONE_LABEL, ref)
        self._pairs.add(intents, ref)
        for entity in dict.fromkeys(record.entities):
            self._entities.add(entity, ref)
        self._agents.add(record.agent or NO_CONTRACT, ref)
        self._modes.add(record.mode or NO_CONTRACT, ref)
        self._routes.add(record.task_route or NONE_LABEL, ref)
        if record.ranked:
            self.ranked += 1
            if record.tool_fits is False:
                self.no_fit += 1
            self._tools.add(_tool_label(record), ref)
        for stage, micros in record.timings_us.items():
            timing = self._stages.get(stage)
            if timing is None:
                if len(self._stages) >= _MAX_STAGES:
                    continue
                timing = self._stages[stage] = _Latency()
            timing.add(micros)
        leaked = False
        for rule in LEAK_RULES:
            offences = rule.check(record)
            if offences:
                leaked = True
                self._leaks[rule.name].add(rule.name, record, offences, self.leak_examples)
        self.leak_prompts += leaked

    def report(self) -> Report:
        prompts = self.prompts
        failed_total = self._failed.added
        return Report(
            sources=self.sources,
            prompts=prompts,
            failed=self._failed.distribution(
                "failed", "Prompts the batch could not route", total=failed_total, of="failures"
            ),
            first_today=self.first_today,
            last_today=self.last_today,
            leaks=tuple(self._leaks[rule.name].result(rule) for rule in LEAK_RULES),
            leak_prompts=self.leak_prompts,
            strategies=self._strategies.distribution(
                "strategies", "Strategy", total=prompts, known=("general", "local", "tech")
            ),
            lint_classes=self._lint.distribution(
                "lint_classes",
                "Query linter class",
                total=prompts,
                known=("guided", "semi", "vague"),
            ),
            intents=self._intents.distribution(
                "intents", "Intent flags (prompts with each flag on)", total=prompts
            ),
            intent_sets=self._intent_sets.distribution(
                "intent_sets", "Intent flags that come on together", total=prompts, top=self.top
            ),
            cooccurrence=self._pairs.result(prompts),
            entities=self._entities.distribution(
                "entities", "Top entities (prompts naming each)", total=prompts, top=self.top
            ),
            agents=self._agents.distribution("agents", "Contract agent", total=prompts),
            modes=self._modes.distribution("modes", "Contract mode", total=prompts),
            task_routes=self._routes.distribution("task_routes", "Task route", total=prompts),
            top_tools=self._tools.distribution(
                "top_tools",
                "Top-1 tool",
                total=self.ranked,
                of="prompts with a tool ranking",
                top=self.top,
                known=(NO_FIT,) if self.ranked else (),
            ),
            ranked=self.ranked,
            no_fit=self.no_fit,
            latency=tuple(
                self._stages[stage].result(stage) for stage in sorted(self._stages, key=_stage_key)
            ),
            examples=self.examples,
            top=self.top,
        )


def _tool_label(record: ResultRecord) -> str:
    if record.tool_fits is False:
        return NO_FIT
    return record.top_tool or NO_FIT


class _LeakTally:
    __slots__ = ("count", "findings", "prompts")

    def __init__(self) -> None:
        self.count = 0
        self.prompts = 0
        self.findings: list[LeakFinding] = []

    def add(self, rule: str, record: ResultRecord, offences: list[Offence], cap: int) -> None:
        self.count += len(offences)
        self.prompts += 1
        for query, start, end, detail in offences:
            if len(self.findings) < cap:
                self.findings.append(
                    LeakFinding(rule, record.ref, record.strategy, query, start, end, detail)
                )

    def result(self, rule: LeakRule) -> LeakCheck:
        return LeakCheck(
            rule.name, rule.title, rule.description, self.count, self.prompts, tuple(self.findings)
        )


def build_report(
    path: str | Path, *, examples: int = 20, top: int = 20, leak_examples: int = 200
) -> Report:
    """The report of one results file, read once. Raises ResultsError (also for a file with no
    records)."""
    source = Path(path)
    builder = ReportBuilder(
        examples=examples, top=top, leak_examples=leak_examples, sources=(str(source),)
    )
    lines = 0
    for record in _records(source):
        lines += 1
        builder.add_record(record)
    if not lines:
        raise ResultsError(f"{source}: no results in it (expected one JSON object per line)")
    return builder.report()


# --- comparing two results files ----------------------------------------------------------------

ChangeKind = Literal["strategy", "lint_class", "agent", "mode", "top_tool", "queries"]
_KINDS: tuple[tuple[ChangeKind, str], ...] = (
    ("strategy", "Strategy"),
    ("lint_class", "Query linter class"),
    ("agent", "Contract agent"),
    ("mode", "Contract mode"),
    ("top_tool", "Top-1 tool"),
    ("queries", "Planned search queries"),
)


@dataclass(frozen=True, slots=True)
class Change:
    """One prompt's change: its value in A and in B (one item, or the list of queries)."""

    ref: PromptRef
    before: tuple[str, ...]
    after: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Transition:
    """Prompts that changed the same way ("general → tech"; for queries: "added", "removed",
    "reworded" or "reordered", with the strategy: "reworded (general)"), with the first of
    them."""

    label: str
    count: int
    examples: tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class ChangeGroup:
    """One kind of change: how many matched prompts changed that way, by transition."""

    kind: ChangeKind
    title: str
    count: int
    share: float
    transitions: tuple[Transition, ...]
    approximate: bool


@dataclass(frozen=True, slots=True)
class Comparison:
    """Two results files over the same prompts, matched by (source, line). `a` and `b` are
    each file's own report; `only_a`/`only_b`: prompts missing from the other file;
    `prompt_differs`: the same source and line with different prompt text (not compared)."""

    a: Report
    b: Report
    matched: int
    changed: int
    groups: tuple[ChangeGroup, ...]
    only_a: Bar
    only_b: Bar
    prompt_differs: Bar

    @property
    def unchanged(self) -> int:
        return self.matched - self.changed

    def group(self, kind: ChangeKind) -> ChangeGroup:
        return next(group for group in self.groups if group.kind == kind)


@dataclass(frozen=True, slots=True)
class _Signature:
    ref: PromptRef
    prompt: int
    values: tuple[str, str, str, str, str]
    queries: tuple[str, ...]


def _signature(record: ResultRecord) -> _Signature:
    tool = _tool_label(record) if record.ranked else "(not ranked)"
    return _Signature(
        record.ref,
        hash(record.prompt),
        (
            record.strategy,
            record.lint_class,
            record.agent or NO_CONTRACT,
            record.mode or NO_CONTRACT,
            tool,
        ),
        record.queries,
    )


def _queries_change(before: tuple[str, ...], after: tuple[str, ...]) -> str | None:
    if before == after:
        return None
    added = set(after) - set(before)
    removed = set(before) - set(after)
    if added and removed:
        return "reworded"
    if added:
        return "added"
    if removed:
        return "removed"
    return "reordered"


class _Comparer:
    def __init__(self, examples: int, capacity: int) -> None:
        self.examples = examples
        self.matched = 0
        self.changed = 0
        self.groups: dict[ChangeKind, _Tally[Change]] = {
            kind: _Tally(examples, capacity) for kind, _ in _KINDS
        }
        self.counts = dict.fromkeys(self.groups, 0)
        self.only = [_Refs(examples), _Refs(examples)]
        self.differs = _Refs(examples)
        self.pending: tuple[dict[tuple[str, int], _Signature], ...] = ({}, {})

    def offer(self, side: int, signature: _Signature) -> None:
        key = (signature.ref.source, signature.ref.line)
        other = self.pending[1 - side].pop(key, None)
        if other is None:
            waiting = self.pending[side]
            if key in waiting:  # the same prompt twice in one file: the first has no match
                self.only[side].add("", waiting.pop(key).ref)
            waiting[key] = signature
            if len(waiting) > PENDING_LIMIT:
                oldest = next(iter(waiting))
                self.only[side].add("", waiting.pop(oldest).ref)
            return
        a, b = (other, signature) if side == 1 else (signature, other)
        self.compare(a, b)

    def compare(self, a: _Signature, b: _Signature) -> None:
        if a.prompt != b.prompt:
            self.differs.add("", a.ref)
            return
        self.matched += 1
        changed = False
        for (kind, _), before, after in zip(_KINDS, a.values, b.values, strict=False):
            if before != after:
                changed = True
                self.counts[kind] += 1
                self.groups[kind].add(f"{before} → {after}", Change(a.ref, (before,), (after,)))
        how = _queries_change(a.queries, b.queries)
        if how is not None:
            changed = True
            self.counts["queries"] += 1
            before, after = a.values[0], b.values[0]
            strategy = before if before == after else f"{before} → {after}"
            label = f"{how} ({strategy})"
            self.groups["queries"].add(label, Change(a.ref, a.queries, b.queries))
        self.changed += changed

    def finish(self) -> None:
        for side in (0, 1):
            for signature in self.pending[side].values():
                self.only[side].add("", signature.ref)
            self.pending[side].clear()

    def result(self, a: Report, b: Report) -> Comparison:
        groups = []
        for kind, title in _KINDS:
            tally = self.groups[kind]
            transitions = tuple(
                Transition(label, count, tuple(tally.examples.get(label, ())))
                for label, count in tally.ordered()
            )
            count = self.counts[kind]
            share = count / self.matched if self.matched else 0.0
            groups.append(ChangeGroup(kind, title, count, share, transitions, tally.approximate))
        return Comparison(
            a=a,
            b=b,
            matched=self.matched,
            changed=self.changed,
            groups=tuple(groups),
            only_a=_missing("only in A", self.only[0], a.prompts),
            only_b=_missing("only in B", self.only[1], b.prompts),
            prompt_differs=_missing("prompt differs", self.differs, a.prompts),
        )


def _missing(label: str, tally: _Tally[PromptRef], total: int) -> Bar:
    count = tally.added
    return Bar(label, count, count / total if total else 0.0, tuple(tally.examples.get("", ())))


def compare_results(
    a: str | Path,
    b: str | Path,
    *,
    examples: int = 20,
    top: int = 20,
    leak_examples: int = 200,
    capacity: int = LABEL_CAPACITY,
) -> Comparison:
    """Compare two results files over the same prompts (e.g. two rule packs over one log),
    read side by side in one pass: prompts are matched by (source, line), files in the same
    order match with no memory to speak of. Raises ResultsError."""
    paths = (Path(a), Path(b))
    builders = [
        ReportBuilder(examples=examples, top=top, leak_examples=leak_examples, sources=(str(path),))
        for path in paths
    ]
    comparer = _Comparer(examples, capacity)
    lines = [0, 0]
    for pair in zip_longest(_records(paths[0]), _records(paths[1])):
        for side, record in enumerate(pair):
            if record is None:
                continue
            lines[side] += 1
            builders[side].add_record(record)
            if isinstance(record, ResultRecord):
                comparer.offer(side, _signature(record))
    for side, path in enumerate(paths):
        if not lines[side]:
            raise ResultsError(f"{path}: no results in it (expected one JSON object per line)")
    comparer.finish()
    return comparer.result(builders[0].report(), builders[1].report())


# --- JSON ---------------------------------------------------------------------------------------

REPORT_VERSION = 1


def _ref(ref: PromptRef) -> dict[str, Any]:
    return {"source": ref.source, "line": ref.line, "record": ref.record, "prompt": ref.prompt}


def _bar(bar: Bar) -> dict[str, Any]:
    return {
        "label": bar.label,
        "count": bar.count,
        "share": round(bar.share, 6),
        "examples": [_ref(ref) for ref in bar.examples],
    }


def _distribution(figure: Distribution) -> dict[str, Any]:
    return {
        "title": figure.title,
        "of": figure.of,
        "total": figure.total,
        "distinct": figure.distinct,
        "other": figure.other,
        "approximate": figure.approximate,
        "bars": [_bar(bar) for bar in figure.bars],
    }


def _leak(check: LeakCheck) -> dict[str, Any]:
    return {
        "rule": check.rule,
        "title": check.title,
        "description": check.description,
        "count": check.count,
        "prompts": check.prompts,
        "findings": [
            _ref(f.ref)
            | {
                "strategy": f.strategy,
                "query": f.query,
                "start": f.start,
                "end": f.end,
                "detail": f.detail,
            }
            for f in check.findings
        ],
    }


def _report_data(report: Report) -> dict[str, Any]:
    share = report.no_fit_share
    return {
        "kind": "routescope.report",
        "version": REPORT_VERSION,
        "sources": list(report.sources),
        "prompts": report.prompts,
        "today": {"first": report.first_today, "last": report.last_today},
        "leaks": {
            "count": report.leak_count,
            "prompts": report.leak_prompts,
            "checks": [_leak(check) for check in report.leaks],
        },
        "failed": _distribution(report.failed),
        "figures": {figure.key: _distribution(figure) for figure in report.figures()},
        "intent_cooccurrence": {
            "names": list(report.cooccurrence.names),
            "total": report.cooccurrence.total,
            "matrix": report.cooccurrence.matrix(),
            "cells": [
                {
                    "row": cell.row,
                    "column": cell.column,
                    "count": cell.count,
                    "examples": [_ref(ref) for ref in cell.examples],
                }
                for cell in report.cooccurrence.cells
            ],
        },
        "tools": {
            "ranked": report.ranked,
            "no_fit": report.no_fit,
            "no_fit_share": None if share is None else round(share, 6),
        },
        "latency_us": [
            {
                "stage": stage.stage,
                "count": stage.count,
                "p50": round(stage.p50, 3),
                "p95": round(stage.p95, 3),
                "max": round(stage.max, 3),
                "mean": round(stage.mean, 3),
                "exact": stage.exact,
            }
            for stage in report.latency
        ],
        "limits": {"examples": report.examples, "top": report.top},
    }


def _change(change: Change) -> dict[str, Any]:
    return _ref(change.ref) | {"before": list(change.before), "after": list(change.after)}


def _comparison_data(comparison: Comparison) -> dict[str, Any]:
    a, b = comparison.a, comparison.b
    return {
        "kind": "routescope.compare",
        "version": REPORT_VERSION,
        "a": {"source": a.sources[0] if a.sources else None, "prompts": a.prompts},
        "b": {"source": b.sources[0] if b.sources else None, "prompts": b.prompts},
        "matched": comparison.matched,
        "changed": comparison.changed,
        "unchanged": comparison.unchanged,
        "only_a": _bar(comparison.only_a),
        "only_b": _bar(comparison.only_b),
        "prompt_differs": _bar(comparison.prompt_differs),
        "leaks": [
            {"rule": x.rule, "title": x.title, "a": x.count, "b": y.count}
            for x, y in zip(a.leaks, b.leaks, strict=True)
        ],
        "changes": [
            {
                "kind": group.kind,
                "title": group.title,
                "count": group.count,
                "share": round(group.share, 6),
                "approximate": group.approximate,
                "transitions": [
                    {
                        "label": t.label,
                        "count": t.count,
                        "examples": [_change(change) for change in t.examples],
                    }
                    for t in group.transitions
                ],
            }
            for group in comparison.groups
        ],
        "reports": {"a": _report_data(a), "b": _report_data(b)},
    }


def report_data(value: Report | Comparison) -> dict[str, Any]:
    """A report or a comparison as plain JSON data (what `report.json` holds)."""
    if isinstance(value, Comparison):
        return _comparison_data(value)
    return _report_data(value)
