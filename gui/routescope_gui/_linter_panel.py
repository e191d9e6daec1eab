"""The Linter tab: the class with its arithmetic, the anchors, and the expansion as a diff."""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from routescope import Inspection

from ._panels import word_diff_html
from ._style import CLASS_COLOURS

__all__ = ["LinterPanel"]


class LinterPanel(QWidget):
    """Renders `Inspection.lint`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = QLabel("—")
        self.badge.setObjectName("strategyBadge")
        self.arithmetic = QLabel("")
        self.arithmetic.setObjectName("reason")
        self.arithmetic.setWordWrap(True)
        self.expansion = QLabel("")
        self.expansion.setWordWrap(True)
        self.anchors = QTreeWidget()
        self.anchors.setHeaderLabels(["Anchor", "Kind", "In the query", "Span", "Via alias"])
        self.anchors.setRootIsDecorated(False)
        self.anchors.setAlternatingRowColors(True)
        top = QHBoxLayout()
        top.addWidget(self.badge)
        top.addWidget(self.arithmetic, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.expansion)
        layout.addWidget(self.anchors, 1)

    def show_result(self, result: Inspection | None) -> None:
        self.anchors.clear()
        if result is None:
            self.badge.setText("—")
            self.badge.setStyleSheet("background: #90a4ae;")
            self.arithmetic.setText("")
            self.expansion.setText("")
            return
        lint = result.lint
        c = lint.classification
        self.badge.setText(lint.query_class.upper())
        self.badge.setStyleSheet(f"background: {CLASS_COLOURS[lint.query_class]};")
        self.arithmetic.setText(
            f"<b>why:</b> {html.escape(c.rule)}<br><span style='color:#607d8b'>tokens {c.tokens} · "
            f"strong {c.strong} · weak {c.weak} · total anchors {c.total_anchors}"
            + (f" · doc intent: {', '.join(lint.doc_intent)}" if lint.doc_intent else "")
            + "</span>"
        )
        if lint.changed:
            reasons = ", ".join(lint.changes["reasons"])
            diff = word_diff_html(" ".join(lint.query.split()), lint.expanded_query)
            self.expansion.setText(
                f"<b>expanded:</b> {diff}"
                f" <span style='color:#8d6e00'>({html.escape(reasons)})</span>"
            )
        else:
            self.expansion.setText(
                "<span style='color:#607d8b'>not expanded (only vague queries are)</span>"
                if lint.query_class != "vague"
                else "<span style='color:#607d8b'>vague, but no expansion rule applies</span>"
            )
        for match in lint.evidence:
            QTreeWidgetItem(
                self.anchors,
                [
                    match.anchor,
                    match.kind,
                    match.text,
                    f"@{match.start}–{match.end}",
                    match.alias or "",
                ],
            )
