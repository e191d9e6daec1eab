"""`load_context` and `parse_context` (`routescope.contract._context`): structured results and
client actions only, and a bad file is a `ContextError` naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routescope import ContextError
from routescope.contract import RouterContext, load_context, parse_context

CONTEXT = {
    "last_yield": {"tool": "solana_lending_yields", "args": {"limit": 50}, "poolSummary": []},
    "last_action": {"tool": "lend_execute", "args": {"amount": 100}, "status": "cancelled"},
    "last_selection": {"tool": "solana_lending_yields", "poolId": "p-7", "protocol": "kamino"},
    "preferences": {"risk": "low", "duration": "30d", "stablecoinOnly": True},
}


def test_context_is_structured_never_raw_history() -> None:
    with pytest.raises(ValueError, match="Extra inputs"):
        RouterContext.model_validate({"messages": ["hi"]})


def test_a_context_file_is_read_and_validated(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(CONTEXT), encoding="utf-8")
    context = load_context(path)
    assert context == parse_context(CONTEXT) == parse_context(json.dumps(CONTEXT).encode())
    assert context.last_selection is not None and context.last_selection.pool_id == "p-7"
    assert context.preferences.stablecoin_only is True


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ('{"last_action": {"tool": "lend_execute", "status": "maybe"}}', "last_action.status"),
        ('{"preferences": {"risk": "extreme"}}', "preferences.risk"),
        ('{"messages": ["hi"]}', "messages"),
        ('{"last_yield": {}}', "last_yield.tool"),
    ],
)
def test_a_bad_context_file_names_the_file_and_the_field(
    tmp_path: Path, content: str, field: str
) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ContextError) as info:
        load_context(path)
    assert str(info.value).startswith(f"{path}: invalid context: {field}: ")
    assert "\n" not in str(info.value)


def test_a_context_that_is_not_json_is_a_context_error(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ContextError, match=rf"^{path}: invalid context: "):
        load_context(path)


@pytest.mark.parametrize("content", [None, b"\xff\xfe\x00"])
def test_an_unreadable_context_file_is_a_context_error(
    tmp_path: Path, content: bytes | None
) -> None:
    path = tmp_path / "ctx.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ContextError, match=rf"^{path}: cannot read context: "):
        load_context(path)


def test_parsed_data_names_its_source() -> None:
    with pytest.raises(ContextError, match=r"^request: invalid context: preferences.risk: "):
        parse_context({"preferences": {"risk": "extreme"}}, "request")
