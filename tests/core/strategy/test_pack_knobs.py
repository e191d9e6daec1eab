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
