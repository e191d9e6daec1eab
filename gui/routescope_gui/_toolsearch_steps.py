"""The per-step results of a request that needs several tools ("find the config file, then
email it to Bob"): each step the core split off, the words that split it, its best tools,
whether any fits and where its best tool stands in the ranking (the core keeps a fitting
step's best tool in it). Mirrors `ToolSearchResult.steps`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from ._style import colour
from ._toolsearch_rows import share_delegate, show_score
from ._widgets import enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.toolsearch import Step, StepResult

__all__ = ["SHOWN_PER_STEP", "StepsTree", "split_evidence"]

SHOWN_PER_STEP = 3
"""The best tools shown under each step: the tree is a summary beside the full ranking."""
_FIRST_WIDTH = 280
"""The step's column, narrowed to the tree's width when it sits beside the ranking (each step
and its best tools in sight, elided; the other columns after it)."""
_COLUMNS = ("Step · best tools", "Split", "Score", "Fits")
_TIPS = (
    "each step of the request, searched alone; under it, its best tools",
    "the words that ended the step before it, and where they are in the request",
    "final score (bar: what each signal adds, scaled to the best score of any step)",
    "whether a tool fits the step (its best score against the fit threshold), and where its "
    "best tool stands in the ranking: a fitting step's best tool is kept in the first k",
)


def split_evidence(step: Step) -> str:
    """'split at “then” @21–25', or "start" for the first step."""
    if step.split_at is None:
        return "start"
    start, end = step.split_at
    return f"split at “{step.split_by.strip()}” @{start}–{end}"


class StepsTree(QTreeWidget):
    """One top-level row per step, its best tools as children (hidden when there are none)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(list(_COLUMNS))
        header = self.headerItem()
        for column, tip in enumerate(_TIPS):
            header.setToolTip(column, tip)
        self.setItemDelegateForColumn(2, share_delegate(self))
        self.setUniformRowHeights(True)
        for column, width in enumerate((_FIRST_WIDTH, 170, 160)):
            self.setColumnWidth(column, width)
        enable_copy(self)
        self.setVisible(False)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.setColumnWidth(0, max(120, min(_FIRST_WIDTH, self.viewport().width())))

    def wanted_height(self) -> int:
        """The height that shows every row without scrolling."""
        rows = self.topLevelItemCount() + sum(
            item.childCount()
            for n in range(self.topLevelItemCount())
            if (item := self.topLevelItem(n)) is not None
        )
        row = self.sizeHintForRow(0) if rows else 0
        return rows * max(row, self.fontMetrics().height()) + self.header().height() + 6

    def show_steps(
        self, steps: Sequence[StepResult], threshold: float, fusion: str, merge: str = ""
    ) -> None:
        """The steps, their best tools, and (the first column's header tip) how the ranking
        merged them (`ToolSearchResult.merge`)."""
        self.setVisible(bool(steps))
        tip = _TIPS[0] + (f"\nmerged into the ranking: {merge}" if merge else "")
        self.headerItem().setToolTip(0, tip)
        best = max((s.results[0].score for s in steps if s.results), default=1.0)
        rows = ensure_children(self, len(steps))
        for number, (row, step) in enumerate(zip(rows, steps, strict=True), start=1):
            _show_step(row, number, step)
            hits = step.results[:SHOWN_PER_STEP]
            for child, hit in zip(ensure_children(row, len(hits)), hits, strict=True):
                below = threshold > 0 and hit.score < threshold
                fill_row(
                    child,
                    [f"{hit.rank}  {hit.tool_name}", "", "", ""],
                    [f"category {hit.category}", "", None, ""],
                )
                show_score(child, 2, hit, best, threshold, fusion)
                child.setText(3, "below threshold" if below else "")
            row.setExpanded(True)


def _show_step(row: QTreeWidgetItem, number: int, result: StepResult) -> None:
    step = result.step
    verdict = "fits" if result.fits else "no tool fits"
    tip = result.fit_reason
    if result.fits and result.in_ranking is not None and result.results:
        verdict += f" · #{result.in_ranking} in the ranking"
        tip += (
            f"\n{result.results[0].tool_name} is #{result.in_ranking} of the ranking: each "
            "fitting step's best tool comes right after the whole request's best (or leads it, "
            "in a request of several needs whose best tool is no step's best)"
        )
    fill_row(
        row,
        [f"{number}. {step.text}", split_evidence(step), "", verdict],
        [f"“{step.text}” @{step.start}–{step.end}", None, "", tip],
    )
    row.setData(3, Qt.ItemDataRole.ForegroundRole, colour("good" if result.fits else "warn_ink"))
