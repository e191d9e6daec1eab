"""The Tantivy keyword index: per-field contributions, boosts, persistence, the per-term
postings the weighted fusion ranks with."""

from pathlib import Path

import pytest

from routescope import resources_root
from routescope._analysis import analyzed_terms
from routescope.toolsearch import (
    Catalog,
    SearchSettings,
    Tool,
    ToolSearch,
    load_catalog,
)
from routescope.toolsearch import _keyword as keyword_module

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.fixture(scope="module")
def search(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def test_keyword_contributions_come_from_tantivy_and_add_up(search: ToolSearch) -> None:
    result = search.search("git status", SearchSettings(strategy="exact"))
    top = result.results[0]
    assert top.tool_name == "git.status"
    keyword = top.signals.keyword
    assert keyword is not None
    assert sum(keyword.fields.values()) == pytest.approx(keyword.score, rel=1e-4)
    assert keyword.matched_terms["tool_name"] == ["git", "status"]


def test_boosts_weigh_each_field(search: ToolSearch) -> None:
    query = "see what changed"
    default = search.search(query, SearchSettings(strategy="exact", k=3))
    quiet = search.search(
        query,
        SearchSettings(
            strategy="exact",
            k=3,
            boosts={"tool_name": 5.0, "intents": 0.04, "keywords": 3.0, "description": 1.0},
        ),
    )
    loud = default.results[0].signals.keyword
    soft = next(
        h for h in quiet.results if h.tool_name == default.results[0].tool_name
    ).signals.keyword
    assert loud is not None and soft is not None
    assert soft.fields["intents"] == pytest.approx(loud.fields["intents"] / 100, rel=1e-3)


def test_index_persists_and_rebuilds_when_the_catalog_changes(tmp_path: Path) -> None:
    catalog = load_catalog(SAMPLE)
    first = ToolSearch(catalog, cache=tmp_path, semantic=False)
    again = ToolSearch(catalog, cache=tmp_path, semantic=False)
    assert first.keyword.built and not again.keyword.built
    smaller = type(catalog)(tools=catalog.tools[:5], source="x")
    assert ToolSearch(smaller, cache=tmp_path, semantic=False).keyword.built


def test_analyzed_search_matches_stems_and_ignores_stop_words(tmp_path: Path) -> None:
    tools = [
        Tool("getCurrentWeather", "Weather now", (), (), "weather"),
        Tool("the_thing", "Does the thing", (), (), "misc"),
    ]
    search = ToolSearch(Catalog(tools=tools, source=str(tmp_path)), cache=tmp_path)
    settings = SearchSettings(strategy="exact")
    hit = search.search("current weathers", settings).results[0]
    assert hit.tool_name == "getCurrentWeather"
    assert hit.signals.keyword is not None
    assert hit.signals.keyword.matched_terms["tool_name"] == ["current", "weathers"]
    assert sum(hit.signals.keyword.fields.values()) == pytest.approx(
        hit.signals.keyword.score, rel=1e-4
    )
    only_stop_words = search.search("the of and", settings)
    assert only_stop_words.results == []
    seed = search.search("the of and", SearchSettings(strategy="exact", fusion="canonical"))
    assert [h.tool_name for h in seed.results] == ["the_thing"]  # the seed's tokenizer keeps "the"


@pytest.mark.parametrize("fusion", ["weighted", "canonical"])
def test_a_hit_is_explained_when_it_is_shown_as_if_the_search_had(
    search: ToolSearch, fusion: str
) -> None:
    query = "why is my container crashing after the deploy?"
    eager = search.search(query, SearchSettings(fusion=fusion))  # type: ignore[arg-type]
    settings = SearchSettings(fusion=fusion, explain=False)  # type: ignore[arg-type]
    lazy = search.search(query, settings)
    assert "explain" not in lazy.timings_us
    with_keyword = [h for h in lazy.results if h.signals.keyword is not None]
    assert with_keyword and all(not h.signals.keyword.fields for h in with_keyword)  # type: ignore[union-attr]
    for shown, expected in zip(lazy.results, eager.results, strict=True):
        search.explain_hit(lazy, shown, settings)
        assert shown.signals.keyword == expected.signals.keyword


def test_term_scores_are_tantivys_bm25_per_term_with_the_boosts(search: ToolSearch) -> None:
    query = "show the git status of my repository"
    boosts = search.default_boosts()
    whole = search.keyword.search(query, boosts, 50, analyzed=True)
    terms = list(dict.fromkeys(analyzed_terms(query)))
    per_term = [search.keyword.term_scores(term, boosts) for term in terms]
    for hit in whole:  # Tantivy's one query is the sum of its terms' scores
        parts = sum(scores.score_of(hit.tool_index) for scores in per_term)
        assert parts == pytest.approx(hit.score, rel=1e-5)
    status = per_term[terms.index("status")]
    assert status.count == len(status.tools) and status.best == max(status.scores)
    assert list(status.tools) == sorted(status.tools)
    assert status.score_of(10_000) == 0.0
    halved = search.keyword.term_scores("status", {**boosts, "tool_name": 2.5})
    assert halved.best < status.best  # boosts apply per field, the postings are kept raw
    nothing = search.keyword.term_scores("zzqxw", boosts)
    assert (nothing.count, nothing.best) == (0, 0.0)


def test_postings_are_kept_for_the_next_query_within_a_bound(
    search: ToolSearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = search.keyword.postings("git", "tool_name")
    assert search.keyword.postings("git", "tool_name") is first  # no second Tantivy search
    monkeypatch.setattr(keyword_module, "_POSTINGS_KEPT", 1)
    newest = search.keyword.postings("changes", "description")  # not asked for before
    assert list(search.keyword._postings) == [("changes", "description")]  # the older went
    assert search.keyword._postings_size == len(newest[0]) + 1
