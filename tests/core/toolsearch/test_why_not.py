""" "Why not this tool?" (`why_not`): where a tool stands in each list, and under the weighted
fusion which words its keyword share comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from routescope import resources_root
from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog, why_not

SAMPLE = Path(str(resources_root() / "catalog"))
QUERY = "why is my container crashing after the deploy?"


@pytest.fixture(scope="module")
def search(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def test_the_weighted_keyword_list_is_ranked_by_evidence(search: ToolSearch) -> None:
    settings = SearchSettings()
    vector = search.embed_query(QUERY)
    result = search.search(QUERY, settings, query_vector=vector)
    top = result.results[0]
    report = why_not(search, QUERY, top.tool_name, settings, vector)
    assert report.final_rank == 1
    assert top.signals.keyword is not None
    assert report.keyword_rank == top.signals.keyword.rank
    assert report.keyword_score == pytest.approx(top.signals.keyword.evidence)
    assert "its keyword share: " in report.reason
    assert all(f"{t.word} +{t.share:.3f}" in report.reason for t in top.signals.keyword.terms)


def test_a_tool_no_query_word_reaches(search: ToolSearch) -> None:
    settings = SearchSettings()
    report = why_not(search, QUERY, "calendar.agenda", settings, search.embed_query(QUERY))
    assert report.keyword_rank is None and report.keyword_score is None
    assert report.reason.startswith("no query term is in its indexed fields")
    assert "its keyword share" not in report.reason


def test_a_path_word_is_named_as_such(search: ToolSearch) -> None:
    query = "read the file /srv/docker/compose.yaml"
    settings = SearchSettings()
    vector = search.embed_query(query)
    found = search.search(query, settings, query_vector=vector).results
    holder = next(h for h in found if h.signals.keyword and h.signals.keyword.terms)
    report = why_not(search, query, holder.tool_name, settings, vector)
    assert "its keyword share: " in report.reason
    noted = [t for t in holder.signals.keyword.terms if t.note]  # type: ignore[union-attr]
    assert all(f"({t.note})" in report.reason for t in noted)


def test_the_canonical_keyword_list_is_tantivys_bm25(search: ToolSearch) -> None:
    settings = SearchSettings(fusion="canonical")
    report = why_not(search, "git status", "git.status", settings)
    assert report.keyword_rank == 1 and report.keyword_score is not None
    assert report.keyword_score > 1  # BM25, not an evidence between 0 and 1
    assert "its keyword share" not in report.reason


def test_a_tool_not_in_the_catalog(search: ToolSearch) -> None:
    report = why_not(search, QUERY, "no.such.tool", SearchSettings())
    assert report.reason == "not in the catalog" and report.final_rank is None
