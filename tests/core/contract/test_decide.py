"""The rules path of `decide` (`routescope.contract._decide`): the seed's routing and multi-tool
fixtures, agent and mode choice, arguments, retry, rollout and the enabled flag."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pytest

import routescope
from routescope import ContextError, InputError, RulePackError, parse_rules
from routescope.contract import RouterContext, RouterDecision, decide
from routescope.contract._models import LastAction
from routescope.rules import default_rules_text

CANCELLED_LEND = RouterContext.model_validate(
    {
        "last_action": {
            "tool": "lend_execute",
            "args": {"amount": 100, "token": "USDC", "protocol": "kamino"},
            "status": "cancelled",
        }
    }
)


def plan(decision: RouterDecision) -> list[tuple[str, dict[str, object]]]:
    return [(call.tool, call.args) for call in decision.tool_plan]


def fired(decision: RouterDecision) -> list[str]:
    return [hit.rule for hit in decision.rules_fired]


# -- routing fixtures (seed 001) -----------------------------------------------------------
def test_show_best_lending_pools_is_lending_yields_as_cards() -> None:
    decision = decide("Show best lending pools")
    assert (decision.agent, decision.mode, decision.ui) == ("lending", "explore", "cards")
    assert [t for t, _ in plan(decision)] == ["solana_lending_yields"]
    assert decision.stop_condition == "when_first_yields_result_received"


def test_show_highest_tvl_pools_sorts_by_tvl() -> None:
    assert plan(decide("Show highest TVL pools")) == [("solana_lending_yields", {"sortBy": "tvl"})]


def test_all_pools_and_highest_apy() -> None:
    assert plan(decide("show all pools")) == [("solana_lending_yields", {"limit": 50})]
    assert plan(decide("pools with the highest APY")) == [
        ("solana_lending_yields", {"sortBy": "apy"})
    ]


def test_try_again_after_a_cancelled_lend_executes_the_lend() -> None:
    decision = decide("Try again", CANCELLED_LEND)
    assert (decision.agent, decision.mode) == ("lending", "execute")
    assert plan(decision)[-1] == (
        "lend_execute",
        {"amount": 100, "token": "USDC", "protocol": "kamino"},
    )
    assert any(
        hit.rule.startswith("retry:last_action=lend_execute") for hit in decision.rules_fired
    )


# -- multi-tool fixtures --------------------------------------------------------------------
def test_staking_yields_then_the_decision_tool() -> None:
    decision = decide("Compare staking yields and pick one")
    assert decision.mode == "decide"
    assert [t for t, _ in plan(decision)] == ["solana_staking_yields", "yield_decision"]


def test_lend_then_wallet_connect_then_balance_then_execute() -> None:
    decision = decide("Lend 100 USDC on Kamino")
    assert [t for t, _ in plan(decision)] == ["wallet_connect", "wallet_balance", "lend_execute"]
    assert plan(decision)[-1][1] == {"amount": 100.0, "token": "USDC", "protocol": "kamino"}
    assert decision.guardrails == []


# -- agent, mode and arguments ---------------------------------------------------------------
def test_preferences_and_selection_reach_the_args() -> None:
    context = RouterContext.model_validate(
        {"preferences": {"stablecoinOnly": True}, "last_selection": {"poolId": "p-7"}}
    )
    assert plan(decide("show lending pools", context)) == [
        ("solana_lending_yields", {"stablecoinOnly": True})
    ]
    assert plan(decide("lend 5 SOL", context))[-1][1]["poolId"] == "p-7"


def test_rules_fired_name_the_words_and_their_span() -> None:
    decision = decide("Lend 100 USDC on Kamino")
    hits = {hit.rule: (hit.text, hit.start, hit.end) for hit in decision.rules_fired}
    assert hits["agent:lending"] == ("Lend", 0, 4)
    assert hits["amount_and_token"] == ("100 USDC", 5, 13)
    assert hits["protocol"] == ("Kamino", 17, 23)


def test_a_last_yield_picks_the_agent_when_no_keyword_does() -> None:
    def agent_after(tool: str) -> str:
        context = RouterContext.model_validate({"last_yield": {"tool": tool}})
        return decide("and now?", context).agent

    assert agent_after("solana_lending_yields") == "lending"
    assert agent_after("solana_staking_yields") == "staking"
    assert agent_after("something_else") == "staking"


def test_no_keyword_and_no_context_is_knowledge_as_text() -> None:
    decision = decide("hello there")
    assert (decision.agent, decision.mode, decision.ui) == ("knowledge", "explore", "text")
    assert fired(decision) == [
        "agent:knowledge (default: no agent keyword)",
        "mode:explore (default)",
    ]


def test_an_agents_default_mode_applies_without_a_mode_keyword() -> None:
    decision = decide("show my wallet balance")
    assert (decision.agent, decision.mode) == ("wallet", "execute")
    assert "mode:execute (the agent's default)" in fired(decision)


def test_try_again_without_a_known_last_action_says_so() -> None:
    decision = decide("try again")
    assert decision.guardrails[0].rule == "nothing_to_retry"
    unknown = RouterContext.model_validate({"last_action": {"tool": "mystery_tool"}})
    assert decide("try again", unknown).guardrails[0].rule == "nothing_to_retry"


def test_retrying_a_read_only_action_explores() -> None:
    context = RouterContext.model_validate(
        {"last_action": {"tool": "solana_lending_yields", "args": {"limit": 5}}}
    )
    decision = decide("retry", context)
    assert (decision.agent, decision.mode) == ("lending", "explore")
    assert plan(decision) == [("solana_lending_yields", {"limit": 5})]


def test_no_rules_means_the_built_in_pack() -> None:
    text = "Lend 100 USDC on Kamino"
    assert decide(text) == decide(text, None, routescope.default_rules())


# -- rollout and the enabled flag -----------------------------------------------------------
def test_rollout_flag_downgrades_modes_not_rolled_out() -> None:
    explore_only = parse_rules(
        default_rules_text().replace(
            'rollout_modes = ["explore", "decide", "execute"]', 'rollout_modes = ["explore"]'
        )
    )
    decision = decide("Lend 100 USDC on Kamino", rules=explore_only)
    assert decision.mode == "explore" and decision.guardrails[0].rule == "rollout"


def test_contract_can_be_disabled() -> None:
    off = parse_rules(default_rules_text().replace("enabled = true ", "enabled = false "))
    assert routescope.inspect("show pools", rules=off).decision is None


@pytest.mark.parametrize("text", ["", "   ", "try again " * 200, "ＳＨＯＷ ALL POOLS", "v1.5 SOL"])
def test_odd_text_still_gives_a_valid_decision(text: str) -> None:
    decision = decide(text, CANCELLED_LEND)
    assert RouterDecision.model_validate(decision.model_dump()) == decision


# -- F15 and misuse: numbers that are not finite, arguments of the wrong type -------------------
def test_a_non_finite_amount_from_the_text_is_dropped() -> None:
    """400 digits read as a float are Infinity: never an amount."""
    decision = decide("Stake " + "9" * 400 + " SOL")
    assert "stake_execute" not in [call.tool for call in decision.tool_plan]
    assert decision.guardrails[0].rule == "invalid_args"
    assert decision.guardrails[0].detail == "amount must be a finite number, not inf: dropped"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_retried_non_finite_amount_is_dropped(value: float) -> None:
    """A context that bypassed validation (`model_construct`) still cannot carry NaN through."""
    last = LastAction.model_construct(
        tool="stake_execute", args={"amount": value, "token": "SOL"}, status="ok"
    )
    decision = decide("try again", RouterContext.model_construct(last_action=last))
    assert [call.tool for call in decision.tool_plan] == ["wallet_connect", "wallet_balance"]
    assert decision.guardrails[0].detail == (
        f"amount must be a finite number, not {value!r}: dropped"
    )


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: decide(None), InputError, "text must be a string, not NoneType"),  # type: ignore[arg-type]
        (lambda: decide(b"x"), InputError, "text must be a string, not bytes"),  # type: ignore[arg-type]
        (
            lambda: decide("x", {"preferences": {}}),  # type: ignore[arg-type]
            ContextError,
            "context must be a RouterContext (parse_context builds one",
        ),
        (
            lambda: decide("x", rules="pack.toml"),  # type: ignore[arg-type]
            RulePackError,
            "rules must be a RulePack (load_rules reads one from a file), not str",
        ),
        (lambda: decide("x", llm=5), TypeError, "llm must be callable"),  # type: ignore[arg-type]
    ],
)
def test_arguments_of_the_wrong_type_are_one_clear_line(
    call: Callable[[], object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        call()
