"""Editing one key of a pack's TOML in place: other lines (comments too) kept, values valid."""

from __future__ import annotations

import tomllib

import pytest

from routescope.judge import PackEdit
from routescope.rules import default_rules_text, parse_rules, set_key, toml_value

TEXT = """# my pack
name = "mine"

[intents]
# the tech words
tech = [
  "install", "api",  # two
]
local = ["near me"]

[place]
lowercase = false
"""


def test_a_key_is_replaced_where_it_stands_and_comments_stay() -> None:
    edited = set_key(TEXT, "intents", "tech", ["install", "api", "sql"], ["suggest: add sql"])
    assert "# the tech words\n# suggest: add sql\ntech = [" in edited
    assert tomllib.loads(edited)["intents"]["tech"] == ["install", "api", "sql"]
    assert edited.startswith("# my pack\n") and 'local = ["near me"]' in edited


def test_a_missing_key_or_table_is_added() -> None:
    edited = set_key(TEXT, "intents", "year_window", [-1, 1])
    edited = set_key(edited, "entities", "min_score", 0.75)
    data = tomllib.loads(edited)
    assert data["intents"]["year_window"] == [-1, 1] and data["entities"]["min_score"] == 0.75
    assert data["place"]["lowercase"] is False


@pytest.mark.parametrize(
    "value",
    [True, 3, 0.5, 'say "hi"\n', ["a, b", "c]"], {"local": ["state of"]}, ["x" * 40] * 5],
)
def test_values_read_back_as_written(value: object) -> None:
    assert tomllib.loads(f"k = {toml_value(value)}")["k"] == value


def test_a_suggestion_applies_to_the_editor_s_text() -> None:
    text = PackEdit("add_exception", "local", "state of").apply_text(default_rules_text())
    pack = parse_rules(text)
    assert pack.intents.exceptions == {"local": ["state of"]}
    assert '# suggest: suspend intents.local inside "state of"' in text
    assert text.count("\n") == default_rules_text().count("\n") + 2
