"""inspect(): the four scenarios of the strategy-router specification (seed 000), and its
argument checks."""

import pytest

import routescope
from tests._support import AS_OF, queries, run


def test_openclaw_prompts_trigger_the_two_canonical_searches_on_the_tech_route() -> None:
    result = run("How do I install OpenClaw on my server?")
    assert result.strategy == "tech"
    canonical = [a for a in result.actions if a.priority == 0]
    assert [a.query for a in canonical] == [
        "site:docs.openclaw.ai OpenClaw",
        "site:github.com/openclaw OpenClaw",
    ]
    assert result.actions[:2] == canonical


def test_non_tech_prompts_never_see_site_injections() -> None:
    result = run("Best restaurants in Austin this weekend")
    assert result.strategy == "local"
    assert not any("site:" in a.query for a in result.actions)


def test_generic_prompts_use_the_general_strategy_with_fallback_modifiers() -> None:
    result = run("History of jazz music")
    assert result.strategy == "general"
    assert queries("History of jazz music") == [
        "History of jazz music",
        "History of jazz music overview",
    ]
    assert queries("Which vacuum to buy") == ["Which vacuum to buy", "Which vacuum to buy how to"]
    assert not any("site:" in a.query for a in result.actions)


def test_time_sensitive_prompts_append_as_of_and_others_do_not() -> None:
    latest = queries("Latest developments in fusion energy")
    plain = queries("Developments in fusion energy")
    assert all(q.endswith(AS_OF) for q in latest)
    assert not any("as of" in q for q in plain)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"today": "2026-01-01"}, "today must be a datetime.date, not str"),
        ({"rules": "x.toml"}, "rules must be a RulePack, not str"),
        ({"context": {"last_action": None}}, "context must be a RouterContext, not dict"),
    ],
)
def test_wrong_argument_types_are_a_clear_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(routescope.InputError, match=message):
        routescope.inspect("pizza near me", **kwargs)  # type: ignore[arg-type]
