"""Saving a prompt as a regression case (`append_case`): the case is added after the last one,
nothing else in the file changes, and the suite then runs with the new case passing."""

from __future__ import annotations

import datetime as dt
import functools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import routescope
from routescope import CatalogRef, Inspection, Request, RulesRef, resources_root
from routescope.contract import parse_context
from routescope.regress import SuiteError, append_case, load_suite, run_suite
from routescope.regress._append import case_expectations
from routescope.rules import default_rules_text
from routescope.toolsearch import SearchSettings
from tests._support import DEMO_SUITE

FIXTURES = Path(str(resources_root() / "fixtures"))
TODAY = dt.date(2026, 2, 5)  # the date of the strategy fixture


def inspected(text: str, **inputs: object) -> tuple[Request, Inspection]:
    inputs.setdefault("today", TODAY)
    request = Request.build(text, **inputs)  # type: ignore[arg-type]
    return request, routescope.inspect(request)


@functools.cache
def _engine() -> object:
    """The engine a tools suite runs on: the sample catalog, the default settings."""
    from routescope.toolsearch import ToolSearch, load_catalog

    return ToolSearch(load_catalog(CatalogRef.sample().path))


def with_tools(text: str) -> tuple[Request, Inspection]:
    request = Request.build(text, today=dt.date(2026, 1, 1), catalog=CatalogRef.sample())
    return request, routescope.inspect(request, tools=_engine())  # type: ignore[arg-type]


def copy_fixture(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    shutil.copyfile(FIXTURES / f"{name}.yaml", path)
    return path


def passes(path: Path, case_id: str) -> bool:
    result = run_suite(load_suite(path))
    (case,) = [c for c in result.cases if c.id == case_id]
    return case.passed


@pytest.mark.parametrize("router", ["strategy", "linter", "contract"])
def test_appending_to_a_fixture_changes_nothing_else_and_passes(
    tmp_path: Path, router: str
) -> None:
    path = copy_fixture(tmp_path, router)
    before = path.read_text(encoding="utf-8")
    request, result = inspected("Show best lending pools near Austin, latest news")
    case = append_case(path, "saved-from-window", request, result)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)  # the old text, byte for byte, then the new case
    assert case.id == "saved-from-window" and case.prompt == request.text
    assert case.expect == case_expectations(router, result)
    suite_result = run_suite(load_suite(path))
    assert suite_result.failed == 0
    assert suite_result.cases[-1].id == "saved-from-window"


def test_the_expectations_follow_the_router() -> None:
    _, result = inspected("Try again", context={"last_action": {"tool": "lend_execute"}})
    strategy = case_expectations("strategy", result)
    assert strategy == {
        "strategy": result.strategy,
        "actions[*].query": [action.query for action in result.actions],
    }
    assert case_expectations("linter", result) == {"query_class": result.lint.query_class}
    assert result.decision is not None
    assert case_expectations("contract", result) == {
        "agent": result.decision.agent,
        "mode": result.decision.mode,
        "tool_plan[*].tool": [call.tool for call in result.decision.tool_plan],
    }
    with pytest.raises(SuiteError, match="no tool search"):
        case_expectations("tools", result)
    with pytest.raises(SuiteError, match="router must be one of"):
        case_expectations("compare", result)


def test_a_tools_case_expects_the_top_tool_family(tmp_path: Path) -> None:
    path = copy_fixture(tmp_path, "tools")
    before = path.read_text(encoding="utf-8")
    request, result = with_tools("why is my container crashing after the deploy")
    assert result.tools is not None and result.tools.results
    family = result.tools.results[0].tool_name.split(".")[0] + "."
    case = append_case(path, "saved-crash", request, result)
    assert case.expect == {"results[:1].tool_name": {"any_startswith": [family]}}
    assert path.read_text(encoding="utf-8").startswith(before)
    assert passes(path, "saved-crash")


def test_the_suite_runs_with_the_new_case_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(DEMO_SUITE, encoding="utf-8")
    request, result = inspected("coffee shops nearby")
    append_case(path, "coffee", request, result)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(DEMO_SUITE)
    assert text[len(DEMO_SUITE) :] == (
        "  - id: coffee\n"
        "    prompt: coffee shops nearby\n"
        "    expect:\n"
        "      strategy: local\n"
        f"      actions[*].query: [{', '.join(a.query for a in result.actions)}]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "routescope", "regress", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "✓ coffee" in done.stdout
    assert "1 cases failed" in done.stdout  # the demo's own wrong case, as before


def test_a_duplicate_id_or_another_router_is_refused_and_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(DEMO_SUITE, encoding="utf-8")
    before = path.stat()
    request, result = inspected("pizza near me")
    with pytest.raises(SuiteError, match="case id 'right' is already in the suite"):
        append_case(path, "right", request, result)
    with pytest.raises(SuiteError, match="the suite is a strategy suite, not a 'linter' suite"):
        append_case(path, "new", request, result, router="linter")
    with pytest.raises(SuiteError, match="a case id must be a non-empty text"):
        append_case(path, "  ", request, result)
    after = path.stat()
    assert path.read_text(encoding="utf-8") == DEMO_SUITE
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_new_file_becomes_a_suite(tmp_path: Path) -> None:
    path = tmp_path / "saved.yaml"
    request, result = inspected("Show best lending pools", today=dt.date(2026, 3, 9))
    append_case(path, "lending", request, result, router="contract")
    suite = load_suite(path)
    assert (suite.suite, suite.router, suite.today) == ("saved", "contract", dt.date(2026, 3, 9))
    assert suite.cases[0].today is None  # the suite's date is the request's
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    other, other_result = inspected("coffee shops nearby", today=dt.date(2026, 3, 10))
    append_case(path, "coffee", other, other_result)
    assert load_suite(path).cases[1].today == dt.date(2026, 3, 10)
    assert run_suite(load_suite(path)).failed == 0
    empty = tmp_path / "empty.yaml"
    empty.write_text("\n")
    append_case(empty, "first", request, result)
    assert load_suite(empty).router == "strategy"
    with pytest.raises(SuiteError, match="no such folder"):
        append_case(tmp_path / "missing" / "s.yaml", "x", request, result)


def test_context_date_and_rule_pack_go_into_the_case(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    pack_path = packs / "mine.toml"
    pack_path.write_text(
        default_rules_text().replace("description = ", 'description = "mine" #', 1)
    )
    suites = tmp_path / "suites"
    suites.mkdir()
    path = suites / "contract.yaml"
    shutil.copyfile(FIXTURES / "contract.yaml", path)
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
        "Try again", today=dt.date(2026, 4, 1), rules=RulesRef.from_path(pack_path), context=context
    )
    result = routescope.inspect(request)
    case = append_case(path, "retry-with-context", request, result)
    assert case.rules == "../packs/mine.toml"
    assert case.today == dt.date(2026, 4, 1)
    assert case.context is not None and case.context["preferences"] == {"stablecoinOnly": True}
    assert case.request(load_suite(path)) == request
    assert passes(path, "retry-with-context")


def test_requests_a_suite_cannot_repeat_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(DEMO_SUITE, encoding="utf-8")
    memory = RulesRef.from_text(
        default_rules_text().replace("description = ", "description = 'x' #", 1)
    )
    request = Request.build("pizza near me", today=TODAY, rules=memory)
    with pytest.raises(SuiteError, match="save the pack as a file first"):
        append_case(path, "memory-pack", request, routescope.inspect(request))
    request, result = inspected("pizza near me")
    with pytest.raises(SuiteError, match="the result is not the request's"):
        append_case(path, "mismatch", request, inspected("coffee shops nearby")[1])
    stale_request, _ = inspected("Latest developments in fusion energy")
    _, stale = inspected("Latest developments in fusion energy", today=dt.date(2026, 9, 9))
    with pytest.raises(SuiteError, match=r"would fail when the suite runs .*nothing was written"):
        append_case(path, "stale", stale_request, stale)
    off = RulesRef.from_text(default_rules_text().replace("enabled = true ", "enabled = false "))
    contract = tmp_path / "contract.yaml"
    with pytest.raises(SuiteError, match="disables the contract"):
        append_case(contract, "off", *inspected("pizza near me", rules=off), router="contract")
    assert not contract.exists()
    tools = copy_fixture(tmp_path, "tools")
    with pytest.raises(SuiteError, match="the request has no catalog"):
        plain = Request.build("git status", today=TODAY)
        fake = with_tools("git status")[1]
        append_case(tools, "no-catalog", plain.replace(text="git status"), fake)
    request, result = with_tools("git status")
    with pytest.raises(SuiteError, match="default search settings"):
        append_case(tools, "settings", request.replace(search=SearchSettings(k=3)), result)
    assert path.read_text(encoding="utf-8") == DEMO_SUITE


@pytest.mark.parametrize(
    "prompt",
    [
        "yes",
        "123",
        "- a dash first",
        "key: value # not a comment",
        "quotes \"double\" and 'single'",
        "two\nlines",
        "ünïcödé ✓ 東京 near me",
        "tab\there",
        "[brackets] {braces}, commas",
    ],
)
def test_any_prompt_and_id_read_back_exactly(tmp_path: Path, prompt: str) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text(DEMO_SUITE, encoding="utf-8")
    request, result = inspected(prompt)
    case_id = f"{prompt[:6]}: #1"
    case = append_case(path, case_id, request, result)
    loaded = load_suite(path).cases[-1]
    assert loaded.id == case_id and loaded.prompt == prompt and loaded == case
    assert passes(path, case_id)


def test_the_style_of_the_last_case_is_kept(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    head = "suite: s\nrouter: linter\ncases:"
    flow.write_text(f"{head}\n  - {{id: a, prompt: config, expect: {{query_class: vague}}}}\n")
    request, result = inspected("docs")
    append_case(flow, "b", request, result)
    assert flow.read_text().splitlines()[-1] == (
        "  - {id: b, prompt: docs, today: 2026-02-05, expect: {query_class: vague}}"
    )
    inline = tmp_path / "inline.yaml"
    case_a = "{id: a, prompt: config, expect: {query_class: vague}}"
    inline.write_text(f"{head} [{case_a}]  # end\n")
    append_case(inline, "b", request, result)
    assert inline.read_text() == (
        "suite: s\nrouter: linter\ncases: [{id: a, prompt: config, expect: {query_class: vague}}, "
        "{id: b, prompt: docs, today: 2026-02-05, expect: {query_class: vague}}]  # end\n"
    )
    crlf = tmp_path / "crlf.yaml"
    lines = ["suite: s", "router: linter", "cases:", "- id: a", "  prompt: config"]
    lines += ["  expect:", "    query_class: vague", "# trailing comment", ""]
    crlf.write_bytes("\r\n".join(lines).encode())
    append_case(crlf, "b", request, result)
    data = crlf.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    added = ["- id: b", "  prompt: docs", "  today: 2026-02-05", "  expect:"]
    added += ["    query_class: vague", "# trailing comment", ""]
    assert data.endswith("\r\n".join(added).encode())
    for path in (flow, inline, crlf):
        assert run_suite(load_suite(path)).failed == 0


def test_the_write_is_the_updates_safe_write(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    target = real / "demo.yaml"
    target.write_text(DEMO_SUITE, encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    request, result = inspected("pizza near me")
    append_case(link, "via-link", request, result)
    assert link.is_symlink() and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert load_suite(target).cases[-1].id == "via-link"
    target.chmod(0o444)
    with pytest.raises(SuiteError, match="read-only"):
        append_case(target, "read-only", request, result)
    assert [p.name for p in real.iterdir()] == ["demo.yaml"]
