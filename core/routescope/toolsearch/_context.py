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

__all__ = ["Context", "Similarities"]


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


def _rerank_text(tool: Tool) -> str:
    """The rerank fields of a tool as one text: routing keywords, intents, description,
    category."""
    return " ".join([*tool.routing_keywords, *tool.intents, tool.description, tool.category])
