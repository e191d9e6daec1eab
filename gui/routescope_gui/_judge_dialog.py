"""Judging a prompt of the History or Batch list (its context menu's Judge…): the live view's
judging — the Context tree with its Expected column and the judge bar — for that prompt on its
date, as the pack it names decides it (the judge model decides it off the UI thread). The dialog
stays open beside the list, and the next row's Judge… shows that row's prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ._judge_controls import AskText, ContextJudge, JudgeBar, Judgments
from ._strategy_view import ContextTree

if TYPE_CHECKING:
    from routescope import Inspection, Request

__all__ = ["JudgeDialog"]

_PROMPT_CHARS = 600


class JudgeDialog(QDialog):
    """One prompt judged apart from the live view.

    Attributes:
        request: the prompt's request (None: none yet); tree, bar, judge: its judging parts;
        heading: the prompt, its date and pack; status: what is under way or went wrong.
    """

    def __init__(self, judgments: Judgments, ask: AskText, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Judge a prompt")
        self.setModal(False)
        self.resize(620, 520)
        self.request: Request | None = None
        self.heading = QLabel("")
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tree = ContextTree()
        self.bar = JudgeBar()
        self.judge = ContextJudge(self.tree, self.bar, judgments, ask=ask, parent=self)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

    def judge_request(self, request: Request, where: str) -> None:
        """Show `request`'s prompt to judge (`where` it comes from: "the history", …), while
        it is decided (`show_decision` follows)."""
        self.request = request
        prompt = " ".join(request.text.split())
        if len(prompt) > _PROMPT_CHARS:
            prompt = prompt[: _PROMPT_CHARS - 1] + "…"
        rules = request.rules.load().name
        self.heading.setText(
            f"<b>{_escape(prompt)}</b><br><span>from {_escape(where)} · today "
            f"{request.today.isoformat()} · pack {_escape(rules)}</span>"
        )
        self.heading.setToolTip(request.text[:4000])
        self.status.setText("deciding…")
        self.judge.show_subject(None)
        self.tree.show_result(None)
        self.show()
        self.raise_()

    def show_decision(self, request: Request, inspection: Inspection) -> None:
        """The prompt's decision, to judge (ignored when another prompt is shown now)."""
        if request != self.request:
            return
        self.status.setText(
            "Right-click a row (or press its key) to judge it; the bar sets the strategy and "
            "linter class."
        )
        self.tree.show_result(inspection.context)
        self.judge.show_inspection(request, inspection)
        self.tree.setFocus(Qt.FocusReason.OtherFocusReason)
        flags = self.tree.row("flags")
        first = flags.child(0) if flags is not None else None
        if first is not None:
            self.tree.setCurrentItem(first)

    def show_failure(self, message: str) -> None:
        self.status.setText(message)


def _escape(text: str) -> str:
    import html

    return html.escape(text, quote=False)
