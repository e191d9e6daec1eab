"""`command_line(request)`: the `routescope inspect` command that reproduces a request — run
through the command line, its words give the same inspection (timings aside)."""

from __future__ import annotations

import datetime as dt
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

import routescope
from routescope import CatalogRef, Request, RulesRef
from routescope.cli import command_line, main
from routescope.contract import parse_context
from routescope.toolsearch import Engines, SearchSettings

TODAY = dt.date(2026, 2, 5)


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "timings_us"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def run(line: str, capsys: pytest.CaptureFixture[str]) -> Any:
    """Run a copied line (as a shell splits it) with `--json`; its JSON."""
    words = shlex.split(line)
    assert words[:2] == ["routescope", "inspect"]
    capsys.readouterr()
    assert main(["inspect", "--json", *words[2:]]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def expected(request: Request, engines: Engines | None = None) -> Any:
    tools = engines.get(request.catalog) if engines is not None and request.catalog else None
    inspection = routescope.inspect(request, tools=tools)
    return without_timings(json.loads(routescope.inspection_json(inspection)))


def test_a_plain_request_is_its_prompt_and_date(capsys: pytest.CaptureFixture[str]) -> None:
    request = Request.build("How do I install FastAPI on Ubuntu?", today=TODAY)
    line = command_line(request)
    assert line.text == (
        "routescope inspect 'How do I install FastAPI on Ubuntu?' --today 2026-02-05 --no-tools"
    )
    assert line.caveats == []
    assert without_timings(run(line.text, capsys)) == expected(request)


def test_every_input_is_carried_and_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "my pack's rules.toml"  # (a space and a quote in the path)
    text = RulesRef.builtin().text.replace('name = "default"', 'name = "mine"', 1)
    pack.write_text(text.replace('"gaming engine"', '"free download"'), encoding="utf-8")
    context = parse_context(
        {
            "last_action": {
                "tool": "lend_execute",
                "args": {"amount": 100, "token": "USDC"},
                "status": "cancelled",
            },
            "preferences": {"stablecoinOnly": True},
        }
    )
    request = Request.build(
        '-- try again with 100 USDC, it\'s "safe"?\nand $HOME `id`',
        today=TODAY,
        rules=RulesRef.from_path(pack),
        context=context,
        catalog=CatalogRef.sample(),
        search=SearchSettings(fusion="canonical", k=5, boosts={"tool_name": 2.0}),
    )
    line = command_line(request)
    assert line.caveats == []
    words = shlex.split(line.text)
    assert words[-2:] == ["--", request.text]  # a prompt that reads as an option goes last
    assert words[words.index("--rules") + 1] == str(pack)
    assert json.loads(words[words.index("--search") + 1]) == {
        "boosts": {"tool_name": 2.0},
        "fusion": "canonical",
        "k": 5,
    }
    printed = run(line.text, capsys)
    engines = Engines()
    assert printed["rules"] == "mine" and printed["tools"]["fusion"] == "canonical"
    assert len(printed["tools"]["results"]) <= 5
    assert without_timings(printed) == expected(request, engines)


def test_a_pack_with_unsaved_edits_or_no_file_is_said(tmp_path: Path) -> None:
    pack = tmp_path / "mine.toml"
    pack.write_text(RulesRef.builtin().text, encoding="utf-8")
    edited = RulesRef.from_text(RulesRef.builtin().text + "\n# edited\n", str(pack))
    line = command_line(Request.build("pizza", today=TODAY, rules=edited))
    assert "--rules" in line.argv
    assert line.caveats == [
        "the rule pack «default» has edits not saved to mine.toml: the command uses the file "
        "as it is"
    ]
    builtin_edited = RulesRef.from_text(RulesRef.builtin().text + "\n# edited\n", "default.toml")
    line = command_line(Request.build("pizza", today=TODAY, rules=builtin_edited))
    assert "--rules" not in line.argv and "is in no file (default.toml)" in line.caveats[0]


def test_bad_search_settings_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for value, said in (
        ("{", "--search: not JSON"),
        ("[1]", "expected a JSON object"),
        ('{"speed": 1}', "no setting 'speed'"),
        ('{"k": 0}', "k"),
    ):
        assert main(["inspect", "pizza", "--search", value]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1
    assert main(["inspect", "pizza", "--context", "{not json"]) == 2
    assert "--context: invalid context" in capsys.readouterr().err
