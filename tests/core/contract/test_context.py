"""`load_context` and `parse_context` (`routescope.contract._context`): structured results and
client actions only, and a bad file is a `ContextError` naming the file and the field."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from routescope import ContextError, _files
from routescope.contract import RouterContext, load_context, parse_context
from routescope.contract._context import MAX_CONTEXT_BYTES

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


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "cannot read context: "), (b"\xff\xfe\x00", "context is not UTF-8 text")],
)
def test_an_unreadable_context_file_is_a_context_error(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "ctx.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ContextError, match=rf"^{path}: {message}"):
        load_context(path)


def test_parsed_data_names_its_source() -> None:
    with pytest.raises(ContextError, match=r"^request: invalid context: preferences.risk: "):
        parse_context({"preferences": {"risk": "extreme"}}, "request")


# -- F15: NaN and Infinity are refused where they come in; F11: bounded reads ------------------
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"last_action": {"tool": "stake_execute", "args": {"amount": NaN}}}', "amount is nan"),
        ('{"last_action": {"tool": "t", "args": {"amount": Infinity}}}', "amount is inf"),
        ('{"last_action": {"tool": "t", "args": {"amount": -Infinity}}}', "amount is -inf"),
        ('{"last_action": {"tool": "t", "args": {"amount": 1e400}}}', "amount is inf"),
        ('{"last_yield": {"tool": "t", "poolSummary": [{"apy": [1, NaN]}]}}', "apy.1 is nan"),
    ],
)
def test_non_finite_numbers_in_a_context_file_are_refused(
    tmp_path: Path, content: str, problem: str
) -> None:
    """`NaN` and `Infinity` are not JSON, and no guardrail bound can judge them: a context
    holding one is refused with the field, never retried (`decide --context`)."""
    path = tmp_path / "ctx.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ContextError, match=re.escape(f"not a finite number: {problem}")) as info:
        load_context(path)
    assert str(info.value).startswith(f"{path}: invalid context: ")
    assert "\n" not in str(info.value)


def test_non_finite_numbers_in_parsed_data_are_refused() -> None:
    data = {"last_action": {"tool": "stake_execute", "args": {"amount": math.nan}}}
    with pytest.raises(ContextError, match=r"last_action\.args: not a finite number: amount"):
        parse_context(data)
    with pytest.raises(ValidationError):
        RouterContext.model_validate(data)


def test_devices_fifos_and_huge_context_files_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F11: `decide --context /dev/zero`, a FIFO without a writer, a file over the limit."""
    monkeypatch.setattr(_files, "STREAM_DEADLINE_S", 0.2)
    if Path("/dev/zero").exists():
        with pytest.raises(ContextError, match=r"^/dev/zero: context is too large"):
            load_context("/dev/zero")
    huge = tmp_path / "huge.json"
    with huge.open("wb") as stream:
        stream.truncate(MAX_CONTEXT_BYTES + 1)
    with pytest.raises(ContextError, match=r"huge\.json: context is too large"):
        load_context(huge)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)
        with pytest.raises(ContextError, match=r"fifo\.json: context did not arrive within"):
            load_context(fifo)


def test_a_bom_is_dropped_and_deep_nesting_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(CONTEXT).encode())
    assert load_context(path).preferences.risk == "low"
    path.write_text('{"last_action": {"tool": "t", "args": {"a": ' + "[" * 100_000, "utf-8")
    with pytest.raises(ContextError, match=rf"^{path}: invalid context: ") as info:
        load_context(path)
    assert "\n" not in str(info.value)
