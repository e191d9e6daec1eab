"""One interface for the two fusions (`Fuser`): what the keyword side proposes (`Candidates`),
what a fusion is given for one query (`FusionInput`), and what both rank with (the cut at the
k-th hit and its ties, the vector ranks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ._context import Context, Similarities
from ._evidence import KeywordEvidence
from ._keyword import KeywordHit
from ._models import Fusion, SearchSettings, ToolHit

__all__ = ["Candidates", "Fuser", "FusionInput", "limited", "mark_ties", "vector_ranks"]


@dataclass(slots=True)
class Candidates:
    """What the keyword side proposes: its list (the tools Tantivy or the evidence ranks
    highest), and for the weighted fusion the evidence of every tool."""

    hits: list[KeywordHit]
    evidence: KeywordEvidence | None = None


@dataclass(frozen=True, slots=True)
class FusionInput:
    """One query's signals as a fusion is given them: what each side found, the strategy and
    the filter the search chose, and its settings. One value, so that the protocol and both
    fusions name them once."""

    query: str
    keyword: Candidates
    vector_hits: list[tuple[int, float]]
    """(catalog position, cosine) of the vector side's best tools, best first."""
    similarities: Similarities | None
    """Every tool's cosine (None: no vector side)."""
    strategy: str
    category: str | None
    """Only tools of this category are ranked (None: all)."""
    file_discovery: bool
    """The query asks to find files (the file-discovery boost applies)."""
    settings: SearchSettings


class Fuser(Protocol):
    name: Fusion
    analyzed: bool
    """The keyword side reads the English analyzer's terms (stems, identifiers split), not
    Tantivy's default tokenizer: a hit is explained with the same analysis."""
    hybrid_reason: str
    """How the hybrid strategy combines the lists, in the words of a strategy reason."""
    hybrid_finds_names: bool
    """The hybrid search ranks a tool named by a plain word (`search`) high anyway: only an
    identifier-like name (`fs.read`) in a one-step request sends `auto` to keyword only."""
    fused_by: str
    """What the fused rank is ordered by, for a "why not this tool?" reason."""
    multi_need_merge: bool
    """A request of `MULTI_NEED_STEPS` steps or more may lead with a step's best and gives the
    steps' rankings turns (`merge_step_tools`): the scores of a step's search and of the whole
    request's are on one scale. The canonical pipeline keeps the head merge."""

    def keyword(
        self, ctx: Context, query: str, boosts: Mapping[str, float], limit: int
    ) -> Candidates: ...

    def fuse(self, ctx: Context, given: FusionInput) -> tuple[list[ToolHit], list[int]]:
        """The ranked hits (the top `settings.k`, explained) and their catalog positions."""
        ...

    def standing(
        self, ctx: Context, query: str, boosts: Mapping[str, float], tool: int
    ) -> tuple[int | None, float | None]:
        """A tool's rank and score in the fusion's full keyword list (None, None when it
        matches no query word)."""
        ...

    def formula(self, settings: SearchSettings) -> str: ...


def limited(scored: list[tuple[float, str, int]], limit: int) -> int:
    """How many of the sorted candidates to build hits for: `limit`, and any tied with the
    last of them (so that the tie can be reported)."""
    cut = min(limit, len(scored))
    while 0 < cut < len(scored) and scored[cut][0] == scored[cut - 1][0]:
        cut += 1
    return cut


def vector_ranks(
    sims: Similarities | None, indices: list[int], vector_hits: list[tuple[int, float]]
) -> dict[int, int]:
    """Each tool's rank among all cosine similarities (those outside the vector list
    counted one by one)."""
    if sims is None:
        return {}
    ranks = {index: rank for rank, (index, _) in enumerate(vector_hits, start=1)}
    for index in indices:
        if index not in ranks:
            ranks[index] = int(np.count_nonzero(sims > sims[index])) + 1
    return ranks


def mark_ties(hits: list[ToolHit]) -> None:
    by_score: dict[float, list[ToolHit]] = {}
    for hit in hits:
        by_score.setdefault(round(hit.score, 12), []).append(hit)
    for group in by_score.values():
        if len(group) > 1:
            names = [h.tool_name for h in group]
            for hit in group:
                hit.tied_with = [n for n in names if n != hit.tool_name]
