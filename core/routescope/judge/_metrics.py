"""How good a rule pack is on a labelled set: per flag precision, recall and F1 with counts,
macro-F1, the strategy confusion matrix, place-hint accuracy, entity precision and recall, the
linter's class confusion, the contract's agent and mode, the tool search's first tool. Every
cell lists its cases, and every wrong decision keeps its evidence.

Conventions: precision (recall) is null when nothing was predicted (labelled) positive; F1 is 0
when there were positives but none was found, null when the flag is never positive in the set
and never predicted; macro-F1 averages the flags whose F1 is defined.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..rules import INTENTS, IntentName
from ._labels import LabelledCase, normal_form
from ._predict import Evidence, Prediction

__all__ = [
    "Confusion",
    "FieldAccuracy",
    "FlagScore",
    "Miss",
    "Scorecard",
    "SetScore",
    "score",
    "verdicts",
]


FIELD_ORDER: tuple[str, ...] = (
    *INTENTS,
    "strategy",
    "place_hint",
    "entities",
    "linter_class",
    "agent",
    "mode",
    "top_tool",
)
"""The fields a label can check, in the order a scorecard lists them."""


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _r(value: float | None) -> float | None:
    """A figure as JSON gives it: four decimals."""
    return None if value is None else round(value, 4)


@dataclass(slots=True)
class FlagScore:
    """One intent flag over the cases that label it; each cell lists its case ids."""

    tp: list[str] = field(default_factory=list)
    fp: list[str] = field(default_factory=list)
    fn: list[str] = field(default_factory=list)
    tn: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float | None:
        return _ratio(len(self.tp), len(self.tp) + len(self.fp))

    @property
    def recall(self) -> float | None:
        return _ratio(len(self.tp), len(self.tp) + len(self.fn))

    @property
    def f1(self) -> float | None:
        tp, wrong = len(self.tp), len(self.fp) + len(self.fn)
        if tp == 0:
            return 0.0 if wrong else None
        return 2 * tp / (2 * tp + wrong)

    @property
    def labelled(self) -> int:
        return len(self.tp) + len(self.fp) + len(self.fn) + len(self.tn)

    def to_json(self) -> dict[str, object]:
        return {
            "precision": _r(self.precision),
            "recall": _r(self.recall),
            "f1": _r(self.f1),
            "tp": len(self.tp),
            "fp": len(self.fp),
            "fn": len(self.fn),
            "tn": len(self.tn),
            "labelled": self.labelled,
            "cases": {"tp": self.tp, "fp": self.fp, "fn": self.fn},
        }


@dataclass(slots=True)
class Confusion:
    """Expected class × decided class, each cell its case ids."""

    cells: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def add(self, expected: str, got: str, case_id: str) -> None:
        self.cells.setdefault((expected, got), []).append(case_id)

    @property
    def labelled(self) -> int:
        return sum(len(ids) for ids in self.cells.values())

    @property
    def accuracy(self) -> float | None:
        right = sum(len(ids) for (expected, got), ids in self.cells.items() if expected == got)
        return _ratio(right, self.labelled)

    def to_json(self) -> dict[str, object]:
        matrix: dict[str, dict[str, int]] = {}
        for (expected, got), ids in sorted(self.cells.items()):
            matrix.setdefault(expected, {})[got] = len(ids)
        return {
            "accuracy": _r(self.accuracy),
            "labelled": self.labelled,
            "matrix": matrix,
            "cases": {f"{e}>{g}": ids for (e, g), ids in sorted(self.cells.items())},
        }


@dataclass(slots=True)
class FieldAccuracy:
    """A field matched exactly (a place in its normal form): right and wrong case ids."""

    right: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float | None:
        return _ratio(len(self.right), len(self.right) + len(self.wrong))

    def to_json(self) -> dict[str, object]:
        return {
            "accuracy": _r(self.accuracy),
            "labelled": len(self.right) + len(self.wrong),
            "correct": len(self.right),
            "cases": {"wrong": self.wrong},
        }


@dataclass(slots=True)
class EntityScore:
    """Entities over the cases that label them, micro-averaged over names."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    cases: int = 0
    junk: dict[str, list[str]] = field(default_factory=dict)
    """Names decided but not labelled, with their cases (the stopword candidates)."""
    missed: dict[str, list[str]] = field(default_factory=dict)

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    def to_json(self) -> dict[str, object]:
        return {
            "precision": _r(self.precision),
            "recall": _r(self.recall),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "labelled": self.cases,
        }


@dataclass(frozen=True, slots=True)
class Miss:
    """One wrong decision: the case, the field, what was expected and decided, and why."""

    case: str
    prompt: str
    field: str
    expected: object
    got: object
    evidence: tuple[Evidence, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "case": self.case,
            "prompt": self.prompt,
            "field": self.field,
            "expected": self.expected,
            "got": self.got,
            "evidence": [item.to_json() for item in self.evidence],
        }


@dataclass(slots=True)
class Scorecard:
    """Every metric of one pack on one set of labelled cases."""

    cases: int = 0
    flags: dict[IntentName, FlagScore] = field(
        default_factory=lambda: {name: FlagScore() for name in INTENTS}
    )
    strategy: Confusion = field(default_factory=Confusion)
    place: FieldAccuracy = field(default_factory=FieldAccuracy)
    place_spurious: FieldAccuracy = field(default_factory=FieldAccuracy)
    """Cases labelled "no place named": right when no place was decided."""
    entities: EntityScore = field(default_factory=EntityScore)
    linter: Confusion = field(default_factory=Confusion)
    agent: FieldAccuracy = field(default_factory=FieldAccuracy)
    mode: FieldAccuracy = field(default_factory=FieldAccuracy)
    top_tool: FieldAccuracy = field(default_factory=FieldAccuracy)
    misses: list[Miss] = field(default_factory=list)

    @property
    def macro_f1(self) -> float | None:
        scores = [s.f1 for s in self.flags.values() if s.f1 is not None]
        return sum(scores) / len(scores) if scores else None

    def add(self, case: LabelledCase, decided: Prediction) -> None:
        """Count one decision against its labels (a wrong field is a `Miss`)."""
        self.cases += 1
        _score_flags(self, case, decided)
        _score_strategy(self, case, decided)
        _score_place(self, case, decided)
        _score_entities(self, case, decided)
        _score_exact(self, case, decided)

    def scored_fields(self) -> list[str]:
        """The fields this card scored at least once, in the guide's order."""
        counted = {
            **{name: cell.labelled for name, cell in self.flags.items()},
            "strategy": self.strategy.labelled,
            "place_hint": sum(
                len(cell.right) + len(cell.wrong) for cell in (self.place, self.place_spurious)
            ),
            "entities": self.entities.cases,
            "linter_class": self.linter.labelled,
            **{
                name: len(cell.right) + len(cell.wrong)
                for name, cell in (("agent", self.agent), ("mode", self.mode))
            },
            "top_tool": len(self.top_tool.right) + len(self.top_tool.wrong),
        }
        return [name for name in FIELD_ORDER if counted[name]]

    def to_json(self, *, misses: bool = True) -> dict[str, object]:
        """The card as JSON; `misses=False` leaves the list of wrong decisions out."""
        data = self._figures()
        if misses:
            data["misses"] = [miss.to_json() for miss in self.misses]
        return data

    def _figures(self) -> dict[str, object]:
        return {
            "cases": self.cases,
            "flags": {name: score.to_json() for name, score in self.flags.items()},
            "macro_f1": _r(self.macro_f1),
            "strategy": self.strategy.to_json(),
            "place": {
                **self.place.to_json(),
                "no_place": self.place_spurious.to_json(),
            },
            "entities": self.entities.to_json(),
            "linter": self.linter.to_json(),
            "agent": self.agent.to_json(),
            "mode": self.mode.to_json(),
            "top_tool": self.top_tool.to_json(),
        }


@dataclass(frozen=True, slots=True)
class SetScore:
    """A scorecard for the whole set and one per part (`tune`, `heldout`) when it is split."""

    pack: str
    whole: Scorecard
    parts: dict[str, Scorecard]

    def to_json(self) -> dict[str, object]:
        return {
            "pack": self.pack,
            **self.whole.to_json(),
            "parts": {name: card.to_json(misses=False) for name, card in self.parts.items()},
        }


def score(judged: Iterable[tuple[LabelledCase, Prediction]]) -> Scorecard:
    """The scorecard of decisions against their labels."""
    card = Scorecard()
    for case, decided in judged:
        card.add(case, decided)
    return card


def verdicts(case: LabelledCase, decided: Prediction) -> dict[str, Miss | None]:
    """Each field the case labels and the decision holds: None when it is right, else its
    `Miss` (what was expected and decided, and why)."""
    card = Scorecard()
    card.add(case, decided)
    wrong = {miss.field: miss for miss in card.misses}
    return {name: wrong.get(name) for name in card.scored_fields()}


def _miss(
    card: Scorecard,
    case: LabelledCase,
    name: str,
    expected: object,
    got: object,
    why: Sequence[Evidence],
) -> None:
    card.misses.append(Miss(case.id, case.prompt, name, expected, got, tuple(why)))


def _score_flags(card: Scorecard, case: LabelledCase, decided: Prediction) -> None:
    for name in INTENTS:
        expected = case.labels.flag(name)
        if expected is None:
            continue
        got = decided.flags[name]
        cell = card.flags[name]
        if expected and got:
            cell.tp.append(case.id)
        elif got:
            cell.fp.append(case.id)
        elif expected:
            cell.fn.append(case.id)
        else:
            cell.tn.append(case.id)
        if expected != got:
            _miss(card, case, name, expected, got, decided.evidence.get(name, ()))


def _score_strategy(card: Scorecard, case: LabelledCase, decided: Prediction) -> None:
    expected = case.labels.expected_strategy()
    if expected is None:
        return
    card.strategy.add(expected, decided.strategy, case.id)
    if expected != decided.strategy:
        _miss(
            card, case, "strategy", expected, decided.strategy, decided.evidence.get("strategy", ())
        )


def _score_place(card: Scorecard, case: LabelledCase, decided: Prediction) -> None:
    expected = case.labels.place_hint
    if expected is None:
        return
    got = decided.place_hint
    why = decided.evidence.get("place_hint", ())
    if expected == "":
        (card.place_spurious.right if got is None else card.place_spurious.wrong).append(case.id)
        if got is not None:
            _miss(card, case, "place_hint", None, got, why)
        return
    right = got is not None and normal_form(got) == normal_form(expected)
    (card.place.right if right else card.place.wrong).append(case.id)
    if not right:
        _miss(card, case, "place_hint", expected, got, why)


def _score_entities(card: Scorecard, case: LabelledCase, decided: Prediction) -> None:
    expected = case.labels.entities
    if expected is None:
        return
    scores = card.entities
    scores.cases += 1
    wanted = {normal_form(name): name for name in expected}
    found = {normal_form(name): name for name in decided.entities}
    hits = wanted.keys() & found.keys()
    scores.tp += len(hits)
    junk = [found[k] for k in found.keys() - hits]
    missed = [wanted[k] for k in wanted.keys() - hits]
    scores.fp += len(junk)
    scores.fn += len(missed)
    for name in junk:
        scores.junk.setdefault(name, []).append(case.id)
    for name in missed:
        scores.missed.setdefault(name, []).append(case.id)
    if junk or missed:
        why = [e for e in decided.evidence.get("entities", ()) if normal_form(e.text) not in hits]
        _miss(card, case, "entities", sorted(missed), sorted(junk), why)


def _score_exact(card: Scorecard, case: LabelledCase, decided: Prediction) -> None:
    labels = case.labels
    if decided.strategy_only:
        return
    if labels.linter_class is not None and "linter_class" not in decided.unscored:
        card.linter.add(labels.linter_class, decided.linter_class, case.id)
        if labels.linter_class != decided.linter_class:
            why = decided.evidence["linter_class"]
            _miss(card, case, "linter_class", labels.linter_class, decided.linter_class, why)
    for name, expected, got in (
        ("agent", labels.agent, decided.agent),
        ("mode", labels.mode, decided.mode),
        ("top_tool", labels.top_tool, decided.top_tool),
    ):
        if expected is None or name in decided.unscored:
            continue
        if name == "top_tool" and not decided.ranked_tools:
            continue
        accuracy: FieldAccuracy = getattr(card, name)
        (accuracy.right if expected == got else accuracy.wrong).append(case.id)
        if expected != got:
            _miss(card, case, name, expected, got, ())
