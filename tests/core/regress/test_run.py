"""Running suites (`routescope.regress._run`) and accepting goldens (`_goldens`).

`update_goldens` edits the suite as text: the tests compare whole files line by line, so any
change besides the accepted values (indentation, quoting, comments, line endings) fails them.
"""

from __future__ import annotations

import datetime as dt
import difflib
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from routescope import resources_root
from routescope.regress import (
    CaseResult,
    FieldDiff,
    Suite,
    SuiteError,
    SuiteResult,
    _run,
    accept_goldens,
    iter_cases,
    load_suite,
    run_case,
    run_suite,
    undo_goldens,
    update_goldens,
)
from routescope.regress._checks import MATCH_TIMEOUT_S, is_matcher
from routescope.regress._run import class_report
from tests._support import DEMO_SUITE

FIXTURES = Path(str(resources_root() / "fixtures"))
TODAY = dt.date(2026, 2, 5)


def write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The lines difflib sees removed and added."""
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    return [d[2:] for d in diff if d[:2] == "- "], [d[2:] for d in diff if d[:2] == "+ "]


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (1, 1.0 and True differ; NaN is NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def load_yaml(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


# -- running ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["strategy", "linter", "contract", "tools"])
def test_built_in_suites_pass(name: str, tmp_path: Path) -> None:
    result = run_suite(load_suite(FIXTURES / f"{name}.yaml"), cache=tmp_path)
    failures = {
        c.id: [(d.path, d.expected, d.actual) for d in c.diffs]
        for c in result.cases
        if not c.passed
    }
    assert failures == {}
    assert result.report.labels
    assert (result.passed, result.failed) == (len(result.cases), 0)
    if name == "tools":
        assert list(tmp_path.iterdir())  # the tool-search index went to the given folder


def test_failures_are_diffed_field_by_field(tmp_path: Path) -> None:
    result = run_suite(load_suite(write(tmp_path, DEMO_SUITE)))
    assert (result.passed, result.failed) == (1, 1)
    right, wrong = result.cases
    assert (right.id, right.passed, right.diffs, right.checked) == ("right", True, [], 1)
    assert (wrong.checked, wrong.today, wrong.prompt) == (3, TODAY, "How do I install FastAPI?")
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
    assert (wrong.expected_class, wrong.predicted_class) == ("general", "tech")
    report = result.report
    assert report.matrix["general"]["tech"] == 1 and report.recall["general"] == 0.0


def test_a_missing_path_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "suite: x\ncases:\n  - {id: a, prompt: p, expect: {nope.deeper: 1}}\n")
    (diff,) = run_suite(load_suite(path)).cases[0].diffs
    assert (diff.path, diff.actual) == ("nope.deeper", "(missing)")


@pytest.mark.parametrize(
    ("expect", "passed"),
    [
        ({"actions[*].query": {"contains": "pizza"}}, True),
        ({"actions[*].query": {"not_contains": "pizza"}}, False),
        ({"strategy": {"in": ["local", "tech"]}}, True),
        ({"strategy": {"in": ["tech"]}}, False),
        ({"actions[*].source": {"any_startswith": ["local."]}}, True),
        ({"actions[*].source": {"any_startswith": "tech."}}, False),
        ({"actions[:1].query": {"matches": "^pizza"}}, True),
        ({"actions[*].query": {"matches": "near me$"}}, False),
        ({"actions": {"len": 2}}, True),
        ({"actions": {"len": 3}}, False),
        ({"strategy": {"equals": "local"}}, True),
        ({"context.entities.place_hint": None}, True),
        ({"actions[*].priority": [1, 1]}, True),
    ],
)
def test_matchers(expect: dict[str, Any], passed: bool) -> None:
    suite = Suite.model_validate(
        {"suite": "x", "cases": [{"id": "a", "prompt": "pizza near me", "expect": expect}]}
    )
    assert run_case(suite.cases[0], suite).passed is passed


def test_iter_cases_yields_one_result_per_case_in_order(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, DEMO_SUITE))
    results = list(iter_cases(suite))
    assert all(isinstance(r, CaseResult) for r in results)
    assert [r.id for r in results] == ["right", "wrong"]
    assert results == run_suite(suite).cases


def test_iter_cases_is_lazy(tmp_path: Path) -> None:
    """Each case runs when its result is asked for: the bad second case (its rule pack is
    missing, which only running it finds) raises only then."""
    suite = load_suite(
        write(
            tmp_path,
            "suite: x\nrouter: contract\ncases:\n"
            "  - {id: good, prompt: Show best lending pools, expect: {agent: lending}}\n"
            "  - {id: bad, prompt: try again, rules: nope.toml, expect: {agent: x}}\n",
        )
    )
    results = iter_cases(suite)
    assert next(results).id == "good"
    with pytest.raises(SuiteError, match="case bad"):
        next(results)


def test_class_report_counts() -> None:
    def case(expected: str | None, predicted: str | None) -> CaseResult:
        return CaseResult("c", expected == predicted, [], 1, predicted, expected, "p", TODAY)

    report = class_report(
        "strategy",
        [case("a", "a"), case("a", "b"), case("b", "b"), case("b", None), case(None, "a")],
    )
    assert report.field == "strategy"
    assert report.labels == ["(none)", "a", "b"]
    assert report.matrix["a"] == {"(none)": 0, "a": 1, "b": 1}
    assert report.matrix["b"] == {"(none)": 1, "a": 0, "b": 1}
    assert report.support == {"a": 2, "b": 2}
    assert report.precision == {"(none)": 0.0, "a": 1.0, "b": 0.5}
    assert report.recall == {"(none)": None, "a": 0.5, "b": 0.5}


# -- accepting goldens -------------------------------------------------------------------------
def test_update_rewrites_exact_goldens_only_and_keeps_comments(tmp_path: Path) -> None:
    path = write(tmp_path, DEMO_SUITE)
    suite = load_suite(path)
    assert update_goldens(suite, run_suite(suite)) == 1
    text = path.read_text(encoding="utf-8")
    assert text == DEMO_SUITE.replace("strategy: general ", "strategy: tech ")
    assert [p.name for p in tmp_path.iterdir()] == ["demo.yaml"]  # no temporary file left
    after = run_suite(load_suite(path))
    assert [d.path for d in after.cases[1].diffs] == ["actions[*].query"]


ODD = """\
# Odd but valid: comments, 4- and 2-space indentation, indented and non-indented sequences.
suite: odd   # the suite's name
router: strategy
today: 2026-02-05

cases:
    # four spaces, the sequence of cases indented
    -   id: four
        prompt: How do I install FastAPI?
        expect:
            strategy:    'general'      # single-quoted, wrong
            actions[0].priority: 7      # a number, wrong
            context.entities.candidates: [Django, "Flask"]   # a flow list, wrong
            actions[*].query: {not_contains: "site:"}   # tolerant and failing: kept
            actions[*].source:          # an indented block list, wrong
                - tech.wrong
                - tech.wrong2
            context.entities.details[0].score: 1.5
    # two spaces, a sequence not indented under its key
    - id: two
      prompt: pizza near me
      expect:
        strategy: "general"   # double-quoted, wrong
        actions[*].source:
        - local.wrong
        actions[0].query: pizza
          near you
        context.intent.local: false   # a bool, wrong
        context.entities.place_hint: somewhere
        context.intent_match_counts:   # a block mapping, wrong
          local: 2
          tech: 0
        context.entities.candidates: []   # right
    - {id: flow, prompt: "History of jazz music",
       expect: {strategy: local, "actions[1].query": 'History'}}   # flow
    - id: matcher
      prompt: History of jazz music
      expect:
        strategy: {equals: local}   # a matcher: never rewritten
    - id: passing
      prompt: History of jazz music
      expect: {strategy: general}
"""

ODD_UPDATED = """\
# Odd but valid: comments, 4- and 2-space indentation, indented and non-indented sequences.
suite: odd   # the suite's name
router: strategy
today: 2026-02-05

cases:
    # four spaces, the sequence of cases indented
    -   id: four
        prompt: How do I install FastAPI?
        expect:
            strategy:    'tech'      # single-quoted, wrong
            actions[0].priority: 1      # a number, wrong
            context.entities.candidates: [FastAPI]   # a flow list, wrong
            actions[*].query: {not_contains: "site:"}   # tolerant and failing: kept
            actions[*].source:          # an indented block list, wrong
                [tech.docs, tech.github]
            context.entities.details[0].score: 5.0
    # two spaces, a sequence not indented under its key
    - id: two
      prompt: pizza near me
      expect:
        strategy: "local"   # double-quoted, wrong
        actions[*].source: [local.first, local.second]
        actions[0].query: pizza near me
        context.intent.local: true   # a bool, wrong
        context.entities.place_hint: null
        context.intent_match_counts:   # a block mapping, wrong
          {tech: 0, local: 1, purchase: 0, troubleshooting: 0, time_sensitive: 0}
        context.entities.candidates: []   # right
    - {id: flow, prompt: "History of jazz music",
       expect: {strategy: general, "actions[1].query": 'History of jazz music overview'}}   # flow
    - id: matcher
      prompt: History of jazz music
      expect:
        strategy: {equals: local}   # a matcher: never rewritten
    - id: passing
      prompt: History of jazz music
      expect: {strategy: general}
"""


FLOW_BEFORE = next(line for line in ODD.splitlines() if "'History'" in line)
FLOW_AFTER = next(line for line in ODD_UPDATED.splitlines() if "overview'" in line)


def test_update_changes_only_the_changed_values(tmp_path: Path) -> None:
    path = write(tmp_path, ODD)
    suite = load_suite(path)
    assert update_goldens(suite, run_suite(suite)) == 13
    after = path.read_text(encoding="utf-8")
    assert after == ODD_UPDATED
    removed, added = changed_lines(ODD, after)
    assert removed == [
        "            strategy:    'general'      # single-quoted, wrong",
        "            actions[0].priority: 7      # a number, wrong",
        '            context.entities.candidates: [Django, "Flask"]   # a flow list, wrong',
        "                - tech.wrong",
        "                - tech.wrong2",
        "            context.entities.details[0].score: 1.5",
        '        strategy: "general"   # double-quoted, wrong',
        "        actions[*].source:",
        "        - local.wrong",
        "        actions[0].query: pizza",
        "          near you",
        "        context.intent.local: false   # a bool, wrong",
        "        context.entities.place_hint: somewhere",
        "          local: 2",
        "          tech: 0",
        FLOW_BEFORE,
    ]
    assert len(added) == 12
    rerun = run_suite(load_suite(path))
    assert {c.id: [d.path for d in c.diffs] for c in rerun.cases if not c.passed} == {
        "four": ["actions[*].query"],  # tolerant: never rewritten
        "matcher": ["strategy"],  # `{equals: …}` is a matcher too
    }
    assert update_goldens(load_suite(path), rerun) == 0
    assert path.read_text(encoding="utf-8") == ODD_UPDATED


BLOCKS = """\
suite: x
cases:
  - id: a
    prompt: p
    expect:
      literal: |
        two
        lines
      folded: >-
        folded
        text

      quoted: "a long
        double-quoted value"
      listed:   # a comment between the key and its list
      - x
      - y
      nested:
        - [1, 2]
        - {k: v}
      last: 1
"""

BLOCKS_UPDATED = """\
suite: x
cases:
  - id: a
    prompt: p
    expect:
      literal: new
      folded: new

      quoted: "new"
      listed:   # a comment between the key and its list
       [new]
      nested: [{new: [1, 2.5]}]
      last: 2
"""


def test_update_block_scalars_and_block_collections(tmp_path: Path) -> None:
    path = write(tmp_path, BLOCKS)
    changes = {
        "literal": "new",
        "folded": "new",
        "quoted": "new",
        "listed": ["new"],
        "nested": [{"new": [1, 2.5]}],
        "last": 2,
    }
    assert update_goldens(load_suite(path), result_for(path, {"a": changes})) == 6
    assert path.read_text(encoding="utf-8") == BLOCKS_UPDATED
    assert load_yaml(path)["cases"][0]["expect"] == changes


def test_update_only_the_given_cases(tmp_path: Path) -> None:
    path = write(tmp_path, ODD)
    suite = load_suite(path)
    assert update_goldens(suite, run_suite(suite), only={"flow"}) == 2
    removed, added = changed_lines(ODD, path.read_text(encoding="utf-8"))
    assert removed == [FLOW_BEFORE] and added == [FLOW_AFTER]
    assert update_goldens(suite, run_suite(suite), only={"passing", "matcher", "gone"}) == 0


def test_update_keeps_line_endings_bom_and_permissions(tmp_path: Path) -> None:
    text = "\ufeff" + DEMO_SUITE.replace("\n", "\r\n")
    path = write(tmp_path, text)
    if os.name == "posix":
        path.chmod(0o640)
    suite = load_suite(path)
    assert update_goldens(suite, run_suite(suite)) == 1
    expected = text.replace("strategy: general ", "strategy: tech ")
    assert path.read_bytes() == expected.encode("utf-8")
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_update_through_a_link_rewrites_its_target(tmp_path: Path) -> None:
    target = write(tmp_path, DEMO_SUITE, "real.yaml")
    link = tmp_path / "link.yaml"
    try:
        link.symlink_to(target)
    except OSError:
        pytest.skip("symbolic links are not allowed here")
    suite = load_suite(link)
    assert update_goldens(suite, run_suite(suite)) == 1
    assert link.is_symlink() and "strategy: tech" in target.read_text(encoding="utf-8")


def test_nothing_to_accept_leaves_the_file_alone(tmp_path: Path) -> None:
    path = write(tmp_path, DEMO_SUITE)
    suite = load_suite(path)
    before = path.stat()
    assert update_goldens(suite, run_suite(suite), only={"right"}) == 0
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def result_for(path: Path, changes: dict[str, dict[str, Any]]) -> SuiteResult:
    """A suite result whose failing exact goldens would become `changes`."""
    cases = [
        CaseResult(
            id=case_id,
            passed=False,
            diffs=[FieldDiff(key, None, value, "equals") for key, value in values.items()],
            checked=len(values),
            predicted_class=None,
            expected_class=None,
            prompt="p",
            today=TODAY,
        )
        for case_id, values in changes.items()
    ]
    return SuiteResult("x", str(path), "strategy", cases, class_report("strategy", cases))


QUOTING = """\
suite: x   # values of every style, in block and flow mappings
cases:
  - id: block
    prompt: p
    expect:
      plain: old   # plain
      single: 'old'   # single-quoted
      double: "old"   # double-quoted
      empty:
      keep: same
  - {id: flow, prompt: p, expect: {plain: old, "quoted": "old", keep: same}}   # flow
"""

AWKWARD: list[Any] = [
    "yes",
    "No",
    "on",
    "null",
    "~",
    "true",
    "1.0",
    "0x1F",
    "1_000",
    "2026-02-05",
    ".inf",
    "",
    " leading",
    "trailing ",
    "{x: 1}",
    "[a, b]",
    "a, b",
    "key: value",
    "a #hash",
    "#hash",
    "a#b",
    "it's",
    'say "hi"',
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "nbsp\xa0",
    "\x00\x07\x7f\x85\u2028\ufeff",
    "ünïcödé ✓ 😀",
    "- dash",
    "? question",
    ": colon",
    "colon:",
    "*alias",
    "&anchor",
    "!tag",
    "%percent",
    "@at",
    "`tick",
    "|pipe",
    ">folded",
    "<<",
    "=",
    "site:docs.* FastAPI (install OR docs)",
    "plain words",
    1.0,
    -0.0,
    1e20,
    2.5e-07,
    float("inf"),
    float("-inf"),
    float("nan"),
    10**30,
    -7,
    True,
    False,
    None,
    [],
    {},
    ["yes", 1, None, [True, "a: b"], {"k": "v"}],
    {"a: b": [1, {"#x": "y"}], "yes": "no", "": ""},
    {"len": 3},  # shaped like a matcher: written as {equals: {len: 3}}
]


@pytest.mark.parametrize("value", AWKWARD, ids=repr)
def test_awkward_values_round_trip_exactly(tmp_path: Path, value: Any) -> None:
    path = write(tmp_path, QUOTING)
    keys = ["plain", "single", "double", "empty"]
    changes = {
        "block": dict.fromkeys(keys, value),
        "flow": dict.fromkeys(["plain", "quoted"], value),
    }
    assert update_goldens(load_suite(path), result_for(path, changes)) == 6
    stored = {"equals": value} if is_matcher(value) else value
    data = load_yaml(path)
    block, flow = (case["expect"] for case in data["cases"])
    assert all(same(block[key], stored) for key in keys) and block["keep"] == "same"
    assert same(flow["plain"], stored) and same(flow["quoted"], stored) and flow["keep"] == "same"
    removed, added = changed_lines(QUOTING, path.read_text(encoding="utf-8"))
    assert len(removed) == len(added) == 5  # four block lines and the flow case's line
    comments = [line.rsplit("   # ", 1)[1] for line in added if "   # " in line]
    assert comments == ["plain", "single-quoted", "double-quoted", "flow"]
    load_suite(path)  # still a valid suite


def test_quoting_style_is_kept_where_it_fits(tmp_path: Path) -> None:
    path = write(tmp_path, QUOTING)
    changes = {"block": dict.fromkeys(["plain", "single", "double"], "new")}
    assert update_goldens(load_suite(path), result_for(path, changes)) == 3
    text = path.read_text(encoding="utf-8")
    assert "plain: new   #" in text and "single: 'new'   #" in text and 'double: "new"   #' in text


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=8,
)


@given(value=JSON)
def test_any_json_value_round_trips(tmp_path_factory: pytest.TempPathFactory, value: Any) -> None:
    path = write(tmp_path_factory.mktemp("prop"), QUOTING)
    changes = {"block": {"plain": value, "single": value}, "flow": {"quoted": value}}
    assert update_goldens(load_suite(path), result_for(path, changes)) == 3
    stored = {"equals": value} if is_matcher(value) else value
    block, flow = (case["expect"] for case in load_yaml(path)["cases"])
    assert same(block["plain"], stored) and same(block["single"], stored)
    assert same(flow["quoted"], stored)
    removed, _ = changed_lines(QUOTING, path.read_text(encoding="utf-8"))
    assert len(removed) == 3


ALIASED = """\
suite: x
cases:
  - id: a
    prompt: How do I install FastAPI?
    expect:
      strategy: &s general
  - id: b
    prompt: How do I install FastAPI?
    expect:
      strategy: *s
"""


@pytest.mark.parametrize("only", [{"a"}, {"b"}, None])
def test_a_shared_golden_is_refused_and_nothing_written(
    tmp_path: Path, only: set[str] | None
) -> None:
    path = write(tmp_path, ALIASED)
    suite = load_suite(path)
    with pytest.raises(SuiteError, match=r"demo\.yaml:\d+: case [ab]: cannot rewrite strategy"):
        update_goldens(suite, run_suite(suite), only=only)
    assert path.read_text(encoding="utf-8") == ALIASED
    assert [p.name for p in tmp_path.iterdir()] == ["demo.yaml"]


def test_a_merged_golden_is_refused(tmp_path: Path) -> None:
    text = (
        "suite: x\ncases:\n"
        "  - {id: a, prompt: How do I install FastAPI?, expect: &base {strategy: tech}}\n"
        "  - {id: b, prompt: How do I install FastAPI?, expect: {<<: *base, k: 1}}\n"
    )
    path = write(tmp_path, text)
    with pytest.raises(SuiteError, match=r"case b: cannot rewrite strategy in place \(it is not"):
        update_goldens(load_suite(path), result_for(path, {"b": {"strategy": "general"}}))
    assert path.read_text(encoding="utf-8") == text


def test_a_file_changed_since_the_run_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, DEMO_SUITE)
    suite = load_suite(path)
    result = run_suite(suite)
    path.write_text(DEMO_SUITE.replace("id: wrong", "id: renamed"), encoding="utf-8")
    with pytest.raises(SuiteError, match="case 'wrong' is not in the file any more"):
        update_goldens(suite, result)
    path.write_text(DEMO_SUITE.replace("      strategy: general", "      other: general"), "utf-8")
    with pytest.raises(SuiteError, match="case wrong no longer expects strategy"):
        update_goldens(suite, result)


# -- {matches: …} runs under a deadline; a case's own errors name the case ---------------------
class _Engine:
    """A stand-in for the `regex` module that records its calls and may time out."""

    def __init__(self, times_out: bool) -> None:
        self.times_out = times_out
        self.timeouts: list[float] = []

    def search(self, pattern: str, text: str, *, timeout: float) -> object:
        self.timeouts.append(timeout)
        if self.times_out:
            raise TimeoutError("regex timed out")
        return re.search(pattern, text)


MATCHES = (
    "suite: x\ncases:\n  - {id: a, prompt: pizza near me, "
    "expect: {context.raw_text: {matches: '^pizza'}}}\n"
)


def test_matches_runs_with_a_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _Engine(times_out=False)
    monkeypatch.setattr(_run, "regex_module", lambda: engine)
    assert run_suite(load_suite(write(tmp_path, MATCHES))).passed == 1
    assert engine.timeouts == [MATCH_TIMEOUT_S]


def test_a_pattern_past_its_deadline_stops_the_run_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F21: whatever pattern gets past the load-time check, a search never hangs the run."""
    monkeypatch.setattr(_run, "regex_module", lambda: _Engine(times_out=True))
    path = write(tmp_path, MATCHES)
    message = (
        f"{path}: case a: context.raw_text: the {{matches: …}} pattern took more than "
        f"{MATCH_TIMEOUT_S:g} s; simplify it"
    )
    with pytest.raises(SuiteError, match=re.escape(message)):
        run_suite(load_suite(path))


def test_the_real_engine_answers_like_re(tmp_path: Path) -> None:
    text = (
        "suite: x\ncases:\n  - id: a\n    prompt: Pizza near me, 2 slices\n    expect:\n"
        "      context.raw_text: {matches: '(?i)^pizza'}\n"
        "      context.user_goal: {matches: '\\d+ slices$'}\n"
        "      actions[0].query: {matches: '\\bnear\\b'}\n"
    )
    assert run_suite(load_suite(write(tmp_path, text))).passed == 1


def test_a_case_that_cannot_run_names_the_suite_and_the_case(tmp_path: Path) -> None:
    path = write(
        tmp_path, "suite: x\ncases:\n  - {id: bad, prompt: x, rules: nope.toml, expect: {k: 1}}\n"
    )
    with pytest.raises(SuiteError, match=rf"^{re.escape(str(path))}: case bad: .*nope\.toml"):
        run_suite(load_suite(path))


def test_a_passing_tools_case_counts_its_hit_not_the_top_tool(tmp_path: Path) -> None:
    """The matrix takes Got from the matcher's hit: a case whose expected family is in its top
    three passes and is counted as right, even when another family ranks first."""
    catalog = Path(str(resources_root() / "catalog"))
    prompt = "read https://example.com/post and give me the gist"
    from routescope.toolsearch import ToolSearch, load_catalog

    search = ToolSearch(load_catalog(catalog), cache=tmp_path / "cache")
    names = [hit.tool_name for hit in search.search(prompt).results[:3]]
    families = [name.split(".")[0] for name in names]
    other = next((f for f in families[1:] if f != families[0]), None)
    if other is None:
        pytest.skip("the top three tools share one family for this prompt")
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"suite: s\nrouter: tools\ncatalog: {catalog}\ncases:\n"
        f"  - {{id: a, prompt: {prompt!r}, "
        f'expect: {{"results[:3].tool_name": {{any_startswith: [{other}.]}}}}}}\n',
        encoding="utf-8",
    )
    suite = load_suite(path)
    result = run_case(suite.cases[0], suite, cache=tmp_path / "cache")
    assert result.passed
    assert (result.expected_class, result.predicted_class) == (other, other)


# -- undoing an accept -------------------------------------------------------------------------
def test_undo_puts_the_suite_back_byte_for_byte(tmp_path: Path) -> None:
    original = DEMO_SUITE.replace("\n", "\r\n").encode("utf-8")  # CRLF: bytes, not text
    path = tmp_path / "demo.yaml"
    path.write_bytes(original)
    path.chmod(0o640)
    suite = load_suite(path)
    update = accept_goldens(suite, run_suite(suite))
    assert update.changed == 1 and update.before == original
    assert path.read_bytes() == update.after != original
    undo_goldens(update)
    assert path.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["demo.yaml"]  # no temporary file left


def test_undo_refuses_when_the_suite_changed_since(tmp_path: Path) -> None:
    path = write(tmp_path, DEMO_SUITE)
    suite = load_suite(path)
    update = accept_goldens(suite, run_suite(suite))
    edited = update.after + b"# an edit made since\n"
    path.write_bytes(edited)
    with pytest.raises(SuiteError, match="changed since the goldens were accepted"):
        undo_goldens(update)
    assert path.read_bytes() == edited


def test_nothing_to_accept_is_nothing_to_undo(tmp_path: Path) -> None:
    path = write(tmp_path, DEMO_SUITE)
    suite = load_suite(path)
    update_goldens(suite, run_suite(suite))
    again = accept_goldens(load_suite(path), run_suite(load_suite(path)), only={"nope"})
    assert again.changed == 0
    before = path.read_bytes()
    undo_goldens(again)
    assert path.read_bytes() == before


def test_a_catalog_changed_since_the_suite_was_read_names_the_case(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text('[{"tool_name": "git.status", "description": "status"}]', "utf-8")
    path = tmp_path / "tools.yaml"
    path.write_text(
        "suite: t\nrouter: tools\ncatalog: tools.json\ncases:\n"
        "  - id: one\n    prompt: git status\n"
        "    expect:\n      results[0].tool_name: git.status\n",
        encoding="utf-8",
    )
    suite = load_suite(path)
    assert run_suite(suite, cache=tmp_path / "cache").passed == 1  # the suite's catalog is read
    catalog.write_text('[{"tool_name": "git.log", "description": "log"}]', "utf-8")
    with pytest.raises(SuiteError, match=r"case one: .*tools\.json: the catalog changed since"):
        run_suite(suite, cache=tmp_path / "cache")
