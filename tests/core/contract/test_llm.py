"""The LLM seam of `decide` (`routescope.contract._llm`): a valid model decision is used (with
the guardrails), anything else falls back to the rules and says why."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest

import routescope
from routescope import parse_rules
from routescope.contract import (
    LLMClient,
    RouterContext,
    RouterDecision,
    ToolCall,
    apply_guardrails,
    decide,
)
from routescope.rules import default_rules_text

RULES = routescope.default_rules()
GOOD = {
    "agent": "lending",
    "mode": "explore",
    "ui": "cards",
    "toolPlan": [{"tool": "solana_lending_yields", "args": {"limit": 50, "sortBy": "apy"}}],
    "stopCondition": "when_first_yields_result_received",
    "layout": ["tool", "text"],
}


def llm(reply: str) -> LLMClient:
    return lambda text, context: reply


def plan(decision: RouterDecision) -> list[tuple[str, dict[str, object]]]:
    return [(call.tool, call.args) for call in decision.tool_plan]


def with_plan(*calls: tuple[str, Mapping[str, object]], **changes: object) -> str:
    return json.dumps({**GOOD, **changes, "toolPlan": [{"tool": t, "args": a} for t, a in calls]})


def test_a_valid_llm_decision_is_used() -> None:
    decision = decide("all pools please", llm=llm(json.dumps(GOOD)))
    assert decision.source == "llm"
    assert plan(decision) == [("solana_lending_yields", {"limit": 50, "sortBy": "apy"})]
    assert decision.guardrails == []


def test_the_model_is_asked_with_the_text_and_the_context() -> None:
    asked: list[tuple[str, RouterContext]] = []
    context = RouterContext.model_validate({"preferences": {"risk": "low"}})

    def model(text: str, given: RouterContext) -> str:
        asked.append((text, given))
        return json.dumps(GOOD)

    decide("show pools", context, llm=model)
    decide("show pools", llm=model)
    assert asked == [("show pools", context), ("show pools", RouterContext())]


def test_snake_case_keys_are_accepted_too() -> None:
    reply = {k: v for k, v in GOOD.items() if k not in ("toolPlan", "stopCondition")}
    reply |= {"tool_plan": GOOD["toolPlan"], "stop_condition": "after_tool_plan_complete"}
    decision = decide("x", llm=llm(json.dumps(reply)))
    assert decision.source == "llm" and decision.stop_condition == "after_tool_plan_complete"


def test_a_valid_llm_decision_still_passes_the_guardrails() -> None:
    twice = ("solana_lending_yields", {"limit": 5})
    decision = decide("x", llm=llm(with_plan(twice, twice)))
    assert decision.source == "llm" and [e.rule for e in decision.guardrails] == ["dedupe"]
    explore_only = parse_rules(
        default_rules_text().replace(
            'rollout_modes = ["explore", "decide", "execute"]', 'rollout_modes = ["explore"]'
        )
    )
    decided = decide(
        "x",
        rules=explore_only,
        llm=llm(with_plan(("solana_lending_yields", {}), ("yield_decision", {}), mode="decide")),
    )
    assert decided.source == "llm" and decided.mode == "explore"
    assert [e.rule for e in decided.guardrails] == ["rollout"]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("{not json", "malformed JSON: Expecting property name enclosed in double quotes at 1"),
        ("", "malformed JSON: Expecting value at 0"),
        (with_plan(("rm_rf", {})), "unknown tool 'rm_rf'"),
        (with_plan(("lend_execute", {})), "wrong mode: lend_execute (execution) in explore"),
        (
            with_plan(*(("solana_lending_yields", {"limit": n}) for n in (1, 2, 3))),
            "too many steps: 3 > 2 for explore",
        ),
        (
            with_plan(("solana_lending_yields", {"sortBy": "vibes"})),
            "solana_lending_yields: sortBy must be one of ['apy', 'tvl']",
        ),
        (
            with_plan(("solana_lending_yields", {"limit": "5"})),
            "solana_lending_yields: limit must be integer",
        ),
        (
            with_plan(("solana_lending_yields", {"limit": 1000})),
            "solana_lending_yields: limit above 100",
        ),
        (with_plan(("swap_quote", {"amount": -1})), "swap_quote: amount below 0"),
        (
            with_plan(("solana_lending_yields", {"nope": 1})),
            "solana_lending_yields: unknown argument 'nope'",
        ),
        (json.dumps({**GOOD, "mode": "yolo"}), "schema: mode: Input should be"),
        (json.dumps({**GOOD, "extra": 1}), "schema: extra: Extra inputs are not permitted"),
        (json.dumps({**GOOD, "toolPlan": [{"args": {}}]}), "schema: tool_plan.0.tool"),
        (json.dumps([1, 2]), "schema: (top level): Input should be a valid dictionary"),
    ],
)
def test_invalid_llm_decisions_fall_back_to_the_rules(reply: str, reason: str) -> None:
    decision = decide("Show highest TVL pools", llm=llm(reply))
    assert decision.source == "rules"
    assert decision.guardrails[0].rule == "llm_fallback"
    assert decision.guardrails[0].detail.startswith(f"LLM decision rejected ({reason}")
    assert decision.guardrails[0].detail.endswith("): deterministic rules used")
    assert plan(decision) == [("solana_lending_yields", {"sortBy": "tvl"})]


@pytest.mark.parametrize(
    ("call", "rejection", "rule", "detail"),
    [
        (("rm_rf", {}), "unknown tool 'rm_rf'", "unknown_tool", "not in the registry"),
        (
            ("lend_execute", {}),
            "wrong mode: lend_execute (execution) in explore",
            "tool_gating",
            "execution tool not allowed in explore",
        ),
        (
            ("swap_quote", {"amount": -1}),
            "swap_quote: amount below 0",
            "invalid_args",
            "amount below 0",
        ),
    ],
)
def test_a_model_is_rejected_for_what_a_guardrail_drops(
    call: tuple[str, Mapping[str, object]], rejection: str, rule: str, detail: str
) -> None:
    """One check serves both paths, each wording the problem its own way."""
    fallback = decide("x", llm=llm(with_plan(call))).guardrails[0]
    assert fallback.detail == f"LLM decision rejected ({rejection}): deterministic rules used"
    decision = RouterDecision(
        agent="lending",
        mode="explore",
        ui="cards",
        tool_plan=[ToolCall(tool=call[0], args=dict(call[1]))],
        stop_condition="after_tool_plan_complete",
        layout=["tool", "text"],
    )
    [event] = apply_guardrails(decision, RULES).guardrails
    assert (event.rule, event.detail, event.tool) == (rule, f"{detail}: dropped", call[0])


def test_a_model_that_raises_value_error_falls_back_too() -> None:
    def broken(text: str, context: RouterContext) -> str:
        raise ValueError("the model is down")

    decision = decide("Show highest TVL pools", llm=broken)
    assert decision.guardrails[0].detail == (
        "LLM decision rejected (the model is down): deterministic rules used"
    )


def test_the_fallback_keeps_the_rules_own_guardrails_after_its_own() -> None:
    decision = decide("try again", llm=llm("{not json"))
    assert [e.rule for e in decision.guardrails] == ["llm_fallback", "nothing_to_retry"]
