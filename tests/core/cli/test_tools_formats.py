"""`routescope tools --catalog FILE` reads every catalog format people have (issue 11 §1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._support import PARAMETER_QUERIES, routescope_cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize(
    ("path", "query", "tool"),
    [*PARAMETER_QUERIES, ("skills", "notes.search", "notes.search")],
)
def test_each_format_ranks_from_the_command_line(path: str, query: str, tool: str) -> None:
    done = routescope_cli(
        "tools", "--json", "--strategy", "exact", "--catalog", str(EXAMPLES / path), query
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the examples are clean: no problem lines
    top = json.loads(done.stdout)["results"][0]
    assert top["tool_name"] == tool
    if path != "skills":  # found by a parameter's name or description
        assert "parameters" in top["signals"]["keyword"]["fields"]


def test_a_foreign_catalog_runs_the_hybrid_search() -> None:
    done = routescope_cli(
        "tools",
        "--json",
        "--strategy",
        "hybrid",
        "--catalog",
        str(EXAMPLES / "catalogs" / "mcp-tools-list.json"),
        "show me the last lines of the server log file",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["strategy"] == "hybrid" and len(data["results"]) == 5
    assert data["results"][0]["tool_name"] == "read_text_file"


def test_bad_entries_are_reported_with_their_position_and_the_rest_rank(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.json"
    tools = [
        {"name": "ok", "description": "fine", "inputSchema": {"properties": {"city": {}}}},
        {"name": "bad\x1b[2J", "inputSchema": {}},
        {"description": "nameless", "inputSchema": {}},
        {"name": "schema", "inputSchema": "not a schema"},
    ]
    catalog.write_text(json.dumps({"jsonrpc": "2.0", "result": {"tools": tools}}), "utf-8")
    done = routescope_cli("tools", "--strategy", "exact", "--catalog", str(catalog), "city")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 3 and "\x1b" not in done.stderr
    assert "result.tools[1].name: contains control characters" in lines[0]
    assert "result.tools[2].name: must be a non-empty string" in lines[1]
    assert "result.tools[3].inputSchema: must be an object" in lines[2]
    assert "ok" in done.stdout


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}, "JSON-RPC error"),
        ({"tools": [{"name": ""}, {"name": 3}]}, "no tools could be loaded"),
        ({"settings": {}}, "this object has none of them"),
    ],
)
def test_a_catalog_with_nothing_usable_is_one_line_and_status_2(
    tmp_path: Path, data: object, message: str
) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps(data), "utf-8")
    done = routescope_cli("tools", "--catalog", str(catalog), "anything")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert message in done.stderr
