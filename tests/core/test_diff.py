"""Paths into results and field diffs (`routescope._diff`)."""

from __future__ import annotations

import ast
import copy
import json
import pickle
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import routescope.regress
from routescope import _diff
from routescope._diff import (
    DISPLAY_CHARS,
    MAX_PATH_STEPS,
    MISSING,
    FieldDiff,
    contains_missing,
    parse_path,
    preview,
    resolve,
)

DATA: dict[str, Any] = {
    "a": [{"b": 1}, {"b": 2}, {"c": 3}],
    "c": {"d": "x", "e": None, "f": [], "g": 0},
    "dotted.key": 1,
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("a[0].b", 1),
        ("a[-1].c", 3),
        ("a[*].b", [1, 2, MISSING]),
        ("a[:2].b", [1, 2]),
        ("a[:0].b", []),
        ("a[:9].b", [1, 2, MISSING]),
        ("c.d", "x"),
        ("c", DATA["c"]),
        ("", DATA),
    ],
)
def test_paths_and_wildcards(path: str, value: Any) -> None:
    assert resolve(DATA, path) == value


@pytest.mark.parametrize("path", ["c.e", "c.f", "c.g"])
def test_falsy_values_are_present(path: str) -> None:
    assert resolve(DATA, path) is not MISSING


@pytest.mark.parametrize(
    "path", ["a[5].b", "a[-4].b", "nope", "nope.deeper", "c.d.e", "c[0]", "c[*]", "a.b", "a[x]"]
)
def test_a_missing_path_is_the_sentinel(path: str) -> None:
    assert resolve(DATA, path) is MISSING


def test_missing_is_one_object_everywhere() -> None:
    assert copy.copy(MISSING) is MISSING
    assert copy.deepcopy([MISSING])[0] is MISSING
    assert pickle.loads(pickle.dumps(MISSING)) is MISSING
    assert repr(MISSING) == "MISSING"
    assert MISSING != "(missing)" and MISSING is not None


def test_field_diff_fields() -> None:
    diff = FieldDiff("strategy", "general", "tech", "equals")
    assert (diff.path, diff.expected, diff.actual, diff.matcher) == (
        "strategy",
        "general",
        "tech",
        "equals",
    )
    assert diff == FieldDiff("strategy", "general", "tech", "equals")


def test_regress_re_exports_the_same_objects() -> None:
    """Regress shows its callers the diff record; resolving paths stays the diff's own."""
    assert routescope.regress.FieldDiff is FieldDiff
    assert "FieldDiff" in routescope.regress.__all__


def test_diff_imports_only_the_standard_library() -> None:
    """The layer contract: `_diff` sits below regress, inspect and the routers."""
    source = Path(_diff.__file__).read_text(encoding="utf-8")
    imported: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports"
            imported.add(node.module or "")
    assert imported
    assert {name.split(".")[0] for name in imported} <= sys.stdlib_module_names | {"__future__"}


# -- paths are parsed strictly (F5: a typo never resolves to the whole result) ------------------
@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("strategy", ["strategy"]),
        ("actions[0].query", ["actions", "0", "query"]),
        ("a[-1].c", ["a", "-1", "c"]),
        ("results[:3].tool_name", ["results", ":3", "tool_name"]),
        ("tool_plan[*].args.sortBy", ["tool_plan", "*", "args", "sortBy"]),
        ("[0].x", ["0", "x"]),
        ("a key with spaces", ["a key with spaces"]),
        ("", []),
    ],
)
def test_parse_path(path: str, steps: list[str]) -> None:
    assert parse_path(path) == steps


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("[", "character 1"),
        ("...", "character 1"),
        ("a..b", "character 3"),
        ("a.", "character 3"),
        (".a", "character 1"),
        ("a[x]", "character 2"),
        ("a]", "character 2"),
        ("a[0]b", "character 5"),
        ("a[", "character 2"),
        ("a[1.5]", "character 2"),
        ("a[" + "9" * 5000 + "]", "character 2"),  # no int() of 5,000 digits
        (".".join(["a"] * (MAX_PATH_STEPS + 1)), f"more than {MAX_PATH_STEPS} steps"),
    ],
)
def test_a_malformed_path_is_refused_and_resolves_to_nothing(path: str, where: str) -> None:
    with pytest.raises(ValueError, match=re.escape(where)):
        parse_path(path)
    assert resolve(DATA, path) is MISSING


def test_contains_missing() -> None:
    assert contains_missing(MISSING) and contains_missing([1, [2, MISSING]])
    assert not contains_missing([1, [2]]) and not contains_missing({"a": "(missing)"})


# -- bounded display (F21: printing a diff of a huge golden) -----------------------------------
def test_preview_is_json_for_small_values() -> None:
    value = {"a": [1, 2.5, {"b": None}], "c": "x", "d": True}
    assert preview(value) == json.dumps(value)
    assert preview(MISSING) == '"(missing)"' and preview([MISSING]) == '["(missing)"]'


def test_preview_is_bounded_whatever_the_value() -> None:
    shared: Any = ["l"] * 9
    for _ in range(9):  # 9**10 leaves when expanded, 90 lists in memory: a billion laughs
        shared = [shared] * 9
    for value in (
        shared,
        list(range(1_000_000)),
        {str(i): i for i in range(100_000)},
        "x" * 10_000_000,
        [[[[["deep"]]]]] * 1000,
    ):
        text = preview(value)
        assert len(text) <= DISPLAY_CHARS + 1 and text.endswith("…")
    assert preview(10**5000) == "(an integer of about 5,000 digits)"  # no str() of it either


def test_preview_is_one_line() -> None:
    assert "\n" not in preview({"k\n\x1b[2J": "v\r\n\u2028"})
    assert preview(float("nan")) == "nan" and preview(float("-inf")) == "-inf"


def test_field_diff_text_is_bounded_but_the_data_stays() -> None:
    golden = list(range(100_000))
    diff = FieldDiff("results", golden, "(missing)", "equals", missing=True)
    assert diff.expected is golden and len(diff.expected_text) <= DISPLAY_CHARS + 1
    assert diff.actual_text == '"(missing)"' and diff.missing
    assert FieldDiff("a", 1, 2, "equals").missing is False
