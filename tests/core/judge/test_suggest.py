"""Suggestions: proposed by the tuning part's errors, measured by applying them, checked on the
held-out part and the guard cases."""

from __future__ import annotations

import datetime as dt

import pytest

from routescope.judge import LabelledCase, Labels, PackEdit, apply_edits, suggest
from routescope.rules import default_rules, default_rules_text, parse_rules
from routescope.rules._vocabularies import vocabulary

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


def test_a_vocabulary_edit_adds_the_words_its_list_lacks_and_says_so_in_the_pack() -> None:
    edit = PackEdit("add_vocabulary", "tech", "software-names")
    words = vocabulary("software-names").words
    assert edit.describe() == (
        f'add the vocabulary "software-names" ({len(words)} words) to intents.tech'
    )
    pack = edit.apply(default_rules())
    assert pack.intents.tech[:9] == default_rules().intents.tech  # kept, first
    assert set(words) <= set(pack.intents.tech)
    known = PackEdit("add_vocabulary", None, "software-names")
    assert known.target() == "entities.known" and known.keys() == [("entities", "known")]
    assert set(known.apply(default_rules()).entities.known) == set(words)
    text = edit.apply_text(default_rules_text())
    assert f"# suggest: {edit.describe()}" in text
    assert parse_rules(text).intents.tech == pack.intents.tech
    with pytest.raises(ValueError, match=r"not for intents\.local"):
        PackEdit("add_vocabulary", "local", "software-names").apply(default_rules())


def test_the_errors_propose_vocabularies_places_dates_and_question_words() -> None:
    cases = [
        case("v1", "how do I sort a list in python", "tune", tech=True),
        case("v2", "javascript closures explained", "tune", tech=True),
        case("v3", "a typescript generic type", "tune", tech=True),
        case(
            "p1", "book the next train ticket to Chennai", "tune", local=True, place_hint="Chennai"
        ),
        case("p2", "a bus to Boston tomorrow", "tune", local=True, place_hint="Boston"),
        case("p3", "a cab to Denver now", "tune", local=True, place_hint="Denver"),
        case("q1", "who were the first settlers in san antonio", "tune", place_hint=""),
        case("q2", "who founded the first school in paris", "tune", place_hint=""),
    ]
    pack = apply_edits(
        default_rules(), [PackEdit("lowercase_places"), PackEdit("local_preposition", value="in")]
    )
    found = {s.edit: s for s in suggest(cases, pack, limit=40)}
    names = found[PackEdit("add_vocabulary", "tech", "software-names")]
    assert set(names.tune.fixed) == {"v1", "v2", "v3"}
    to = found[PackEdit("place_preposition", value="to")]
    assert set(to.tune.fixed) >= {"p1", "p2", "p3"}
    who = found[PackEdit("topic_question", value="who")]
    assert set(who.tune.fixed) == {"q1", "q2"} and who.tune.broken == ()


def test_the_new_edit_kinds_change_their_keys_only() -> None:
    seed = default_rules()
    edits = {
        PackEdit("dated_year_window", value="-1..1"): lambda p: (
            p.intents.year_window == (-1, 1) and p.intents.date_is_time_sensitive
        ),
        PackEdit("date_time_sensitive"): lambda p: p.intents.date_is_time_sensitive,
        PackEdit("place_preposition", value="at"): lambda p: "at" in p.place.gazetteer_prepositions,
        PackEdit("near_preposition", value="close to"): lambda p: (
            "close to" in p.place.always_prepositions
        ),
        PackEdit("state_codes"): lambda p: p.place.state_codes,
        PackEdit("local_names"): lambda p: p.place.local_names,
        PackEdit("topic_question", value="who"): lambda p: p.place.topic_questions == ["who"],
    }
    for edit, holds in edits.items():
        edited = edit.apply(seed)
        assert holds(edited), edit
        assert edited.packs == seed.packs and edited.openclaw == seed.openclaw
        assert edit.describe() and edit.keys()
        text = edit.apply_text(default_rules_text())
        assert holds(parse_rules(text)) and f"# suggest: {edit.describe()}" in text


def test_a_phrase_from_names_is_not_proposed_as_an_intent_word() -> None:
    cases = [
        case("n1", "a hotel room from Los Angeles", "tune", time_sensitive=True),
        case("n2", "I am going to Los Angeles soon", "tune", time_sensitive=True),
        case("n3", "rooms near Los Angeles please", "tune", time_sensitive=True),
        case("n4", "any rooms in los angeles", "tune", time_sensitive=False),
    ]
    found = [s.edit for s in suggest(cases, default_rules(), limit=40)]
    proposed = {e.value for e in found if e.kind == "add_keyword"}
    assert not proposed & {"los", "angeles", "los angeles", "to los"}
