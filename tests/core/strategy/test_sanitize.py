import datetime as dt

import routescope
from routescope.strategy import Plan, extract, sanitize_plan, sanitize_query
from routescope.strategy._plan import PlannedQuery
from routescope.strategy._sanitize import format_as_of
from tests._support import AS_OF, TODAY, run


def sanitize(query: str, prompt: str, rules) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    text, edits = sanitize_query(query, extract(prompt, rules), TODAY, rules)
    return text, [e.rule for e in edits]


def test_banned_modifiers_are_removed(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize("best gaming engine laptop", "laptops", rules) == (
        "best laptop",
        ["banned_modifier"],
    )
    assert sanitize("Gaming   Engine", "x", rules)[0] == ""


def test_as_of_only_for_time_sensitive_non_site_queries(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize("news", "latest news", rules) == (f"news {AS_OF}", ["as_of"])
    assert sanitize("news", "news", rules) == ("news", [])
    assert sanitize("site:docs.* x", "latest x", rules) == ("site:docs.* x", [])
    assert sanitize("prices as of May 2025", "latest prices", rules)[1] == []


def test_as_of_is_locale_free_and_unpadded(rules) -> None:  # type: ignore[no-untyped-def]
    assert format_as_of(dt.date(2026, 11, 2), rules) == "as of November 2, 2026"


def test_repeated_phrases_are_said_once(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize("pizza near me near me", "pizza", rules) == (
        "pizza near me",
        ["repeated_phrase"],
    )


def test_canonical_openclaw_is_kept(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize("openclaw gaming engine docs", "install openclaw", rules) == (
        "OpenClaw docs",
        ["banned_modifier", "canonical_openclaw"],
    )


def test_queries_are_cut_at_a_word_boundary_and_keep_the_date(rules) -> None:  # type: ignore[no-untyped-def]
    long = " ".join(f"word{i}" for i in range(200))
    text, edit_rules = sanitize(long, "latest", rules)
    assert len(text) <= 400 and text.endswith(AS_OF)
    assert edit_rules == ["truncate", "as_of"]
    body = text.removesuffix(" " + AS_OF)
    assert long.startswith(body) and long[len(body)] == " "


def test_a_giant_word_is_cut_hard(rules) -> None:  # type: ignore[no-untyped-def]
    text, edit_rules = sanitize("x" * 5000, "x", rules)
    assert text == "x" * 400 and edit_rules == ["truncate"]


def test_control_characters_and_spaces_are_squashed(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize(" a\x00  b\t", "a", rules) == ("a b", ["whitespace"])


def test_every_edit_is_recorded_in_the_action() -> None:
    action = run("latest gaming engine news\x00 today").actions[0]
    assert action.raw_query == "latest gaming engine news today"
    assert [e.rule for e in action.edits] == ["banned_modifier", "as_of"]
    assert action.query == f"latest news today {AS_OF}"
    assert action.edits[0].detail == 'removed "gaming engine"'


def test_plan_that_sanitizes_to_nothing_falls_back_to_one_search(rules) -> None:  # type: ignore[no-untyped-def]
    context = extract("gaming engine", rules)
    empty = Plan(
        "general", [PlannedQuery("gaming engine", 1, "general.first")], "", [], None, [], "", []
    )
    actions = sanitize_plan(empty, context, TODAY, rules)
    assert [(a.source, a.query) for a in actions] == [("fallback", "gaming engine")]
    assert actions[0].edits[-1].rule == "empty"


def test_repeated_phrases_collapse_completely(rules) -> None:  # type: ignore[no-untyped-def]
    assert sanitize("near me near me near me near me near me", "x", rules)[0] == "near me"
    assert sanitize("a b c a b c a b c d", "x", rules)[0] == "a b c d"
    assert sanitize("walla walla washington", "x", rules)[0] == "walla walla washington"


def test_site_operators_are_removed_outside_the_tech_strategy() -> None:
    local = run("near me site:reddit.com pizza")
    assert local.strategy == "local"
    assert not any("site:" in a.query for a in local.actions)
    assert local.actions[0].edits[0].rule == "site_operator"
    rules = routescope.default_rules()
    kept, _ = sanitize_query("site:pypi.org requests", local.context, TODAY, rules)
    assert kept == "site:pypi.org requests"
