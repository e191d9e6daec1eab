"""Tool catalogs: SKILL.md folders or a JSON list, through one standardisation (seed 004, §3)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .._errors import CatalogError

__all__ = ["Catalog", "CatalogError", "Tool", "load_catalog", "standardise"]


@dataclass(frozen=True, slots=True)
class Tool:
    tool_name: str
    description: str
    routing_keywords: tuple[str, ...]
    intents: tuple[str, ...]
    category: str


@dataclass(slots=True)
class Catalog:
    tools: list[Tool]
    source: str
    problems: list[str] = field(default_factory=list)
    """One line per skill or record that was skipped: file, field and problem."""
    _names: set[str] = field(default_factory=set, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        """A hash of the standardised tools: caches are keyed by it."""
        data = json.dumps([asdict(t) for t in self.tools], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def by_name(self) -> dict[str, Tool]:
        return {tool.tool_name: tool for tool in self.tools}

    def add(self, tool: Tool, where: str) -> None:
        """Add a tool; a second tool of the same name is reported and skipped."""
        if tool.tool_name in self._names:
            self.problems.append(f"{where}: duplicate tool {tool.tool_name}: skipped")
            return
        self._names.add(tool.tool_name)
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


def _tool(
    skill: str,
    command: str,
    description: str,
    keywords: list[str],
    intents: list[str],
    category: str,
) -> Tool:
    command = command.removeprefix(f"{skill}.")  # the indexer strips the prefix, then rebuilds
    return Tool(
        tool_name=f"{skill}.{command}" if skill else command,
        description=description,
        routing_keywords=standardise(keywords),
        intents=standardise(intents),
        category=category.strip() or skill,
    )


def _skill_tools(data: dict[str, Any], where: str) -> list[Tool]:
    """A skill's commands as tools. A command's keywords and intents come first, then the
    skill's (dedupe keeps the first); its category, when given, replaces the skill's."""
    skill = _text(data.get("name"), f"{where}: name", required=True)
    skill_description = _text(data.get("description"), f"{where}: description", required=False)
    keywords = _string_list(data.get("routing_keywords"), f"{where}: routing_keywords")
    intents = _string_list(data.get("intents"), f"{where}: intents")
    category = _text(data.get("category"), f"{where}: category", required=False) or skill
    commands = data.get("commands")
    if not isinstance(commands, list) or not commands:
        raise ValueError(f"{where}: commands: must be a non-empty list")
    tools = []
    for index, command in enumerate(commands):
        place = f"{where}: commands[{index}]"
        if not isinstance(command, dict):
            raise ValueError(f"{place}: must be a mapping")
        tools.append(
            _tool(
                skill,
                _text(command.get("name"), f"{place}.name", required=True),
                _text(command.get("description"), f"{place}.description", required=False)
                or skill_description,
                _string_list(command.get("routing_keywords"), f"{place}.routing_keywords")
                + keywords,
                _string_list(command.get("intents"), f"{place}.intents") + intents,
                _text(command.get("category"), f"{place}.category", required=False) or category,
            )
        )
    return tools


def _front_matter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
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
    if not isinstance(data, dict):
        raise ValueError(f"{path}: front matter must be a mapping")
    return data


def _from_folder(folder: Path) -> Catalog:
    catalog = Catalog(tools=[], source=str(folder))
    for path in sorted(folder.rglob("SKILL.md")):
        try:
            tools = _skill_tools(_front_matter(path), str(path))
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            catalog.problems.append(str(exc))
            continue
        for tool in tools:
            catalog.add(tool, str(path))
    return catalog


def _from_json(path: Path) -> Catalog:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read catalog: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CatalogError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(records, list):
        raise CatalogError(f"{path}: a JSON catalog is a list of tool records")
    catalog = Catalog(tools=[], source=str(path))
    for index, record in enumerate(records):
        where = f"{path}: [{index}]"
        try:
            if not isinstance(record, dict):
                raise ValueError(f"{where}: must be an object")
            name = _text(record.get("tool_name"), f"{where}.tool_name", required=True)
            skill, _, command = name.rpartition(".")
            tool = _tool(
                skill,
                command,
                _text(record.get("description"), f"{where}.description", required=False),
                _string_list(record.get("routing_keywords"), f"{where}.routing_keywords"),
                _string_list(record.get("intents"), f"{where}.intents"),
                _text(record.get("category"), f"{where}.category", required=False)
                or skill
                or command,
            )
        except ValueError as exc:
            catalog.problems.append(str(exc))
            continue
        catalog.add(tool, where)
    return catalog


def load_catalog(path: str | Path) -> Catalog:
    """Load a folder of SKILL.md files or a JSON list; a bad skill is reported, not fatal."""
    path = Path(path)
    if path.is_dir():
        catalog = _from_folder(path)
    elif path.is_file():
        catalog = _from_json(path)
    else:
        raise CatalogError(f"{path}: no such catalog folder or JSON file")
    if not catalog.tools:
        detail = f" ({catalog.problems[0]})" if catalog.problems else ""
        raise CatalogError(f"{path}: no tools could be loaded{detail}")
    return catalog
