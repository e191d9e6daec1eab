"""The Suggestions list, docked beside the rule pack editor: the pack edits the current judged
set's errors suggest, best first — what each does, its gain on the set (Δ macro-F1 + Δ strategy
accuracy + Δ place accuracy + Δ entity F1; on the held-out part too when the set has one), the
prompts it fixes and breaks (expand a row to read them), the guard cases it would break — and
an Apply button that makes the edit in the editor's text (the editor's count then says which
regression cases it changes, as for any edit).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._html import counted
from ._style import colour
from ._widgets import Placeholder, bounded_tip, enable_copy

if TYPE_CHECKING:
    from routescope.judge import Effect, LabelledCase, Suggestion

__all__ = ["COLUMNS", "NO_SUGGESTIONS", "Proposed", "SuggestionsDock", "SuggestionsView"]

COLUMNS = ("Edit", "Gain", "Held-out", "Fixes", "Breaks", "")
"""The list's columns (Held-out is shown for a set that has a held-out part)."""
NO_SUGGESTIONS = (
    "Judge some prompts first (the live view's Context tree, or Judgments ▸ Import…): the pack "
    "edits their errors suggest appear here, each with its measured gain."
)
_PROMPT_CHARS = 160


class Proposed(Protocol):
    """What the list shows (the suggestions model's `Suggested`)."""

    @property
    def set_name(self) -> str: ...
    @property
    def pack(self) -> str: ...
    @property
    def suggestions(self) -> Sequence[Suggestion]: ...
    @property
    def cases(self) -> Mapping[str, LabelledCase]: ...
    @property
    def held_out(self) -> bool: ...
    @property
    def seconds(self) -> float: ...


def _gain(effect: Effect | None) -> str:
    return "—" if effect is None else f"{effect.gain:+.3f}"


def _gain_tip(effect: Effect | None, where: str) -> str:
    if effect is None:
        return f"no {where} part to measure on"
    return (
        f"on the {where} part: Δ macro-F1 {effect.macro_f1:+.4f} · Δ strategy accuracy "
        f"{effect.strategy:+.4f} · Δ place accuracy {effect.place:+.4f} · Δ entity F1 "
        f"{effect.entity_f1:+.4f}"
    )


class SuggestionsView(QWidget):
    """The suggested edits.

    Attributes:
        result: what is shown (None: nothing); title, status: the heading; tree: one row per
        suggestion, its fixed and broken prompts under it; buttons: each row's Apply.

    Signals:
        apply_requested: emitted with the `PackEdit` to make in the editor's text.
        refresh_requested: Refresh.
    """

    apply_requested = Signal(object)
    refresh_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Proposed | None = None
        self.buttons: list[QPushButton] = []
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.status.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("suggest again now")
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setUniformRowHeights(False)
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        enable_copy(self.tree)
        self.placeholder = Placeholder(self.tree, NO_SUGGESTIONS)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)

    def show_suggesting(self, set_name: str, prompts: int) -> None:
        self.status.setText(
            f"suggesting from «{set_name}» ({counted(prompts, 'prompt')}): each "
            "candidate edit re-routes the set…"
        )

    def show_error(self, message: str) -> None:
        self.status.setText(f"cannot suggest: {message}")

    def show_applied(self, text: str) -> None:
        self.status.setText(text)

    def show_result(self, result: Proposed | None) -> None:
        self.result = result
        self.tree.clear()
        self.buttons = []
        if result is None:
            self.title.setText("")
            self.status.setText("")
            return
        count = len(result.suggestions)
        self.title.setText(
            f"<b>{count}</b> edit{'s' * (count != 1)} of the pack <b>{html.escape(result.pack)}"
            f"</b> from «{html.escape(result.set_name)}» ({len(result.cases)} prompts)"
        )
        held = (
            "gains: on the tuning part / on the held-out part"
            if result.held_out
            else "gains measured on the set itself (it has no held-out part)"
        )
        self.status.setText(
            f"{held}; guarded by the built-in strategy suite · made in {result.seconds:.1f} s"
        )
        self.placeholder.set_text(
            NO_SUGGESTIONS if not result.cases else "No edit of the pack improves this set."
        )
        self.tree.setColumnHidden(2, not result.held_out)
        for suggestion in result.suggestions:
            self._add(suggestion, result)

    def _add(self, suggestion: Suggestion, result: Proposed) -> None:
        tune, held = suggestion.tune, suggestion.heldout
        edit = suggestion.edit
        row = QTreeWidgetItem(
            [
                edit.describe(),
                _gain(tune),
                _gain(held),
                str(len(tune.fixed)),
                str(len(tune.broken)),
                "",
            ]
        )
        row.setToolTip(0, self._verdict(suggestion))
        row.setToolTip(1, _gain_tip(tune, "tuning" if result.held_out else "whole"))
        row.setToolTip(2, _gain_tip(held, "held-out"))
        for column in (1, 2, 3, 4):
            row.setTextAlignment(
                column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            )
        if not suggestion.holds:
            row.setText(0, f"✗ {edit.describe()}")
            row.setForeground(0, QBrush(colour("warn_ink")))
        if tune.broken:
            row.setForeground(4, QBrush(colour("bad")))
        self.tree.addTopLevelItem(row)
        self._children(row, "fixes", tune.fixed, result, "good")
        self._children(row, "breaks", tune.broken, result, "bad")
        if suggestion.guards_broken:
            guard = QTreeWidgetItem(
                [f"breaks guard cases: {', '.join(suggestion.guards_broken)}", "", "", "", "", ""]
            )
            guard.setForeground(0, QBrush(colour("bad")))
            row.addChild(guard)
        button = QPushButton("Apply")
        button.setToolTip(
            "make this edit in the rule pack editor's text (undo there with Ctrl+Z)"
            + ("" if suggestion.holds else f"\n{self._verdict(suggestion)}")
        )
        button.clicked.connect(lambda _checked=False, edit=edit: self.apply_requested.emit(edit))
        self.tree.setItemWidget(row, len(COLUMNS) - 1, button)
        self.buttons.append(button)

    @staticmethod
    def _verdict(suggestion: Suggestion) -> str:
        if suggestion.guards_broken:
            return f"breaks {len(suggestion.guards_broken)} case(s) of the built-in strategy suite"
        if suggestion.heldout is not None and suggestion.heldout.gain <= 0:
            return "its gain does not hold on the held-out part: an overfit"
        return "holds: no guard case breaks" + (
            "" if suggestion.heldout is None else ", and it gains on the held-out part"
        )

    @staticmethod
    def _children(
        row: QTreeWidgetItem,
        what: str,
        ids: Sequence[str],
        result: Proposed,
        role: str,
    ) -> None:
        if not ids:
            return
        group = QTreeWidgetItem([f"{what} {counted(len(ids), 'prompt')}"])
        group.setForeground(0, QBrush(colour(role)))
        row.addChild(group)
        for case_id in ids:
            case = result.cases.get(case_id)
            prompt = " ".join(case.prompt.split()) if case is not None else case_id
            shown = prompt if len(prompt) <= _PROMPT_CHARS else prompt[: _PROMPT_CHARS - 1] + "…"
            child = QTreeWidgetItem([shown])
            child.setToolTip(0, bounded_tip(f"{case_id}\n{prompt[:2000]}"))
            group.addChild(child)

    def suggestion_rows(self) -> list[QTreeWidgetItem]:
        return [
            item
            for index in range(self.tree.topLevelItemCount())
            if (item := self.tree.topLevelItem(index)) is not None
        ]


class SuggestionsDock(QDockWidget):
    """The suggestions docked under the panels, beside the rule pack editor (it can be
    floated or moved).

    Attributes:
        view: the list.
    """

    def __init__(self, view: SuggestionsView, parent: QWidget | None = None) -> None:
        super().__init__("Suggestions", parent)
        self.setObjectName("suggestions")
        self.view = view
        self.setWidget(view)
        self.setAllowedAreas(
            Qt.DockWidgetArea.RightDockWidgetArea
            | Qt.DockWidgetArea.LeftDockWidgetArea
            | Qt.DockWidgetArea.BottomDockWidgetArea
        )
