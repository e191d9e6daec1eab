"""Hybrid tool search: strategies, fusion, rerank, ties, cut prompts; the canonical values."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routescope import resources_root
from routescope.toolsearch import (
    SearchSettings,
    ToolSearch,
    canonical,
    embedding_text,
    load_catalog,
)

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.fixture(scope="module")
def search(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def test_canonical_values_and_the_implementation_agree(search: ToolSearch) -> None:
    schema = canonical()
    fields = {f["name"]: f for f in schema["keyword"]["fields"]}
    assert {n: f["boost"] for n, f in fields.items() if f["in_query_parser"]} == {
        "tool_name": 5.0,
        "intents": 4.0,
        "keywords": 3.0,
        "description": 1.0,
    }
    assert fields["category"]["in_query_parser"] is False and fields["category"]["stored"] is True
    assert search.default_boosts() == {
        "tool_name": 5.0,
        "intents": 4.0,
        "keywords": 3.0,
        "description": 1.0,
    }
    assert [f["name"] for f in search.keyword.fields] == [
        "tool_name",
        "intents",
        "keywords",
        "description",
    ]
    assert schema["intent"]["strategies"] == {
        "exact": "keyword_only",
        "semantic": "vector_only",
        "hybrid": "vector_keyword_rrf",
    }
    assert schema["intent"]["rerank_fields"] == [
        "routing_keywords",
        "intents",
        "description",
        "category",
    ]
    template = schema["semantic"]["embedding_source"]["template"]
    assert template == "COMMAND: {tool_name}\nDESCRIPTION: {description}\nINTENTS: {intents}"
    tool = search.catalog.tools[0]
    assert embedding_text(tool).startswith(f"COMMAND: {tool.tool_name}\nDESCRIPTION: ")


def test_auto_strategy_and_its_reasons(search: ToolSearch) -> None:
    exact = search.search("please run git.status")
    assert exact.strategy == "exact" and "git.status" in exact.strategy_reason
    hybrid = search.search("what changed in my repo")
    assert hybrid.strategy == "hybrid"
    semantic = search.search("what changed in my repo", SearchSettings(strategy="semantic"))
    assert all(h.signals.keyword is None for h in semantic.results)


def test_rrf_terms_boosts_and_final_score_are_explained(search: ToolSearch) -> None:
    result = search.search("find files named config.yaml", SearchSettings(rrf_k=30))
    assert result.category_filter == "file_discovery"
    assert all(h.category == "file_discovery" for h in result.results)
    top = result.results[0]
    for term in top.signals.rrf:
        assert term.value == pytest.approx(1 / (30 + term.rank)) and term.k == 30
    assert top.signals.fused == pytest.approx(sum(t.value for t in top.signals.rrf))
    assert (
        top.signals.boosts["file_discovery_boost"]
        == canonical()["intent"]["rerank"]["file_discovery_boost"]
    )
    assert top.score == pytest.approx(top.signals.fused + sum(top.signals.boosts.values()))
    assert result.runner_up_gap == pytest.approx(top.score - result.results[1].score)
    scores = [h.score for h in result.results]
    assert scores == sorted(scores, reverse=True)


def test_ties_break_by_name_and_are_reported(search: ToolSearch) -> None:
    result = search.search("what changed in my repo")  # ranks (1, 2) and (2, 1): a tie
    tied = [h for h in result.results if h.tied_with]
    assert tied
    group = [h.tool_name for h in result.results if h.score == tied[0].score]
    assert group == sorted(group)


def test_same_query_same_ranking(search: ToolSearch) -> None:
    first = [(h.tool_name, h.score) for h in search.search("save my work").results]
    assert first == [(h.tool_name, h.score) for h in search.search("save my work").results]


def test_a_huge_prompt_is_cut_and_says_so(search: ToolSearch) -> None:
    result = search.search("find files named config.yaml " * 40_000)
    assert "cut to its first 2,000 characters" in result.strategy_reason
    assert len(result.query) <= 2_000 and result.results


@given(st.text(min_size=1, max_size=300))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_text_ranks_without_error(search: ToolSearch, text: str) -> None:
    result = search.search(text)
    assert len(result.results) <= 10
    scores = [h.score for h in result.results]
    assert scores == sorted(scores, reverse=True)
