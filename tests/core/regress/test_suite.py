"""Suite files: loading, validation and a case's exact inputs (`routescope.regress._suite`)."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path

import pytest

from routescope import resources_root
from routescope._request import BUILTIN_RULES
from routescope.regress import (
    MATCHERS,
    SUITE_TODAY,
    Suite,
    SuiteError,
    is_matcher,
    load_suite,
    run_suite,
)

FIXTURES = Path(str(resources_root() / "fixtures"))
CATALOG = Path(str(resources_root() / "catalog"))


def write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["strategy", "linter", "contract", "tools"])
def test_built_in_suites_load(name: str) -> None:
    suite = load_suite(FIXTURES / f"{name}.yaml")
    assert suite.router == name and suite.suite == name
    assert suite.path == FIXTURES / f"{name}.yaml"
    assert len({case.id for case in suite.cases}) == len(suite.cases) > 0


def test_strategy_suite_is_big_and_varied() -> None:
    suite = load_suite(FIXTURES / "strategy.yaml")
    assert len(suite.cases) >= 60
    expected = {case.expect.get("strategy") for case in suite.cases}
    assert {"general", "local", "tech"} <= expected


def test_a_minimal_suite_gets_the_defaults(tmp_path: Path) -> None:
    suite = load_suite(
        write(tmp_path, "suite: x\ncases:\n  - {id: a, prompt: p, expect: {k: 1}}\n")
    )
    assert (suite.router, suite.today, suite.catalog) == ("strategy", None, None)
    (case,) = suite.cases
    assert (case.id, case.prompt, case.expect) == ("a", "p", {"k": 1})
    assert (case.today, case.context, case.rules) == (None, None, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("suite: x\ncases: [\n", "demo.yaml:3: not valid YAML"),
        ("suite: x\n", "cases: Field required"),
        (
            "suite: x\ncases:\n  - {id: a, prompt: p, expect: {strategy: local}}\n"
            "  - {id: a, prompt: q, expect: {strategy: local}}\n",
            "appears twice",
        ),
        ("suite: x\ncases:\n  - {id: a, prompt: p}\n", "case 1 (a): expect: Field required"),
        ("suite: x\ncases:\n  - {id: a, prompt: p, expect: {}}\n", "case 1 (a): expect"),
        ("suite: x\ncases:\n  - {id: '', prompt: p, expect: {k: 1}}\n", "case 1: id"),
        ("suite: x\ncases:\n  - {id: a, prompt: p, expect: {k: 1}, extra: 1}\n", "extra"),
        ("suite: x\ncases: []\n", "cases"),
        ("suite: x\nrouter: nope\ncases:\n  - {id: a, prompt: p, expect: {x: 1}}\n", "router"),
        ("- 1\n- 2\n", "a suite is a mapping"),
    ],
)
def test_bad_suites_name_file_and_place(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SuiteError, match=re.escape(message)):
        load_suite(write(tmp_path, text))


def test_an_unreadable_suite_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"missing\.yaml: cannot read suite"):
        load_suite(tmp_path / "missing.yaml")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"suite: caf\xe9\n")
    with pytest.raises(SuiteError, match=r"latin\.yaml: cannot read suite"):
        load_suite(latin)


@pytest.mark.parametrize(
    ("value", "matcher"),
    [
        ({"contains": "x"}, True),
        ({"equals": "x"}, True),
        ({"len": 2}, True),
        ({"contains": "x", "in": ["y"]}, False),  # two keys: an exact mapping golden
        ({"other": 1}, False),
        ("contains", False),
        (["contains"], False),
        (None, False),
    ],
)
def test_is_matcher(value: object, matcher: bool) -> None:
    assert is_matcher(value) is matcher


def test_every_matcher_is_known() -> None:
    assert set(MATCHERS) == {
        "equals",
        "contains",
        "not_contains",
        "in",
        "matches",
        "len",
        "any_startswith",
    }


# -- Case.request: a case's exact inputs -------------------------------------------------------
def test_request_dates_case_then_suite_then_suite_today(tmp_path: Path) -> None:
    suite = load_suite(
        write(
            tmp_path,
            "suite: x\ntoday: 2026-02-05\ncases:\n"
            "  - {id: own, prompt: p, today: 2025-12-31, expect: {k: 1}}\n"
            "  - {id: suite, prompt: p, expect: {k: 1}}\n",
        )
    )
    own, inherited = (case.request(suite) for case in suite.cases)
    assert own.today == dt.date(2025, 12, 31)
    assert inherited.today == dt.date(2026, 2, 5)
    undated = Suite.model_validate(
        {"suite": "x", "cases": [{"id": "a", "prompt": "p", "expect": {"k": 1}}]}
    )
    assert undated.cases[0].request(undated).today == SUITE_TODAY == dt.date(2026, 1, 1)


def test_request_carries_the_prompt_and_builtin_rules(tmp_path: Path) -> None:
    suite = load_suite(
        write(tmp_path, "suite: x\ncases:\n  - {id: a, prompt: pizza near me, expect: {k: 1}}\n")
    )
    request = suite.cases[0].request(suite)
    assert request.text == "pizza near me"
    assert request.rules.source == BUILTIN_RULES and request.rules.is_builtin
    assert (request.context, request.catalog) == (None, None)
    assert request.fingerprint() == suite.cases[0].request(suite).fingerprint()


def test_request_rules_are_relative_to_the_suite(tmp_path: Path) -> None:
    rules = Path(str(resources_root() / "rules" / "default.toml")).read_text(encoding="utf-8")
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "mine.toml").write_text(rules, encoding="utf-8")
    suite = load_suite(
        write(
            tmp_path,
            "suite: x\ncases:\n  - {id: a, prompt: p, rules: packs/mine.toml, expect: {k: 1}}\n",
        )
    )
    case = suite.cases[0]
    assert case.rules_path(suite) == (tmp_path / "packs" / "mine.toml").resolve()
    assert case.request(suite).rules.source == str((tmp_path / "packs" / "mine.toml").resolve())


def test_request_context(tmp_path: Path) -> None:
    suite = load_suite(
        write(
            tmp_path,
            "suite: x\nrouter: contract\ncases:\n"
            "  - id: a\n    prompt: try again\n"
            "    context: {last_action: {tool: lend_execute, args: {amount: 100}, "
            "status: cancelled}}\n    expect: {agent: lending}\n",
        )
    )
    context = suite.cases[0].request(suite).context
    assert context is not None and context.last_action is not None
    assert context.last_action.tool == "lend_execute"


def test_bad_context_in_a_case(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite: x\nrouter: contract\ncases:\n"
        "  - {id: a, prompt: try again, context: {last_action: {tool: 1}}, expect: {agent: x}}\n",
    )
    suite = load_suite(path)
    message = re.escape(f"{path}: case a: context.last_action.tool")
    with pytest.raises(SuiteError, match=message):
        suite.cases[0].request(suite)
    with pytest.raises(SuiteError, match=message):
        run_suite(suite)


def test_request_catalog_only_for_tools_suites(tmp_path: Path) -> None:
    tools = load_suite(FIXTURES / "tools.yaml")
    catalog = tools.cases[0].request(tools).catalog
    assert catalog is not None and Path(catalog.path) == CATALOG.resolve()
    assert tools.catalog_ref() is tools.catalog_ref()  # loaded once per suite
    strategy = load_suite(FIXTURES / "strategy.yaml")
    assert strategy.cases[0].request(strategy).catalog is None


def test_a_tools_suite_catalog_is_relative_to_the_suite(tmp_path: Path) -> None:
    shutil.copytree(CATALOG / "git", tmp_path / "tools" / "git")
    path = write(
        tmp_path,
        "suite: x\nrouter: tools\ncatalog: tools\n"
        "cases:\n  - {id: a, prompt: git status, expect: {k: 1}}\n",
    )
    suite = load_suite(path)
    catalog = suite.cases[0].request(suite).catalog
    assert catalog is not None and Path(catalog.path) == (tmp_path / "tools").resolve()
