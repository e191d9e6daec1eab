"""Score a rule pack on a labelled set: predict every case, then count (see `_metrics`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..rules import RulePack
from ._labels import LabelledCase
from ._metrics import Scorecard, SetScore, score
from ._predict import Prediction, predict

if TYPE_CHECKING:
    from ..toolsearch import ToolSearch

__all__ = ["predict_all", "score_set"]


def predict_all(
    cases: Sequence[LabelledCase], rules: RulePack, tools: ToolSearch | None = None
) -> list[Prediction]:
    """The pack's decision on every case, in order."""
    return [predict(case, rules, tools) for case in cases]


def score_set(
    cases: Sequence[LabelledCase],
    rules: RulePack,
    tools: ToolSearch | None = None,
    *,
    predictions: Sequence[Prediction] | None = None,
) -> SetScore:
    """The pack's scorecard on the whole set and on each part of a split set (`part`)."""
    decided = list(predictions) if predictions is not None else predict_all(cases, rules, tools)
    pairs = list(zip(cases, decided, strict=True))
    parts: dict[str, Scorecard] = {}
    for name in sorted({case.part for case in cases if case.part is not None}):
        parts[name] = score(pair for pair in pairs if pair[0].part == name)
    return SetScore(pack=rules.name, whole=score(pairs), parts=parts)
