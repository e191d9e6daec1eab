"""Catalogs: SKILL.md folders and JSON lists through one standardisation."""

import hashlib
import json
from pathlib import Path

import pytest

from routescope import resources_root
from routescope.toolsearch import Catalog, CatalogError, load_catalog
from routescope.toolsearch._catalog import standardise

SAMPLE = Path(str(resources_root() / "catalog"))


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


def test_a_catalog_without_parameters_keeps_its_fingerprint() -> None:
    """The fingerprint as it was before the `parameters` field (issue 11): caches of catalogs
    without parameters (the sample's, every SKILL.md folder's) stay valid."""
    catalog = load_catalog(SAMPLE)
    names = ("tool_name", "description", "routing_keywords", "intents", "category")
    records = [{name: getattr(t, name) for name in names} for t in catalog.tools]
    data = json.dumps(records, sort_keys=True, ensure_ascii=False)
    assert catalog.fingerprint == hashlib.sha256(data.encode()).hexdigest()[:16]
    assert all(t.parameters == () for t in catalog.tools)


def test_skill_commands_and_json_records_may_carry_a_parameter_schema(tmp_path: Path) -> None:
    (tmp_path / "mail").mkdir()
    (tmp_path / "mail" / "SKILL.md").write_text(
        "---\nname: mail\ncommands:\n  - name: send\n    description: Send mail\n"
        "    parameters:\n      type: object\n      properties:\n"
        "        recipient: {type: string, description: Who gets it}\n"
        "  - name: draft\n    parameters: [not, a, schema]\n---\n",
        encoding="utf-8",
    )
    catalog = load_catalog(tmp_path)
    assert catalog.format == "skills"
    send, draft = catalog.tools
    assert send.parameters == ("recipient: Who gets it",) and draft.parameters == ()
    (problem,) = catalog.problems
    assert "mail/SKILL.md: commands[1].parameters: must be an object (a JSON Schema)" in problem
    path = tmp_path / "tools.json"
    schema = {"properties": {"sql": {"description": "One SELECT"}}}
    path.write_text(json.dumps([{"tool_name": "db.query", "parameters": schema}]), "utf-8")
    (tool,) = load_catalog(path).tools
    assert (tool.tool_name, tool.category, tool.parameters) == (
        "db.query",
        "db",
        ("sql: One SELECT",),
    )


def test_a_catalog_says_what_was_read_in_one_line_and_in_detail(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    records: list[object] = [{"tool_name": f"t.n{i}"} for i in range(3)]
    records += [{"description": f"no name {i}"} for i in range(14)]
    path.write_text(json.dumps(records), encoding="utf-8")
    catalog = load_catalog(path)
    assert catalog.summary() == "3 tools from tools.json · routescope-json format · 14 skipped"
    first, more = catalog.skipped(12)
    assert first == catalog.problems[:12] and more == 2
    assert catalog.skipped(20) == (catalog.problems, 0)
    lines = catalog.details().split("\n")
    assert lines[0] == f"format routescope-json: {catalog.format_reason}"
    assert lines[1] == "14 skipped:"
    assert lines[2:14] == [f"  {problem}" for problem in catalog.problems[:12]]
    assert lines[14:] == ["  … and 2 more"]
    assert catalog.details(20).split("\n")[-1] == f"  {catalog.problems[-1]}"
    clean = Catalog(tools=catalog.tools, source="made in code")
    assert clean.summary() == "3 tools from made in code" and clean.details() == ""
