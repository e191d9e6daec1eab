import dataclasses

import pytest

from routescope.strategy import extract
from routescope.strategy._extract import normalize_goal
from tests._support import run


def flags(text: str) -> dict[str, bool]:
    return dataclasses.asdict(run(text).context.intent)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I have a tissue in my pocket", "troubleshooting"),
        ("do you know a good book", "time_sensitive"),
        ("my vsc settings", "purchase"),
        ("a reviewer wrote this", "purchase"),
        ("the logger is quiet", "tech"),
        ("citywide festival", "local"),
    ],
)
def test_keywords_do_not_fire_inside_other_words(text: str, intent: str) -> None:
    assert flags(text)[intent] is False


@pytest.mark.parametrize(
    ("text", "intent", "keyword"),
    [
        ("There is an ISSUE with my laptop", "troubleshooting", "issue"),
        ("what is happening now?", "time_sensitive", "now"),
        ("React vs Vue", "purchase", "vs"),
        ("pizza near   me", "local", "near me"),
        ("How to Fix a squeaky door", "troubleshooting", "how to fix"),
        ("events this weekend", "local", "this weekend"),
        ("events this weekend", "time_sensitive", "this weekend"),
        ("what happened this week", "time_sensitive", "this week"),
    ],
)
def test_keywords_match_whole_words_and_phrases_case_insensitively(
    text: str, intent: str, keyword: str
) -> None:
    ctx = run(text).context
    assert getattr(ctx.intent, intent) is True
    match = next(m for m in ctx.intent_matches if m.intent == intent)
    assert match.keyword == keyword
    assert text[match.start : match.end].lower().split() == keyword.split()


@pytest.mark.parametrize("year", ["1900", "1999", "2026", "2099"])
def test_a_four_digit_year_is_time_sensitive(year: str) -> None:
    ctx = run(f"olympics {year} results").context
    assert ctx.intent.time_sensitive
    assert any(m.keyword == "4-digit year" and m.text == year for m in ctx.intent_matches)


@pytest.mark.parametrize("text", ["olympics 1899", "olympics 2100", "room 12026", "v2026x"])
def test_other_numbers_are_not_years(text: str) -> None:
    assert not flags(text)["time_sensitive"]


def test_most_specific_entity_first() -> None:
    entities = run("How do I install FastAPI on Ubuntu?").context.entities
    assert entities.candidates == ["FastAPI", "Ubuntu"]
    assert entities.details[0].kind == "camel_case"


@pytest.mark.parametrize(
    "text", ["How do I cook rice?", "What is love", "Best laptops", "I need help", "Why now"]
)
def test_sentence_start_question_and_common_words_are_not_entities(text: str) -> None:
    assert run(text).context.entities.candidates == []


def test_entities_cover_phrases_urls_domains_and_openclaw() -> None:
    text = "Compare Bank of America and docs.python.org with https://example.com/a, then openclaw"
    entities = run(text).context.entities
    assert entities.candidates[0] == "OpenClaw"
    assert {"Bank of America", "docs.python.org", "https://example.com/a"} <= set(
        entities.candidates
    )
    for detail in entities.details:
        if detail.kind != "openclaw":
            assert text[detail.start : detail.end] == detail.text


def test_at_most_six_candidates() -> None:
    text = "Alpha Beta, Gamma, Delta, Epsilon, Zeta, Eta, Theta, Iota and Kappa"
    assert len(run(text).context.entities.candidates) == 6


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Best restaurants in Austin this weekend", "Austin"),
        ("coffee near Denver, Colorado", "Denver, Colorado"),
        ("hikes around Boulder", "Boulder"),
        ("tacos in Portland, Maine", "Portland, Maine"),
        ("museums in St. Louis", "St. Louis"),
    ],
)
def test_place_hints(text: str, place: str) -> None:
    entities = run(text).context.entities
    assert entities.place_hint == place
    assert entities.place is not None
    assert text[entities.place.start : entities.place.end] == place


@pytest.mark.parametrize(
    "text",
    [
        "latest advances in quantum computing",
        "why is there an error in my code",
        "how do I parse JSON in Python",
        "near me",
    ],
)
def test_no_place_hint_for_topics_or_code(text: str) -> None:
    assert run(text).context.entities.place_hint is None


def test_user_goal_is_normalised() -> None:
    assert normalize_goal("  How do   I\tinstall\nFastAPI?  ") == "How do I install FastAPI"
    assert normalize_goal("???") == "???"


def test_openclaw_flag_is_case_insensitive(rules) -> None:  # type: ignore[no-untyped-def]
    assert extract("is OPENCLAW safe", rules).has_openclaw
    assert not extract("open claw", rules).has_openclaw


def test_evidence_is_capped_but_counted(rules) -> None:  # type: ignore[no-untyped-def]
    ctx = extract("error " * 500, rules)
    assert ctx.intent_match_counts["tech"] == 500
    assert len([m for m in ctx.intent_matches if m.intent == "tech"]) == 20


@pytest.mark.parametrize(
    ("text", "place"),
    [("near Denver, Colorado A: go", "Denver, Colorado A"), ("in Austin Texas: tacos", "Austin")],
)
def test_place_span_ends_with_the_name(text: str, place: str) -> None:
    hint = run(text).context.entities.place
    assert hint is not None and hint.text == place
    assert text[hint.start : hint.end] == place


def test_capitals_inside_a_word_do_not_start_an_entity() -> None:
    entities = run("my iPhone and macOS and McDonald's near the O'Hare gate").context.entities
    assert {"iPhone", "macOS"} <= set(entities.candidates)
    assert not {"Phone", "OS", "Donald", "Hare"} & set(entities.candidates)
