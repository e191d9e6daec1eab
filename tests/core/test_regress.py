import json
import re
import subprocess
from pathlib import Path

import pytest

from routescope import resources_root
from routescope.regress import SuiteError, load_suite, resolve, run_suite, update_goldens

from .conftest import routescope_cli

FIXTURES = Path(str(resources_root() / "fixtures"))


@pytest.mark.parametrize("name", ["strategy", "linter", "contract", "tools"])
def test_built_in_suites_pass(name: str) -> None:
    result = run_suite(load_suite(FIXTURES / f"{name}.yaml"))
    failures = {
        c.id: [(d.path, d.expected, d.actual) for d in c.diffs]
        for c in result.cases
        if not c.passed
    }
    assert failures == {}
    assert result.report.labels


def test_strategy_suite_is_big_and_varied() -> None:
    suite = load_suite(FIXTURES / "strategy.yaml")
    assert len(suite.cases) >= 60
    expected = {case.expect.get("strategy") for case in suite.cases}
    assert {"general", "local", "tech"} <= expected


SUITE = """\
# a comment that must survive --update
suite: demo
router: strategy
today: 2026-02-05
cases:
  - id: right
    prompt: pizza near me   # trailing comment
    expect:
      strategy: local
  - id: wrong
    prompt: How do I install FastAPI?
    expect:
      strategy: general          # a wrong golden
      actions[*].query: {not_contains: "site:"}   # tolerant, also wrong
      context.entities.candidates[0]: FastAPI
"""


def write(tmp_path: Path, text: str = SUITE) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_failures_are_diffed_field_by_field(tmp_path: Path) -> None:
    result = run_suite(load_suite(write(tmp_path)))
    assert (result.passed, result.failed) == (1, 1)
    wrong = result.cases[1]
    assert [(d.path, d.expected, d.actual, d.matcher) for d in wrong.diffs] == [
        ("strategy", "general", "tech", "equals"),
        (
            "actions[*].query",
            {"not_contains": "site:"},
            [
                "site:docs.* FastAPI (install OR docs OR getting started)",
                "site:github.com FastAPI README",
            ],
            "not_contains",
        ),
    ]
    report = result.report
    assert report.matrix["general"]["tech"] == 1 and report.recall["general"] == 0.0


def test_update_rewrites_exact_goldens_only_and_keeps_comments(tmp_path: Path) -> None:
    path = write(tmp_path)
    suite = load_suite(path)
    assert update_goldens(suite, run_suite(suite)) == 1
    text = path.read_text(encoding="utf-8")
    assert "# a comment that must survive --update" in text
    assert "# trailing comment" in text
    assert "strategy: tech" in text and "strategy: general" not in text
    assert '{not_contains: "site:"}' in text
    assert text.index("id: right") < text.index("id: wrong")
    assert [p.name for p in tmp_path.iterdir()] == ["demo.yaml"]
    after = run_suite(load_suite(path))
    assert after.cases[1].diffs[0].path == "actions[*].query"


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
        ("suite: x\nrouter: nope\ncases:\n  - {id: a, prompt: p, expect: {x: 1}}\n", "router"),
        ("- 1\n- 2\n", "a suite is a mapping"),
    ],
)
def test_bad_suites_name_file_and_place(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(SuiteError, match=re.escape(message)):
        load_suite(write(tmp_path, text))


def test_bad_context_in_a_case(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite: x\nrouter: contract\ncases:\n"
        "  - {id: a, prompt: try again, context: {last_action: {tool: 1}}, expect: {agent: x}}\n",
    )
    with pytest.raises(SuiteError, match=re.escape("case a: context.last_action.tool")):
        run_suite(load_suite(path))


def test_paths_and_wildcards() -> None:
    data = {"a": [{"b": 1}, {"b": 2}], "c": {"d": "x"}}
    assert resolve(data, "a[*].b") == [1, 2]
    assert resolve(data, "a[-1].b") == 2
    assert resolve(data, "c.d") == "x"
    assert resolve(data, "a[5].b") is not resolve(data, "c")  # missing: a sentinel


def test_a_missing_path_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "suite: x\ncases:\n  - {id: a, prompt: p, expect: {nope.deeper: 1}}\n")
    (diff,) = run_suite(load_suite(path)).cases[0].diffs
    assert (diff.path, diff.actual) == ("nope.deeper", "(missing)")


def regress(*args: str) -> subprocess.CompletedProcess[str]:
    return routescope_cli("regress", *args)


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    path = write(tmp_path)
    done = regress(str(path))
    assert done.returncode == 1
    assert (
        "✗ wrong" in done.stdout
        and 'strategy: expected "general" (equals), got "tech"' in done.stdout
    )
    assert "precision" in done.stdout
    data = json.loads(regress("--json", str(FIXTURES / "linter.yaml")).stdout)
    assert data["suites"][0]["failed"] == 0
    bad = regress(str(tmp_path / "missing.yaml"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert regress("--update", str(path)).returncode == 1  # the tolerant expectation still fails
    assert "strategy: tech" in path.read_text(encoding="utf-8")
