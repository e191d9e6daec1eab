"""Hybrid tool search: catalog standardisation, Tantivy keyword index, vectors, RRF, rerank."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routescope import resources_root
from routescope.toolsearch import (
    CatalogError,
    SearchSettings,
    ToolSearch,
    canonical,
    embedding_text,
    load_catalog,
    standardise,
)
from tests._support import routescope_cli

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.fixture(scope="module")
def search(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


# -- canonical schema (seed 004 §5) ---------------------------------------------------------
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


# -- catalog ---------------------------------------------------------------------------------
def test_sample_catalog_is_realistic() -> None:
    catalog = load_catalog(SAMPLE)
    assert len(catalog.tools) >= 40 and catalog.problems == []
    families = {t.category for t in catalog.tools}
    assert {
        "version_control",
        "file_discovery",
        "research",
        "execution",
        "testing",
        "devops",
        "data",
        "productivity",
    } <= families


def test_standardisation() -> None:
    assert standardise(["  git ", "", "git", "Git", " status"]) == ("git", "Git", "status")


def test_skill_folder_with_a_bad_skill_still_loads_the_rest(tmp_path: Path) -> None:
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "SKILL.md").write_text(
        "---\nname: good\nrouting_keywords: [' a ', '', a, b]\ncommands:\n"
        "  - name: good.run\n    description: Run it\n---\n# good\n",
        encoding="utf-8",
    )
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "SKILL.md").write_text(
        "---\nname: bad\ncommands: 3\n---\n", encoding="utf-8"
    )
    catalog = load_catalog(tmp_path)
    (tool,) = catalog.tools
    assert (tool.tool_name, tool.routing_keywords, tool.category) == (
        "good.run",
        ("a", "b"),
        "good",
    )
    assert len(catalog.problems) == 1 and "bad/SKILL.md: commands" in catalog.problems[0]


def test_json_catalog(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {
                    "tool_name": "git.status",
                    "description": "d",
                    "routing_keywords": ["x", "x "],
                    "intents": [],
                },
                {"tool_name": "", "description": "no name"},
                {"tool_name": "git.status", "description": "again"},
            ]
        ),
        encoding="utf-8",
    )
    catalog = load_catalog(path)
    assert [(t.tool_name, t.category, t.routing_keywords) for t in catalog.tools] == [
        ("git.status", "git", ("x",))
    ]
    assert len(catalog.problems) == 2 and "[1].tool_name" in catalog.problems[0]


@pytest.mark.parametrize(
    ("content", "message"), [("{", "not valid JSON"), ("{}", "a list"), ("[]", "no tools")]
)
def test_bad_json_catalogs(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CatalogError, match=message):
        load_catalog(path)


# -- keyword ---------------------------------------------------------------------------------
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


# -- strategies, fusion, rerank ---------------------------------------------------------------
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


# -- CLI ---------------------------------------------------------------------------------------
def test_tools_cli_json() -> None:
    done = routescope_cli("tools", "--json", "-k", "3", "find files named config.yaml")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert {"strategy", "strategy_reason", "category_filter", "results"} <= set(data)
    assert len(data["results"]) == 3
    assert set(data["results"][0]) >= {"tool_name", "category", "score", "signals"}


def test_tools_eval_prints_three_signals() -> None:
    done = routescope_cli("tools", "--eval", str(resources_root() / "fixtures" / "tools.yaml"))
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert {"keyword", "vector", "hybrid"} <= set(rows)
    hit3 = {mode: float(rows[mode][3]) for mode in ("keyword", "vector", "hybrid")}
    assert hit3["hybrid"] >= max(hit3["keyword"], hit3["vector"])


@pytest.mark.parametrize(
    "args", [["tools", "--catalog", "/nope", "x"], ["tools", "-k", "0", "x"], ["tools"]]
)
def test_tools_cli_bad_input(args: list[str]) -> None:
    done = routescope_cli(*args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_inspect_json_gains_tools() -> None:
    data = json.loads(routescope_cli("inspect", "--json", "find files named config.yaml").stdout)
    assert data["tools"]["results"][0]["tool_name"] == "files.find"


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
