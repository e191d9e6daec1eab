"""The answer-path syntax, and a decision's record read back."""

from __future__ import annotations

import pytest

from routescope import RecordError
from routescope.external import ExternalDecision, ExternalFailure, parse_path

ANSWER = {
    "a": {"b": [{"c": 1}, {"c": 2}], "x.y": "dotted"},
    "list": [10, 20, 30],
    "scores": {"p": 0.1, "q": 0.9},
}


@pytest.mark.parametrize(
    ("path", "values"),
    [
        ("a.b[0].c", [1]),
        ("a.b[*].c", [1, 2]),
        ("list[-1]", [30]),
        ("scores.*", [0.1, 0.9]),
        ('a["x.y"]', ["dotted"]),
        ("a.missing", []),
        ("list[7]", []),
        (".", [ANSWER]),
    ],
)
def test_paths_find_their_values(path: str, values: list[object]) -> None:
    assert parse_path(path).values(ANSWER) == values


@pytest.mark.parametrize("path", ["a..b", "a.", "x[one]", "[", "a b", ""])
def test_unreadable_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError, match="path"):
        parse_path(path)


def test_a_decision_record_round_trips() -> None:
    decision = ExternalDecision(
        router="r",
        kind="http",
        route="a",
        score=0.1234567891,
        scores={"a": 0.5, "b": 0.25},
        error=None,
        latency_ms=12.345,
        raw="not kept",
    )
    record = decision.to_record()
    assert record == {
        "route": "a",
        "score": 0.123457,
        "scores": {"a": 0.5, "b": 0.25},
        "tools": None,
        "flags": None,
        "error": None,
        "latency_ms": 12.3,
    }
    back = ExternalDecision.from_record("r", record)
    assert back.route == "a" and back.scores == {"a": 0.5, "b": 0.25}
    failed = ExternalDecision(
        router="r", kind="http", error=ExternalFailure(kind="timeout", detail="late")
    )
    assert ExternalDecision.from_record("r", failed.to_record()).shown_route == "error: timeout"
    with pytest.raises(RecordError, match=r"routers\.r"):
        ExternalDecision.from_record("r", [1])
