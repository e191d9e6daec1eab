"""`SearchSettings` refuses what no search can use, with one line (library-only findings:
candidates=0 was a Rust panic, rrf_k=-1 a ZeroDivisionError, a NaN boost a TypeError)."""

from __future__ import annotations

import dataclasses
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from routescope import InputError, resources_root
from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"candidates": 0}, r"^SearchSettings: candidates must be between 1 and 100,000, got 0$"),
        ({"candidates": -3}, "candidates must be between 1 and 100,000"),
        ({"candidates": 10**9}, "candidates must be between 1 and 100,000"),
        ({"rrf_k": -1}, r"^SearchSettings: rrf_k must be at least 1, got -1$"),
        ({"rrf_k": 0}, "rrf_k must be at least 1"),
        ({"k": 0}, "k must be at least 1"),
        ({"k": True}, "k must be an integer, got bool"),
        ({"k": 2.5}, "k must be an integer, got float"),
        ({"k": "3"}, "k must be an integer, got str"),
        ({"strategy": "fuzzy"}, "strategy must be one of auto, exact, semantic, hybrid"),
        ({"explain": "yes"}, "explain must be True or False"),
        ({"boosts": {"tool_name": float("nan")}}, "tool_name must be a finite number"),
        ({"boosts": {"tool_name": float("inf")}}, "tool_name must be a finite number"),
        ({"boosts": {"intents": -1.0}}, "intents must be a finite number between 0 and"),
        ({"boosts": {"intents": 1e300}}, "intents must be a finite number between 0 and"),
        ({"boosts": {"intents": "4"}}, "intents must be a number, got str"),
        ({"boosts": {"intents": None}}, "intents must be a number, got NoneType"),
        ({"boosts": {"category": 2.0}}, "unknown field 'category'"),
        ({"boosts": [("tool_name", 1.0)]}, "boosts must be a mapping"),
    ],
)
def test_unusable_settings_are_one_line_input_errors(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        SearchSettings(**changes)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_replace_validates_too() -> None:
    with pytest.raises(InputError, match="rrf_k"):
        dataclasses.replace(SearchSettings(), rrf_k=0)


def test_valid_settings_still_work_and_pickle() -> None:
    settings = SearchSettings(
        strategy="hybrid", k=100_000, rrf_k=1, candidates=1, boosts={"tool_name": 0, "intents": 2}
    )
    assert pickle.loads(pickle.dumps(settings)) == settings
    assert SearchSettings() == SearchSettings(strategy="auto", k=10, rrf_k=60, candidates=20)


def test_edge_settings_search_without_panic(tmp_path: Path) -> None:
    search = ToolSearch(load_catalog(SAMPLE), cache=tmp_path, semantic=False)
    result = search.search("git status", SearchSettings(candidates=1, rrf_k=1, k=1))
    assert [h.tool_name for h in result.results] == ["git.status"]
    zero = search.search("git status", SearchSettings(boosts={"tool_name": 0.0}))
    assert zero.results and all(h.score == h.score for h in zero.results)  # no NaN


def test_the_models_import_without_numpy_or_tantivy() -> None:
    code = (
        "import sys, json\n"
        "from routescope.toolsearch import SearchSettings\n"
        "SearchSettings(boosts={'tool_name': 2.0})\n"
        "print(json.dumps([m for m in ('numpy', 'tantivy', 'httpx') if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == []
