"""How routers agree, over a results file of a batch with external routers (`--router`): the
built-in strategy router and each external router decide a route for every prompt; for every
pair of them, a matrix of route × route counts with the first prompts behind every cell.

A router's label for a prompt is its route, `(none)` when it chose none, or `error: <kind>`
when it failed on the prompt (`ExternalDecision.shown_route`). Two routers agree on a prompt
when they give it the same route, or both no route; a failure agrees with nothing. `agreed` is
None for a pair that share no label at all (a support router beside the strategy router: the
matrix shows how their routes line up)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._figures import MatrixCell
from ._results import PromptRef

__all__ = ["BUILTIN", "MAX_ROUTES", "OTHER_ROUTES", "Agreement", "AgreementTally", "can_agree"]

BUILTIN = "strategy (built-in)"
"""The built-in strategy router's name among the routers (a declared name has no space)."""
MAX_ROUTES = 40
"""Distinct labels kept per router, the first seen; later ones are counted as `OTHER_ROUTES`."""
OTHER_ROUTES = "(other routes)"


@dataclass(frozen=True, slots=True)
class Agreement:
    """One pair of routers over the file: `rows` are `a`'s labels and `columns` `b`'s, most
    frequent first; `cells` holds every non-empty cell; `agreed` counts the prompts both gave
    the same route or both no route (None when they share no label)."""

    a: str
    b: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    total: int
    agreed: int | None
    cells: tuple[MatrixCell, ...]

    @property
    def share(self) -> float | None:
        """The share of prompts they agree on."""
        if self.agreed is None or not self.total:
            return None
        return self.agreed / self.total

    def cell(self, row: str, column: str) -> MatrixCell | None:
        return next((c for c in self.cells if c.row == row and c.column == column), None)

    def count(self, row: str, column: str) -> int:
        found = self.cell(row, column)
        return found.count if found else 0

    def matrix(self) -> list[list[int]]:
        return [[self.count(row, column) for column in self.columns] for row in self.rows]


def can_agree(label: str) -> bool:
    """Whether two routers giving this label agree: a route or `(none)`, not a failure nor
    the routes past the cap."""
    return label != OTHER_ROUTES and not label.startswith("error: ")


class AgreementTally:
    """The streaming half: `add` each prompt's labels (router → label, in the routers'
    order), then `result()`. Memory: at most `MAX_ROUTES`² cells a pair, `cap` prompts a cell."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.names: list[str] = []
        self.total = 0
        self._labels: dict[str, dict[str, int]] = {}
        self._cells: dict[tuple[str, str], dict[tuple[str, str], int]] = {}
        self._examples: dict[tuple[str, str], dict[tuple[str, str], list[PromptRef]]] = {}

    def add(self, labels: Mapping[str, str], ref: PromptRef) -> None:
        self.total += 1
        kept: list[tuple[str, str]] = []
        for name, label in labels.items():
            seen = self._labels.get(name)
            if seen is None:
                self.names.append(name)
                seen = self._labels[name] = {}
            if label not in seen and len(seen) >= MAX_ROUTES:
                label = OTHER_ROUTES
            seen[label] = seen.get(label, 0) + 1
            kept.append((name, label))
        for i, (a, row) in enumerate(kept):
            for b, column in kept[i + 1 :]:
                pair, cell = (a, b), (row, column)
                counts = self._cells.setdefault(pair, {})
                counts[cell] = counts.get(cell, 0) + 1
                shown = self._examples.setdefault(pair, {}).setdefault(cell, [])
                if len(shown) < self.cap:
                    shown.append(ref)

    def _order(self, name: str) -> tuple[str, ...]:
        counts = self._labels[name]
        return tuple(sorted(counts, key=lambda label: (-counts[label], label)))

    def result(self) -> tuple[Agreement, ...]:
        pairs = []
        for i, a in enumerate(self.names):
            for b in self.names[i + 1 :]:
                counts = self._cells.get((a, b), {})
                examples = self._examples.get((a, b), {})
                rows, columns = self._order(a), self._order(b)
                shared = {label for label in rows if can_agree(label)} & set(columns)
                agreed = sum(counts.get((label, label), 0) for label in shared)
                cells = tuple(
                    MatrixCell(row, column, counts[(row, column)], tuple(examples[(row, column)]))
                    for row in rows
                    for column in columns
                    if (row, column) in counts
                )
                pairs.append(
                    Agreement(a, b, rows, columns, self.total, agreed if shared else None, cells)
                )
        return tuple(pairs)
