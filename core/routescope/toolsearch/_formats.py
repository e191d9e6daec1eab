"""The shapes of JSON tool catalogs people already have, told apart by shape (the parsing is in
`_deep_json`, the flattening of a tool's parameter schema in `_parameters`).

A JSON catalog file is one of:

- `routescope-json`: a list of `{tool_name, description, routing_keywords, intents, category}`;
- `openai-tools`: a list of `{"type": "function", "function": {name, description, parameters}}`
  (or the Responses API's flat `{"type": "function", name, description, parameters}`);
- `openai-functions`: a list of bare function objects `{name, description, parameters}`;
- `mcp`: an MCP `tools/list` result `{"tools": [{name, description, inputSchema}]}`, or its
  JSON-RPC response `{"jsonrpc": "2.0", "result": {"tools": [...]}}`;
- `anthropic`: a list of Anthropic tool definitions `{name, description, input_schema}`.

Any of the lists may also sit under `{"tools": [...]}` (an API request body) or, for
functions, `{"functions": [...]}`. Detection, deterministic and explained in
`Catalog.format_reason`:

1. An object: `result.tools` (a JSON-RPC response: MCP), else `tools`, else `functions`
   (OpenAI functions); when several are present the first in that order is read and the
   others are reported as ignored.
2. The list's records vote by their distinguishing key, looked at in this order: `tool_name`
   (routescope-json), `"type": "function"` or a `function` object (openai-tools), `inputSchema`
   (mcp), `input_schema` (anthropic), `parameters` (openai-functions). The most votes win; a tie
   goes to the earlier format in that order (so a file Routescope always read is read as before).
3. No record votes: a `{"tools": …}` list is MCP (the `tools/list` shape), a `functions` list or
   a bare list whose records have a `name` is OpenAI functions, anything else routescope-json
   (whose reader then says what each record lacks).

The foreign readers (every format but routescope-json) read the schema from the format's own key
first and accept the others' (`parameters`, `inputSchema`, `input_schema`), so a hand-mixed file
loads whole; the vote counts in `format_reason` show the mix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

# The catalog reader takes the whole reading of a JSON catalog from here: parsing, the shape,
# and the parameters each format's records hold.
from ._deep_json import parse_json, too_deep_in
from ._parameters import parameter_entries

__all__ = [
    "FORMATS",
    "SCHEMA_KEYS",
    "Shape",
    "detect",
    "parameter_entries",
    "parse_json",
    "too_deep_in",
]

FORMATS: Final = (
    "routescope-json",
    "openai-tools",
    "mcp",
    "anthropic",
    "openai-functions",
)
"""The JSON formats, in the order that breaks a tie of votes (the SKILL.md folder is `skills`)."""

SCHEMA_KEYS: Final = {
    "openai-tools": ("parameters", "inputSchema", "input_schema"),
    "openai-functions": ("parameters", "inputSchema", "input_schema"),
    "mcp": ("inputSchema", "input_schema", "parameters"),
    "anthropic": ("input_schema", "inputSchema", "parameters"),
    "routescope-json": ("parameters",),
}
"""Where each format keeps a tool's parameter schema (its own key first)."""


# -- detection ------------------------------------------------------------------------------
@dataclass(slots=True)
class Shape:
    """What a parsed JSON catalog is: its format, why, and where its tool records are."""

    format: str
    reason: str
    records: list[Any]
    prefix: str
    """Where the records are in the file (`""`, `tools`, `functions`, `result.tools`): problem
    positions read `{prefix}[{index}]`."""
    problems: list[str] = field(default_factory=list)
    """What in the file is not read (a second list of tools, a next page of an MCP listing)."""


def _vote(record: Any) -> str | None:
    if not isinstance(record, dict):
        return None
    if "tool_name" in record:
        return "routescope-json"
    if record.get("type") == "function" or isinstance(record.get("function"), dict):
        return "openai-tools"
    if "inputSchema" in record:
        return "mcp"
    if "input_schema" in record:
        return "anthropic"
    if "parameters" in record:
        return "openai-functions"
    return None


_WHAT = {
    "routescope-json": "Routescope records (tool_name)",
    "openai-tools": 'OpenAI tools ("type": "function")',
    "mcp": "MCP tools (inputSchema)",
    "anthropic": "Anthropic tools (input_schema)",
    "openai-functions": "OpenAI function objects (parameters)",
}


def _by_vote(records: list[Any], default: str, where: str) -> tuple[str, str]:
    """The format the records vote for, and why (one clause)."""
    votes = {name: 0 for name in FORMATS}
    for record in records:
        kind = _vote(record)
        if kind is not None:
            votes[kind] += 1
    counted = sorted(
        ((n, name) for name, n in votes.items() if n), key=lambda c: (-c[0], FORMATS.index(c[1]))
    )
    if not counted:
        return default, f"{where}: no record has a key that tells the format, so {default}"
    best = counted[0][1]
    parts = [f"{n} of {len(records)} records are {_WHAT[name]}" for n, name in counted]
    tie = (
        " (a tie, broken by the fixed order)"
        if len(counted) > 1 and counted[1][0] == counted[0][0]
        else ""
    )
    return best, f"{where}: " + "; ".join(parts) + tie


def detect(data: Any) -> Shape:
    """The shape of a parsed JSON catalog (see the module's table and rules). `ValueError`
    (one line, no path) when it is none of them."""
    if isinstance(data, list):
        has_names = any(isinstance(r, dict) and "name" in r for r in data)
        default = "openai-functions" if has_names else "routescope-json"
        name, reason = _by_vote(data, default, "a list")
        return Shape(name, reason, data, "")
    if not isinstance(data, dict):
        raise ValueError(
            "a JSON catalog is a list of tool records, or an object with tools, functions or "
            "result.tools (a JSON-RPC tools/list response)"
        )
    result = data.get("result")
    places: list[tuple[str, Any]] = []
    if isinstance(result, dict) and "tools" in result:
        places.append(("result.tools", result["tools"]))
    for key in ("tools", "functions"):
        if key in data:
            places.append((key, data[key]))
    if not places:
        error = data.get("error")
        if "jsonrpc" in data and isinstance(error, dict):
            message = error.get("message")
            detail = f": {message}" if isinstance(message, str) else ""
            raise ValueError(f"a JSON-RPC error response, not a tools/list result{detail}")
        raise ValueError(
            "a JSON catalog is a list of tool records, or an object with tools, functions or "
            "result.tools (a JSON-RPC tools/list response); this object has none of them"
        )
    prefix, records = places[0]
    problems = [f"{other}: ignored (the tools are read from {prefix})" for other, _ in places[1:]]
    if not isinstance(records, list):
        raise ValueError(f"{prefix}: must be a list of tools")
    if prefix == "functions":
        name, reason = "openai-functions", "functions: a list of OpenAI function objects"
    else:
        name, reason = _by_vote(records, "mcp", prefix)
    if prefix == "result.tools":
        reason = f"a JSON-RPC tools/list response (MCP); {reason}"
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if isinstance(cursor, str) and cursor:
            problems.append(
                "result.nextCursor: the server has more tools on a next page; "
                "only this page is loaded"
            )
    return Shape(name, reason, records, prefix, problems)
