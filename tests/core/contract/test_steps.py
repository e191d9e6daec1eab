"""`prepare_step` (`routescope.contract._steps`): strict plan order, stop conditions, failures
and aborts."""

from __future__ import annotations

from routescope import parse_rules
from routescope.contract import CallResult, RouterDecision, decide, prepare_step
from routescope.contract._models import ToolCall
from routescope.rules import default_rules_text


def llm_plan(*tools: str, stop: str = "when_first_yields_result_received") -> RouterDecision:
    return RouterDecision.model_validate(
        {
            "agent": "recommendation",
            "mode": "explore",
            "ui": "cards",
            "tool_plan": [ToolCall(tool=tool) for tool in tools],
            "stop_condition": stop,
            "layout": ["tool", "text"],
            "source": "llm",
        }
    )


def test_prepare_step_walks_the_plan_in_order() -> None:
    decision = decide("Lend 100 USDC on Kamino")
    results: list[CallResult] = []
    seen = []
    while not (step := prepare_step(decision, results)).done:
        assert step.next is not None
        assert step.index == len(results)
        assert step.reason == f"step {len(results) + 1} of 3"
        seen.append(step.next.tool)
        results.append(CallResult(tool=step.next.tool, args=step.next.args))
    assert seen == ["wallet_connect", "wallet_balance", "lend_execute"]
    assert step.reason == "tool plan complete"
    assert (step.next, step.index) == (None, None)


def test_prepare_step_stops_at_the_first_yields_result_and_on_errors() -> None:
    decision = decide("Show best lending pools")
    assert prepare_step(decision, [CallResult(tool="solana_lending_yields")]).reason == (
        "stop condition: first yields result received"
    )
    lend = decide("Lend 100 USDC on Kamino")
    assert "out of order" in prepare_step(lend, [CallResult(tool="lend_execute")]).reason
    assert "failed" in prepare_step(lend, [CallResult(tool="wallet_connect", ok=False)]).reason


def test_the_reasons_name_the_step_and_the_tools() -> None:
    lend = decide("Lend 100 USDC on Kamino")
    assert prepare_step(lend, [CallResult(tool="lend_execute")]).reason == (
        "out of order: step 1 ran lend_execute, plan says wallet_connect"
    )
    assert prepare_step(lend, [CallResult(tool="wallet_connect", ok=False)]).reason == (
        "step 1 (wallet_connect) failed: stop"
    )
    ran = [CallResult(tool=c.tool) for c in lend.tool_plan] + [CallResult(tool="extra")]
    assert prepare_step(lend, ran).reason == "out of order: step 4 ran extra, plan says nothing"


def test_a_plan_without_steps_stops_at_once() -> None:
    step = prepare_step(llm_plan(stop="none"), [])
    assert step.done and step.reason == "stop condition: none"


def test_the_first_yields_result_stops_wherever_it_is_in_the_plan() -> None:
    decision = llm_plan("token_price", "solana_lending_yields", "yield_decision")
    first = [CallResult(tool="token_price")]
    assert prepare_step(decision, first).index == 1
    both = [*first, CallResult(tool="solana_lending_yields")]
    assert prepare_step(decision, both).reason == "stop condition: first yields result received"


def test_the_pack_says_which_tools_list_yields() -> None:
    pack = parse_rules(
        default_rules_text().replace(
            'yield_tool_suffix = "_yields"', 'yield_tool_suffix = "_price"'
        )
    )
    decision = llm_plan("token_price", "solana_lending_yields", "yield_decision")
    first = [CallResult(tool="token_price")]
    assert not prepare_step(decision, first).done
    assert prepare_step(decision, first, rules=pack).reason == (
        "stop condition: first yields result received"
    )
