"""What the fusions read of one engine (`Context`: the catalog, its keyword index, the canonical
values and the words each tool's rerank fields hold) and of one query's vector side
(`Similarities`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ._catalog import Tool
from ._keyword import KeywordIndex, analyzed_terms, tokens

__all__ = ["MIN_SIBLINGS", "Context", "Similarities", "sibling_key"]


class Similarities(Protocol):
    """A query's cosine to every tool, read by tool position: `similarities[i]` (a float) or
    `similarities[[i, j, …]]` (an array, in that order); `similarities > value` for counting
    a rank. A numpy array is one; so is a lazily rescored index's answer."""

    def __getitem__(self, index: Any, /) -> Any: ...

    def __gt__(self, value: float, /) -> Any: ...


_NONE = np.zeros(0, dtype=np.int64)


@dataclass(slots=True)
class Context:
    """What the fusions read of one engine: the catalog, its keyword index, the canonical
    values and the rerank words of each tool."""

    tools: Sequence[Tool]
    keyword: KeywordIndex
    canonical: Mapping[str, Any]
    rerank_words: list[frozenset[str]] = field(init=False)
    """The rerank fields' words, lower-cased (canonical)."""
    names: list[str] = field(init=False)
    categories: list[str] = field(init=False)
    _stemmed: list[frozenset[str]] | None = field(init=False, default=None)
    _holders: dict[str, np.ndarray] | None = field(init=False, default=None)
    _groups: tuple[np.ndarray, np.ndarray, list[frozenset[str]]] | None = field(
        init=False, default=None
    )

    def __post_init__(self) -> None:
        self.rerank_words = [frozenset(tokens(_rerank_text(tool))) for tool in self.tools]
        self.names = [tool.tool_name for tool in self.tools]
        self.categories = [tool.category for tool in self.tools]

    def stemmed_words(self) -> list[frozenset[str]]:
        """The rerank fields' words as the English analyzer makes them (weighted), per tool:
        made on first need, since only the weighted fusion reads them."""
        if self._stemmed is None:
            self._stemmed = [frozenset(analyzed_terms(_rerank_text(t))) for t in self.tools]
        return self._stemmed

    def holders(self, term: str) -> np.ndarray:
        """The tools (catalog positions, ascending) whose `stemmed_words` hold `term`: one
        lookup per query word, where reading each candidate's words one by one costs a cache
        miss or more per candidate (made once)."""
        if self._holders is None:
            found: dict[str, list[int]] = {}
            for index, words in enumerate(self.stemmed_words()):
                for word in words:
                    found.setdefault(word, []).append(index)
            self._holders = {w: np.asarray(t, dtype=np.int64) for w, t in found.items()}
        return self._holders.get(term, _NONE)

    def sibling_groups(self) -> tuple[np.ndarray, np.ndarray, list[frozenset[str]]]:
        """Each tool's group of siblings (its server: `git` of `git.log`), as an index into the
        sizes (-1: no group of `MIN_SIBLINGS` or more), each group's size, and the words of
        each group's name (analyzed: a server's own name is no word its tools share, it is what
        tells them from other servers' tools). Made on first need."""
        if self._groups is None:
            keys = [sibling_key(name) for name in self.names]
            counts: dict[str, int] = {}
            for key in keys:
                if key is not None:
                    counts[key] = counts.get(key, 0) + 1
            kept = sorted(k for k, n in counts.items() if n >= MIN_SIBLINGS)
            position = {key: i for i, key in enumerate(kept)}
            ids = np.asarray(
                [position.get(key, -1) if key is not None else -1 for key in keys], dtype=np.int64
            )
            sizes = np.asarray([counts[key] for key in kept], dtype=np.int64)
            names = [frozenset(analyzed_terms(key)) for key in kept]
            self._groups = (ids, sizes, names)
        return self._groups


MIN_SIBLINGS = 3
"""A server shared by fewer tools makes no group of siblings."""


def sibling_key(name: str) -> str | None:
    """The server a tool shares with its siblings: the part of its name before the last dot
    (`github.list_commits` → `github`); None without one. A name's first word (`git_log`,
    `getWeather`) makes no group: measured on the tune parts, grouping by it cost Seal-Tools and
    BFCL (their names start with the action: `get…`, `calculate_…`)."""
    return name.rsplit(".", 1)[0].lower() if "." in name else None


def _rerank_text(tool: Tool) -> str:
    """The rerank fields of a tool as one text: routing keywords, intents, description,
    category."""
    return " ".join([*tool.routing_keywords, *tool.intents, tool.description, tool.category])
