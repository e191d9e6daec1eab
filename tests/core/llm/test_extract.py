"""Finding the JSON object in a model's reply (`routescope.llm._extract`) and the `Score` type."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from routescope.llm import Score
from routescope.llm._client import parse_json_answer
from routescope.llm._extract import extract_json_object, strip_reasoning


class Grade(BaseModel):
    relevance: Score
    confidence: Score
    coverage: Score
    should_retry: bool
    reasons: str


GOOD = (
    '{"relevance": 0.8, "confidence": 0.6, "coverage": 0.7, "should_retry": false, '
    '"reasons": "docs found"}'
)


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```\n",
        f"Here is the grade you asked for:\n{GOOD}\nHope this helps!",
        f'<think>The user wants {{a grade}}. Draft: {{"relevance": 0.1}}</think>\n{GOOD}',
        f"I should grade carefully {{maybe}}.</think>{GOOD}",  # opening tag missing
        f"Use {{ to open an object. {GOOD}",  # a stray brace in prose
        GOOD.replace('"docs found"}', '"docs found",}'),  # a trailing comma
    ],
)
def test_the_object_is_found_around_fences_thoughts_and_prose(text: str) -> None:
    answer = parse_json_answer(text, Grade)
    assert answer.error is None, answer.detail
    assert answer.value == Grade(
        relevance=0.8, confidence=0.6, coverage=0.7, should_retry=False, reasons="docs found"
    )


def test_braces_inside_strings_do_not_count() -> None:
    text = 'x {"reasons": "a } and a { and a \\" quote", "n": {"m": 1}} y'
    assert extract_json_object(text) == {"reasons": 'a } and a { and a " quote', "n": {"m": 1}}


def test_an_unclosed_thought_is_searched_when_nothing_else_is_left() -> None:
    assert strip_reasoning('<think>so {"a": 1}') == ""
    assert extract_json_object('<think>so {"a": 1}') == {"a": 1}
    assert strip_reasoning("a<think>b</think>c<think>d</think>e") == "ace"


def test_no_object_is_malformed() -> None:
    for text in ("", "no json here", "[1, 2]", "{not json}", "<think>{"):
        answer = parse_json_answer(text, Grade)
        assert answer.value is None
        assert answer.error == "malformed"


def test_wrong_types_are_a_schema_error() -> None:
    answer = parse_json_answer(GOOD.replace("0.8", '"very"'), Grade)
    assert answer.error == "schema"
    assert answer.detail.startswith("relevance:")


@pytest.mark.parametrize(
    ("given_value", "expected"),
    [(1.7, 1.0), (-0.2, 0.0), (0.84, 0.8), (0.86, 0.9), (1e308, 1.0), ("0.33", 0.3)],
)
def test_scores_are_clamped_and_rounded(given_value: object, expected: float) -> None:
    class One(BaseModel):
        score: Score

    assert One.model_validate({"score": given_value}).score == expected


def test_a_nan_score_is_invalid() -> None:
    answer = parse_json_answer(GOOD.replace("0.8", "NaN"), Grade)
    assert answer.error == "schema"
    assert "NaN" in answer.detail
    infinite = parse_json_answer(GOOD.replace("0.8", "Infinity"), Grade)
    assert infinite.value is not None
    assert infinite.value.relevance == 1.0


def test_deep_nesting_does_not_crash() -> None:
    text = '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"
    assert parse_json_answer(text, Grade).error == "malformed"  # too deep for the parser
    assert parse_json_answer("{" * 100_000, Grade).error == "malformed"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from('{}[]":,\\ ab01.<>/thinkTRUEfalse\n`'), max_size=200))
def test_any_text_gives_an_answer(text: str) -> None:
    answer = parse_json_answer(text, Grade)
    assert (answer.value is None) != (answer.error is None)
    if answer.value is not None:
        assert all(
            0 <= v <= 1 and not math.isnan(v)
            for v in (answer.value.relevance, answer.value.coverage)
        )
