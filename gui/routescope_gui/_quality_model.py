"""The quality model: how good the request's rule pack is on the current judged set — the
judge's scorecard (`routescope.judge.score_set`, what `routescope score` prints for the set
exported), each case's decision with its evidence, and whether the linter's and the intents'
vocabularies fit the judged prompts at all.

Scoring runs in a worker lane, `QUALITY_DELAY_MS` after the pack or the set last changed (the
rule editor applies a pack as it is typed), and only while someone looks (`set_enabled`): what
changed meanwhile is scored when the Quality view is shown again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ._judged_work import JudgedSetWork

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.batch import VocabularyNote
    from routescope.judge import LabelledCase, Prediction, SetScore

__all__ = ["QUALITY_DELAY_MS", "Quality", "QualityModel", "measure"]

QUALITY_DELAY_MS = 300
"""The set is scored again once the pack and the set have not changed for this long."""


@dataclass(frozen=True, slots=True)
class Quality:
    """A pack's scores on a judged set, with what is needed to list the prompts of any cell.

    Attributes:
        set_name: the judged set; pack: the rule pack's name; score: the scorecard (whole set,
        and each part of a split one); cases: the labelled cases by id; decided: each case's
        decision (with its evidence) by id; notes: the vocabularies that do not fit the judged
        prompts; seconds: how long scoring took.
    """

    set_name: str
    pack: str
    score: SetScore
    cases: dict[str, LabelledCase]
    decided: dict[str, Prediction]
    notes: tuple[VocabularyNote, ...]
    seconds: float


def measure(set_name: str, cases: Sequence[LabelledCase], rules: RulesRef) -> Quality | None:
    """Score `rules` on the cases (None: no case); the work of a worker thread."""
    from routescope.batch import VocabularyTally
    from routescope.judge import predict_all, score_set

    if not cases:
        return None
    started = time.perf_counter()
    pack = rules.load()
    decided = predict_all(cases, pack)
    score = score_set(cases, pack, predictions=decided)
    tally = VocabularyTally()
    for prediction in decided:
        rule = prediction.evidence.get("linter_class", ())
        tally.add_decision(rule[0].rule if rule else None, any(prediction.flags.values()))
    return Quality(
        set_name=set_name,
        pack=pack.name,
        score=score,
        cases={case.id: case for case in cases},
        decided={case.id: p for case, p in zip(cases, decided, strict=True)},
        notes=tally.notes(),
        seconds=time.perf_counter() - started,
    )


class QualityModel(JudgedSetWork):
    """The current judged set scored under the request's pack.

    Attributes:
        result: the latest `Quality` (None: the set is empty or not scored yet).

    Signals:
        scoring: emitted with the set's name when scoring starts.
        scored: emitted with the `Quality` (None: the set has no judged prompt).
        failed: emitted with a one-line reason when the set cannot be scored.
    """

    scoring = Signal(str)
    scored = Signal(object)
    failed = Signal(str)

    def __init__(
        self,
        request: Callable[[], Request],
        judged: Callable[[], tuple[str, list[LabelledCase]]],
        *,
        delay_ms: int = QUALITY_DELAY_MS,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's request (its pack is scored); `judged` the current
        judged set's name and cases."""
        super().__init__(request, judged, delay_ms=delay_ms, parent=parent)
        self.result: Quality | None = None

    def score_now(self) -> None:
        """Score the set now (after the changes so far), even if it was scored as it is."""
        self.run_now()

    def _work(self, name: str, cases: list[LabelledCase], rules: RulesRef) -> Quality | None:
        return measure(name, cases, rules)

    def _started(self, name: str, cases: list[LabelledCase]) -> None:
        self.scoring.emit(name)

    def _finished(self, result: Quality | None) -> None:
        self.scored.emit(result)

    def _failed(self, message: str) -> None:
        self.failed.emit(message)
