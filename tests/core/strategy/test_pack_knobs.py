"""The pack's knobs beyond the seed (exceptions, a year window, entity stopwords and known
names, lower-case places): off in the built-in pack, each with its evidence when on."""

from __future__ import annotations

import datetime as dt

import pytest

from routescope.rules import RulePack, default_rules, parse_rules
from routescope.strategy import extract

TODAY = dt.date(2026, 11, 27)
PACK = """
name = "knobs"
[intents]
tech = ["install"]
local = ["near me", "state"]
purchase = ["review"]
troubleshooting = ["fix"]
time_sensitive = ["today"]
year_window = [-1, 1]
exceptions = { local = ["state of"], purchase = ["post review"] }
[entities]
stopwords = ["dd", "mm", "yyyy", "today"]
known = ["fastapi", "excel"]
[place]
lowercase = true
geonames = true
local_intent_prepositions = ["near", "around", "in"]
not_places = ["mobile"]
[openclaw]
queries = ["site:docs.openclaw.ai OpenClaw"]
"""


@pytest.fixture(scope="module")
def pack() -> RulePack:
    return parse_rules(PACK)


def flags(text: str, rules: RulePack) -> set[str]:
    intent = extract(text, rules, TODAY).intent
    names = ("tech", "local", "purchase", "troubleshooting", "time_sensitive")
    return {name for name in names if getattr(intent, name)}


def test_an_exception_phrase_suspends_its_intent_s_keyword_only(pack: RulePack) -> None:
    assert flags("Iqbal and the State of Pakistan", pack) == set()
    assert flags("state parks with camping", pack) == {"local"}
    assert flags("Post review, organize the lines", pack) == set()
    assert flags("a review of the new phone", pack) == {"purchase"}
    assert flags("Iqbal and the State of Pakistan", default_rules()) == {"local"}


def test_a_year_window_counts_only_years_near_today(pack: RulePack) -> None:
    assert flags("Would a 1996 leap-year baby be 1 in 2000?", pack) == set()
    context = extract("2026 tax rules", pack, TODAY)
    assert context.intent.time_sensitive
    (match,) = context.intent_matches
    assert match.keyword == "year 2025–2027" and match.text == "2026"
    assert flags("Would a 1996 leap-year baby be 1 in 2000?", default_rules()) == {"time_sensitive"}


def test_entity_stopwords_go_anywhere_and_known_names_come_in_any_case(pack: RulePack) -> None:
    context = extract("Format a date as DD/MM/YYYY in excel with fastapi Today", pack, TODAY)
    assert set(context.entities.candidates) == {"excel", "fastapi", "Format"}
    known = {c.text: c for c in context.entities.details}
    assert known["fastapi"].kind == "known" and known["fastapi"].reason == "a name the pack knows"


@pytest.mark.parametrize(
    ("text", "place", "what"),
    [
        ("hair stylist in fremont ca", "fremont ca", "US city and state"),
        ("pizza in las vegas, nv", "las vegas, nv", "US city and state"),
        ("dentist in norwood ma", "norwood ma", "US city and state"),
        ("restaurants in paris", "paris", "city in FR"),
        ("weather in new york city", "new york city", "US city"),
    ],
)
def test_lower_case_places_come_from_the_gazetteer_with_their_evidence(
    pack: RulePack, text: str, place: str, what: str
) -> None:
    context = extract(text, pack, TODAY)
    hint = context.entities.place
    assert hint is not None and hint.text == place
    assert hint.rule == f'lower-case place after "in" ({what})'
    assert text[hint.start : hint.end] == place
    assert context.intent.local  # "in" is a local preposition in this pack
    assert place.split(",")[0] in context.entities.candidates


def test_not_places_and_the_seed_pack_find_no_lower_case_place(pack: RulePack) -> None:
    assert extract("apps in mobile", pack, TODAY).entities.place is None
    assert extract("hair stylist in fremont ca", default_rules(), TODAY).entities.place is None


def test_a_year_window_must_be_ordered() -> None:
    from routescope import RulePackError

    with pytest.raises(RulePackError, match="year_window"):
        parse_rules(PACK.replace("year_window = [-1, 1]", "year_window = [2, 1]"))


KNOBS = """
name = "more knobs"
[intents]
tech = ["install"]
local = ["weather", "restaurant"]
purchase = ["buy"]
troubleshooting = ["fix"]
time_sensitive = ["today"]
year_window = [-1, 1]
date_is_time_sensitive = true
[entities]
known = ["sql", "sql server", "pl/sql", "docker", "c#", "rhel"]
[place]
gazetteer_prepositions = ["in", "to", "at"]
local_intent_prepositions = ["near", "around", "in", "to", "at"]
gazetteer = ["San Antonio", "Chennai"]
state_codes = true
local_names = true
topic_questions = ["who", "what is the"]
[openclaw]
queries = ["site:docs.openclaw.ai OpenClaw"]
"""


@pytest.fixture(scope="module")
def knobs() -> RulePack:
    return parse_rules(KNOBS)


def test_the_new_knobs_are_off_in_the_built_in_pack() -> None:
    rules = default_rules()
    assert not rules.intents.date_is_time_sensitive
    assert not rules.place.state_codes and not rules.place.local_names
    assert rules.place.topic_questions == [] and rules.entities.known == []
    assert rules.place.gazetteer_prepositions == ["in"]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("a table for two on April 23rd, 2023", "April 23rd"),
        ("a train on the 9th of march 2023", "9th of march"),
        ("cars from 2023-04-12 at 2pm", "2023-04-12"),
        ("a flight on 4/23/2023 please", "4/23/2023"),
        ("will it be cold on aug. 22?", "aug. 22"),
    ],
)
def test_a_calendar_date_of_any_year_is_time_sensitive_with_its_span(
    knobs: RulePack, text: str, date: str
) -> None:
    context = extract(text, knobs, TODAY)
    assert context.intent.time_sensitive
    (match,) = [m for m in context.intent_matches if m.keyword == "calendar date"]
    assert match.text == date and text[match.start : match.end] == date
    assert "calendar date" not in {m.keyword for m in extract(text, default_rules()).intent_matches}


def test_a_month_and_year_or_a_bare_old_year_is_no_date(knobs: RulePack) -> None:
    assert flags("the world cup in March 2002", knobs) == set()
    assert flags("may I ask about 1996", knobs) == set()


@pytest.mark.parametrize(
    ("text", "place", "rule"),
    [
        ("book a table in MI at the pizzeria", "MI", '"in <US state code>"'),
        (
            "will the weather be warm in Tenino",
            "Tenino",
            '"in <capitalized name>" in a local request',
        ),
        (
            "a restaurant at Smithville for six",
            "Smithville",
            '"at <capitalized name>" in a local request',
        ),
        ("book the next train ticket to Chennai", "Chennai", '"to <gazetteer place>"'),
    ],
)
def test_state_codes_and_names_in_a_local_request_are_places_with_their_rule(
    knobs: RulePack, text: str, place: str, rule: str
) -> None:
    hint = extract(text, knobs, TODAY).entities.place
    assert hint is not None and (hint.text, hint.rule) == (place, rule)
    assert text[hint.start : hint.end] == place
    assert extract(text, default_rules(), TODAY).entities.place is None


def test_an_unknown_name_is_no_place_when_nothing_else_makes_the_prompt_local(
    knobs: RulePack,
) -> None:
    assert extract("songs in Tenino style", knobs, TODAY).entities.place is None
    assert extract("lessons in IT security", knobs, TODAY).entities.place is None


def test_a_place_in_a_knowledge_question_gives_the_hint_but_not_local(knobs: RulePack) -> None:
    question = extract("who were the first settlers in San Antonio", knobs, TODAY)
    assert question.entities.place_hint == "San Antonio" and not question.intent.local
    asked = extract("what is the best taco place in San Antonio", knobs, TODAY)
    assert not asked.intent.local
    request = extract("tacos in San Antonio", knobs, TODAY)
    assert request.intent.local
    (match,) = [m for m in request.intent_matches if m.intent == "local"]
    assert match.keyword == "in <place>" and match.text == "in San Antonio"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("How to UPDATE pivoted table in SQL SERVER", ["SQL SERVER"]),
        ("Using Tables of Records in PL/SQL", ["PL/SQL"]),
        ("how run blender on the docker 3.5", ["docker 3.5"]),
        ("generate C# classes with RHEL 9.2", ["C#", "RHEL 9.2"]),
        ("SQL Join Help - Sum and Filter", ["SQL"]),
    ],
)
def test_known_names_take_the_longest_match_their_version_and_their_capitals(
    knobs: RulePack, text: str, names: list[str]
) -> None:
    context = extract(text, knobs, TODAY)
    known = [c.text for c in context.entities.details if c.kind == "known"]
    assert known == names
    # a capitalized run overlapping a known name is not a second name
    assert not any(
        c.kind != "known" and any(n.lower() in c.text.lower() for n in names)
        for c in context.entities.details
    )
