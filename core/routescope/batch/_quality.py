"""Quality against labels (issue 26): a labelled set joined to a results file by prompt and
scored (`routescope.judge`), for a batch's summary, a report's Quality section and the prompts a
comparison fixed or broke.

The labels come from `--labels FILE`, or from the batch's state: `batch --labels` records the
file (its absolute path and a digest of its bytes) there, so that `report` finds it. A recorded
file that is gone is a note, not an error; one that changed since is used, and said so."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import LabelsError, one_line
from .._files import read_bytes
from ._state import state_of

if TYPE_CHECKING:  # the judge and the results load the routers: a batch's driver needs neither
    from ..judge import LabelledCase, OutcomeScore
    from ._results import PromptRef, Result

__all__ = [
    "BatchQuality",
    "LabelsFile",
    "Quality",
    "QualityChange",
    "QualityChanges",
    "QualityDiff",
    "QualityTally",
    "batch_quality",
    "resolve_labels",
]


@dataclass(frozen=True, slots=True)
class LabelsFile:
    """A labelled set read from a file: its absolute path, a digest of its bytes, its cases."""

    path: str
    digest: str
    cases: tuple[LabelledCase, ...] = field(repr=False)

    @classmethod
    def read(cls, path: str | Path) -> LabelsFile:
        """Read and check the set (LabelsError: one line). A pipe is refused: a batch records
        the file for `report` to read again."""
        from ..judge import MAX_SET_BYTES, read_labelled

        data = read_bytes(
            path, what="labelled set", limit=MAX_SET_BYTES, error=LabelsError, streams=False
        )
        cases = read_labelled(path)
        digest = hashlib.sha256(data).hexdigest()[:16]
        return cls(str(Path(path).resolve()), digest, tuple(cases))

    def record(self) -> dict[str, str]:
        """What a batch's state keeps of it."""
        return {"path": self.path, "digest": self.digest}


@dataclass(frozen=True, slots=True)
class ResolvedLabels:
    """The labels a report scores with: given (`--labels`) or recorded by the batch."""

    labels: LabelsFile | None
    recorded: bool
    note: str | None
    """Why recorded labels are not used, or that they changed since the batch ran."""


def resolve_labels(results: Sequence[str | Path], given: str | Path | None) -> ResolvedLabels:
    """`given` (read now: LabelsError), else the labels the first of the `results` whose batch
    recorded some (a note when they cannot be read)."""
    if given is not None:
        return ResolvedLabels(LabelsFile.read(given), recorded=False, note=None)
    record: Mapping[str, str] | None = None
    for path in results:
        state = state_of(path)
        if state is not None and state.labels:
            record = state.labels
            break
    if record is None:
        return ResolvedLabels(None, recorded=False, note=None)
    try:
        labels = LabelsFile.read(record["path"])
    except LabelsError as exc:
        return ResolvedLabels(
            None,
            recorded=True,
            note=f"the labels the batch recorded cannot be read ({one_line(exc, 200)}): "
            "give --labels FILE",
        )
    changed = labels.digest != record.get("digest")
    note = f"{labels.path} changed since the batch recorded it" if changed else None
    return ResolvedLabels(labels, recorded=True, note=note)


# --- a report's quality ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Quality:
    """A results file scored against a labelled set. `score.whole` is the scorecard (its cells
    list case ids; a case joined twice is listed twice); `cases` the labelled cases by id;
    `refs` the first result each joined (where to find it)."""

    labels: str
    digest: str
    recorded: bool
    """The batch recorded the labels (else they were given to `report`)."""
    score: OutcomeScore
    cases: Mapping[str, LabelledCase]
    refs: Mapping[str, PromptRef]

    def prompt(self, case_id: str) -> str:
        from ._results import cut_prompt

        return cut_prompt(self.cases[case_id].prompt)


class QualityTally:
    """A report's streaming half of the join: results in, a `Quality` out."""

    def __init__(self, labels: LabelsFile, *, recorded: bool) -> None:
        from ..judge import OutcomeScorer

        self.labels = labels
        self.recorded = recorded
        self.scorer = OutcomeScorer(labels.cases, misses=False)
        self.refs: dict[str, PromptRef] = {}

    def add(self, result: Result) -> None:
        for case in self.scorer.add(result.outcome):
            self.refs.setdefault(case.id, result.ref)

    def result(self) -> Quality:
        return Quality(
            self.labels.path,
            self.labels.digest,
            self.recorded,
            self.scorer.score,
            {case.id: case for case in self.labels.cases},
            dict(self.refs),
        )


# --- what a comparison fixed and broke ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QualityChange:
    """One labelled field of one prompt that is right in one file and wrong in the other: what
    it is labelled, A's and B's value, the first result (A's place) and how many results."""

    case: str
    prompt: str
    field: str
    expected: object
    a: object
    b: object
    ref: PromptRef
    count: int


@dataclass(frozen=True, slots=True)
class QualityChanges:
    """The labelled fields B fixed (wrong in A, right in B) and broke (the reverse), one entry a
    case and field, in the order first met; `labels` the set's path."""

    labels: str
    fixed: tuple[QualityChange, ...]
    broken: tuple[QualityChange, ...]


class QualityDiff:
    """A comparison's matched prompts, each pair scored on both sides."""

    def __init__(self, labels: LabelsFile) -> None:
        from ..judge import OutcomeScorer

        self.labels = labels
        self.scorer = OutcomeScorer(labels.cases, misses=False)
        self.found: tuple[dict[tuple[str, str], QualityChange], ...] = ({}, {})

    def add(self, a: Result, b: Result) -> None:
        cases = self.scorer.cases_of(a.outcome.prompt)
        if not cases:
            return
        from ..judge import decided_value, expected_value, prediction_of_outcome, verdicts
        from ._results import cut_prompt

        decided_a = prediction_of_outcome(a.outcome)
        decided_b = prediction_of_outcome(b.outcome)
        for case in cases:
            in_b = verdicts(case, decided_b)
            for name, miss_a in verdicts(case, decided_a).items():
                if name not in in_b or (miss_a is None) == (in_b[name] is None):
                    continue
                side = self.found[0 if miss_a is not None else 1]
                key = (case.id, name)
                known = side.get(key)
                side[key] = QualityChange(
                    case.id,
                    cut_prompt(case.prompt),
                    name,
                    expected_value(case, name),
                    decided_value(decided_a, name),
                    decided_value(decided_b, name),
                    a.ref if known is None else known.ref,
                    1 if known is None else known.count + 1,
                )

    def result(self) -> QualityChanges:
        fixed, broken = (tuple(side.values()) for side in self.found)
        return QualityChanges(self.labels.path, fixed, broken)


# --- a batch's summary --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BatchQuality:
    """A finished batch's results scored against `--labels`: `labelled` cases in the set,
    `found` of them in the results, `joined` results scored; the headline figures (None where
    nothing was labelled or joined)."""

    labels: str
    digest: str
    labelled: int
    found: int
    joined: int
    macro_f1: float | None
    strategy_accuracy: float | None
    place_accuracy: float | None
    entity_precision: float | None
    entity_recall: float | None


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def batch_quality(results: Path, labels: LabelsFile) -> BatchQuality:
    """Score a batch's results file (read once more, streamed) against the labels."""
    from ..judge import OutcomeScorer
    from ._results import Result, records

    scorer = OutcomeScorer(labels.cases, misses=False)
    for record in records(results):
        if isinstance(record, Result):
            scorer.add(record.outcome)
    score = scorer.score
    card = score.whole
    return BatchQuality(
        labels.path,
        labels.digest,
        score.labelled,
        score.found,
        score.joined,
        _r(card.macro_f1),
        _r(card.strategy.accuracy),
        _r(card.place.accuracy),
        _r(card.entities.precision),
        _r(card.entities.recall),
    )
