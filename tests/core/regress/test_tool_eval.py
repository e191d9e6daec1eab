"""Scenario evaluation of tool search: hit@1, hit@3 and MRR (`routescope.regress._tool_eval`).

Every ToolSearch here keeps its index in the test's own folder (`cache=tmp_path`)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from routescope import resources_root
from routescope.regress import Suite, SuiteError, evaluate, load_suite
from routescope.regress._tool_eval import expected_families
from routescope.toolsearch import ToolSearch, load_catalog

FIXTURES = Path(str(resources_root() / "fixtures"))
CATALOG = Path(str(resources_root() / "catalog"))


class _Words:
    """A deterministic bag-of-words embedder: each word hashed into one of 64 dimensions."""

    model_id = "test:words"

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in re.findall(r"\w+", text.lower()):
                row[hashlib.sha256(word.encode()).digest()[0] % 64] += 1.0
        norms = np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
        normalised: np.ndarray = (rows / norms).astype(np.float32)
        return normalised


@pytest.fixture(scope="module")
def keyword_only(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    cache = tmp_path_factory.mktemp("cache")
    return ToolSearch(load_catalog(CATALOG), cache=cache, semantic=False)


def suite(*cases: tuple[str, dict[str, object]]) -> Suite:
    return Suite.model_validate(
        {
            "suite": "eval",
            "router": "tools",
            "cases": [
                {"id": f"c{i}", "prompt": prompt, "expect": expect}
                for i, (prompt, expect) in enumerate(cases)
            ],
        }
    )


@pytest.mark.parametrize(
    ("expect", "families"),
    [
        (
            {"results[:3].tool_name": {"any_startswith": ["git.", "files.find"]}},
            ("git.", "files.find"),
        ),
        ({"results[:1].tool_name": {"any_startswith": "web."}}, ("web.",)),
        ({"results[*].tool_name": {"any_startswith": ["git."]}}, ("git.",)),
        ({"strategy": "exact", "results[0].tool_name": {"any_startswith": ["x"]}}, ("x",)),
        ({"results[:3].tool_name": {"any_startswith": []}}, None),
        ({"results[:3].tool_name": {"contains": "git."}}, None),
        ({"results[:3].tool_name": "git.status"}, None),
        ({"results[:3].category": {"any_startswith": ["git"]}}, None),
        ({"strategy": "exact"}, None),
    ],
)
def test_expected_families(expect: dict[str, object], families: tuple[str, ...] | None) -> None:
    assert expected_families(expect) == families


def test_every_built_in_tools_case_names_its_families() -> None:
    tools = load_suite(FIXTURES / "tools.yaml")
    assert all(expected_families(case.expect) for case in tools.cases)


def test_rank_math(keyword_only: ToolSearch) -> None:
    rows = evaluate(
        suite(
            ("run git.status please", {"results[:1].tool_name": {"any_startswith": ["git."]}}),
            ("run git.status please", {"results[:1].tool_name": {"any_startswith": ["nope."]}}),
            ("no family expected here", {"strategy": "exact"}),
        ),
        keyword_only,
    )
    assert [row.mode for row in rows] == ["keyword", "hybrid"]  # no vectors: no vector row
    for row in rows:
        assert (row.cases, row.hit_at_1, row.hit_at_3, row.mrr) == (2, 0.5, 0.5, 0.5)


def test_a_suite_without_families_is_a_suite_error(keyword_only: ToolSearch) -> None:
    """F24: not a table of zeros, but one line saying what the suite lacks."""
    with pytest.raises(SuiteError, match=r"no case names an expected tool family \(") as info:
        evaluate(suite(("anything", {"strategy": "exact"})), keyword_only)
    assert "\n" not in str(info.value)
    with pytest.raises(SuiteError, match="no case names an expected tool family"):
        evaluate(load_suite(FIXTURES / "strategy.yaml"), keyword_only)


def test_the_built_in_tools_suite_keyword_only(keyword_only: ToolSearch) -> None:
    rows = evaluate(load_suite(FIXTURES / "tools.yaml"), keyword_only)
    assert [row.mode for row in rows] == ["keyword", "hybrid"]
    for row in rows:
        assert row.cases == len(load_suite(FIXTURES / "tools.yaml").cases)
        assert row.hit_at_1 >= 0.9 and row.hit_at_3 == 1.0
        assert row.hit_at_1 <= row.hit_at_3 and row.hit_at_1 <= row.mrr <= 1.0


def test_the_built_in_tools_suite_with_vectors(tmp_path: Path) -> None:
    search = ToolSearch(load_catalog(CATALOG), embedder=_Words(), cache=tmp_path)
    assert search.vector is not None
    rows = evaluate(load_suite(FIXTURES / "tools.yaml"), search)
    assert [row.mode for row in rows] == ["keyword", "vector", "hybrid"]
    for row in rows:
        assert 0.0 <= row.hit_at_1 <= row.hit_at_3 <= 1.0 and 0.0 <= row.mrr <= 1.0
    assert list(tmp_path.iterdir())  # the indexes went to the test's folder
