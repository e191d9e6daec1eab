"""Suggestions: proposed by the tuning part's errors, measured by applying them, checked on the
held-out part and the guard cases."""

from __future__ import annotations

import datetime as dt

from routescope.judge import LabelledCase, Labels, PackEdit, apply_edits, suggest
from routescope.rules import default_rules

TODAY = dt.date(2026, 11, 27)
FLAGS = {"local": False, "tech": False, "troubleshooting": False, "purchase": False}


def case(case_id: str, prompt: str, part: str, **labels: object) -> LabelledCase:
    merged = {**FLAGS, "time_sensitive": False, **labels}
    return LabelledCase(case_id, prompt, Labels(**merged), TODAY, extra={"part": part})  # type: ignore[arg-type]


TUNE = [
    case("t1", "Who was Iqbal to the State of Pakistan?", "tune"),
    case("t2", "the State of Texas and its history", "tune"),
    case("t3", "How does the state of matter change?", "tune"),
    case("t4", "state parks with camping", "tune", local=True),
    case("t5", "how do I write a sql join", "tune", tech=True),
    case("t6", "sql query for the top rows", "tune", tech=True),
    case("t7", "sql group by two columns", "tune", tech=True),
]
HELD = [
    case("h1", "the state of the union in 1990", "heldout"),
    case("h2", "a sql index on a date column", "heldout", tech=True),
]


def test_the_errors_propose_edits_whose_gain_is_measured_and_checked() -> None:
    found = suggest([*TUNE, *HELD], default_rules(), limit=10)
    described = {s.edit.describe(): s for s in found}
    sql = described['add "sql" to intents.tech']
    assert sql.tune.fixed == ("t5", "t6", "t7") and sql.tune.broken == ()
    assert sql.heldout is not None and sql.heldout.fixed == ("h2",) and sql.holds
    state = described['suspend intents.local inside "the state"']
    assert set(state.tune.fixed) >= {"t1", "t2", "t3"} and state.tune.broken == ()
    assert all(s.tune.gain > 0 for s in found)


def test_an_edit_that_breaks_a_guard_case_is_marked_and_ranked_last() -> None:
    guard = case("seed-local-state", "state parks with camping", "tune", local=True)
    found = suggest([*TUNE, *HELD], default_rules(), guards=[guard], limit=20)
    dropped = [s for s in found if s.edit == PackEdit("drop_keyword", "local", "state")]
    assert dropped and dropped[0].guards_broken == ("seed-local-state",)
    assert not dropped[0].holds and found[-1].holds is False


def test_applied_edits_change_the_pack_and_nothing_else() -> None:
    pack = apply_edits(
        default_rules(),
        [PackEdit("add_keyword", "tech", "sql"), PackEdit("year_window", value="-1..1")],
    )
    assert "sql" in pack.intents.tech and pack.intents.year_window == (-1, 1)
    assert pack.packs == default_rules().packs and "sql" not in default_rules().intents.tech
