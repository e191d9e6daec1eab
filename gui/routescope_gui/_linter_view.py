"""The query linter's view: the class with its arithmetic, the anchors it found, and the
expansion as a word diff. Mirrors `routescope.linter`."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QHBoxLayout, QLabel, QTreeWidget, QVBoxLayout, QWidget

from ._html import muted, word_diff_html
from ._style import css
from ._widgets import Badge, Placeholder, enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.linter import LintResult

__all__ = ["LinterView"]

MAX_ANCHOR_ROWS = 500
"""Anchors listed; a pasted book can have tens of thousands (the rest are counted)."""
_ANCHORS_ARE = (
    "anchors are the rule pack's lexicon of this codebase: file, folder and feature names "
    "(strong) and words that narrow a search (weak), with their aliases in other languages"
)
NO_PROMPT_ANCHORS = (
    f"Type a prompt above: the anchors found in it are listed here ({_ANCHORS_ARE})."
)
NO_ANCHORS = f"No anchor in this prompt: {_ANCHORS_ARE}. A query without one is vague."


class LinterView(QWidget):
    """Renders one `LintResult`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = Badge()
        self.arithmetic = QLabel("")
        self.arithmetic.setObjectName("reason")
        self.arithmetic.setWordWrap(True)
        self.expansion = QLabel("")
        self.expansion.setWordWrap(True)
        self.anchors = QTreeWidget()
        self.anchors.setHeaderLabels(["Anchor", "Kind", "In the query", "Span", "Via alias"])
        self.anchors.setRootIsDecorated(False)
        self.anchors.setAlternatingRowColors(True)
        self.anchors.setUniformRowHeights(True)
        enable_copy(self.anchors)
        self.placeholder = Placeholder(self.anchors, NO_PROMPT_ANCHORS)
        top = QHBoxLayout()
        top.addWidget(self.badge)
        top.addWidget(self.arithmetic, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.expansion)
        layout.addWidget(self.anchors, 1)

    def show_result(self, lint: LintResult | None) -> None:
        self.placeholder.set_text(NO_PROMPT_ANCHORS if lint is None else NO_ANCHORS)
        if lint is None:
            self.badge.show_tone("", "—")
            self.arithmetic.setText("")
            self.expansion.setText("")
            ensure_children(self.anchors, 0)
            return
        c = lint.classification
        self.badge.show_tone(lint.query_class, lint.query_class.upper())
        doc_intent = f" · doc intent: {', '.join(lint.doc_intent)}" if lint.doc_intent else ""
        self.arithmetic.setText(
            f"<b>why:</b> {html.escape(c.rule)}<br>"
            + muted(
                f"tokens {c.tokens} · strong {c.strong} · weak {c.weak} · "
                f"total anchors {c.total_anchors}{doc_intent}"
            )
        )
        self.expansion.setText(self._expansion(lint))
        listed = lint.evidence[:MAX_ANCHOR_ROWS]
        # The evidence list is capped per kind; the counts are of the whole query.
        more = max(sum(lint.evidence_counts.values()), len(lint.evidence)) - len(listed)
        rows = ensure_children(self.anchors, len(listed) + bool(more))
        if more:
            fill_row(rows[-1], [f"… and {more:,} more", "", "", "", ""])
        for row, match in zip(rows, listed, strict=False):
            fill_row(
                row,
                [
                    match.anchor,
                    match.kind,
                    match.text,
                    f"@{match.start}–{match.end}",
                    match.alias or "",
                ],
            )

    @staticmethod
    def _expansion(lint: LintResult) -> str:
        if lint.changed:
            reasons = ", ".join(lint.changes["reasons"])
            diff = word_diff_html(" ".join(lint.query.split()), lint.expanded_query)
            return (
                f"<b>expanded:</b> {diff}"
                f" <span style='color:{css('warn_ink')}'>({html.escape(reasons)})</span>"
            )
        if lint.query_class != "vague":
            return muted("not expanded (only vague queries are)")
        return muted("vague, but no expansion rule applies")
