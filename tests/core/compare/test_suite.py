"""A regression suite on both sides: the cases whose results differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import routescope
from routescope import RulePackError, SuiteError
from routescope._json import to_json
from routescope.compare import compare_suite

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "resources" / "fixtures"
DEFAULT = ROOT / "resources" / "rules" / "default.toml"


def pack(tmp_path: Path, old: str, new: str, name: str = "other") -> Path:
    text = DEFAULT.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new).replace('name = "default"', f'name = "{name}"'), "utf-8")
    return path


def test_strategy_suite_under_a_stricter_pack(tmp_path: Path) -> None:
    strict = pack(
        tmp_path, 'always_prepositions = ["near", "around"]', 'always_prepositions = ["around"]'
    )
    result = compare_suite(FIXTURES / "strategy.yaml", rules_b=strict)
    assert (result.suite, result.router, result.cases) == ("strategy", "strategy", 65)
    assert result.passed_a == 65 and result.passed_b == 64
    assert [case.id for case in result.differ] == ["local-near-place"]
    (case,) = result.differ
    assert case.passed_a and not case.passed_b
    assert case.failed_a == () and "strategy" in case.failed_b
    assert case.comparison.a.outcome.strategy == "local"
    assert case.comparison.b.outcome.strategy == "general"
    assert case.comparison.b.rules == f"other ({strict.resolve()})"
    assert result.a == "each case's rule pack" and result.b == f"rules {strict}"


def test_the_same_pack_on_both_sides_changes_nothing() -> None:
    result = compare_suite(FIXTURES / "strategy.yaml", rules_b=DEFAULT)
    assert result.differ == () and result.passed_a == result.passed_b == result.cases


def test_a_linter_suite_lists_linter_changes_only(tmp_path: Path) -> None:
    fewer = pack(tmp_path, '"session append", "telemetry",', '"session append",')
    result = compare_suite(FIXTURES / "linter.yaml", rules_b=fewer)
    assert result.differ, "dropping an anchor changes some linter case"
    for case in result.differ:
        assert "lint" in case.comparison.sections or case.passed_a != case.passed_b
    seed = next(case for case in result.differ if case.id == "seed-semi")
    assert not seed.passed_b


def test_rules_for_side_a_too(tmp_path: Path) -> None:
    strict = pack(
        tmp_path, 'always_prepositions = ["near", "around"]', 'always_prepositions = ["around"]'
    )
    result = compare_suite(ROOT / "examples" / "suite.yaml", rules=strict, rules_b=DEFAULT)
    assert [case.id for case in result.differ] == ["local-ramen"]
    assert not result.differ[0].passed_a and result.differ[0].passed_b


def test_bad_sides_are_one_line_errors(tmp_path: Path) -> None:
    suite = FIXTURES / "strategy.yaml"
    with pytest.raises(SuiteError, match="give the B side"):
        compare_suite(suite)
    with pytest.raises(SuiteError, match="only matters to a tools suite"):
        compare_suite(suite, catalog_b=ROOT / "examples" / "catalogs" / "mcp-tools-list.json")
    with pytest.raises(RulePackError):
        compare_suite(suite, rules_b=tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("name = 3\n", encoding="utf-8")
    with pytest.raises(RulePackError):
        compare_suite(suite, rules_b=broken)


def test_a_tools_suite_under_another_catalog(tmp_path: Path) -> None:
    suite = tmp_path / "tools.yaml"
    suite.write_text(
        "suite: two\nrouter: tools\ncases:\n"
        "  - {id: find, prompt: find files named config.yaml, "
        'expect: {"results[:1].tool_name": {any_startswith: [files.]}}}\n'
        "  - {id: log, prompt: show the git log, "
        'expect: {"results[:1].tool_name": {any_startswith: [git.log]}}}\n',
        encoding="utf-8",
    )
    other = ROOT / "examples" / "catalogs" / "mcp-tools-list.json"
    result = compare_suite(suite, catalog_b=other, cache=tmp_path / "cache")
    assert result.cases == 2 and result.passed_a == 2 and result.passed_b == 0
    assert {case.id for case in result.differ} == {"find", "log"}
    for case in result.differ:
        moves = case.comparison.tools
        assert moves is not None and {m.movement for m in moves} <= {"new", "dropped", "same"}
        assert case.comparison.b.catalog == str(other.resolve())
    data = json.loads(to_json(result))
    assert set(data) == {
        "suite",
        "path",
        "router",
        "a",
        "b",
        "cases",
        "passed_a",
        "passed_b",
        "differ",
    }
    assert set(data["differ"][0]) == {
        "id",
        "prompt",
        "passed_a",
        "passed_b",
        "failed_a",
        "failed_b",
        "comparison",
    }
    assert routescope.regress.load_suite(suite).catalog is None  # the file is left as it was
