import pytest

from routescope.strategy import extract, plan, route
from tests._support import AS_OF, queries, run


@pytest.mark.parametrize(
    ("text", "strategy", "rule"),
    [
        ("pizza places open near me", "local", "intent.local"),
        ("install docker near me", "local", "intent.local"),
        ("how do I install Redis", "tech", "intent.tech"),
        ("my laptop keeps crashing, how to fix", "tech", "intent.troubleshooting"),
        ("history of the roman empire", "general", "default"),
        ("best noise cancelling headphones", "general", "default"),
    ],
)
def test_three_way_routing(text: str, strategy: str, rule: str) -> None:
    result = run(text)
    assert (result.strategy, result.strategy_rule) == (strategy, rule)


def test_reason_cites_the_matched_words_and_span() -> None:
    result = run("How do I install FastAPI on Ubuntu?")
    assert result.strategy_reason.startswith('intent.tech matched "install" @9–16')


def test_general_pack_overview_or_how_to() -> None:
    assert queries("history of the roman empire") == [
        "history of the roman empire",
        "history of the roman empire overview",
    ]
    assert queries("buy a used bicycle") == ["buy a used bicycle", "buy a used bicycle how to"]


def test_local_pack_uses_place_and_never_repeats_it() -> None:
    assert queries("Best restaurants in Austin this weekend") == [
        f"Best restaurants near Austin {AS_OF}",
        f"Best restaurants this weekend {AS_OF}",
    ]
    assert queries("pizza near me") == ["pizza near me", "pizza hours reviews"]
    result = run("Best restaurants in Austin this weekend")
    assert result.plan.goal_removed == ["in Austin", "this weekend"]


def test_local_pack_with_nothing_but_a_place_still_reads_well() -> None:
    assert queries("near me") == ["near me", "near me hours reviews"]


def test_tech_pack_uses_top_entity_and_safety_only_when_asked() -> None:
    assert queries("How do I install FastAPI on Ubuntu?") == [
        "site:docs.* FastAPI (install OR docs OR getting started)",
        "site:github.com FastAPI README",
    ]
    safe = run("install FastAPI securely with sandbox permissions")
    assert [a.source for a in safe.actions] == ["tech.docs", "tech.github", "tech.safety"]
    assert [m.text for m in safe.plan.safety_matches] == ["sandbox", "permissions"]


def test_tech_pack_without_entity_falls_back_to_goal() -> None:
    result = run("how to fix a wifi error")
    assert (
        result.actions[0].query
        == "site:docs.* how to fix a wifi error (install OR docs OR getting started)"
    )
    assert result.plan.entity_used is None
    assert result.plan.notes


def test_openclaw_canonical_searches_only_for_tech(rules) -> None:  # type: ignore[no-untyped-def]
    tech = run("How do I install OpenClaw?")
    assert [a.priority for a in tech.actions][:2] == [0, 0]
    assert tech.actions[0].query.startswith("site:docs.openclaw.ai")
    assert tech.actions[1].query.startswith("site:github.com/openclaw")
    for text in ["OpenClaw restaurants near me", "what is openclaw", "Is OpenClaw worth it vs X"]:
        result = run(text)
        assert result.strategy != "tech"
        assert all(
            "openclaw.ai" not in a.query and "github.com/openclaw" not in a.query
            for a in result.actions
        )
        assert result.plan.openclaw_gate.startswith("not injected")
    context = extract("how do I install Redis", rules)
    assert all(q.priority != 0 for q in plan(context, route(context).strategy, rules).queries)
