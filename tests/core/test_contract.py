"""The router contract: the seed's fixtures, guardrails, the LLM seam and prepare_step."""

import json
from collections.abc import Callable

import pytest

import routescope
from routescope import parse_rules, resources_root
from routescope.contract import (
    RouterContext,
    RouterDecision,
    StepResult,
    ToolCall,
    apply_guardrails,
    decide,
    prepare_step,
)

RULES = routescope.default_rules()
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


def test_preferences_and_selection_reach_the_args() -> None:
    context = RouterContext.model_validate(
        {"preferences": {"stablecoinOnly": True}, "last_selection": {"poolId": "p-7"}}
    )
    assert plan(decide("show lending pools", context)) == [
        ("solana_lending_yields", {"stablecoinOnly": True})
    ]
    assert plan(decide("lend 5 SOL", context))[-1][1]["poolId"] == "p-7"


# -- guardrails -----------------------------------------------------------------------------
def guarded(mode: str, calls: list[tuple[str, dict[str, object]]]) -> RouterDecision:
    decision = RouterDecision(
        agent="lending",
        mode=mode,  # type: ignore[arg-type]
        ui="cards",
        tool_plan=[ToolCall(tool=t, args=a) for t, a in calls],
        stop_condition="after_tool_plan_complete",
        layout=["tool", "text"],
    )
    return apply_guardrails(decision, RULES)


def rules_of(decision: RouterDecision) -> list[str]:
    return [event.rule for event in decision.guardrails]


def test_explore_allows_read_only_tools_only() -> None:
    decision = guarded("explore", [("solana_lending_yields", {}), ("lend_execute", {})])
    assert [c.tool for c in decision.tool_plan] == ["solana_lending_yields"]
    assert rules_of(decision) == ["tool_gating"]


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
    step = prepare_step(decision, [StepResult(tool="solana_lending_yields")])
    assert step.done and step.reason.startswith("abort")


def test_too_many_steps_are_cut_to_the_mode_maximum() -> None:
    decision = guarded(
        "explore",
        [("solana_lending_yields", {}), ("solana_staking_yields", {}), ("token_price", {})],
    )
    assert len(decision.tool_plan) == 2 and "max_steps" in rules_of(decision)


def test_unknown_tools_and_invalid_args_are_dropped() -> None:
    decision = guarded("explore", [("rm_rf", {}), ("solana_lending_yields", {"sortBy": "vibes"})])
    assert decision.tool_plan == []
    assert rules_of(decision) == ["unknown_tool", "invalid_args"]


def test_rollout_flag_downgrades_modes_not_rolled_out() -> None:
    text = (resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    explore_only = parse_rules(
        text.replace(
            'rollout_modes = ["explore", "decide", "execute"]', 'rollout_modes = ["explore"]'
        )
    )
    decision = decide("Lend 100 USDC on Kamino", rules=explore_only)
    assert decision.mode == "explore" and rules_of(decision)[0] == "rollout"


def test_contract_can_be_disabled() -> None:
    text = (resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    off = parse_rules(text.replace("enabled = true ", "enabled = false "))
    assert routescope.inspect("show pools", rules=off).decision is None


# -- the LLM seam ---------------------------------------------------------------------------
def llm(reply: str) -> Callable[[str, RouterContext], str]:
    return lambda text, context: reply


GOOD = {
    "agent": "lending",
    "mode": "explore",
    "ui": "cards",
    "toolPlan": [{"tool": "solana_lending_yields", "args": {"limit": 50, "sortBy": "apy"}}],
    "stopCondition": "when_first_yields_result_received",
    "layout": ["tool", "text"],
}


def test_a_valid_llm_decision_is_used() -> None:
    decision = decide("all pools please", llm=llm(json.dumps(GOOD)))
    assert decision.source == "llm"
    assert plan(decision) == [("solana_lending_yields", {"limit": 50, "sortBy": "apy"})]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("{not json", "malformed JSON"),
        (json.dumps({**GOOD, "toolPlan": [{"tool": "rm_rf", "args": {}}]}), "unknown tool"),
        (json.dumps({**GOOD, "toolPlan": [{"tool": "lend_execute", "args": {}}]}), "wrong mode"),
        (
            json.dumps(
                {
                    **GOOD,
                    "toolPlan": [
                        {"tool": "solana_lending_yields", "args": {"limit": n}} for n in (1, 2, 3)
                    ],
                }
            ),
            "too many steps",
        ),
        (json.dumps({**GOOD, "mode": "yolo"}), "schema: mode"),
        (json.dumps([1, 2]), "schema"),
    ],
)
def test_invalid_llm_decisions_fall_back_to_the_rules(reply: str, reason: str) -> None:
    decision = decide("Show highest TVL pools", llm=llm(reply))
    assert decision.source == "rules"
    assert decision.guardrails[0].rule == "llm_fallback"
    assert reason in decision.guardrails[0].detail
    assert plan(decision) == [("solana_lending_yields", {"sortBy": "tvl"})]


# -- prepare_step ---------------------------------------------------------------------------
def test_prepare_step_walks_the_plan_in_order() -> None:
    decision = decide("Lend 100 USDC on Kamino")
    results: list[StepResult] = []
    seen = []
    while not (step := prepare_step(decision, results)).done:
        assert step.next is not None
        seen.append(step.next.tool)
        results.append(StepResult(tool=step.next.tool, args=step.next.args))
    assert seen == ["wallet_connect", "wallet_balance", "lend_execute"]
    assert step.reason == "tool plan complete"


def test_prepare_step_stops_at_the_first_yields_result_and_on_errors() -> None:
    decision = decide("Show best lending pools")
    assert prepare_step(decision, [StepResult(tool="solana_lending_yields")]).reason == (
        "stop condition: first yields result received"
    )
    lend = decide("Lend 100 USDC on Kamino")
    assert "out of order" in prepare_step(lend, [StepResult(tool="lend_execute")]).reason
    assert "failed" in prepare_step(lend, [StepResult(tool="wallet_connect", ok=False)]).reason


def test_context_is_structured_never_raw_history() -> None:
    with pytest.raises(ValueError, match="Extra inputs"):
        RouterContext.model_validate({"messages": ["hi"]})
