"""What a pack decided about a labelled case: an inspection's decision is the same one, with the
same evidence, as `predict` finds (the window judges the prompt it shows with it)."""

from __future__ import annotations

import datetime as dt

import pytest

import routescope
from routescope.judge import LabelledCase, Labels, predict, prediction_of_inspection
from routescope.rules import default_rules

TODAY = dt.date(2026, 11, 27)


@pytest.mark.parametrize(
    "prompt",
    [
        "Who was Mohammad Iqbal to the State of Pakistan?",
        "Find me a hair stylist in Fremont, CA",
        "How do I install FastAPI on Ubuntu this weekend?",
        "find where the retry decorator is defined in src/http/client.py",
        "pod CrashLoopBackOff how to fix",
    ],
)
def test_an_inspection_decides_what_predict_does(prompt: str) -> None:
    rules = default_rules()
    inspection = routescope.inspect(prompt, today=TODAY, rules=rules)
    expected = predict(LabelledCase("c", prompt, Labels(), TODAY), rules)
    assert prediction_of_inspection(inspection) == expected
    assert expected.evidence["strategy"] and expected.evidence["linter_class"]
