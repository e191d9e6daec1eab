"""`apply_guardrails` (`routescope.contract._guardrails`): tool gating per mode, argument checks,
per-turn dedupe, repeats without new args, step limits and the rollout flag."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from pydantic import ValidationError

import routescope
from routescope.contract import CallResult, RouterDecision, apply_guardrails, prepare_step
from routescope.contract._guardrails import check_args
from routescope.contract._models import ToolCall
from routescope.rules import ModeName

RULES = routescope.default_rules()


def guarded(
    mode: ModeName,
    calls: Sequence[tuple[str, Mapping[str, object]]],
    source: str = "rules",
) -> RouterDecision:
    decision = RouterDecision.model_validate(
        {
            "agent": "lending",
            "mode": mode,
            "ui": "cards",
            "tool_plan": [ToolCall(tool=t, args=dict(a)) for t, a in calls],
            "stop_condition": "after_tool_plan_complete",
            "layout": ["tool", "text"],
            "source": source,
        }
    )
    return apply_guardrails(decision, RULES)


def rules_of(decision: RouterDecision) -> list[str]:
    return [event.rule for event in decision.guardrails]


def test_explore_allows_read_only_tools_only() -> None:
    decision = guarded("explore", [("solana_lending_yields", {}), ("lend_execute", {})])
    assert [c.tool for c in decision.tool_plan] == ["solana_lending_yields"]
    assert rules_of(decision) == ["tool_gating"]
    assert decision.guardrails[0].detail == "execution tool not allowed in explore: dropped"
    assert decision.guardrails[0].tool == "lend_execute"


def test_execute_allows_wallet_and_execution_only() -> None:
    decision = guarded(
        "execute",
        [
            ("solana_lending_yields", {}),
            ("wallet_connect", {}),
            ("wallet_balance", {}),
            ("lend_execute", {"amount": 1}),
        ],
    )
    assert [c.tool for c in decision.tool_plan] == [
        "wallet_connect",
        "wallet_balance",
        "lend_execute",
    ]
    assert rules_of(decision) == ["tool_gating"]


def test_identical_calls_are_deduplicated_per_turn() -> None:
    decision = guarded(
        "decide", [("solana_lending_yields", {"limit": 5})] * 2 + [("yield_decision", {})]
    )
    assert len(decision.tool_plan) == 2 and "dedupe" in rules_of(decision)


def test_a_tool_repeated_without_new_args_aborts_after_the_first_result() -> None:
    decision = guarded(
        "decide",
        [
            ("solana_lending_yields", {"limit": 5, "sortBy": "apy"}),
            ("solana_lending_yields", {"limit": 5}),
        ],
    )
    assert decision.abort_after == 0 and "repeat_without_new_args" in rules_of(decision)
    step = prepare_step(decision, [CallResult(tool="solana_lending_yields")])
    assert step.done and step.reason.startswith("abort")


def test_too_many_steps_are_cut_to_the_mode_maximum() -> None:
    decision = guarded(
        "explore",
        [("solana_lending_yields", {}), ("solana_staking_yields", {}), ("token_price", {})],
    )
    assert len(decision.tool_plan) == 2 and "max_steps" in rules_of(decision)
    assert decision.guardrails[-1].detail == "explore allows 2 steps: dropped token_price"


def test_too_few_steps_are_reported_not_padded() -> None:
    decision = guarded("decide", [("solana_lending_yields", {})])
    assert len(decision.tool_plan) == 1
    assert decision.guardrails[-1].detail == "decide expects at least 2 steps, plan has 1"


def test_unknown_tools_and_invalid_args_are_dropped() -> None:
    decision = guarded("explore", [("rm_rf", {}), ("solana_lending_yields", {"sortBy": "vibes"})])
    assert decision.tool_plan == []
    assert rules_of(decision) == ["unknown_tool", "invalid_args"]
    assert [e.detail for e in decision.guardrails] == [
        "not in the registry: dropped",
        "sortBy must be one of ['apy', 'tvl']: dropped",
    ]


def test_argument_types_and_bounds_are_checked() -> None:
    cases = {
        "limit": ("5", "limit must be integer"),
        "stablecoinOnly": (1, "stablecoinOnly must be boolean"),
        "protocol": (["a"], "protocol must be string"),
        "nope": (1, "unknown argument 'nope'"),
    }
    for name, (value, problem) in cases.items():
        decision = guarded("explore", [("solana_lending_yields", {name: value})])
        assert decision.guardrails[0].detail == f"{problem}: dropped"
    assert guarded("explore", [("solana_lending_yields", {"limit": True})]).tool_plan == []
    assert guarded("explore", [("solana_lending_yields", {"limit": 0})]).guardrails[0].detail == (
        "limit below 1: dropped"
    )
    assert guarded("explore", [("swap_quote", {"amount": 1.5, "token": "SOL"})]).guardrails == []


def test_rules_decisions_get_the_ui_stop_condition_and_layout_of_the_final_plan() -> None:
    decision = guarded("explore", [("lend_execute", {})])
    assert (decision.ui, decision.stop_condition, decision.layout) == ("cards", "none", ["text"])
    yields = guarded("explore", [("solana_lending_yields", {})])
    assert yields.stop_condition == "when_first_yields_result_received"


def test_llm_decisions_keep_their_own_ui_and_stop_condition() -> None:
    decision = guarded("explore", [("lend_execute", {})], source="llm")
    assert (decision.ui, decision.stop_condition, decision.layout) == (
        "cards",
        "after_tool_plan_complete",
        ["tool", "text"],
    )


def test_guardrails_already_reported_are_kept() -> None:
    once = guarded("explore", [("rm_rf", {})])
    assert rules_of(apply_guardrails(once, RULES)) == ["unknown_tool"]


# -- F15: guardrails are numeric, not just typed -------------------------------------------------
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_never_pass_a_bound(value: float) -> None:
    spec = RULES.contract.tool("stake_execute")
    assert spec is not None
    problem = check_args({"amount": value, "token": "SOL"}, spec.args)
    assert problem == f"amount must be a finite number, not {value!r}"
    assert check_args({"amount": 1e308, "token": "SOL"}, spec.args) is None  # big but finite


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_argument_is_dropped_with_an_invalid_args_event(value: float) -> None:
    """Even from a decision built without validation (`model_construct`)."""
    call = ToolCall.model_construct(tool="stake_execute", args={"amount": value, "token": "SOL"})
    decision = RouterDecision.model_construct(
        agent="staking",
        mode="execute",
        ui="cards",
        tool_plan=[call],
        stop_condition="after_tool_plan_complete",
        layout=["tool", "text"],
        guardrails=[],
        rules_fired=[],
        source="rules",
        abort_after=None,
    )
    guarded_decision = apply_guardrails(decision, RULES)
    assert guarded_decision.tool_plan == []
    assert guarded_decision.guardrails[0].rule == "invalid_args"
    assert guarded_decision.guardrails[0].detail.startswith("amount must be a finite number")


def test_models_refuse_non_finite_numbers() -> None:
    with pytest.raises(ValidationError, match=r"not a finite number: amount is nan"):
        ToolCall(tool="stake_execute", args={"amount": math.nan})
    with pytest.raises(ValidationError, match=r"not a finite number: x\.0\.y is inf"):
        CallResult(tool="t", args={"x": [{"y": math.inf}]})
