"""Hybrid tool search: strategies, fusion, rerank, ties, cut prompts; the canonical values."""

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routescope import resources_root
from routescope.toolsearch import (
    CALIBRATED_FIT_THRESHOLDS,
    Catalog,
    Fusion,
    SearchSettings,
    Tool,
    ToolSearch,
    canonical,
    load_catalog,
)
from routescope.toolsearch._embed import embedding_text

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.fixture(scope="module")
def search(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def test_canonical_values_and_the_implementation_agree(search: ToolSearch) -> None:
    schema = canonical()
    assert schema["fields"] == [
        "tool_name",
        "description",
        "routing_keywords",
        "intents",
        "category",
        "parameters",
    ]
    assert [f.name for f in dataclasses.fields(Tool)] == schema["fields"]
    fields = {f["name"]: f for f in schema["keyword"]["fields"]}
    boosts = {
        "tool_name": 5.0,
        "intents": 4.0,
        "keywords": 3.0,
        "description": 1.0,
        "parameters": 2.0,  # issue 11: parameter names and descriptions
    }
    assert {n: f["boost"] for n, f in fields.items() if f["in_query_parser"]} == boosts
    assert fields["parameters"]["source"] == "parameters"
    assert fields["category"]["in_query_parser"] is False and fields["category"]["stored"] is True
    assert search.default_boosts() == boosts
    assert [f["name"] for f in search.keyword.fields] == list(boosts)
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
    source = schema["semantic"]["embedding_source"]
    assert source["template"] == (
        "COMMAND: {tool_name}\nDESCRIPTION: {description}\nINTENTS: {intents}"
    )
    assert source["optional_sections"] == [
        {
            "field": "parameters",
            "template": "\nPARAMETERS: {parameters}",
            "joined_with": "; ",
            "only_when": "non-empty",
        }
    ]
    tool = search.catalog.tools[0]
    assert embedding_text(tool).startswith(f"COMMAND: {tool.tool_name}\nDESCRIPTION: ")
    # The sample catalog has no parameters: its texts are the seed's template, unchanged.
    for tool in search.catalog.tools:
        assert tool.parameters == ()
        assert embedding_text(tool) == source["template"].format(
            tool_name=tool.tool_name,
            description=tool.description,
            intents=", ".join(tool.intents),
        )
    with_parameters = dataclasses.replace(tool, parameters=("city: Where", "unit"))
    assert embedding_text(with_parameters) == (
        embedding_text(tool) + "\nPARAMETERS: city: Where; unit"
    )


def test_auto_strategy_and_its_reasons(search: ToolSearch) -> None:
    exact = search.search("please run git.status")
    assert exact.strategy == "exact" and "git.status" in exact.strategy_reason
    hybrid = search.search("what changed in my repo")
    assert hybrid.strategy == "hybrid"
    semantic = search.search("what changed in my repo", SearchSettings(strategy="semantic"))
    assert all(h.signals.keyword is None for h in semantic.results)


def test_rrf_terms_boosts_and_final_score_are_explained(search: ToolSearch) -> None:
    result = search.search(
        "find files named config.yaml", SearchSettings(rrf_k=30, fusion="canonical")
    )
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


def test_weighted_shares_add_up_to_the_score_on_the_signals_scale(search: ToolSearch) -> None:
    result = search.search("find files named config.yaml")
    assert result.fusion == "weighted" and result.strategy == "hybrid"
    for hit in result.results:
        shares = hit.signals.shares
        assert round(sum(shares.values()), 12) == hit.score  # exactly: ties are decided on it
        assert 0 <= shares["vector"] <= 0.75 and 0 <= shares["keyword"] <= 0.25
        boosts = sum(v for k, v in shares.items() if k.endswith("_boost"))
        assert boosts <= 0.05 + 0.01 * 3  # tie-breakers, never larger than the signals
    top = result.results[0]
    assert top.signals.rrf == [] and top.signals.fusion == "weighted"
    assert top.signals.keyword is not None and top.signals.keyword.evidence is not None
    # the best keyword match is worth what its words say, not the whole keyword weight
    assert top.signals.shares["keyword"] == pytest.approx(0.25 * top.signals.keyword.evidence)
    assert [t.word for t in top.signals.keyword.terms] == ["find", "files", "named"]
    alone = search.search("find files named config.yaml", SearchSettings(strategy="semantic"))
    assert all(set(h.signals.shares) >= {"vector"} for h in alone.results)
    assert all("keyword" not in h.signals.shares for h in alone.results)
    assert max(h.signals.shares["vector"] for h in alone.results) <= 1.0  # weight 1 alone


def test_weighted_weights_move_the_shares(search: ToolSearch) -> None:
    query = "see what changed in the repository"
    keyword_heavy = search.search(query, SearchSettings(vector_weight=0.0, keyword_weight=1.0))
    exact = search.search(query, SearchSettings(strategy="exact"))
    assert keyword_heavy.results[0].tool_name == exact.results[0].tool_name
    assert all(h.signals.shares["vector"] == 0 for h in keyword_heavy.results)


def test_weighted_auto_takes_keyword_only_for_identifiers_not_common_words(
    tmp_path: Path,
) -> None:
    tools = [
        Tool("search", "Search the web for pages", (), (), "web"),
        Tool("get_weather", "Current weather for a city", (), (), "weather"),
        Tool("convert", "Convert an amount between currencies", (), (), "money"),
    ]
    search = ToolSearch(Catalog(tools=tools, source=str(tmp_path)), cache=tmp_path)
    common = search.search("search for the weather in Paris")
    assert common.strategy == "hybrid" and "weighted" in common.strategy_reason
    named = search.search("call get_weather for Paris")
    assert named.strategy == "exact" and "get_weather" in named.strategy_reason
    # the name answers one step of two: the other needs the whole search
    steps = search.search("call get_weather for Paris, then convert 20 euros to dollars")
    assert steps.strategy == "hybrid" and "asks for 2 steps" in steps.strategy_reason
    seed = search.search("search for the weather in Paris", SearchSettings(fusion="canonical"))
    assert seed.strategy == "exact"  # the seed's rule, kept under its fusion


def test_the_fit_threshold_says_when_no_tool_fits(search: ToolSearch) -> None:
    ramen = search.search("best ramen recipe with a soft egg", SearchSettings(fit_threshold=0.5))
    assert not ramen.fits and ramen.fit_threshold == 0.5
    assert ramen.fit_reason.startswith("no tool fits: best score")
    assert f"{ramen.results[0].score:.3f} < fit threshold 0.500" in ramen.fit_reason
    status = search.search("show the git status of my repo", SearchSettings(fit_threshold=0.5))
    assert status.fits and "≥ fit threshold 0.500" in status.fit_reason
    off = search.search("best ramen recipe", SearchSettings(fit_threshold=0.0))
    assert off.fits and "fit threshold off" in off.fit_reason


@pytest.mark.parametrize("fusion", ["weighted", "canonical"])
def test_without_a_threshold_each_fusion_uses_its_calibrated_one(
    search: ToolSearch, fusion: Fusion
) -> None:
    calibrated = CALIBRATED_FIT_THRESHOLDS[fusion]
    ramen = search.search("best ramen recipe with a soft egg", SearchSettings(fusion=fusion))
    assert ramen.fit_threshold == calibrated
    assert f"calibrated fit threshold {calibrated:.3f}" in ramen.fit_reason
    # RRF scores say little about fit: one stop-word match lifts ramen over the seed's threshold
    assert ramen.fits is (fusion == "canonical")
    status = search.search("show the git status of my repo", SearchSettings(fusion=fusion))
    assert status.fits and status.fit_threshold == calibrated


def test_ties_break_by_name_and_are_reported(search: ToolSearch) -> None:
    # RRF ranks (1, 2) and (2, 1): a tie
    result = search.search("what changed in my repo", SearchSettings(fusion="canonical"))
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


def test_weighted_hits_outside_the_vector_list_show_their_true_vector_rank(
    search: ToolSearch,
) -> None:
    query = "find files named config.yaml"
    vector = search.embed_query(query)
    assert vector is not None
    result = search.search(query, SearchSettings(candidates=1), query_vector=vector)
    similarities = search.vector.matrix @ vector  # type: ignore[union-attr]
    for hit in result.results:
        assert hit.signals.vector is not None
        index = search.index_of(hit.tool_name)
        assert index is not None
        assert hit.signals.vector.rank == int((similarities > similarities[index]).sum()) + 1


def test_weighted_explanations_name_the_query_words_not_their_stems(search: ToolSearch) -> None:
    result = search.search("why is my container crashing after the deploy?")
    query = "why is my container crashing after the deploy"
    words = set(query.split(" "))
    for hit in result.results:
        assert set(hit.signals.boost_terms) <= words
        if hit.signals.keyword is not None:
            for matched in hit.signals.keyword.matched_terms.values():
                assert set(matched) <= words
    assert "crashing" in {w for h in result.results for w in h.signals.boost_terms}


def test_prompts_are_embedded_ahead_in_batches_and_repeats_not_again(tmp_path: Path) -> None:
    """Issue 28: a batch embeds its prompts (and their steps) in one model call; a prompt seen
    before is not embedded again; the searches then embed nothing and rank as without."""
    from tests.core.toolsearch.test_cache import HashEmbedder

    embedder = HashEmbedder()
    engine = ToolSearch(load_catalog(SAMPLE), embedder=embedder, cache=tmp_path)
    engine.ensure_vectors()
    plain = ToolSearch(load_catalog(SAMPLE), embedder=HashEmbedder(), cache=tmp_path)
    prompts = ["show the git log", "find the config file, then email it to Bob", "show the git log"]
    calls, texts = embedder.calls, embedder.texts
    assert engine.prefetch(prompts) == 4  # two prompts and the two steps of the second
    assert (embedder.calls, embedder.texts) == (calls + 1, texts + 4)
    for prompt in prompts:
        result = engine.search(prompt, SearchSettings(explain=False))
        alone = plain.search(prompt, SearchSettings(explain=False))
        assert [(h.tool_name, h.score) for h in result.results] == [
            (h.tool_name, h.score) for h in alone.results
        ]
    assert (embedder.calls, embedder.texts) == (calls + 1, texts + 4)
    assert engine.prefetch(prompts) == 0  # all seen: nothing embedded
    assert ToolSearch(load_catalog(SAMPLE), cache=tmp_path, semantic=False).prefetch(prompts) == 0
