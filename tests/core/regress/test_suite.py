"""Suite files: loading, validation and a case's exact inputs (`routescope.regress._suite`)."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest

from routescope import _files, resources_root
from routescope._request import BUILTIN_RULES
from routescope.regress import Suite, SuiteError, load_suite, run_suite
from routescope.regress._checks import MATCHERS, is_matcher
from routescope.regress._suite import MAX_SUITE_BYTES, SUITE_TODAY

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
    with pytest.raises(SuiteError, match=r"latin\.yaml: suite is not UTF-8 text"):
        load_suite(latin)
    with pytest.raises(SuiteError, match=r": cannot read suite: a directory"):
        load_suite(tmp_path)


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
    """A bad context is found when the suite is loaded; a case built without validation
    (`model_construct`) is still refused when its request is made."""
    text = (
        "suite: x\nrouter: contract\ncases:\n"
        "  - {id: a, prompt: try again, context: {last_action: {tool: 1}}, expect: {agent: x}}\n"
    )
    path = write(tmp_path, text)
    where = f"{path}: case 1 (a): context: last_action.tool"
    with pytest.raises(SuiteError, match=re.escape(where)):
        load_suite(path)
    suite = load_suite(write(tmp_path, text.replace("tool: 1", "tool: lend_execute")))
    case = suite.cases[0].model_construct(**{**dict(suite.cases[0]), "context": {"x": 1}})
    suite = suite.model_construct(**{**dict(suite), "cases": [case]})
    message = re.escape(f"{suite.path}: case a: context.x")
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


# -- validated when loaded: one line naming file, case and key (F5, F11, F19, F20, F21) --------
def one_case(expect: str, extra: str = "") -> str:
    return f"suite: x\ncases:\n  - {{id: a, prompt: pizza near me, {extra}expect: {expect}}}\n"


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message and message.isprintable()
    return message.removeprefix(str(path))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "suite: x\nrouter: strategy\ntoday: 2026-02-30\ncases:\n"
            "  - {id: a, prompt: x, expect: {strategy: local}}\n",
            ":3: '2026-02-30' is not valid: day is out of range for month",
        ),
        (
            "suite: x\ncases:\n  - id: a\n    prompt: x\n    today: 2026-13-01\n"
            "    expect: {strategy: local}\n",
            ":5: '2026-13-01' is not valid: month must be in 1..12",
        ),
        (one_case("{strategy: local}", "today: '2026-02-30', "), ": case 1 (a): today: "),
        (one_case("{strategy: " + "1" * 5000 + "}"), ":3: '1111111111"),
    ],
)
def test_impossible_values_name_their_line(tmp_path: Path, text: str, message: str) -> None:
    assert load_error(tmp_path, text).startswith(message)


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ("{strategy: {in: 5}}", "'strategy': {in: …} takes a list of values, not int 5"),
        ("{strategy: {in: text}}", "{in: …} takes a list of values, not str 'text'"),
        ("{s: {any_startswith: [1]}}", "{any_startswith: …} takes a prefix or a list of prefixes"),
        ("{s: {any_startswith: []}}", "not an empty list"),
        ("{s: {any_startswith: {a: 1}}}", "not a dict"),
        ("{s: {matches: '(unclosed'}}", "not a valid regular expression: missing ), unterm"),
        ("{s: {matches: 5}}", "{matches: …} takes a regular expression (text), not int 5"),
        ("{s: {matches: '^(a+)+$'}}", "a repeated group holds another repeat"),
        ("{s: {matches: '(\\w+\\s?)*$'}}", "a repeated group holds another repeat"),
        ("{s: {matches: '(a|aa{1,3})*'}}", "a repeated group holds another repeat"),
        ("{s: {matches: '" + "a" * 1001 + "'}}", "the pattern is 1,001 characters"),
        ("{s: {len: -1}}", "{len: …} takes a whole number ≥ 0, not int -1"),
        ("{s: {len: 1.5}}", "not float 1.5"),
        ("{s: {len: true}}", "not true"),
        ("{s: {len: '3'}}", "not str '3'"),
        ("{'[': golden}", "'[': not a path: expected [n], [-n], [*] or [:n] at character 1"),
        ("{'...': golden}", "'...': not a path"),
        ("{'action[0': golden}", "'action[0': not a path"),
        ("{'': golden}", "'': an empty path"),
    ],
)
def test_bad_expectations_name_file_case_and_key(tmp_path: Path, expect: str, message: str) -> None:
    found = load_error(tmp_path, one_case(expect))
    assert found.startswith(": case 1 (a): expect: '") and message in found


@pytest.mark.parametrize(
    "pattern",
    ["^pizza", "near me$", "(?>a+)+$", "(a++)+$", "(ab)+c", "[ab]+(x|y)?z*", r"\bpizza\b"],
)
def test_safe_patterns_load(tmp_path: Path, pattern: str) -> None:
    expect = "{context.raw_text: {matches: '" + pattern + "'}}"
    assert load_suite(write(tmp_path, one_case(expect))).cases[0].expect


@pytest.mark.parametrize("prompt", ["''", "'   '", '"\\t\\n"', '"\\0\\0"'])
def test_an_empty_prompt_names_file_and_case(tmp_path: Path, prompt: str) -> None:
    text = f"suite: x\ncases:\n  - {{id: a, prompt: {prompt}, expect: {{strategy: local}}}}\n"
    assert load_error(tmp_path, text).startswith(": case 1 (a): prompt: ")


def test_a_self_referencing_alias_is_one_line(tmp_path: Path) -> None:
    text = "suite: x\ncases:\n  - &c {id: a, prompt: x, expect: {strategy: [*c]}}\n"
    assert load_error(tmp_path, text) == ":3: an alias refers to a value that contains it"


def test_a_yaml_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """F21: nine levels of nine aliases (9**9 values): refused from the node tree."""
    text = "suite: s\ncases:\n  - id: a\n    prompt: x\n    expect:\n"
    text += "      b0: &b0 [l, l, l, l, l, l, l, l, l]\n"
    text += "".join(
        f"      b{i}: &b{i} [" + ", ".join([f"*b{i - 1}"] * 9) + "]\n" for i in range(1, 9)
    )
    message = load_error(tmp_path, text)
    expected = r":\d+: YAML aliases expand the suite by more than 100,000 values.*"
    assert re.fullmatch(expected, message)


def test_a_shared_expect_block_is_fine(tmp_path: Path) -> None:
    text = "suite: s\ncases:\n  - {id: a, prompt: x, expect: &e {strategy: general}}\n" + "".join(
        f"  - {{id: a{i}, prompt: x, expect: *e}}\n" for i in range(500)
    )
    assert len(load_suite(write(tmp_path, text)).cases) == 501


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (one_case("{strategy: " + "[" * 5000 + "]" * 5000 + "}"), ":3: nested more than 100"),
        (one_case("{strategy: " + "{a: " * 3000 + "1" + "}" * 3000 + "}"), ":3: nested more than"),
        (
            "suite: s\ncases:\n  - id: a\n    prompt: x\n    expect:\n      a0: &a0 [1]\n"
            + "".join(f"      a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 150)),
            "nested more than 100 levels deep",  # only through aliases
        ),
    ],
)
def test_deep_nesting_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    assert message in load_error(tmp_path, text)


def test_control_characters_in_ids_and_keys_stay_escaped(tmp_path: Path) -> None:
    text = 'suite: s\ncases:\n  - {id: "a\\e]0;x\\a\\nb", prompt: x, expect: {"k\\e[2J\\n": 1}}\n'
    message = load_error(tmp_path, text)
    assert "case 1 ('a\\x1b]0;x\\x07\\nb'): expect: 'k\\x1b[2J\\n': not a path" in message


def test_control_characters_in_the_file_are_one_line(tmp_path: Path) -> None:
    assert "not valid YAML" in load_error(tmp_path, "suite: x\x07\ncases: []\n")


def test_devices_fifos_and_huge_files_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F11: `regress /dev/zero`, a FIFO without a writer and a file over the limit: one line
    each (through `_files.read_text`), never a MemoryError or a hang."""
    monkeypatch.setattr(_files, "STREAM_DEADLINE_S", 0.2)
    if Path("/dev/zero").exists():
        with pytest.raises(SuiteError, match=r"^/dev/zero: suite is too large"):
            load_suite("/dev/zero")
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as stream:
        stream.truncate(MAX_SUITE_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(SuiteError, match=r"huge\.yaml: suite is too large"):
        load_suite(huge)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.yaml"
        os.mkfifo(fifo)
        with pytest.raises(SuiteError, match=r"fifo\.yaml: suite did not arrive within"):
            load_suite(fifo)  # no writer: the deadline, never a hang
