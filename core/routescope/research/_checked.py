"""The model checked by the evidence (issue 27 §4): whatever grades an attempt, the pages'
evidence (`_evidence.assess`) has the last word on what they support.

- `checked_scores`: a model's relevance and coverage are capped at what the pages support plus
  `CAP_MARGIN` (its confidence is its own); a model that says much more or much less than the
  evidence (more than `DISAGREEMENT` apart) is flagged, and the result warns.
- When the model fails to grade (a timeout, a malformed answer, the run's deadline), the
  evidence's grade stands: what was read is never thrown away.
- `refusal`: an answer that says the model refused access (401, 403) or its quota is used up
  (402, or 429 with `insufficient_quota`) — another query or run will fail alike, so the run
  stops and escalates with the reason.

Pure functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..llm import JsonAnswer
from ._answers import Evaluation
from ._evidence import AttemptEvidence

__all__ = ["CAP_MARGIN", "DISAGREEMENT", "Checked", "checked_scores", "refusal"]

CAP_MARGIN = 0.1
"""A model may say this much more than the pages support (it reads them whole), no more."""
DISAGREEMENT = 0.3
"""A model and the evidence further apart than this on relevance or coverage disagree:
warned."""


@dataclass(frozen=True, slots=True)
class Checked:
    """An attempt's scores after the check, and what the check said."""

    relevance: float
    confidence: float
    coverage: float
    should_retry: bool
    note: str = ""
    """Why the scores are not the model's (capped, failed), "" when they are."""
    disagreement: str = ""
    """The model and the evidence disagree (one sentence), "" when they do not."""


def _cap(model: float, evidence: float) -> float:
    return round(min(model, min(1.0, evidence + CAP_MARGIN)), 2)


def checked_scores(
    evaluation: Evaluation | None,
    evidence: AttemptEvidence | None,
    *,
    failure: str = "",
    heuristic: bool = False,
) -> Checked:
    """The scores an attempt keeps: the model's, capped by the evidence; the evidence's when
    the model gave none (`failure` says why); the heuristic model's as they are (it grades by
    the evidence)."""
    if evaluation is None:
        if evidence is None:
            return Checked(0.0, 0.0, 0.0, True, failure)
        note = f"the model's grade failed ({failure or 'no answer'}): the evidence's grade stands"
        return Checked(
            evidence.relevance,
            evidence.confidence,
            evidence.coverage,
            evidence.should_retry,
            note,
        )
    if evidence is None or heuristic:
        return Checked(
            evaluation.relevance,
            evaluation.confidence,
            evaluation.coverage,
            evaluation.should_retry,
        )
    relevance = _cap(evaluation.relevance, evidence.relevance)
    coverage = _cap(evaluation.coverage, evidence.coverage)
    confidence = evaluation.confidence  # the model's own certainty: its to lower, not ours
    capped = (relevance, coverage) != (evaluation.relevance, evaluation.coverage)
    note = (
        f"the model's scores capped at what the pages support (+{CAP_MARGIN:g}): relevance "
        f"{evaluation.relevance:.1f}→{relevance:.1f}, coverage {evaluation.coverage:.1f}→"
        f"{coverage:.1f}"
        if capped
        else ""
    )
    apart = max(
        abs(evaluation.relevance - evidence.relevance),
        abs(evaluation.coverage - evidence.coverage),
    )
    disagreement = (
        f"the model and the pages disagree: the model says relevance "
        f"{evaluation.relevance:.1f} / coverage {evaluation.coverage:.1f}, the pages support "
        f"{evidence.relevance:.1f} / {evidence.coverage:.1f}"
        if round(apart, 2) > DISAGREEMENT
        else ""
    )
    retry = evaluation.should_retry or (capped and evidence.should_retry)
    return Checked(relevance, confidence, coverage, retry, note, disagreement)


_AUTH = {"http_401": "401", "http_403": "403"}


def refusal(answer: JsonAnswer[Any] | None) -> str | None:
    """Why the model will not answer any call of this run — access refused or quota used up —
    in one sentence, or None."""
    if answer is None or answer.ok or not answer.error:
        return None
    detail = f"{answer.detail} {answer.raw}".lower()
    if answer.error in _AUTH:
        return (
            f"the model refused access ({_AUTH[answer.error]}): check its key "
            "(OPENAI_API_KEY or the stored key)"
        )
    if answer.error == "http_402" or (
        answer.error == "http_429" and ("quota" in detail or "billing" in detail)
    ):
        status = answer.error.removeprefix("http_")
        return f"the model's quota is used up ({status}): more research fails alike until it is"
    return None
