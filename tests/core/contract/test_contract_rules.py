"""The `[contract]` values that used to be constants (`routescope.rules.ContractRules`): the
defaults are the seed's, a pack that changes one changes the decisions, and bad values are
rule pack errors naming the field."""

from __future__ import annotations

import pytest

from routescope import RulePackError, parse_rules
from routescope.contract import RouterContext, RouterDecision, decide
from routescope.rules import ContractRules, RulePack, default_rules_text

CANCELLED_LEND = RouterContext.model_validate(
    {"last_action": {"tool": "lend_execute", "args": {"amount": 100}, "status": "cancelled"}}
)


def pack(old: str, new: str) -> RulePack:
    """The built-in pack with one line of its `[contract]` table changed."""
    text = default_rules_text()
    assert text.count(old) == 1, old
    return parse_rules(text.replace(old, new), "pack.toml")


def plan(decision: RouterDecision) -> list[tuple[str, dict[str, object]]]:
    return [(call.tool, call.args) for call in decision.tool_plan]


NEW_FIELDS = {
    "retry_phrases",
    "retry_modes",
    "yield_tool_suffix",
    "stop_at_first_yields",
    "amount_tools",
    "protocol_words",
    "last_yield_agents",
    "last_yield_fallback_agent",
    "ui_by_mode",
    "text_agents",
}


def test_the_built_in_pack_spells_out_the_defaults() -> None:
    contract = parse_rules(default_rules_text()).contract
    assert contract.model_fields_set >= NEW_FIELDS
    with_defaults = ContractRules.model_validate(contract.model_dump(exclude=NEW_FIELDS))
    assert with_defaults == contract


def test_the_retry_phrases_decide_what_repeats_the_last_action() -> None:
    redo = pack('retry_phrases = ["try again", "retry"]', "retry_phrases = ['redo', 'do it again']")
    decision = decide("redo", CANCELLED_LEND, redo)
    assert (decision.agent, decision.mode) == ("lending", "execute")
    assert plan(decision)[-1] == ("lend_execute", {"amount": 100})
    assert decide("try again", CANCELLED_LEND, redo).agent == "knowledge"
    assert decide("redo", CANCELLED_LEND).agent == "knowledge"


def test_the_retry_modes_decide_where_a_retried_action_runs() -> None:
    context = RouterContext.model_validate({"last_action": {"tool": "solana_lending_yields"}})
    assert decide("retry", context).mode == "explore"
    rules = pack('{ read_only = "explore",', '{ read_only = "decide",')
    decision = decide("retry", context, rules)
    assert decision.mode == "decide"
    assert [t for t, _ in plan(decision)] == ["yield_decision", "solana_lending_yields"]


def test_the_yield_tool_suffix_decides_where_argument_rules_apply() -> None:
    text = "Show highest TVL staking yields"
    assert plan(decide(text)) == [("solana_staking_yields", {"sortBy": "tvl"})]
    lending_only = pack('yield_tool_suffix = "_yields"', 'yield_tool_suffix = "_lending_yields"')
    decision = decide(text, rules=lending_only)
    assert plan(decision) == [("solana_staking_yields", {})]
    assert decision.stop_condition == "after_tool_plan_complete"
    assert plan(decide("Show highest TVL pools", rules=lending_only)) == [
        ("solana_lending_yields", {"sortBy": "tvl"})
    ]


def test_the_stop_at_first_yields_modes() -> None:
    text = "Compare staking yields and pick one"
    assert decide(text).stop_condition == "after_tool_plan_complete"
    only = 'stop_at_first_yields = ["explore"]'
    both = pack(only, 'stop_at_first_yields = ["explore", "decide"]')
    assert decide(text, rules=both).stop_condition == "when_first_yields_result_received"
    never = pack(only, "stop_at_first_yields = []")
    assert decide("show lending pools", rules=never).stop_condition == "after_tool_plan_complete"


def test_the_amount_tools_take_amount_and_token_from_the_text() -> None:
    assert plan(decide("price of 5 BONK")) == [("token_price", {"token": "BONK"})]
    none = pack(
        'amount_tools = ["swap_quote", "token_price", "wallet_balance"]', "amount_tools = []"
    )
    assert plan(decide("price of 5 BONK", rules=none)) == [("token_price", {})]
    assert plan(decide("lend 5 SOL", rules=none))[-1][1] == {"amount": 5.0, "token": "SOL"}


def test_the_protocol_words_introduce_a_protocol() -> None:
    text = "lend 5 SOL via Kamino"
    assert plan(decide(text))[-1][1]["protocol"] == "kamino"
    only_on = pack('protocol_words = ["on", "via", "at", "with"]', 'protocol_words = ["on"]')
    assert "protocol" not in plan(decide(text, rules=only_on))[-1][1]
    assert plan(decide("lend 5 SOL on Kamino", rules=only_on))[-1][1]["protocol"] == "kamino"


def test_the_last_yield_agents_and_their_fallback() -> None:
    def agent_after(tool: str, rules: RulePack | None = None) -> str:
        context = RouterContext.model_validate({"last_yield": {"tool": tool}})
        return decide("and now?", context, rules).agent

    rules = pack(
        'last_yield_agents = { lending = "lending" }\nlast_yield_fallback_agent = "staking"',
        'last_yield_agents = { staking = "staking", swap = "trading" }\n'
        'last_yield_fallback_agent = "lending"',
    )
    assert agent_after("solana_staking_yields", rules) == "staking"
    assert agent_after("swap_quote", rules) == "trading"
    assert agent_after("something_else", rules) == "lending"
    assert agent_after("something_else") == "staking"


def test_the_ui_by_mode_and_the_text_agents() -> None:
    assert decide("show lending pools").ui == "cards"
    assert decide("explain impermanent loss").ui == "text"
    rules = pack(
        'ui_by_mode = { explore = "cards", ',
        'ui_by_mode = { explore = "cards_then_text", ',
    )
    assert decide("show lending pools", rules=rules).ui == "cards_then_text"
    no_text = pack('text_agents = ["knowledge"]', 'text_agents = ["lending"]')
    assert decide("explain impermanent loss", rules=no_text).ui == "cards"
    assert decide("show lending pools", rules=no_text).ui == "text"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'retry_phrases = ["try again", "retry"]',
            'retry_phrases = ["  ", ""]',
            "contract.retry_phrases: must name at least one non-blank entry",
        ),
        (
            'protocol_words = ["on", "via", "at", "with"]',
            "protocol_words = []",
            "contract.protocol_words: must name at least one non-blank entry",
        ),
        (
            'yield_tool_suffix = "_yields"',
            'yield_tool_suffix = " "',
            "contract.yield_tool_suffix: must not be blank",
        ),
        (
            'amount_tools = ["swap_quote", "token_price", "wallet_balance"]',
            'amount_tools = ["swap_quotes"]',
            "contract.amount_tools: names unknown tool 'swap_quotes'",
        ),
        (
            'last_yield_agents = { lending = "lending" }',
            'last_yield_agents = { "" = "lending" }',
            "contract.last_yield_agents: keys must not be blank",
        ),
        (
            'last_yield_fallback_agent = "staking"',
            'last_yield_fallback_agent = "pirate"',
            "contract.last_yield_fallback_agent: Input should be",
        ),
        (
            'ui_by_mode = { explore = "cards", ',
            "ui_by_mode = { ",
            "contract.ui_by_mode: must name every one of ['explore', 'decide', 'execute']: "
            "missing ['explore']",
        ),
        (
            '{ read_only = "explore", wallet',
            "{ wallet",
            "contract.retry_modes: must name every one of ['read_only', 'wallet', 'execution']: "
            "missing ['read_only']",
        ),
        (
            'text_agents = ["knowledge"]',
            'text_agents = ["poet"]',
            "contract.text_agents.0: Input should be",
        ),
    ],
)
def test_bad_values_are_rule_pack_errors_naming_the_field(old: str, new: str, message: str) -> None:
    with pytest.raises(RulePackError) as info:
        pack(old, new)
    assert f"field {message}" in str(info.value)
    assert str(info.value).startswith("pack.toml:")


def test_phrases_and_words_are_trimmed_and_deduplicated() -> None:
    rules = pack(
        'retry_phrases = ["try again", "retry"]',
        'retry_phrases = [" Try  again ", "try again", "", "retry"]',
    )
    assert rules.contract.retry_phrases == ["Try again", "retry"]
    words = pack(
        'protocol_words = ["on", "via", "at", "with"]', 'protocol_words = ["on", " On", "on"]'
    )
    assert words.contract.protocol_words == ["on", "On"]
    assert plan(decide("lend 5 SOL On Kamino", rules=words))[-1][1]["protocol"] == "kamino"
