"""What a search decides from the prompt before it ranks anything: the strategy `auto` picks
(a prompt that names a tool goes keyword only), the category filter (file discovery), and the
tool names a prompt may use."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from ._catalog import Tool
from ._fuser import Fuser
from ._steps import split_steps

__all__ = ["Strategy", "ToolNames", "auto_strategy", "category_filter", "file_discovery"]

Strategy = Literal["exact", "semantic", "hybrid"]

_FILE_DISCOVERY = re.compile(
    r"\b(?:find|locate|list|search for|look for|where is|where are|which)\b[^.?!]{0,40}\b"
    r"(?:file|files|folder|folders|directory|directories|path|paths)\b"
    r"|\b(?:file|files)\s+(?:named|called|matching)\b",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(r"[._\-\d]|[a-z][A-Z]")
"""A tool name no sentence uses as a plain word (`get_weather`, `fs.read`, `getWeather`):
under weighted fusion only such a name sends `auto` to keyword-only; a name like `search`
or `open` is a common word, and the hybrid search sees the name match anyway."""


class ToolNames:
    """A catalog's tool names, looked up exactly or case-insensitively (the first of a
    case-insensitive clash wins)."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = tools
        self._exact = {tool.tool_name: i for i, tool in enumerate(tools)}
        self._folded: dict[str, int] = {}
        for i, tool in enumerate(tools):
            self._folded.setdefault(tool.tool_name.lower(), i)

    def index_of(self, tool_name: str) -> int | None:
        """The catalog position of a tool, by name (exact, else case-insensitive)."""
        exact = self._exact.get(tool_name)
        return exact if exact is not None else self._folded.get(tool_name.lower())

    def named_in(self, query: str, identifiers_only: bool = False) -> str | None:
        """The first tool the query names (only identifier-like names, if asked)."""
        for word in re.findall(r"[\w.\-]+", query.lower()):
            if word.strip(".") in self._folded:
                name = self._tools[self._folded[word.strip(".")]].tool_name
                if not identifiers_only or _IDENTIFIER.search(name):
                    return name
        return None


def auto_strategy(query: str, names: ToolNames, fuser: Fuser) -> tuple[Strategy, str]:
    """What `auto` means for this query under this fusion, and why."""
    named = names.named_in(query, fuser.hybrid_finds_names)
    if named is None:
        return "hybrid", f"default: {fuser.hybrid_reason}"
    if fuser.hybrid_finds_names and len(steps := split_steps(query)) > 1:
        # the name answers one step; the others need the whole search
        return "hybrid", (
            f"the prompt names the tool {named} but asks for {len(steps)} steps: "
            f"{fuser.hybrid_reason}"
        )
    return "exact", f"the prompt names the tool {named}: keyword only"


def file_discovery(query: str) -> bool:
    """The query asks to find files or folders."""
    return _FILE_DISCOVERY.search(query) is not None


def category_filter(
    query: str, canonical: Mapping[str, Any], categories: Collection[str]
) -> tuple[str | None, str]:
    """The category the query's intent limits the ranking to (None: all), and why."""
    values = canonical["intent"]["category_filter_values"]
    match = _FILE_DISCOVERY.search(query)
    if match and "file_discovery" in values and "file_discovery" in categories:
        return (
            "file_discovery",
            f"file discovery intent: “{match.group()}” @{match.start()}–{match.end()}",
        )
    return None, "no file-discovery intent"
