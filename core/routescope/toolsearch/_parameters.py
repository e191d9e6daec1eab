"""A tool's parameter schema (JSON Schema) flattened into the searchable `parameters` field
(issue 11 §1): `name: description` entries, nested properties as `a.b`, array items as `a[].b`,
within fixed budgets per tool whatever the schema's size."""

from __future__ import annotations

import re
from typing import Any

from ._deep_json import json_step

__all__ = [
    "ENTRY_TEXT_LIMIT",
    "ENUM_LIMIT",
    "PARAMETER_DEPTH",
    "PARAMETER_LIMIT",
    "PARAMETER_TEXT_LIMIT",
    "parameter_entries",
]

PARAMETER_DEPTH = 3
"""How deep nested properties are flattened (`a.b.c`); deeper ones are not searched."""
PARAMETER_LIMIT = 48
"""The most parameter entries one tool contributes."""
PARAMETER_TEXT_LIMIT = 4_000
"""The most characters of parameter text one tool contributes."""
ENTRY_TEXT_LIMIT = 400
"""The most characters of one parameter's description."""
ENUM_LIMIT = 8
"""The most enum values one parameter shows (each at most 40 characters)."""
_ENUM_VALUE_LIMIT = 40
_NAME_LIMIT = 64
_ALTERNATIVES = ("allOf", "anyOf", "oneOf")
_ALTERNATIVE_LIMIT = 4
_NODE_LIMIT = 512
"""The most schema nodes looked at for one tool: the work per tool is bounded whatever its size."""

_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


def _clean(text: str, limit: int) -> str:
    """One line of at most `limit` characters: control characters and runs of white space
    become one space."""
    text = _SPACE.sub(" ", text[: limit * 4]).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
    }.get(type(value), type(value).__name__)


def _enum(values: Any) -> str:
    if not isinstance(values, list):
        return ""
    shown: list[str] = []
    for value in values[: ENUM_LIMIT * 4]:
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str | int | float):
            text = _clean(str(value), _ENUM_VALUE_LIMIT)
        else:
            continue
        if text and text not in shown:
            shown.append(text)
        if len(shown) > ENUM_LIMIT:
            break
    if not shown:
        return ""
    more = ", …" if len(shown) > ENUM_LIMIT else ""
    return "one of " + ", ".join(shown[:ENUM_LIMIT]) + more


class _Flattener:
    """Walks one schema within the budgets; collects entries and problems."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self.problems: list[str] = []
        self.nodes = 0
        self.text = 0
        self.dropped = 0

    def properties(self, schema: dict[str, Any], where: str) -> list[tuple[str, Any, str]]:
        """The (name, schema, position) of a level's properties, its own first, then those of
        its first `allOf` / `anyOf` / `oneOf` alternatives; each name once."""
        found: dict[str, tuple[str, Any, str]] = {}
        sources: list[tuple[Any, str]] = [(schema.get("properties"), f"{where}.properties")]
        for key in _ALTERNATIVES:
            alternatives = schema.get(key)
            if isinstance(alternatives, list):
                for i, alternative in enumerate(alternatives[:_ALTERNATIVE_LIMIT]):
                    if isinstance(alternative, dict) and "properties" in alternative:
                        sources.append(
                            (alternative["properties"], f"{where}.{key}[{i}].properties")
                        )
        for properties, place in sources:
            if properties is None:
                continue
            if not isinstance(properties, dict):
                self.problems.append(
                    f"{place}: must be an object, got {_kind(properties)}: ignored"
                )
                continue
            for name, value in properties.items():
                self.nodes += 1
                if self.nodes > _NODE_LIMIT:
                    return list(found.values())
                clean = _clean(str(name), _NAME_LIMIT)
                if clean and clean not in found:
                    found[clean] = (clean, value, f"{place}{json_step(name)}")
        return list(found.values())

    def walk(self, schema: dict[str, Any], prefix: str, where: str, depth: int) -> None:
        for name, value, place in self.properties(schema, where):
            path = f"{prefix}{name}"
            if isinstance(value, bool):  # JSON Schema's `true` / `false`: any value, or none
                self.add(path, "", "")
                continue
            if not isinstance(value, dict):
                self.problems.append(f"{place}: must be an object, got {_kind(value)}: ignored")
                continue
            description = value.get("description")
            if not isinstance(description, str):
                title = value.get("title")
                description = title if isinstance(title, str) else ""
            self.add(path, description, _enum(value.get("enum")))
            if depth >= PARAMETER_DEPTH:
                continue
            items = value.get("items")
            if isinstance(items, dict):
                self.walk(items, f"{path}[].", f"{place}.items", depth + 1)
            self.walk(value, f"{path}.", place, depth + 1)

    def add(self, path: str, description: str, enum: str) -> None:
        parts = [p for p in (_clean(description, ENTRY_TEXT_LIMIT), enum) if p]
        entry = f"{path}: {'; '.join(parts)}" if parts else path
        if len(self.entries) >= PARAMETER_LIMIT or self.text + len(entry) > PARAMETER_TEXT_LIMIT:
            self.dropped += 1
            return
        self.entries.append(entry)
        self.text += len(entry) + 2


def parameter_entries(schema: Any, where: str) -> tuple[tuple[str, ...], list[str]]:
    """A parameter schema (JSON Schema) flattened into searchable `name: description` entries
    (nested properties as `a.b`, array items as `a[].b`, at most `PARAMETER_DEPTH` levels,
    `ENUM_LIMIT` enum values each), and the problems met, each with its position. A schema
    that is not an object gives no entries and one problem; the tool still loads."""
    if not isinstance(schema, dict):
        return (), [f"{where}: must be an object (a JSON Schema), got {_kind(schema)}: ignored"]
    walker = _Flattener()
    walker.walk(schema, "", where, 1)
    problems = walker.problems
    if walker.nodes > _NODE_LIMIT:
        problems.append(f"{where}: more than {_NODE_LIMIT} properties: only the first are read")
    if walker.dropped:
        problems.append(
            f"{where}: {walker.dropped} more parameters than fit "
            f"({PARAMETER_LIMIT} entries, {PARAMETER_TEXT_LIMIT:,} characters): not searched"
        )
    if len(problems) > 1:
        problems = [f"{problems[0]} (and {len(problems) - 1} more problems in this schema)"]
    return tuple(dict.fromkeys(walker.entries)), problems
