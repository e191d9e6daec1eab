"""Paths into results and field diffs (`routescope._diff`)."""

from __future__ import annotations

import ast
import copy
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import routescope.regress
from routescope import _diff
from routescope._diff import MISSING, FieldDiff, resolve

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
    assert routescope.regress.resolve is resolve
    assert routescope.regress.MISSING is MISSING
    assert routescope.regress.FieldDiff is FieldDiff
    assert {"MISSING", "FieldDiff", "resolve"} <= set(routescope.regress.__all__)


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
