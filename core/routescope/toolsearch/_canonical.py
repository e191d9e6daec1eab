"""The canonical values of the tool search (seed 004 §5), read once from
`resources/schemas/routing_search_canonical_v1.json`: the single source of fields, boosts,
strategies, the category filter, rerank weights and the embedding template."""

from __future__ import annotations

import functools
import json
from typing import Any

from .._resources import resources_root

__all__ = ["canonical", "default_boosts"]


@functools.cache
def canonical() -> dict[str, Any]:
    """The canonical schema as parsed JSON (shared: do not modify it)."""
    path = resources_root() / "schemas" / "routing_search_canonical_v1.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def default_boosts() -> dict[str, float]:
    """The keyword field boosts of the fields the query parser searches, by field name."""
    fields = canonical()["keyword"]["fields"]
    return {f["name"]: float(f["boost"]) for f in fields if f["in_query_parser"]}
