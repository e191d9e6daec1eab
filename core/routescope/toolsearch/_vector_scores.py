"""A query's cosines to every tool, read like an array (`VectorScores`): exact below the int8
scan's threshold; from there int8 estimates, each rescored exactly from the float32 rows when
it is read or could be among the hits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

__all__ = ["VectorScores", "cosine_scores", "top_values"]


def cosine_scores(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with the query, computed row by row in numpy's own loop (no
    BLAS: no thread to wake, and a row's value is the same whichever rows come with it)."""
    products: np.ndarray = np.einsum("ij,j->i", rows, query)
    return products


def top_values(values: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """(index, value) of the `limit` largest values, best first; ties keep catalog order."""
    limit = min(limit, len(values))
    if limit <= 0:
        return []
    top = (
        np.argpartition(-values, limit - 1)[:limit]
        if limit < len(values)
        else np.arange(len(values))
    )
    ordered = sorted(top.tolist(), key=lambda i: (-float(values[i]), i))
    return [(i, float(values[i])) for i in ordered]


class VectorScores:
    """A query's cosine similarity to every tool of an index, read like an array: `scores[i]`
    (a float), `scores[[i, j, …]]` (an array), `scores > value` (an array of booleans),
    `rank(i)`, `np.asarray(scores)` (every cosine, exact); `hits`, the best tools with their
    cosines, best first (ties in catalog order).

    Below `QUANTISED_FROM` tools every value is the exact cosine (one float32 product). From
    there the values start as int8 estimates, each within `bound` of the exact cosine, and the
    search rescores from the float32 rows every tool that could be among `hits`, so `hits` are
    the tools and cosines of an exact search. `scores[i]`, `scores[[…]]` and `rank(i)` are
    always exact: a tool not rescored yet is rescored then, and kept (for `rank(i)`, every tool
    whose estimate is within `bound` of tool i's cosine). `scores > value` compares with the
    values as they stand, estimates included: a rank counted with it (1 + how many are
    greater) is exact among the rescored tools and, beyond them, can be off by the tools whose
    cosine is within about 1e-3 of tool i's (of 2,500 clustered vectors, up to 1 %)."""

    def __init__(
        self,
        values: np.ndarray,
        hits: list[tuple[int, float]],
        *,
        rows: np.ndarray | None = None,
        query: np.ndarray | None = None,
        known: np.ndarray | None = None,
        bound: float = 0.0,
    ) -> None:
        self._values = values
        self.hits = hits
        self.bound = bound
        """How far an estimate can be from the exact cosine (0.0 when all are exact)."""
        self._rows, self._query, self._known = rows, query, known

    @property
    def exact(self) -> bool:
        """True when every value is the exact cosine."""
        return self._known is None

    @property
    def rescored(self) -> int:
        """How many tools have their exact cosine (all of them when `exact`)."""
        known = self._known
        return len(self._values) if known is None else int(np.count_nonzero(known))

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: Sequence[int] | np.ndarray) -> np.ndarray: ...

    @overload
    def __getitem__(self, index: int | np.integer[Any]) -> float: ...

    def __getitem__(
        self, index: Sequence[int] | np.ndarray | int | np.integer[Any]
    ) -> np.ndarray | float:
        if not isinstance(index, int | np.integer):
            return self.exact_at(np.asarray(index, dtype=np.intp))
        known = self._known  # one tool: a fusion reads dozens per search, so no detour
        if known is not None and not known[index]:
            assert self._rows is not None and self._query is not None
            # numpy's loop for one row adds in the order it does for many: the same value
            self._values[index] = np.einsum("j,j->", self._rows[index], self._query)
            known[index] = True
        return float(self._values[index])

    def exact_at(self, indices: np.ndarray) -> np.ndarray:
        """The exact cosines of the tools at `indices` (rescoring those not known yet)."""
        self._rescore(indices)
        picked: np.ndarray = self._values[indices]
        return picked

    def __gt__(self, value: float) -> np.ndarray:
        above: np.ndarray = self._values > value
        return above

    def rank(self, index: int) -> int:
        """1 + how many tools have a higher cosine than tool `index`, exactly: the tools whose
        estimate is within `bound` of its cosine are rescored first (a few near the top of a
        catalog, thousands of 100,000 in its thick)."""
        value = self[index]
        if self._known is not None:
            self._rescore(np.flatnonzero(np.abs(self._values - value) <= self.bound))
        return int(np.count_nonzero(self._values > value)) + 1

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        known = self._known
        if known is not None:
            self._rescore(np.flatnonzero(~known))
            self._known, self.bound = None, 0.0
        return np.array(self._values, dtype=dtype, copy=True)

    def first_exact(self, indices: np.ndarray) -> np.ndarray:
        """The exact cosines of the tools at `indices` (distinct), none of them known yet."""
        assert self._known is not None and self._rows is not None and self._query is not None
        exact = cosine_scores(self._rows[indices], self._query)
        self._values[indices] = exact
        self._known[indices] = True
        return exact

    def _rescore(self, chosen: np.ndarray) -> None:
        """The exact cosine of each tool in `chosen` that has an estimate still."""
        known = self._known
        if known is None or not len(chosen):
            return
        missing = chosen[~known[chosen]]
        if not len(missing):
            return
        assert self._rows is not None and self._query is not None
        self._values[missing] = cosine_scores(self._rows[missing], self._query)
        known[missing] = True
