"""Hostile catalogs: every read is bounded, every bad skill or record is one problem line and
the rest load (F11 for catalogs, F19's SKILL.md part, F22's duplicate names, F23), and nothing
but `CatalogError` (one line) ever leaves `load_catalog`."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from routescope.toolsearch import Catalog, CatalogError, ToolSearch, load_catalog, why_not
from routescope.toolsearch._catalog import SKILL_LIMIT

GOOD = "---\nname: ok\ncommands:\n  - name: run\n    description: run it\n---\n# ok\n"


def _skill(folder: Path, name: str, content: str | bytes) -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    path = folder / name / "SKILL.md"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def _one_problem_about(catalog: Catalog, needle: str) -> str:
    (problem,) = [p for p in catalog.problems if needle in p]
    assert "\n" not in problem
    return problem


@pytest.mark.parametrize("path", ["", "   "])
def test_an_empty_catalog_path_is_refused(path: str) -> None:
    with pytest.raises(CatalogError, match=r"^no catalog path given"):
        load_catalog(path)


def test_a_fifo_skill_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    _skill(tmp_path, "ok", GOOD)
    (tmp_path / "zz").mkdir()
    os.mkfifo(tmp_path / "zz" / "SKILL.md")
    catalog = load_catalog(tmp_path)
    assert [t.tool_name for t in catalog.tools] == ["ok.run"]
    assert "not a regular file" in _one_problem_about(catalog, "zz/SKILL.md")


def test_a_skill_linked_to_dev_zero_is_a_problem(tmp_path: Path) -> None:
    _skill(tmp_path, "ok", GOOD)
    (tmp_path / "zz").mkdir()
    (tmp_path / "zz" / "SKILL.md").symlink_to("/dev/zero")
    catalog = load_catalog(tmp_path)
    assert [t.tool_name for t in catalog.tools] == ["ok.run"]
    assert "not a regular file" in _one_problem_about(catalog, "zz/SKILL.md")


def test_a_huge_skill_is_a_problem(tmp_path: Path) -> None:
    _skill(tmp_path, "ok", GOOD)
    _skill(tmp_path, "big", GOOD + "x" * SKILL_LIMIT)
    catalog = load_catalog(tmp_path)
    assert [t.tool_name for t in catalog.tools] == ["ok.run"]
    assert "too large" in _one_problem_about(catalog, "big/SKILL.md")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("---\nname: deep\ndescription: " + "[" * 20_000 + "\n---\n", "deep/SKILL.md"),
        ("---\nname: deep\nx: " + "{a: " * 5_000 + "\n---\n", "deep/SKILL.md"),
        ("---\nname: n\nintents: [" + "1" * 5_000 + "]\n---\n", "deep/SKILL.md"),
        ("---\nname: [unclosed\n---\n", "front matter is not valid YAML"),
        ("# no front matter\n", "no YAML front matter"),
        ("---\nname: x\n", "not closed"),
        (b"---\nname: \xff\xfe\n---\n", "not UTF-8"),
        ("---\n- a list\n---\n", "must be a mapping"),
        ("---\nname: n\ncommands: [{name: 7}]\n---\n", "commands[0].name"),
    ],
    ids=[
        "deep-list",
        "deep-map",
        "huge-int",
        "bad-yaml",
        "no-front",
        "unclosed",
        "not-utf8",
        "not-mapping",
        "wrong-type",
    ],
)
def test_a_bad_skill_is_one_problem_and_the_rest_load(
    tmp_path: Path, content: str | bytes, needle: str
) -> None:
    _skill(tmp_path, "ok", GOOD)
    _skill(tmp_path, "deep", content)
    catalog = load_catalog(tmp_path)
    assert [t.tool_name for t in catalog.tools] == ["ok.run"]
    assert len(catalog.problems) == 1
    _one_problem_about(catalog, needle)


def test_a_skill_md_folder_is_a_problem(tmp_path: Path) -> None:
    _skill(tmp_path, "ok", GOOD)
    (tmp_path / "dir" / "SKILL.md").mkdir(parents=True)
    catalog = load_catalog(tmp_path)
    assert "a directory" in _one_problem_about(catalog, "dir/SKILL.md")


def test_a_control_character_in_a_path_keeps_the_problem_one_line(tmp_path: Path) -> None:
    _skill(tmp_path, "ok", GOOD)
    _skill(tmp_path, "bad\nname\x1b[31m", "no front matter")
    catalog = load_catalog(tmp_path)
    (problem,) = catalog.problems
    assert "\n" not in problem and "\x1b" not in problem and "bad\\nname\\x1b[31m" in problem


# -- JSON catalogs -------------------------------------------------------------------------
def _json(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"{uuid.uuid4().hex}.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_huge_integer_is_a_record_problem(tmp_path: Path) -> None:
    """F23: `"intents": [1111…]` (5,000 digits) was a ValueError that killed the command."""
    path = _json(
        tmp_path,
        '[{"tool_name": "a.b", "intents": [' + "1" * 5_000 + ']}, {"tool_name": "c.d"}]',
    )
    catalog = load_catalog(path)
    assert [t.tool_name for t in catalog.tools] == ["c.d"]
    assert "[0].intents: must be a list of strings" in _one_problem_about(catalog, "[0]")


def test_a_huge_integer_alone_gives_a_catalog_error(tmp_path: Path) -> None:
    path = _json(tmp_path, "[" + "9" * 100_000 + "]")
    with pytest.raises(CatalogError, match="no tools could be loaded") as caught:
        load_catalog(path)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("opener", ["[", '{"a": '])
def test_deep_json_is_a_catalog_error(tmp_path: Path, opener: str) -> None:
    path = _json(tmp_path, opener * 100_000)
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert "\n" not in str(caught.value)


def test_a_fifo_or_device_json_catalog_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "c.json"
    os.mkfifo(fifo)
    with pytest.raises(CatalogError, match="no such catalog folder or JSON file"):
        load_catalog(fifo)
    with pytest.raises(CatalogError, match="no such catalog folder or JSON file"):
        load_catalog("/dev/zero")


def test_a_huge_json_catalog_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("routescope.toolsearch._catalog.JSON_LIMIT", 1_000)
    path = _json(tmp_path, json.dumps([{"tool_name": f"t.{i}"} for i in range(200)]))
    with pytest.raises(CatalogError, match="too large"):
        load_catalog(path)


def test_wrongly_typed_records_are_each_listed(tmp_path: Path) -> None:
    records = [
        {"tool_name": "ok.run"},
        7,
        {"tool_name": 3},
        {"tool_name": "x.y", "description": ["not", "text"]},
        {"tool_name": "x.z", "routing_keywords": [1]},
        {"tool_name": "x.w", "category": {}},
        {"tool_name": "ok.run"},
    ]
    catalog = load_catalog(_json(tmp_path, json.dumps(records)))
    assert [t.tool_name for t in catalog.tools] == ["ok.run"]
    assert [p.split(": ", 2)[1] for p in catalog.problems] == [
        "[1]",
        "[2].tool_name",
        "[3].description",
        "[4].routing_keywords",
        "[5].category",
        "[6]",
    ]


# -- names that differ only in case (F22) -------------------------------------------------
def test_case_colliding_names_are_one_tool(tmp_path: Path) -> None:
    records = [
        {"tool_name": "Git.Status", "description": "upper first"},
        {"tool_name": "git.status", "description": "lower second"},
        {"tool_name": "git.log", "description": "history"},
    ]
    catalog = load_catalog(_json(tmp_path, json.dumps(records)))
    assert [t.tool_name for t in catalog.tools] == ["Git.Status", "git.log"]
    problem = _one_problem_about(catalog, "duplicate")
    assert "git.status (same name as Git.Status, ignoring case): skipped" in problem


def test_a_case_clash_built_by_hand_still_explains_the_right_tool(tmp_path: Path) -> None:
    """A `Catalog` made directly can still hold both spellings: each hit is explained and
    `why_not` answers for the tool asked for, not the other one."""
    base = load_catalog(
        _json(
            tmp_path,
            json.dumps(
                [
                    {"tool_name": "Git.Status", "description": "alpha"},
                    {"tool_name": "git.log", "description": "beta"},
                ]
            ),
        )
    )
    twin = type(base.tools[0])("git.status", "gamma words", (), (), "git")
    catalog = Catalog(tools=[*base.tools, twin], source="by hand")
    search = ToolSearch(catalog, cache=tmp_path / "cache", semantic=False)
    from routescope.toolsearch import SearchSettings

    result = search.search("gamma", SearchSettings(strategy="exact"))
    top = result.results[0]
    assert top.tool_name == "git.status"
    assert top.signals.keyword is not None and "description" in top.signals.keyword.fields
    assert why_not(search, "gamma", "git.status", SearchSettings()).final_rank == 1
    assert why_not(search, "gamma", "Git.Status", SearchSettings()).final_rank != 1


# -- generated hostile input ---------------------------------------------------------------
_FRAGMENTS = [
    "---\n",
    "\n---\n",
    "name: ",
    "commands:\n  - name: ",
    "description: ",
    "routing_keywords: ",
    "intents: ",
    "category: ",
    "[",
    "]",
    "{",
    "}",
    "&a ",
    "*a ",
    "!!python/object:os.system ",
    "!!binary ",
    "!!set ",
    "? ",
    "- ",
    "1" * 5_000,
    "9e9999",
    ".nan",
    "~",
    "\x00",
    "\x1b[31m",
    "\ufeff",
    "é",
    "\t",
    ": ",
    '"',
    "'",
    "\\",
    "%YAML 1.1\n",
    "2024-13-45",
]

_skill_text = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=20)), max_size=40
).map("".join)
_json_value = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
        st.sampled_from(["git.status", "a.b", "Git.Status", "", " x "]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.sampled_from(
                ["tool_name", "description", "routing_keywords", "intents", "category", "x"]
            ),
            children,
            max_size=5,
        ),
    ),
    max_leaves=30,
)
_json_text = st.one_of(
    _json_value.map(json.dumps),
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=10)), max_size=30).map(
        "".join
    ),
    st.integers(min_value=1, max_value=3_000).map(lambda n: "[" * n),
)


def _check_outcome(path: Path) -> None:
    try:
        catalog = load_catalog(path)
    except CatalogError as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    assert catalog.tools
    for problem in catalog.problems:
        assert problem and "\n" not in problem


@given(skills=st.lists(st.one_of(_skill_text, st.binary(max_size=200)), min_size=1, max_size=4))
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_generated_skill_folders_load_or_say_why(tmp_path: Path, skills: list[str | bytes]) -> None:
    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    _skill(folder, "ok", GOOD)
    for number, content in enumerate(skills):
        _skill(folder, f"s{number}", content)
    catalog = load_catalog(folder)  # the good skill always loads
    assert "ok.run" in {t.tool_name for t in catalog.tools}
    assert all(problem and "\n" not in problem for problem in catalog.problems)
    _check_outcome(folder / "s0")


@given(text=_json_text)
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_generated_json_catalogs_load_or_say_why(tmp_path: Path, text: str) -> None:
    path = tmp_path / f"{uuid.uuid4().hex}.json"
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    _check_outcome(path)


# -- the formats people have (issue 11 §1): positions, bounded work --------------------------
def _tool(name: str, **more: object) -> str:
    return json.dumps({"name": name, "description": f"{name} things", "inputSchema": {}, **more})


@pytest.mark.parametrize(
    ("deep", "where"),
    [
        ('{"a": ' * 20_000 + "1" + "}" * 20_000, "result.tools[1].inputSchema.a.a.a…"),
        ("[" * 20_000 + "]" * 20_000, "result.tools[1].inputSchema[0][0][0]…"),
    ],
    ids=["objects", "lists"],
)
def test_a_20000_deep_record_is_one_problem_and_the_rest_load(
    tmp_path: Path, deep: str, where: str
) -> None:
    bad = '{"name": "deep", "inputSchema": ' + deep + "}"
    text = (
        '{"jsonrpc": "2.0", "id": 1, "result": {"tools": ['
        f"{_tool('first')}, {bad}, {_tool('last')}, "
        '{"name": "deep2", "description": ' + "[" * 5_000 + "]" * 5_000 + "}]}}"
    )
    catalog = load_catalog(_json(tmp_path, text))
    assert [t.tool_name for t in catalog.tools] == ["first", "last"]
    assert catalog.format == "mcp"
    first, second = catalog.problems
    assert f"{where}: nested more than 64 levels deep: skipped" in first
    assert "result.tools[3].description" in second


def test_deep_but_parseable_schemas_load_with_bounded_parameters(tmp_path: Path) -> None:
    schema: dict[str, object] = {"description": "bottom"}
    for _ in range(300):
        schema = {"type": "object", "properties": {"p": schema}}
    catalog = load_catalog(_json(tmp_path, "[" + _tool("t", inputSchema=schema) + "]"))
    (tool,) = catalog.tools
    assert tool.parameters == ("p", "p.p", "p.p.p") and catalog.problems == []


def test_a_megabyte_description_is_cut_and_said(tmp_path: Path) -> None:
    huge = "word " * 200_000  # 1,000,000 characters, 999,999 once trimmed
    records = [
        {"type": "function", "function": {"name": "big", "description": huge}},
        {"type": "function", "function": {"name": "small", "description": "fine"}},
    ]
    catalog = load_catalog(_json(tmp_path, json.dumps(records)))
    big, small = catalog.tools
    assert len(big.description) <= 4_000 and small.description == "fine"
    problem = _one_problem_about(catalog, "[0].function.description")
    assert "999,999 characters, cut to 4,000" in problem


def test_huge_schemas_cost_bounded_work(tmp_path: Path) -> None:
    """2,000 properties with 3,000-character descriptions and 2,000-value enums (12 MB): the
    entries stay within their limits, each value read at most once, one problem line."""
    properties = {
        f"p{i}": {"description": "d " * 1_500, "enum": list(range(2_000))} for i in range(2_000)
    }
    records = [{"name": "wide", "input_schema": {"properties": properties}}]
    catalog = load_catalog(_json(tmp_path, json.dumps(records)))
    (tool,) = catalog.tools
    assert 0 < len(tool.parameters) <= 48 and sum(map(len, tool.parameters)) <= 4_000
    assert all(len(entry) <= 500 for entry in tool.parameters)
    (problem,) = catalog.problems
    assert problem.split(": ", 2)[1] == "[0].input_schema" and "\n" not in problem


def test_bad_foreign_records_are_each_listed_with_their_position(tmp_path: Path) -> None:
    records = [
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "bad\x1b[31m"}},
        {"type": "function", "function": {"description": "no name"}},
        {"type": "function", "function": "not an object"},
        {"type": "web_search", "function": {"name": "x"}},
        {"type": "function", "function": {"name": 7}},
        {"type": "function", "function": {"name": "n" * 300}},
        {"type": "function", "function": {"name": "wrong", "description": ["a"]}},
        {"type": "function", "function": {"name": "OK"}},
        {"type": "function", "function": {"name": "schema", "parameters": "a string"}},
        "a string",
    ]
    catalog = load_catalog(_json(tmp_path, json.dumps({"tools": records})))
    assert [t.tool_name for t in catalog.tools] == ["ok", "schema"]
    assert catalog.tools[1].parameters == ()
    assert [p.split(": ", 2)[1:] for p in catalog.problems] == [
        ["tools[1].function.name", "contains control characters: skipped"],
        ["tools[2].function.name", "must be a non-empty string"],
        ["tools[3].function", "must be an object"],
        ["tools[4].type", 'must be "function", got "web_search"'],
        ["tools[5].function.name", "must be a non-empty string"],
        ["tools[6].function.name", "longer than 256 characters: skipped"],
        ["tools[7].function.description", "must be a string"],
        ["tools[8]", "duplicate tool OK (same name as ok, ignoring case): skipped"],
        [
            "tools[9].function.parameters",
            "must be an object (a JSON Schema), got a string: ignored",
        ],
        ["tools[10]", "must be an object"],
    ]
    assert all("\n" not in p and "\x1b" not in p for p in catalog.problems)


def test_parameters_change_the_fingerprint(tmp_path: Path) -> None:
    plain = [{"tool_name": "a.b", "description": "d"}]
    with_schema = [{**plain[0], "parameters": {"properties": {"x": {}}}}]
    other = [{**plain[0], "parameters": {"properties": {"y": {}}}}]
    prints = {
        load_catalog(_json(tmp_path, json.dumps(r))).fingerprint
        for r in (plain, with_schema, other)
    }
    assert len(prints) == 3


_foreign_record = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=12),
        st.sampled_from(["function", "object", "get_weather", "Get_Weather", "", "\x1b[2J"]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(
                [
                    "name",
                    "description",
                    "type",
                    "function",
                    "parameters",
                    "inputSchema",
                    "input_schema",
                    "properties",
                    "items",
                    "enum",
                    "anyOf",
                    "title",
                ]
            ),
            children,
            max_size=6,
        ),
    ),
    max_leaves=40,
)
_foreign_file = st.one_of(
    st.lists(_foreign_record, max_size=5),
    st.lists(_foreign_record, max_size=5).map(lambda r: {"tools": r}),
    st.lists(_foreign_record, max_size=5).map(lambda r: {"functions": r}),
    st.lists(_foreign_record, max_size=5).map(lambda r: {"jsonrpc": "2.0", "result": {"tools": r}}),
)


@given(data=_foreign_file)
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_generated_foreign_catalogs_load_or_say_why(tmp_path: Path, data: object) -> None:
    path = tmp_path / f"{uuid.uuid4().hex}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    _check_outcome(path)
