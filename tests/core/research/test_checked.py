"""The model checked by the evidence (`_checked`): caps, disagreement, failures, refusals."""

from __future__ import annotations

import pytest

from routescope.llm import JsonAnswer
from routescope.optimise._goal_terms import goal_terms
from routescope.research._answers import Evaluation
from routescope.research._checked import CAP_MARGIN, checked_scores, refusal
from routescope.research._evidence import assess
from routescope.research._page_evidence import Source

GOAL = "copy a file with shutil"


def evidence(text: str) -> object:
    return assess(goal_terms(GOAL), [Source("https://a.org", "A page", text)])


def grade(relevance: float, coverage: float, retry: bool = False) -> Evaluation:
    return Evaluation(
        relevance=relevance, confidence=0.9, coverage=coverage, should_retry=retry, reasons="x"
    )


def test_a_sure_model_is_capped_at_what_the_pages_support_and_warned() -> None:
    weak = evidence("Weather in Lisbon and ferry timetables for the week ahead.")
    checked = checked_scores(grade(1.0, 1.0), weak)  # type: ignore[arg-type]
    assert checked.relevance <= weak.relevance + CAP_MARGIN  # type: ignore[attr-defined]
    assert checked.coverage <= weak.coverage + CAP_MARGIN  # type: ignore[attr-defined]
    assert checked.confidence == 0.9  # the model's own
    assert checked.note.startswith("the model's scores capped")
    assert checked.disagreement.startswith("the model and the pages disagree")


def test_a_model_the_pages_bear_out_is_left_alone() -> None:
    strong = evidence("Copy a file with shutil.copy: shutil copies the file and its mode.")
    checked = checked_scores(grade(0.8, 0.7), strong)  # type: ignore[arg-type]
    assert (checked.relevance, checked.coverage, checked.note) == (0.8, 0.7, "")
    assert checked.disagreement == ""


def test_without_a_grade_the_evidence_stands() -> None:
    strong = evidence("Copy a file with shutil.copy: shutil copies the file and its mode.")
    checked = checked_scores(None, strong, failure="timeout")  # type: ignore[arg-type]
    assert (checked.relevance, checked.coverage) == (
        strong.relevance,  # type: ignore[attr-defined]
        strong.coverage,  # type: ignore[attr-defined]
    )
    assert checked.note == "the model's grade failed (timeout): the evidence's grade stands"
    assert checked_scores(None, None).relevance == 0.0


def test_the_heuristic_model_is_its_own_evidence() -> None:
    weak = evidence("Weather in Lisbon.")
    checked = checked_scores(grade(1.0, 1.0), weak, heuristic=True)  # type: ignore[arg-type]
    assert (checked.relevance, checked.note) == (1.0, "")


@pytest.mark.parametrize(
    ("error", "detail", "said"),
    [
        ("http_401", "HTTP 401: bad key", "refused access (401)"),
        ("http_403", "HTTP 403", "refused access (403)"),
        ("http_402", "HTTP 402: payment required", "quota is used up (402)"),
        ("http_429", "HTTP 429: You exceeded your current quota", "quota is used up (429)"),
        ("http_429", "HTTP 429: slow down", None),
        ("timeout", "no answer within 60 s", None),
    ],
)
def test_refusals_are_access_and_quota_only(error: str, detail: str, said: str | None) -> None:
    found = refusal(JsonAnswer(None, error, detail))
    assert (found is None) if said is None else (found is not None and said in found)
    assert refusal(None) is None
