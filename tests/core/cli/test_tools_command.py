"""`routescope tools` and the tool search in `inspect --json`."""

import json

import pytest

from routescope import resources_root
from tests._support import routescope_cli


def test_tools_cli_json() -> None:
    done = routescope_cli("tools", "--json", "-k", "3", "find files named config.yaml")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"strategy", "strategy_reason", "category_filter", "results"} <= set(data)
    assert len(data["results"]) == 3
    assert set(data["results"][0]) >= {"tool_name", "category", "score", "signals"}


def test_tools_eval_prints_three_signals() -> None:
    done = routescope_cli("tools", "--eval", str(resources_root() / "fixtures" / "tools.yaml"))
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert {"keyword", "vector", "hybrid"} <= set(rows)
    hit3 = {mode: float(rows[mode][3]) for mode in ("keyword", "vector", "hybrid")}
    assert hit3["hybrid"] >= max(hit3["keyword"], hit3["vector"])


@pytest.mark.parametrize(
    "args", [["tools", "--catalog", "/nope", "x"], ["tools", "-k", "0", "x"], ["tools"]]
)
def test_tools_cli_bad_input(args: list[str]) -> None:
    done = routescope_cli(*args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_inspect_json_gains_tools() -> None:
    data = json.loads(routescope_cli("inspect", "--json", "find files named config.yaml").stdout)
    assert data["tools"]["results"][0]["tool_name"] == "files.find"
