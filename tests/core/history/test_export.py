"""Exports of one inspection: JSON that reads back as the same result, and a Markdown summary
whose text from the prompt cannot break out of its place."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import routescope
from routescope import Inspection, Request
from routescope.history import HistoryError, export_inspection, export_markdown, to_json
from routescope.rules import default_rules_text

from ._support import TODAY, plain, with_tools


def outside_code(line: str) -> str:
    """The line without its code spans (a run of n backticks up to the next run of n)."""
    kept = []
    at = 0
    while at < len(line):
        opening = re.match(r"`+", line[at:])
        if opening is None:
            kept.append(line[at])
            at += 1
            continue
        fence = opening.group()
        closing = re.compile(rf"(?<!`){fence}(?!`)").search(line, at + len(fence))
        assert closing is not None, f"an unclosed code span: {line}"
        at = closing.end()
    return "".join(kept)


def test_json_reads_back_as_the_same_inspection() -> None:
    _, result = with_tools("why is my container crashing")
    text = to_json(result)
    assert Inspection.model_validate_json(text) == result
    assert json.loads(text)["strategy"] == result.strategy


def test_markdown_has_every_part() -> None:
    request, result = with_tools("Best ramen near Denver, then run git status")
    text = export_markdown(result, request)
    assert text.startswith("# Routescope inspection\n")
    assert f"## Strategy: {result.strategy}" in text and result.strategy_reason in text
    for action in result.actions:
        assert f"`{action.query}`" in text
    assert f"## Linter: {result.lint.query_class}" in text
    assert result.decision is not None
    assert f"## Contract: {result.decision.agent} / {result.decision.mode}" in text
    for call in result.decision.tool_plan:
        assert f"`{call.tool}`" in text
    assert result.tools is not None and len(result.tools.results) > 5
    rows = [line for line in text.splitlines() if line.startswith("| ") and "`" in line]
    tool_rows = [
        line for line in rows if any(f"`{h.tool_name}`" in line for h in result.tools.results)
    ]
    assert len(tool_rows) == 5
    assert f"## Task: {result.task.route}" in text
    assert request.fingerprint()[:16] in text


def test_markdown_without_a_contract_or_tools() -> None:
    off = routescope.RulesRef.from_text(
        default_rules_text().replace("enabled = true ", "enabled = false "), "off.toml"
    )
    request = Request.build("pizza near me", today=TODAY, rules=off)
    text = export_markdown(routescope.inspect(request))
    assert "## Contract\n\nDisabled by the rule pack." in text
    assert "## Tools" not in text


def test_prompt_text_cannot_break_out() -> None:
    prompt = "run ```rm``` | <script>alert(1)</script> [x](javascript:evil) \x1b[2J *bold* near me"
    request, result = plain(prompt)
    text = export_markdown(result, request)
    lines = text.splitlines()
    fence = lines[2]
    assert fence == "````text" and lines[4] == "````"  # longer than any run inside
    assert "\x1b" not in text and "\\x1b[2J" in text
    for line in lines[5:]:
        bare = outside_code(line)
        assert "<script>" not in bare and "](" not in bare and "```" not in bare, line
    for line in lines:
        if line.startswith("| ") and not line.startswith("| ---"):
            cells = line.replace("\\|", "").count("|")
            assert cells == 6  # five columns: a prompt's pipe adds none


def test_export_inspection_writes_either_format_atomically(tmp_path: Path) -> None:
    request, result = with_tools("why is my container crashing")
    as_json = export_inspection(tmp_path / "i.json", result)
    assert as_json.read_text(encoding="utf-8") == to_json(result)
    as_md = export_inspection(tmp_path / "i.md", result, "md", request)
    assert as_md.read_text(encoding="utf-8") == export_markdown(result, request)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.json", "i.md"]  # no temporaries


def test_an_export_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    _, result = with_tools("why is my container crashing")
    with pytest.raises(HistoryError, match=r"cannot export the inspection: not a regular file"):
        export_inspection(tmp_path, result)
