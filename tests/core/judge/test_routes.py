"""An expected route per external router in the labels, and its scorecard."""

from __future__ import annotations

import pytest

from routescope.external import ExternalDecision, ExternalFailure
from routescope.judge import LabelledCase, labels_from_mapping, score_routes


def _case(case_id: str, routes: dict[str, str]) -> LabelledCase:
    return LabelledCase(case_id, f"prompt {case_id}", labels_from_mapping({"routes": routes}))


def _decided(route: str | None, error: str | None = None) -> ExternalDecision:
    failure = None if error is None else ExternalFailure(kind=error, detail="x")  # type: ignore[arg-type]
    return ExternalDecision(router="r", kind="http", route=route, error=failure)


def test_labels_hold_a_route_per_router_and_refuse_other_shapes() -> None:
    labels = labels_from_mapping({"routes": {"r": "billing", "s": ""}, "tech": True})
    assert labels.expected_route("r") == "billing" and labels.expected_route("s") == ""
    assert labels.expected_route("t") is None
    assert labels.labelled() == {"tech": True, "routes": {"r": "billing", "s": ""}}
    with pytest.raises(ValueError, match="routes"):
        labels_from_mapping({"routes": ["billing"]})


def test_per_route_precision_recall_confusion_and_errors() -> None:
    cases = [
        _case("1", {"r": "a"}),
        _case("2", {"r": "a"}),
        _case("3", {"r": "b"}),
        _case("4", {"r": ""}),
        _case("5", {"r": "b"}),
        _case("6", {"other": "a"}),  # not labelled for r: not scored
    ]
    decided = [
        _decided("a"),
        _decided("b"),
        _decided("b"),
        _decided(None),
        _decided(None, "timeout"),
        _decided("a"),
    ]
    card = score_routes(cases, [("r", decided)])["r"]
    assert card.labelled == 5
    assert card.confusion.accuracy == pytest.approx(3 / 5)
    assert (card.per_route["a"].precision, card.per_route["a"].recall) == (1.0, 0.5)
    assert (card.per_route["b"].precision, card.per_route["b"].recall) == (0.5, 0.5)
    assert card.errors == {"timeout": ["5"]}
    assert card.confusion.cells[("b", "error: timeout")] == ["5"]
    assert {m.case for m in card.misses} == {"2", "5"}
