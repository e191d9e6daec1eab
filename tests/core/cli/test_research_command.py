"""`routescope research`: offline by default (the on-machine documentation index and the
heuristic model); bad options are one line and exit 2."""

import json
import os
from pathlib import Path

import pytest

from tests._support import routescope_cli


def test_offline_research_finds_the_asyncio_docs_and_reports(tmp_path: Path) -> None:
    done = routescope_cli(
        "research", "--json", "--report", str(tmp_path / "run"), "asyncio event loop in a thread"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["final_query"] and data["attempts"][0]["status"] == 200
    assert any(
        f["url"] == "https://docs.python.org/3/library/asyncio.html" for f in data["findings"]
    )
    assert data["model"] == "heuristic" and data["termination_reason"]
    assert data["next_step"]["outcome"] in {"proceed", "research_again", "escalate"}
    assert (tmp_path / "run" / "report.md").read_text().startswith("# Research: asyncio")
    assert json.loads((tmp_path / "run" / "report.json").read_text()) == data


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--search", "tavily"], "tavily needs a key: set TAVILY_API_KEY or store one"),
        (["--search", "searxng"], "SearXNG needs the http(s) URL of an instance"),
        (["--llm", "openai"], "model needs its /v1 base URL"),
        (["--max-attempts", "0"], "max attempts must be from 1 to 10"),
    ],
)
def test_bad_options_are_one_line(args: list[str], message: str) -> None:
    keyless = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = routescope_cli("research", *args, "asyncio", env=keyless)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert message in line


def test_inspect_json_gains_the_task_router_decision() -> None:
    done = routescope_cli("inspect", "--json", "--today", "2026-02-05", "Latest FastAPI release")
    assert done.returncode == 0, done.stderr
    task = json.loads(done.stdout)["task"]
    assert task["route"] == "browse" and task["source"] == "heuristic"
    assert task["actions"] and "as of February 5, 2026" in task["actions"][0]["query"]


def test_a_report_folder_with_a_linked_report_is_one_line_and_nothing_written(
    tmp_path: Path,
) -> None:
    """Issue 25 §1: a dangling `report.md` link would create its target."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "report.md").symlink_to(tmp_path / "nowhere.md")
    done = routescope_cli("research", "--report", str(folder), "asyncio event loop in a thread")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "report.md is a symbolic link" in line
    assert not (tmp_path / "nowhere.md").exists() and [p.name for p in folder.iterdir()] == [
        "report.md"
    ]


def test_allowed_hosts_are_checked_on_the_command_line() -> None:
    done = routescope_cli("research", "--allowed-hosts", "not a host", "asyncio")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "is not a host name" in line
