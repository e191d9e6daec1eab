"""Scenario evaluation: hit@1, hit@3 and MRR for keyword-only, vector-only and hybrid."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .._errors import SuiteError, one_line
from ..toolsearch import SearchSettings
from ._suite import Suite

if TYPE_CHECKING:
    from ..toolsearch import ToolSearch

__all__ = ["EvalRow", "evaluate", "expected_families"]

_SIGNALS: dict[str, Literal["exact", "semantic", "hybrid"]] = {
    "keyword": "exact",
    "vector": "semantic",
    "hybrid": "hybrid",
}


@dataclass(slots=True)
class EvalRow:
    mode: str
    cases: int
    hit_at_1: float
    hit_at_3: float
    mrr: float


def expected_families(expect: dict[str, object]) -> tuple[str, ...] | None:
    """The tool families a case expects: the operand of its `{any_startswith: [...]}` check on
    `results[...].tool_name`."""
    for path, value in expect.items():
        if path.startswith("results[") and path.endswith(".tool_name") and isinstance(value, dict):
            prefixes = value.get("any_startswith")
            if prefixes:
                items = prefixes if isinstance(prefixes, list) else [prefixes]
                return tuple(str(prefix) for prefix in items)
    return None


def evaluate(suite: Suite, search: ToolSearch) -> list[EvalRow]:
    """Rank every case three ways; the first hit of an expected family gives its rank. A suite
    where no case names an expected family is a SuiteError (its scores would all be zero)."""
    cases = [(c.prompt, families) for c in suite.cases if (families := expected_families(c.expect))]
    if not cases:
        raise SuiteError(
            one_line(
                f"{suite.path}: no case names an expected tool family (an expectation like "
                "`results[:3].tool_name: {any_startswith: [git.]}`); nothing to evaluate"
            )
        )
    rows = []
    for mode, strategy in _SIGNALS.items():
        if strategy == "semantic" and search.vector is None:
            continue
        ranks = []
        for prompt, families in cases:
            settings = SearchSettings(strategy=strategy, k=50)
            vector = search.embed_query(prompt) if strategy != "exact" else None
            results = search.search(prompt, settings, query_vector=vector).results
            rank = next((h.rank for h in results if h.tool_name.startswith(families)), None)
            ranks.append(rank)
        total = max(len(ranks), 1)
        rows.append(
            EvalRow(
                mode=mode,
                cases=len(ranks),
                hit_at_1=sum(r == 1 for r in ranks) / total,
                hit_at_3=sum(r is not None and r <= 3 for r in ranks) / total,
                mrr=sum(1 / r for r in ranks if r) / total,
            )
        )
    return rows
