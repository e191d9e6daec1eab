"""The schema as a model is asked for it: Structured Outputs' strict JSON Schema, the schema
written into a system prompt (the modes without it), and a name the API accepts."""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Any

from pydantic import BaseModel

__all__ = ["instructed", "schema_name", "strict_json_schema"]

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_SCHEMA_KEYWORDS = (
    "items",
    "prefixItems",
    "anyOf",
    "allOf",
    "oneOf",
    "not",
    "additionalProperties",
)


@functools.cache
def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """`schema`'s JSON Schema as Structured Outputs' strict mode wants it: every object closed
    (`additionalProperties: false`) with all its properties required, and no defaults. Do not
    mutate the result: it is cached."""
    result = copy.deepcopy(schema.model_json_schema())
    _make_strict(result)
    return result


def _make_strict(node: Any) -> None:
    """Close every object schema in `node`, walking only the keywords that hold schemas (so a
    property called `properties` or `default` is left alone)."""
    if isinstance(node, list):
        for value in node:
            _make_strict(value)
        return
    if not isinstance(node, dict):
        return
    node.pop("default", None)
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["additionalProperties"] = False
        node["required"] = list(properties)
        for value in properties.values():
            _make_strict(value)
    definitions = node.get("$defs")
    if isinstance(definitions, dict):
        for value in definitions.values():
            _make_strict(value)
    for key in _SCHEMA_KEYWORDS:
        if key in node:
            _make_strict(node[key])


@functools.cache
def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), ensure_ascii=False, separators=(",", ":"))


def instructed(system: str, schema: type[BaseModel]) -> str:
    return (
        f"{system.rstrip()}\n\nAnswer with one JSON object and nothing else: no prose, no "
        f"Markdown code fences. It must match this JSON Schema:\n{_schema_text(schema)}"
    )


def schema_name(name: str) -> str:
    return _NAME_CHARS.sub("_", name)[:64] or "answer"
