"""Tool catalogs, through one standardisation (seed 004, §3): a folder of SKILL.md files, or a
JSON file in any of the shapes people have (`_formats`: Routescope's list, OpenAI tools or
functions, an MCP `tools/list` result, Anthropic tool definitions). `Catalog.format` says which
was read and `Catalog.format_reason` why.

Every format gives the same `Tool`: name, description, routing keywords, intents, category and
the searchable `parameters` (the tool's parameter schema flattened to `name: description`
entries). Standardisation: text is trimmed; lists are trimmed, emptied entries dropped, deduped;
a description is cut at `DESCRIPTION_LIMIT` characters, parameters at the limits of
`_formats`; the category falls back to the skill (the name's part before its last dot) or the
name.

Catalog files are untrusted input: each is read through `routescope._files` (a regular file, at
most `SKILL_LIMIT` / `JSON_LIMIT` bytes, never a FIFO or a device), and anything wrong with one
skill or record (unreadable, not UTF-8, broken or 20,000-deep YAML or JSON, a 5,000-digit
number, a duplicate name, a parameter schema that is not an object) becomes one line in
`Catalog.problems`, with its position (`tools[3].function.name: …`), while the rest load. Only a
catalog with no usable tool, or a JSON file that cannot be parsed at all, is a `CatalogError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .._errors import CatalogError, one_line
from .._files import MB, read_text
from ._formats import SCHEMA_KEYS, detect, parameter_entries, parse_json, too_deep_in

__all__ = [
    "DESCRIPTION_LIMIT",
    "JSON_LIMIT",
    "SKILL_LIMIT",
    "Catalog",
    "CatalogError",
    "Tool",
    "load_catalog",
    "standardise",
]

SKILL_LIMIT = 1 * MB
"""The largest SKILL.md file read; a larger one is reported as a problem and skipped."""
JSON_LIMIT = 64 * MB
"""The largest JSON catalog read."""
DESCRIPTION_LIMIT = 4_000
"""The most characters of a description kept (the embedding model reads far fewer)."""
NAME_LIMIT = 256
"""The longest tool name the OpenAI, MCP and Anthropic formats may give (their specs: 64–128)."""
SHOWN_PROBLEMS = 12
"""The skipped entries `Catalog.details` lists (a tooltip): the first ones, then a count."""
_MAX_INT_DIGITS = 4_000  # below Python's int-conversion limit (4,300 digits)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Tool:
    tool_name: str
    description: str
    routing_keywords: tuple[str, ...]
    intents: tuple[str, ...]
    category: str
    parameters: tuple[str, ...] = ()
    """The parameter schema as searchable entries, `name: description` (nested ones `a.b`),
    in the schema's order; empty for a tool without parameters."""


_TOOL_FIELDS = tuple(f.name for f in fields(Tool))


@dataclass(slots=True)
class Catalog:
    tools: list[Tool]
    source: str
    problems: list[str] = field(default_factory=list)
    """One line per skill or record that was skipped, or part of one that was not read (a
    parameter schema that is not an object, a description cut): file, position and problem."""
    format: str = ""
    """What was read: "skills", "routescope-json", "openai-tools", "openai-functions", "mcp" or
    "anthropic" (`_formats`); "" for a catalog made in code."""
    format_reason: str = ""
    """Why that format: what told it (one line)."""
    _names: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    """The names added so far, lower-cased, to the name as first spelled."""

    @property
    def fingerprint(self) -> str:
        """A hash of the standardised tools: caches are keyed by it. `parameters` counts only
        when a tool has some, so a catalog without parameters keeps the fingerprint (and the
        cached vectors) it had before the field existed."""
        names = _TOOL_FIELDS  # what `asdict` gives, without its deep copies (same JSON)
        records = [
            {name: getattr(t, name) for name in names if name != "parameters" or t.parameters}
            for t in self.tools
        ]
        data = json.dumps(records, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def by_name(self) -> dict[str, Tool]:
        return {tool.tool_name: tool for tool in self.tools}

    def summary(self) -> str:
        """One status line: how many tools from which file, the format detected and the entries
        skipped ("12 tools from tools.json · mcp format · 2 skipped")."""
        kind = f" · {self.format} format" if self.format else ""
        skipped = f" · {len(self.problems)} skipped" if self.problems else ""
        return f"{len(self.tools)} tools from {Path(self.source).name}{kind}{skipped}"

    def details(self, shown: int = SHOWN_PROBLEMS) -> str:
        """Why the catalog was read as its format, and the first `shown` entries skipped (one
        a line, indented), then how many more."""
        lines = [f"format {self.format}: {self.format_reason}"] if self.format else []
        if self.problems:
            first, more = self.skipped(shown)
            lines.append(f"{len(self.problems)} skipped:")
            lines += [f"  {problem}" for problem in first]
            if more:
                lines.append(f"  … and {more} more")
        return "\n".join(lines)

    def skipped(self, shown: int) -> tuple[list[str], int]:
        """The first `shown` entries skipped, and how many more were (a long list of problems
        is cut where it is shown)."""
        return self.problems[:shown], max(0, len(self.problems) - shown)

    def add(self, tool: Tool, where: str) -> None:
        """Add a tool; a second tool of the same name is reported and skipped. Names are
        compared ignoring case (`Git.Status` and `git.status` are one tool to the search)."""
        first = self._names.get(tool.tool_name.lower())
        if first is not None:
            same = "" if first == tool.tool_name else f" (same name as {first}, ignoring case)"
            self.problems.append(
                one_line(f"{where}: duplicate tool {tool.tool_name}{same}: skipped")
            )
            return
        self._names[tool.tool_name.lower()] = tool.tool_name
        self.tools.append(tool)


def _string_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: must be a list of strings")
    return value


def standardise(values: list[str]) -> tuple[str, ...]:
    """Trim each entry, drop empty ones, dedupe (the first occurrence wins)."""
    return tuple(dict.fromkeys(v.strip() for v in values if v.strip()))


def _text(value: Any, where: str, *, required: bool) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(
            f"{where}: must be a non-empty string" if required else f"{where}: must be a string"
        )
    return value.strip()


def _cut(text: str, where: str, notes: list[str]) -> str:
    """A description of at most `DESCRIPTION_LIMIT` characters; a longer one is cut, and said."""
    if len(text) <= DESCRIPTION_LIMIT:
        return text
    notes.append(f"{where}: {len(text):,} characters, cut to {DESCRIPTION_LIMIT:,}")
    return text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"


def _parameters(
    record: dict[str, Any], keys: tuple[str, ...], where: str, notes: list[str]
) -> tuple[str, ...]:
    """The searchable entries of the first of `keys` the record has (none: no parameters)."""
    for key in keys:
        if key in record and record[key] is not None:
            entries, problems = parameter_entries(record[key], f"{where}.{key}")
            notes.extend(problems)
            return standardise(list(entries))
    return ()


def _tool(
    skill: str,
    command: str,
    description: str,
    keywords: list[str],
    intents: list[str],
    category: str,
    parameters: tuple[str, ...] = (),
) -> Tool:
    command = command.removeprefix(f"{skill}.")  # the indexer strips the prefix, then rebuilds
    return Tool(
        tool_name=f"{skill}.{command}" if skill else command,
        description=description,
        routing_keywords=standardise(keywords),
        intents=standardise(intents),
        category=category.strip() or skill,
        parameters=parameters,
    )


def _skill_tools(data: dict[str, Any], where: str, notes: list[str]) -> list[Tool]:
    """A skill's commands as tools. A command's keywords and intents come first, then the
    skill's (dedupe keeps the first); its category, when given, replaces the skill's. A
    command's `parameters` is a JSON Schema mapping, as in the other formats."""
    skill = _text(data.get("name"), f"{where}: name", required=True)
    skill_description = _text(data.get("description"), f"{where}: description", required=False)
    keywords = _string_list(data.get("routing_keywords"), f"{where}: routing_keywords")
    intents = _string_list(data.get("intents"), f"{where}: intents")
    category = _text(data.get("category"), f"{where}: category", required=False) or skill
    commands = data.get("commands")
    if not isinstance(commands, list) or not commands:
        raise ValueError(f"{where}: commands: must be a non-empty list")
    tools = []
    found: list[str] = []
    for index, command in enumerate(commands):
        place = f"{where}: commands[{index}]"
        if not isinstance(command, dict):
            raise ValueError(f"{place}: must be a mapping")
        description = _text(command.get("description"), f"{place}.description", required=False)
        tools.append(
            _tool(
                skill,
                _text(command.get("name"), f"{place}.name", required=True),
                _cut(description, f"{place}.description", found)
                if description
                else _cut(skill_description, f"{where}: description", found),
                _string_list(command.get("routing_keywords"), f"{place}.routing_keywords")
                + keywords,
                _string_list(command.get("intents"), f"{place}.intents") + intents,
                _text(command.get("category"), f"{place}.category", required=False) or category,
                _parameters(command, SCHEMA_KEYS["routescope-json"], place, found),
            )
        )
    notes.extend(dict.fromkeys(found))  # a skill's long description is said once
    return tools


def _front_matter(path: Path) -> dict[str, Any]:
    text = read_text(path, what="SKILL.md", limit=SKILL_LIMIT, error=CatalogError, streams=False)
    if not text.startswith("---"):
        raise ValueError(f"{path}: no YAML front matter (the file must start with ---)")
    parts = text.split("\n---", 1)
    if len(parts) < 2:
        raise ValueError(f"{path}: front matter is not closed by ---")
    try:
        data = YAML(typ="safe", pure=True).load(parts[0].removeprefix("---"))
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""
        raise ValueError(
            f"{path}{line}: front matter is not valid YAML: {getattr(exc, 'problem', exc)}"
        ) from None
    except RecursionError:
        raise ValueError(f"{path}: front matter is nested too deeply") from None
    except Exception as exc:  # the YAML library meets hostile input: that skill is skipped
        raise ValueError(
            f"{path}: front matter cannot be read: {type(exc).__name__}: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: front matter must be a mapping")
    return data


def _from_folder(folder: Path) -> Catalog:
    catalog = Catalog(
        tools=[],
        source=str(folder),
        format="skills",
        format_reason="a folder: its SKILL.md files",
    )
    try:
        paths = sorted(folder.rglob("SKILL.md"))
    except OSError as exc:
        raise CatalogError(
            one_line(f"{folder}: cannot list the catalog folder: {exc.strerror or exc}")
        ) from None
    for path in paths:
        notes: list[str] = []
        try:
            tools = _skill_tools(_front_matter(path), str(path), notes)
        except (ValueError, CatalogError, RecursionError) as exc:
            message = (
                str(exc) if not isinstance(exc, RecursionError) else f"{path}: nested too deeply"
            )
            catalog.problems.append(one_line(message))
            continue
        catalog.problems.extend(one_line(note) for note in notes)
        for tool in tools:
            catalog.add(tool, str(path))
    return catalog


def _int(text: str) -> int | float:
    """JSON integers; one longer than Python converts becomes infinity (a number, so a record
    that holds it where text belongs is reported like any other wrongly typed record)."""
    return int(text) if len(text) <= _MAX_INT_DIGITS else float("inf")


def _from_json(path: Path) -> Catalog:
    text = read_text(path, what="JSON catalog", limit=JSON_LIMIT, error=CatalogError, streams=False)
    try:
        data, cut = parse_json(text, _int)
    except json.JSONDecodeError as exc:
        raise CatalogError(one_line(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}")) from None
    except RecursionError:
        raise CatalogError(
            one_line(f"{path}: not a usable JSON catalog: nested too deeply")
        ) from None
    except ValueError as exc:
        raise CatalogError(one_line(f"{path}: not valid JSON: {exc}")) from None
    try:
        shape = detect(data)
    except ValueError as exc:
        raise CatalogError(one_line(f"{path}: {exc}")) from None
    catalog = Catalog(
        tools=[],
        source=str(path),
        problems=[one_line(f"{path}: {problem}") for problem in shape.problems],
        format=shape.format,
        format_reason=one_line(shape.reason),
    )
    read = _routescope_record if shape.format == "routescope-json" else _foreign_record
    keys = SCHEMA_KEYS[shape.format]
    for index, record in enumerate(shape.records):
        where = f"{path}: {shape.prefix}[{index}]"
        notes: list[str] = []
        try:
            deep = too_deep_in(record) if cut else None
            if deep is not None:
                raise ValueError(f"{where}{deep}: nested more than 64 levels deep: skipped")
            tool = read(record, where, keys, notes)
        except ValueError as exc:
            catalog.problems.append(one_line(str(exc)))
            continue
        catalog.problems.extend(one_line(note) for note in notes)
        catalog.add(tool, where)
    return catalog


def _routescope_record(record: Any, where: str, keys: tuple[str, ...], notes: list[str]) -> Tool:
    """A record of Routescope's own list: `tool_name` (`skill.command`), `description`,
    `routing_keywords`, `intents`, `category`, and optionally a `parameters` JSON Schema."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: must be an object")
    name = _text(record.get("tool_name"), f"{where}.tool_name", required=True)
    skill, _, command = name.rpartition(".")
    description = _text(record.get("description"), f"{where}.description", required=False)
    return _tool(
        skill,
        command,
        _cut(description, f"{where}.description", notes),
        _string_list(record.get("routing_keywords"), f"{where}.routing_keywords"),
        _string_list(record.get("intents"), f"{where}.intents"),
        _text(record.get("category"), f"{where}.category", required=False) or skill or command,
        _parameters(record, keys, where, notes),
    )


def _foreign_record(record: Any, where: str, keys: tuple[str, ...], notes: list[str]) -> Tool:
    """An OpenAI tool (`{"type": "function", "function": {…}}`) or function object, an MCP tool
    or an Anthropic tool: `name`, `description` (an MCP tool's `title` when it has none) and the
    parameter schema. The category is the name's part before its last dot, or the name (as for
    Routescope's records); these formats have no keywords or intents."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: must be an object")
    if "function" in record:
        kind = record.get("type", "function")
        if kind != "function":
            raise ValueError(f'{where}.type: must be "function", got {_short(kind)}')
        record, where = record["function"], f"{where}.function"
        if not isinstance(record, dict):
            raise ValueError(f"{where}: must be an object")
    name = _text(record.get("name"), f"{where}.name", required=True)
    if _CONTROL.search(name):
        raise ValueError(f"{where}.name: contains control characters: skipped")
    if len(name) > NAME_LIMIT:
        raise ValueError(f"{where}.name: longer than {NAME_LIMIT} characters: skipped")
    description = _text(record.get("description"), f"{where}.description", required=False)
    if not description and isinstance(record.get("title"), str):
        description = _text(record["title"], f"{where}.title", required=False)
    skill, _, command = name.rpartition(".")
    return _tool(
        skill,
        command,
        _cut(description, f"{where}.description", notes),
        [],
        [],
        skill or command,
        _parameters(record, keys, where, notes),
    )


def _short(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, str | int | float | bool | None) else "a value"
    return text if len(text) <= 40 else text[:39] + "…"


def load_catalog(path: str | Path) -> Catalog:
    """Load a folder of SKILL.md files, or a JSON file in any format of `_formats` (told apart
    by its shape); a bad skill or record is reported in `Catalog.problems` with its position,
    not fatal. `CatalogError` (one line) when no tool loads."""
    if isinstance(path, str) and not path.strip():
        raise CatalogError("no catalog path given (an empty path would mean the current folder)")
    if not isinstance(path, str | Path):
        raise CatalogError(f"a catalog path is a str or a Path, not {type(path).__name__}")
    path = Path(path)
    try:
        is_dir = path.is_dir()
        is_file = not is_dir and path.is_file()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte in the path
        raise CatalogError(one_line(f"{path}: cannot read the catalog: {exc}")) from None
    if is_dir:
        catalog = _from_folder(path)
    elif is_file:
        catalog = _from_json(path)
    else:
        raise CatalogError(one_line(f"{path}: no such catalog folder or JSON file"))
    if not catalog.tools:
        detail = f" ({catalog.problems[0]})" if catalog.problems else ""
        raise CatalogError(one_line(f"{path}: no tools could be loaded{detail}"))
    return catalog
