"""The catalog formats people have (issue 11 §1): each detected by its shape, loaded through the
one standardisation, its parameters searchable; the detection rules and their tie-breaks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog
from routescope.toolsearch._embed import embedding_text
from routescope.toolsearch._formats import detect
from routescope.toolsearch._parameters import ENUM_LIMIT, PARAMETER_LIMIT, parameter_entries
from tests._support import PARAMETER_QUERIES

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City and country"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location"],
    },
}
EMAIL = {
    "name": "send_email",
    "description": "Send a message.",
    "parameters": {
        "type": "object",
        "properties": {
            "recipient": {"type": "string", "description": "Address to send to"},
            "attachments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"filename": {"type": "string", "description": "Shown name"}},
                },
            },
        },
    },
}


def _as(form: str, function: dict[str, Any]) -> dict[str, Any]:
    """`function` as a record of `form`."""
    schema = function["parameters"]
    base = {"name": function["name"], "description": function["description"]}
    if form == "openai-tools":
        return {"type": "function", "function": function}
    if form == "mcp":
        return {**base, "inputSchema": schema}
    if form == "anthropic":
        return {**base, "input_schema": schema}
    return function


def _write(tmp_path: Path, data: Any, name: str = "tools.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- each format, each wrapper ----------------------------------------------------------------
_SHAPES = [
    ("openai-tools", lambda r: r, "a list"),
    ("openai-tools", lambda r: {"tools": r}, "tools"),
    ("openai-functions", lambda r: r, "a list"),
    ("openai-functions", lambda r: {"functions": r}, "functions"),
    ("mcp", lambda r: {"tools": r}, "tools"),
    ("mcp", lambda r: {"jsonrpc": "2.0", "id": 1, "result": {"tools": r}}, "JSON-RPC"),
    ("mcp", lambda r: r, "a list"),
    ("anthropic", lambda r: r, "a list"),
    ("anthropic", lambda r: {"model": "x", "tools": r}, "tools"),
]


@pytest.mark.parametrize(("form", "wrap", "said"), _SHAPES)
def test_each_format_is_detected_and_loaded_with_its_parameters(
    tmp_path: Path, form: str, wrap: Any, said: str
) -> None:
    records = [_as(form, WEATHER), _as(form, EMAIL)]
    catalog = load_catalog(_write(tmp_path, wrap(records)))
    assert catalog.format == form and said in catalog.format_reason
    assert catalog.problems == []
    weather, email = catalog.tools
    assert (weather.tool_name, weather.description, weather.category) == (
        "get_weather",
        "Current weather for a city.",
        "get_weather",
    )
    assert weather.parameters == ("location: City and country", "unit: one of celsius, fahrenheit")
    assert email.parameters == (
        "recipient: Address to send to",
        "attachments",
        "attachments[].filename: Shown name",
    )


def test_the_same_tools_in_any_format_have_one_fingerprint(tmp_path: Path) -> None:
    prints = set()
    for number, (form, wrap, _) in enumerate(_SHAPES):
        records = [_as(form, WEATHER), _as(form, EMAIL)]
        prints.add(load_catalog(_write(tmp_path, wrap(records), f"{number}.json")).fingerprint)
    assert len(prints) == 1


def test_the_openai_responses_shape_and_an_mcp_title(tmp_path: Path) -> None:
    responses = [{"type": "function", **WEATHER}]
    catalog = load_catalog(_write(tmp_path, responses, "r.json"))
    assert catalog.format == "openai-tools" and catalog.tools[0].parameters
    titled = {"tools": [{"name": "ls", "title": "List a folder", "inputSchema": {}}]}
    (tool,) = load_catalog(_write(tmp_path, titled, "t.json")).tools
    assert tool.description == "List a folder" and tool.parameters == ()


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("catalogs/openai-tools.json", "openai-tools"),
        ("catalogs/openai-functions.json", "openai-functions"),
        ("catalogs/mcp-tools-list.json", "mcp"),
        ("catalogs/anthropic-tools.json", "anthropic"),
        ("catalogs/routescope.json", "routescope-json"),
        ("skills", "skills"),
    ],
)
def test_the_example_catalogs_load_cleanly(path: str, form: str) -> None:
    catalog = load_catalog(EXAMPLES / path)
    assert 4 <= len(catalog.tools) <= 6 and catalog.problems == []
    assert catalog.format == form and catalog.format_reason


# -- detection rules --------------------------------------------------------------------------
def test_the_majority_wins_and_a_tie_goes_to_the_fixed_order() -> None:
    mcp = {"name": "a", "inputSchema": {}}
    anthropic = {"name": "b", "input_schema": {}}
    assert detect([mcp, anthropic, anthropic]).format == "anthropic"
    tie = detect([anthropic, mcp])
    assert tie.format == "mcp" and "a tie" in tie.reason
    assert detect([{"tool_name": "x"}, mcp]).format == "routescope-json"  # read as before


@pytest.mark.parametrize(
    ("data", "form"),
    [
        ([{"name": "a", "description": "d"}], "openai-functions"),
        ({"tools": [{"name": "a"}]}, "mcp"),
        ({"functions": [{"type": "function", "function": {"name": "a"}}]}, "openai-functions"),
        ([{"description": "no name"}, 7], "routescope-json"),
    ],
)
def test_records_that_tell_nothing_get_the_documented_default(data: Any, form: str) -> None:
    shape = detect(data)
    assert shape.format == form


def test_a_second_list_and_a_next_page_are_reported(tmp_path: Path) -> None:
    data = {
        "result": {"tools": [_as("mcp", WEATHER)], "nextCursor": "page-2"},
        "tools": [_as("mcp", EMAIL)],
    }
    catalog = load_catalog(_write(tmp_path, data))
    assert [t.tool_name for t in catalog.tools] == ["get_weather"]
    assert any(
        "tools: ignored (the tools are read from result.tools)" in p for p in catalog.problems
    )
    assert any("result.nextCursor" in p and "next page" in p for p in catalog.problems)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}},
            "Method not",
        ),
        ({"name": "one_tool"}, "this object has none of them"),
        ({"tools": {"a": 1}}, "tools: must be a list"),
        ("just text", "a list of tool records"),
    ],
)
def test_shapes_that_are_no_catalog_say_why(tmp_path: Path, data: Any, message: str) -> None:
    from routescope.toolsearch import CatalogError

    with pytest.raises(CatalogError, match=message) as caught:
        load_catalog(_write(tmp_path, data))
    assert "\n" not in str(caught.value)


# -- the parameters field ---------------------------------------------------------------------
def test_nested_properties_are_flattened_with_bounded_depth() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "description": "level one",
                "properties": {
                    "b": {"properties": {"c": {"properties": {"d": {"description": "too deep"}}}}}
                },
            },
            "flag": True,
        },
        "anyOf": [{"properties": {"alt": {"title": "Alternative"}}}],
    }
    entries, problems = parameter_entries(schema, "x")
    assert entries == ("a: level one", "a.b", "a.b.c", "flag", "alt: Alternative")
    assert problems == []


def test_enums_are_shown_sparingly_and_text_is_one_line() -> None:
    values = [f"v{i}" for i in range(30)]
    schema = {"properties": {"k": {"enum": values, "description": "line\none\x1b[2J"}}}
    ((entry,), _) = parameter_entries(schema, "x")
    assert entry.startswith("k: line one [2J; one of v0, v1")
    assert entry.endswith(f"v{ENUM_LIMIT - 1}, …") and "\n" not in entry


def test_many_parameters_are_capped_and_said() -> None:
    schema = {"properties": {f"p{i}": {"description": "x" * 20} for i in range(200)}}
    entries, problems = parameter_entries(schema, "tools[0].inputSchema")
    assert len(entries) == PARAMETER_LIMIT
    assert len(problems) == 1 and problems[0].startswith("tools[0].inputSchema: ")


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ("a string", "x: must be an object (a JSON Schema), got a string: ignored"),
        ([1, 2], "x: must be an object (a JSON Schema), got a list: ignored"),
        ({"properties": [1]}, "x.properties: must be an object, got a list: ignored"),
        ({"properties": {"a b": 3}}, 'x.properties["a b"]: must be an object, got a number'),
    ],
)
def test_a_schema_that_is_not_an_object_is_one_problem(schema: Any, problem: str) -> None:
    entries, problems = parameter_entries(schema, "x")
    assert entries == () and len(problems) == 1 and problems[0].startswith(problem)


# -- searchable ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "query", "tool"), PARAMETER_QUERIES)
def test_a_query_naming_a_parameter_finds_its_tool_by_keyword(
    tmp_path: Path, path: str, query: str, tool: str
) -> None:
    search = ToolSearch(load_catalog(EXAMPLES / path), cache=tmp_path, semantic=False)
    result = search.search(query, SearchSettings(strategy="exact"))
    top = result.results[0]
    assert top.tool_name == tool
    assert top.signals.keyword is not None and "parameters" in top.signals.keyword.fields
    assert top.signals.keyword.matched_terms["parameters"]


def test_parameters_are_embedded_only_when_a_tool_has_some() -> None:
    catalog = load_catalog(EXAMPLES / "catalogs" / "openai-tools.json")
    text = embedding_text(catalog.tools[0])
    assert text.endswith(
        "\nPARAMETERS: location: City and country, e.g. Lisbon, Portugal; "
        "unit: Temperature unit; one of celsius, fahrenheit"
    )
    skills = load_catalog(EXAMPLES / "skills")
    assert all("PARAMETERS" not in embedding_text(t) for t in skills.tools)
