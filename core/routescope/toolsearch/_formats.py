"""The shapes of JSON tool catalogs people already have, told apart by shape, and the flattening
of a tool's parameter schema into the searchable `parameters` field (issue 11 §1).

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

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "ENUM_LIMIT",
    "FORMATS",
    "MAX_DEPTH",
    "PARAMETER_DEPTH",
    "PARAMETER_LIMIT",
    "PARAMETER_TEXT_LIMIT",
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

MAX_DEPTH = 64
"""JSON nested deeper than this (only looked for when Python's parser gives up) is cut out and
the record holding it reported; no catalog format needs more."""
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

_TOO_DEEP = "\x00routescope:nested-too-deeply\x00"
_TOO_DEEP_JSON = json.dumps(_TOO_DEEP)
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


# -- parsing --------------------------------------------------------------------------------
def parse_json(text: str, parse_int: Callable[[str], Any]) -> tuple[Any, bool]:
    """The parsed JSON, and whether any part nested deeper than `MAX_DEPTH` had to be cut out
    (each such part becomes a marker that `too_deep_in` finds). Python's parser is tried
    first; only when it runs out of recursion is the text scanned (once, linearly) for the
    parts to cut, so a single 20,000-deep record does not cost the rest of the file.
    `RecursionError` when even that fails (the deep part never closes)."""
    try:
        return json.loads(text, parse_int=parse_int), False
    except RecursionError:
        pass
    cut = _cut_deep(text)
    if cut is None:
        raise RecursionError("nested too deeply")
    return json.loads(cut, parse_int=parse_int), True


def _cut_deep(text: str) -> str | None:
    """`text` with every array or object that opens at depth `MAX_DEPTH + 1` replaced by the
    marker string; None when there is nothing that closes to cut."""
    pieces: list[str] = []
    depth = 0
    start = -1
    last = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = match.start()
        else:
            if depth == MAX_DEPTH + 1 and start >= 0:
                pieces.append(text[last:start])
                pieces.append(_TOO_DEEP_JSON)
                last = match.end()
                start = -1
            depth -= 1
    if not pieces:
        return None
    pieces.append(text[last:])
    return "".join(pieces)


def too_deep_in(value: Any) -> str | None:
    """Where in `value` a part was cut for nesting too deeply (`.inputSchema.properties…`),
    or None. Bounded by `MAX_DEPTH` levels, since anything deeper was cut."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, steps = stack.pop()
        if item == _TOO_DEEP:
            return where
        children: list[tuple[Any, str]]
        if isinstance(item, dict):
            children = [(v, _key(k)) for k, v in item.items()]
        elif isinstance(item, list):
            children = [(v, f"[{i}]") for i, v in enumerate(item)]
        else:
            continue
        for child, step in reversed(children):
            # The path shows 4 steps at most: enough to say which field of the record.
            path = where + step if steps < 4 else where if where.endswith("…") else where + "…"
            stack.append((child, path, steps + 1))
    return None


def _key(key: Any) -> str:
    text = str(key)
    return (
        f".{text}" if re.fullmatch(r"[A-Za-z_][\w-]{0,40}", text) else f"[{json.dumps(text)[:44]}]"
    )


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


# -- parameters -----------------------------------------------------------------------------
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
                    found[clean] = (clean, value, f"{place}{_key(name)}")
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
