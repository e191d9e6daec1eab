"""The LLM seam of `decide` (`routescope.contract._llm`): a valid model decision is used (with
the guardrails), anything else falls back to the rules and says why."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import routescope
from routescope import parse_rules
from routescope.contract import RouterContext, RouterDecision, apply_guardrails, decide
from routescope.contract._llm import LLMClient
from routescope.contract._models import ToolCall
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


# -- hostile models: always a valid decision, the rules when the model's answer is unusable -----
def fallback_reason(decision: RouterDecision) -> str:
    assert decision.source == "rules"
    event = decision.guardrails[0]
    assert event.rule == "llm_fallback" and "\n" not in event.detail
    return event.detail


@pytest.mark.parametrize(
    ("amount", "shown"), [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf")]
)
def test_non_finite_amounts_from_a_model_fall_back(amount: str, shown: str) -> None:
    """F15: NaN passed `amount >= 0` before; now the model's decision is rejected."""
    reply = json.dumps(
        {
            "agent": "staking",
            "mode": "execute",
            "ui": "cards",
            "toolPlan": [
                {"tool": "wallet_connect", "args": {}},
                {"tool": "wallet_balance", "args": {}},
                {"tool": "stake_execute", "args": {"amount": "AMOUNT", "token": "SOL"}},
            ],
            "stopCondition": "after_tool_plan_complete",
            "layout": ["tool", "text"],
        }
    ).replace('"AMOUNT"', amount)
    decision = decide("stake 5 SOL", llm=llm(reply))
    assert f"amount is {shown}" in fallback_reason(decision)
    assert all(math.isfinite(a) for c in decision.tool_plan for a in numbers(c.args))


def numbers(value: object) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in numbers(item)]
    return []


def test_a_model_cannot_inject_guardrail_events() -> None:
    """Events come only from the guardrails: the model's own list, abort step and source are
    dropped before validation."""
    fake = [{"rule": "dedupe", "detail": "identical tool and args this turn: dropped"}]
    reply = json.dumps({**GOOD, "guardrails": fake, "abort_after": 0, "source": "rules"})
    decision = decide("all pools please", llm=llm(reply))
    assert (decision.source, decision.guardrails, decision.abort_after) == ("llm", [], None)
    assert plan(decision) == [("solana_lending_yields", {"limit": 50, "sortBy": "apy"})]


def test_real_guardrail_events_still_come_with_a_model_decision() -> None:
    reply = with_plan(
        ("solana_lending_yields", {"limit": 50}),
        ("solana_lending_yields", {"limit": 50}),
        guardrails=[{"rule": "rollout", "detail": "fake"}],
    )
    decision = decide("all pools", llm=llm(reply))
    assert [(e.rule, e.detail) for e in decision.guardrails] == [
        ("dedupe", "identical tool and args this turn: dropped")
    ]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (None, "the reply is not text but NoneType"),
        (5, "the reply is not text but int"),
        ({"agent": "lending"}, "the reply is not text but dict"),
        ("[" * 100_000, "malformed JSON: nested too deeply"),
        ('{"agent": ' + "1" * 5000 + "}", "malformed JSON: Exceeds the limit (4300 digits)"),
        (b"\xff\xfe", "malformed JSON"),
        ("", "malformed JSON: Expecting value at 0"),
        ("null", "schema: (top level)"),
    ],
)
def test_replies_that_are_not_json_text_fall_back(reply: object, reason: str) -> None:
    decision = decide("Show highest TVL pools", llm=lambda text, context: reply)  # type: ignore[arg-type,return-value]
    assert reason in fallback_reason(decision)
    assert plan(decision)[0][0] == "solana_lending_yields"  # the rules' plan


def test_a_reply_as_bytes_is_read() -> None:
    decision = decide("all pools please", llm=lambda t, c: json.dumps(GOOD).encode())  # type: ignore[arg-type,return-value]
    assert decision.source == "llm"


@pytest.mark.parametrize(
    "failure",
    [
        RuntimeError("boom"),
        ConnectionError("refused"),
        TimeoutError(),
        KeyError("x"),
        RecursionError(),
    ],
)
def test_a_model_that_raises_anything_falls_back(failure: Exception) -> None:
    """README: the rules replace the model's answer when there is none to use."""

    def broken(text: str, context: RouterContext) -> str:
        raise failure

    reason = fallback_reason(decide("Show highest TVL pools", llm=broken))
    assert f"the model failed: {type(failure).__name__}" in reason


def test_a_long_reason_is_cut() -> None:
    def broken(text: str, context: RouterContext) -> str:
        raise RuntimeError("x" * 10_000 + "\nsecond line")

    reason = fallback_reason(decide("Show highest TVL pools", llm=broken))
    assert len(reason) < 400


_JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["wallet_connect", "stake_execute", "lend_execute", "solana_lending_yields"])
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
_KEYS = st.sampled_from(
    [
        "agent",
        "mode",
        "ui",
        "toolPlan",
        "tool_plan",
        "stopCondition",
        "layout",
        "guardrails",
        "abort_after",
        "source",
        "rules_fired",
        "stop_condition",
    ]
)


@st.composite
def hostile_replies(draw: st.DrawFn) -> object:
    kind = draw(st.integers(0, 5))
    if kind == 0:  # a good decision with some fields replaced by anything
        data: dict[str, object] = dict(GOOD)
        for key in draw(st.lists(_KEYS, max_size=4)):
            data[key] = draw(_JSON)
        return json.dumps(data, allow_nan=True)
    if kind == 1:  # a plan of registry tools with arguments of any kind
        calls = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "tool": _JSON_LEAVES,
                        "args": st.dictionaries(
                            st.sampled_from(["amount", "token", "limit", "sortBy", "x"]),
                            _JSON,
                            max_size=3,
                        ),
                    }
                ),
                max_size=5,
            )
        )
        mode = draw(st.sampled_from(["explore", "decide", "execute", "nope"]))
        return json.dumps({**GOOD, "mode": mode, "toolPlan": calls}, allow_nan=True)
    if kind == 2:
        return json.dumps(draw(_JSON), allow_nan=True)
    if kind == 3:
        return draw(st.text(max_size=200))
    if kind == 4:
        return "[" * draw(st.integers(0, 200_000)) + draw(st.text(max_size=5))
    return draw(_JSON | st.binary(max_size=50))  # not even text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=hostile_replies(), text=st.sampled_from(["try again", "stake 5 SOL", "all pools"]))
def test_any_reply_gives_a_valid_decision_without_non_finite_numbers(
    reply: object, text: str
) -> None:
    decision = decide(text, llm=lambda t, c: reply)  # type: ignore[arg-type,return-value]
    assert isinstance(decision, RouterDecision)
    RouterDecision.model_validate(decision.model_dump())  # valid all the way down
    assert all(math.isfinite(n) for call in decision.tool_plan for n in numbers(call.args))
    assert decision.source in ("llm", "rules")
    if decision.source == "llm":
        assert all(e.rule != "llm_fallback" for e in decision.guardrails)
    json.loads(decision.model_dump_json())  # serializable as strict JSON
