"""The contract's models (`routescope.contract._models`): the seed's input and output shapes."""

from __future__ import annotations

from typing import Any

import pytest

from routescope.contract import RouterContext, RouterDecision
from routescope.contract._models import LastSelection, Preferences


def enum_of(schema: dict[str, Any], field: str) -> list[str]:
    prop = schema["properties"][field]
    return list(prop.get("enum") or prop["items"]["enum"])


def test_the_decision_schema_holds_the_seeds_values() -> None:
    schema = RouterDecision.model_json_schema()
    assert set(schema["required"]) == {
        "agent",
        "mode",
        "ui",
        "tool_plan",
        "stop_condition",
        "layout",
    }
    assert enum_of(schema, "agent") == [
        "lending",
        "staking",
        "trading",
        "wallet",
        "knowledge",
        "recommendation",
    ]
    assert enum_of(schema, "mode") == ["explore", "decide", "execute"]
    assert enum_of(schema, "ui") == ["cards", "cards_then_text", "text"]
    assert enum_of(schema, "stop_condition") == [
        "when_first_yields_result_received",
        "after_tool_plan_complete",
        "none",
    ]
    assert enum_of(schema, "layout") == ["tool", "text"]


def test_context_takes_the_seeds_camel_case_and_snake_case_keys() -> None:
    camel = RouterContext.model_validate(
        {
            "last_selection": {"poolId": "p-1", "tokenMint": "MINT"},
            "preferences": {"stablecoinOnly": True},
        }
    )
    snake = RouterContext(
        last_selection=LastSelection(pool_id="p-1", token_mint="MINT"),
        preferences=Preferences(stablecoin_only=True),
    )
    assert camel == snake
    assert camel.model_dump(by_alias=True)["last_selection"]["poolId"] == "p-1"


def test_decisions_refuse_unknown_fields() -> None:
    with pytest.raises(ValueError, match="Extra inputs"):
        RouterDecision.model_validate(
            {
                "agent": "lending",
                "mode": "explore",
                "ui": "cards",
                "tool_plan": [],
                "stop_condition": "none",
                "layout": ["text"],
                "confidence": 0.9,
            }
        )
