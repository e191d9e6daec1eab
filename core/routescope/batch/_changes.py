"""Two results files over the same prompts (two rule packs over one log), read side by side:
the prompts whose routing changed, grouped by kind of change."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path, PurePath
from typing import Literal

from .._errors import ResultsError
from .._outcome import Outcome
from ._figures import LABEL_CAPACITY, Bar, RefTally, Tally, intent_key
from ._quality import QualityChanges, QualityDiff, QualityTally, resolve_labels
from ._report import NO_CONTRACT, NONE_LABEL, Report, ReportBuilder, tool_label
from ._results import PromptRef, Result, records

__all__ = [
    "Change",
    "ChangeGroup",
    "ChangeKind",
    "ResultsComparison",
    "Transition",
    "compare_results",
]

PENDING_LIMIT = 100_000
"""Comparing: prompts of one file waiting for their match in the other; past this, the oldest
one waiting counts as missing from the other file."""

# ----------------------------------------------------------------

ChangeKind = Literal["strategy", "intents", "lint_class", "agent", "mode", "top_tool", "queries"]
_KINDS: tuple[tuple[ChangeKind, str], ...] = (
    ("strategy", "Strategy"),
    ("intents", "Intent flags"),
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
class ResultsComparison:
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
    quality_changes: QualityChanges | None = None
    """With labels: the labelled fields of matched prompts B fixed and broke."""

    @property
    def unchanged(self) -> int:
        return self.matched - self.changed

    def group(self, kind: ChangeKind) -> ChangeGroup:
        return next(group for group in self.groups if group.kind == kind)


def _values(outcome: Outcome) -> tuple[str, str, str, str, str, str]:
    """One prompt's routing in the order of `_KINDS` (the queries apart)."""
    tool = tool_label(outcome) if outcome.ranked else "(not ranked)"
    return (
        outcome.strategy,
        " + ".join(sorted(outcome.intents, key=intent_key)) or NONE_LABEL,
        outcome.lint_class,
        outcome.agent or NO_CONTRACT,
        outcome.mode or NO_CONTRACT,
        tool,
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
    def __init__(self, examples: int, capacity: int, quality: QualityDiff | None = None) -> None:
        self.examples = examples
        self.quality = quality
        self.matched = 0
        self.changed = 0
        self.groups: dict[ChangeKind, Tally[Change]] = {
            kind: Tally(examples, capacity) for kind, _ in _KINDS
        }
        self.counts = dict.fromkeys(self.groups, 0)
        self.only = [RefTally(examples), RefTally(examples)]
        self.differs = RefTally(examples)
        self.pending: tuple[dict[tuple[str, int], list[Result]], ...] = ({}, {})
        self.waiting = [0, 0]

    def offer(self, side: int, result: Result) -> None:
        key = _place(result.ref)
        other = _take(self.pending[1 - side], key, result.ref.source)
        if other is not None:
            self.waiting[1 - side] -= 1
            a, b = (other, result) if side == 1 else (result, other)
            self.compare(a, b)
            return
        waiting = self.pending[side].setdefault(key, [])
        for index, earlier in enumerate(waiting):
            if earlier.ref.source == result.ref.source:  # the same prompt twice in one file:
                self.only[side].add("", waiting.pop(index).ref)  # the first has no match
                self.waiting[side] -= 1
                break
        waiting.append(result)
        self.waiting[side] += 1
        if self.waiting[side] > PENDING_LIMIT:
            self._drop_oldest(side)

    def _drop_oldest(self, side: int) -> None:
        pending = self.pending[side]
        key = next(iter(pending))
        self.only[side].add("", pending[key].pop(0).ref)
        if not pending[key]:
            del pending[key]
        self.waiting[side] -= 1

    def compare(self, a: Result, b: Result) -> None:
        if a.outcome.prompt != b.outcome.prompt:
            self.differs.add("", a.ref)
            return
        self.matched += 1
        if self.quality is not None:
            self.quality.add(a, b)
        changed = False
        values_a, values_b = _values(a.outcome), _values(b.outcome)
        for (kind, _), before, after in zip(_KINDS, values_a, values_b, strict=False):
            if before != after:
                changed = True
                self.counts[kind] += 1
                self.groups[kind].add(f"{before} → {after}", Change(a.ref, (before,), (after,)))
        queries_a, queries_b = a.outcome.queries, b.outcome.queries
        how = _queries_change(queries_a, queries_b)
        if how is not None:
            changed = True
            self.counts["queries"] += 1
            before, after = values_a[0], values_b[0]
            strategy = before if before == after else f"{before} → {after}"
            label = f"{how} ({strategy})"
            self.groups["queries"].add(label, Change(a.ref, queries_a, queries_b))
        self.changed += changed

    def finish(self) -> None:
        for side in (0, 1):
            for waiting in self.pending[side].values():
                for result in waiting:
                    self.only[side].add("", result.ref)
            self.pending[side].clear()

    def result(self, a: Report, b: Report) -> ResultsComparison:
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
        return ResultsComparison(
            a=a,
            b=b,
            matched=self.matched,
            changed=self.changed,
            groups=tuple(groups),
            only_a=_missing("only in A", self.only[0], a.prompts),
            only_b=_missing("only in B", self.only[1], b.prompts),
            prompt_differs=_missing("prompt differs", self.differs, a.prompts),
            quality_changes=None if self.quality is None else self.quality.result(),
        )


def _place(ref: PromptRef) -> tuple[str, int]:
    """Where a prompt was, as two runs over one log agree on it whatever the folder each ran
    from: its file's name and its line (the rest of the path is checked by `_same_file`)."""
    return PurePath(ref.source).name, ref.line


def _same_file(one: str, other: str) -> bool:
    """The same input file named two ways: one path is the other's tail (`logs/a.jsonl` and
    `/home/me/logs/a.jsonl`; `./a.jsonl` and `a.jsonl`)."""
    first = [p for p in PurePath(one).parts if p not in (".", "/")]
    second = [p for p in PurePath(other).parts if p not in (".", "/")]
    shorter, longer = sorted((first, second), key=len)
    return longer[len(longer) - len(shorter) :] == shorter


def _take(
    pending: dict[tuple[str, int], list[Result]], key: tuple[str, int], source: str
) -> Result | None:
    """The waiting result of the same file and line, taken out of `pending`."""
    waiting = pending.get(key)
    if not waiting:
        return None
    for index, result in enumerate(waiting):
        if _same_file(result.ref.source, source):
            found = waiting.pop(index)
            if not waiting:
                del pending[key]
            return found
    return None


def _missing(label: str, tally: Tally[PromptRef], total: int) -> Bar:
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
    labels: str | Path | None = None,
) -> ResultsComparison:
    """Compare two results files over the same prompts (e.g. two rule packs over one log),
    read side by side in one pass: prompts are matched by input file and line (the file named
    the same way or not: `logs/a.jsonl` is `/home/me/logs/a.jsonl`), files in the same order
    match with no memory to speak of. `labels`: a labelled set (default: the one A's batch
    recorded, else B's): both reports are scored, and the labelled fields B fixes and breaks
    listed. Raises ResultsError, also when no prompt matches; LabelsError for bad labels."""
    paths = (Path(a), Path(b))
    found = resolve_labels(paths, labels)
    known = found.labels
    builders = [
        ReportBuilder(
            examples=examples,
            top=top,
            leak_examples=leak_examples,
            sources=(str(path),),
            quality=None if known is None else QualityTally(known, recorded=found.recorded),
            notes=() if found.note is None else (found.note,),
        )
        for path in paths
    ]
    comparer = _Comparer(examples, capacity, None if known is None else QualityDiff(known))
    lines = [0, 0]
    for pair in zip_longest(records(paths[0]), records(paths[1])):
        for side, record in enumerate(pair):
            if record is None:
                continue
            lines[side] += 1
            builders[side].add_record(record)
            if isinstance(record, Result):
                comparer.offer(side, record)
    for side, path in enumerate(paths):
        if not lines[side]:
            raise ResultsError(f"{path}: no results in it (expected one JSON object per line)")
    comparer.finish()
    if not comparer.matched and not comparer.differs.added:
        raise ResultsError(
            f"{paths[0]} and {paths[1]}: no prompt of one is in the other (matched by input "
            "file and line): compare the results of one log under two rule packs"
        )
    return comparer.result(builders[0].report(), builders[1].report())
