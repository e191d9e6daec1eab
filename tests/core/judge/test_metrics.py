"""Scoring a pack on labelled cases: counts, ratios, confusion cells and evidence of misses."""

from __future__ import annotations

import datetime as dt

from routescope.judge import LabelledCase, Labels, normal_form, score_set
from routescope.rules import default_rules

TODAY = dt.date(2026, 11, 27)


def case(case_id: str, prompt: str, part: str | None = None, **labels: object) -> LabelledCase:
    extra = {"part": part} if part else {}
    return LabelledCase(case_id, prompt, Labels(**labels), TODAY, extra=extra)  # type: ignore[arg-type]


CASES = [
    case(
        "iqbal",
        "Who was Mohammad Iqbal to the State of Pakistan?",
        "tune",
        local=False,
        tech=False,
        troubleshooting=False,
        entities=("Mohammad Iqbal", "Pakistan"),
    ),
    case(
        "stylist",
        "Find me a hair stylist in Fremont, CA",
        "heldout",
        local=True,
        place_hint="Fremont, CA",
    ),
    case("pizza", "pizza near me", "tune", local=True, place_hint=""),
    case(
        "ramen",
        "ramen near Denver, Colorado",
        "heldout",
        local=True,
        place_hint="denver colorado",
        entities=("Denver", "Colorado"),
    ),
    case(
        "fastapi",
        "How do I install FastAPI?",
        "tune",
        local=False,
        tech=True,
        troubleshooting=False,
        entities=("FastAPI",),
    ),
]


def test_flag_cells_list_their_cases_and_ratios_follow_the_counts() -> None:
    card = score_set(CASES, default_rules()).whole
    local = card.flags["local"]
    assert local.tp == ["pizza", "ramen"] and local.fp == ["iqbal"] and local.fn == ["stylist"]
    assert local.tn == ["fastapi"]
    assert local.precision == local.recall == 2 / 3
    assert local.f1 == 4 / 6
    assert card.flags["tech"].f1 == 1.0 and card.flags["purchase"].f1 is None
    assert card.macro_f1 == (4 / 6 + 1.0) / 2


def test_strategy_confusion_place_and_entities() -> None:
    card = score_set(CASES, default_rules()).whole
    assert card.strategy.cells[("general", "local")] == ["iqbal"]
    assert card.strategy.cells[("local", "general")] == ["stylist"]
    assert card.strategy.accuracy == 3 / 5
    assert card.place.right == ["stylist", "ramen"] and card.place.wrong == []  # found, not local
    assert card.place_spurious.right == ["pizza"]
    assert (card.entities.tp, card.entities.fp, card.entities.fn) == (4, 1, 1)
    assert card.entities.precision == card.entities.recall == 4 / 5


def test_every_wrong_decision_carries_the_rule_and_span_that_fired() -> None:
    card = score_set(CASES, default_rules()).whole
    (iqbal,) = [m for m in card.misses if m.case == "iqbal" and m.field == "local"]
    (fired,) = iqbal.evidence
    assert fired.rule == 'local keyword "state"' and fired.text == "State"
    assert CASES[0].prompt[fired.start : fired.end] == "State"
    (stylist,) = [m for m in card.misses if m.case == "stylist" and m.field == "local"]
    assert stylist.evidence == ()  # nothing fired: a false negative shows no rule


def test_a_split_set_is_scored_per_part_too() -> None:
    result = score_set(CASES, default_rules())
    assert set(result.parts) == {"tune", "heldout"}
    assert result.parts["heldout"].cases == 2 and result.parts["tune"].cases == 3
    data = result.to_json()
    assert set(data["flags"]["local"]) >= {"precision", "recall", "f1", "tp", "fp", "fn"}  # type: ignore[index]
    assert data["strategy"]["accuracy"] == 0.6  # type: ignore[index]
    assert "misses" not in data["parts"]["tune"]  # type: ignore[index]


def test_normal_form_compares_places_as_written() -> None:
    assert normal_form("Fremont, CA") == normal_form("fremont ca") == "fremont ca"
    assert normal_form("São  Paulo") == "são paulo"
    assert normal_form("C++") == "c++"


def test_junk_and_missed_entities_are_listed_by_name() -> None:
    card = score_set(CASES, default_rules()).whole
    assert card.entities.junk == {"State of Pakistan": ["iqbal"]}
    assert card.entities.missed == {"Pakistan": ["iqbal"]}
