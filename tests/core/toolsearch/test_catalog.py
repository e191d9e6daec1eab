"""Catalogs: SKILL.md folders and JSON lists through one standardisation."""

import json
from pathlib import Path

import pytest

from routescope import resources_root
from routescope.toolsearch import (
    CatalogError,
    load_catalog,
    standardise,
)

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
