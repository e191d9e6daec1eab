"""Generated hostile suites: `load_suite` and `run_suite` either work or raise one `SuiteError`
line, never another exception and never a hang (F19, F20, F21).

The generator writes YAML text from pieces a hostile or careless user would use: impossible
dates, matchers with operands of the wrong type, regular-expression soup, malformed paths,
anchors and aliases (shared, self-referencing, exponential), deep nesting, control characters,
huge numbers; then corrupts the text at random places.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routescope.regress import SuiteError, load_suite, run_suite
from routescope.regress._checks import MATCHERS

_CHARS = st.characters(exclude_categories=["Cs"])  # anything a file can hold
_TEXT = st.text(_CHARS, max_size=12)
_CONTROL = st.sampled_from(["\x00", "\x07", "\x1b", "\x1b[2J", "\n", "\r", "\t", "\x7f", "\x85",
                            "\u2028", "\ufeff", "\x1b]0;pwned\x07"])  # fmt: skip
_REGEX_SOUP = st.text(st.sampled_from(list("()[]{}*+?|\\^$.-,:=!<>a1bw sdP")), max_size=14)
_PATH_SOUP = st.text(st.sampled_from(list("ab.[]*:-019 ")), max_size=10)
_PATHS = st.sampled_from(
    ["strategy", "actions[0].query", "actions[*].query", "actions", "context.raw_text",
     "query_class", "agent", "tool_plan[*].tool", "results[:3].tool_name", "lint.changed"]
)  # fmt: skip
_DATES = st.sampled_from(
    ["2026-02-05", "2026-02-30", "2026-13-01", "2026-00-10", "9999-12-31", "0001-01-01",
     "2026-02-05T25:00:00", "'2026-02-30'", "20260205", "2026-W05"]
)  # fmt: skip


def flow(value: object) -> str:
    """`value` as YAML flow text (JSON is YAML), non-finite floats as YAML writes them."""
    return json.dumps(value).replace("NaN", ".nan").replace("Infinity", ".inf")


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _TEXT
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def values(draw: st.DrawFn, mild: bool) -> str:
    """An expectation's value as YAML text: half of them plausible, half hostile (only values
    that may well load when `mild`)."""
    kind = draw(st.integers(-6, 2 if mild else 9))
    if kind < 0:
        return draw(
            st.sampled_from(
                ["local", "general", "tech", "[]", "null", "{len: 2}", "{contains: near}",
                 "{in: [local, tech]}", "{matches: '^p'}", "{not_contains: x}", "3",
                 "{any_startswith: [solana_]}", "{equals: lending}", "[wallet_connect]"]
            )
        )  # fmt: skip
    if kind == 0:
        return flow(draw(_JSON))
    if kind == 1:
        operand = draw(_JSON | _REGEX_SOUP.map(lambda s: s))
        return "{" + draw(st.sampled_from(MATCHERS)) + ": " + flow(operand) + "}"
    if kind == 2:
        return "{matches: " + flow(draw(_REGEX_SOUP)) + "}"
    if kind == 3:
        return draw(st.sampled_from(["1", "-", "9"])) * draw(st.integers(1, 6000))  # huge numbers
    if kind == 4:
        return "{in: " + flow(draw(_SCALARS)) + "}"
    if kind == 5:
        depth = draw(st.integers(1, 400))
        return "[" * depth + "x" + "]" * depth
    if kind == 6:
        return draw(_DATES)
    if kind == 7:
        return "*a" + str(draw(st.integers(0, 3)))  # an alias, maybe undefined
    if kind == 8:
        return "&a" + str(draw(st.integers(0, 3))) + " " + flow(draw(_JSON))
    return "{len: " + flow(draw(_SCALARS)) + "}"


_PROMPTS = ["pizza near me", "try again", "show all pools", "install FastAPI", "Stake 1e9 SOL"]


@st.composite
def cases(draw: st.DrawFn, index: int, mild: bool) -> str:
    if mild:
        case_id, prompt = f"c{index}", draw(st.sampled_from(_PROMPTS))
    else:
        case_id = draw(st.sampled_from([f"c{index}"] * 6) | _TEXT | _CONTROL)
        prompt = draw(st.sampled_from([*_PROMPTS, "9" * 400 + " SOL", "", "   "]) | _TEXT)
    lines = [f"  - id: {flow(case_id)}", f"    prompt: {flow(prompt)}"]
    if not mild and draw(st.integers(0, 3)) == 0:
        lines.append(f"    today: {draw(_DATES)}")
    if not mild and draw(st.integers(0, 4)) == 0:
        lines.append(f"    context: {flow(draw(_JSON))}")
    lines.append("    expect:")
    for _ in range(draw(st.integers(1 if mild else 0, 3))):
        key = draw(_PATHS if mild else _PATHS | _PATHS | _PATH_SOUP | _CONTROL)
        lines.append(f"      {flow(key)}: {draw(values(mild))}")
    return "\n".join(lines)


@st.composite
def bombs(draw: st.DrawFn) -> str:
    """Exponential or self-referencing aliases inside an expectation."""
    width = draw(st.integers(2, 9))
    levels = draw(st.integers(1, 10))
    lines = ["      b0: &b0 [" + ", ".join(["l"] * width) + "]"]
    lines += [
        f"      b{i}: &b{i} [" + ", ".join([f"*b{i - 1}"] * width) + "]" for i in range(1, levels)
    ]
    if draw(st.booleans()):
        lines.append("      self: &s [1, *s]")
    return "\n".join(lines)


@st.composite
def hostile_suites(draw: st.DrawFn) -> str:
    mild = draw(st.booleans())  # half the suites might load: their runs are fuzzed too
    if mild:
        head = ["suite: demo", "router: " + draw(st.sampled_from(["strategy", "contract"]))]
        body = [draw(cases(index, mild)) for index in range(draw(st.integers(1, 3)))]
        return "\n".join([*head, "cases:", *body]) + "\n"
    head = ["suite: " + flow(draw(_TEXT | _CONTROL | st.just("demo")))]
    routers = ["strategy"] * 4 + ["linter", "contract", "contract", "nope"]
    head.append("router: " + draw(st.sampled_from(routers)))
    if draw(st.integers(0, 3)) == 0:
        head.append("today: " + draw(_DATES))
    if draw(st.integers(0, 9)) == 0:
        head.insert(0, "%YAML 1.1\n---")
    body = [draw(cases(index, mild)) for index in range(draw(st.integers(1, 3)))]
    if draw(st.integers(0, 3)) == 0:
        body[-1] += "\n" + draw(bombs())
    text = "\n".join([*head, "cases:", *body]) + "\n"
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # corruption at random places
        where = draw(st.integers(0, len(text)))
        junk = draw(_CONTROL | _TEXT | st.sampled_from(["[", "{", "&x", "*x"]))
        text = text[:where] + junk + text[where:]
    return text


def assert_one_line(error: SuiteError, path: Path) -> None:
    message = str(error)
    assert message and "\n" not in message and message.isprintable(), message
    assert str(path) in message or message.startswith("cannot write"), message


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(text=hostile_suites())
def test_hostile_suites_load_and_run_or_give_one_line(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        suite = load_suite(path)
    except SuiteError as exc:
        assert_one_line(exc, path)
        return
    try:
        result = run_suite(suite, cache=folder / "cache")
    except SuiteError as exc:
        assert_one_line(exc, path)
        return
    assert len(result.cases) == len(suite.cases)
    for case in result.cases:
        for diff in case.diffs:
            assert len(diff.expected_text) <= 201 and len(diff.actual_text) <= 201
