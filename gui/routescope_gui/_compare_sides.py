"""The compare view's two sides: A, the live prompt, and B — another prompt, or the same prompt
under another rule pack or catalog — each with a caption of how it was inspected, the words
that set a flag that flipped underlined; and the controls (rank tools, run a suite)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._compare_common import A_INK, B_INK
from ._style import BADGE_TEXT, colour, css

if TYPE_CHECKING:
    from routescope.compare import Comparison, Side, TextSpan

__all__ = ["CompareSides"]

_MODES = (
    ("another prompt", "prompt"),
    ("same prompt, another rule pack", "rules"),
    ("same prompt, another catalog", "catalog"),
)
_EDITOR_HEIGHT = 52
"""Side by side, A's and B's prompts show about two lines each (they scroll)."""


def _chip(text: str, role: str) -> QLabel:
    """A side's name on its colour (`role`: the theme's `chip_a`, `chip_b`)."""
    chip = QLabel(text)
    chip.setStyleSheet(
        f"QLabel {{ background: {css(role)}; color: {BADGE_TEXT}; border-radius: 4px;"
        " padding: 1px 7px; font-weight: 700; }"
    )
    return chip


def _side_caption(side: Side) -> str:
    catalog = ""
    if side.catalog:
        sample = Path(side.catalog) == routescope.CatalogRef.sample_path()
        catalog = " · the sample catalog" if sample else f" · catalog {Path(side.catalog).name}"
    tools = "" if side.tools else " · no tool search"
    return f"rules {side.rules}{catalog}{tools}"


class CompareSides(QWidget):
    """A's and B's prompts side by side, B's mode picking what B changes; `controls` (rank
    tools, run a suite) is laid out by the view, in the corner of its pages' tab bar.

    Signals:
        text_a_edited: emitted with A's prompt when it is edited here (it is the live prompt).
        text_b_edited: emitted with B's prompt as it is edited.
        mode_changed: emitted with what B changes ("prompt", "rules" or "catalog").
        rank_tools_changed: emitted when "rank tools" is ticked or unticked.
        rules_b_requested: the analyst asks to choose B's rule pack.
        catalog_b_requested: the analyst asks to choose B's catalog.
        suite_requested: the analyst asks to run a suite under both sides.
    """

    text_a_edited = Signal(str)
    text_b_edited = Signal(str)
    mode_changed = Signal(str)
    rank_tools_changed = Signal(bool)
    rules_b_requested = Signal()
    catalog_b_requested = Signal()
    suite_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._b_names: dict[str, str] = {}
        self._text_a = ""
        self._build_a()
        self._build_b()
        self._build_controls()
        self._lay_out()
        self._mode_picked()

    def _build_a(self) -> None:
        self.a_editor = QPlainTextEdit()
        self.a_editor.setObjectName("prompt")
        self.a_editor.setPlaceholderText("A: the live prompt — type here or in the Live view")
        self.a_editor.setTabChangesFocus(True)
        self.a_editor.textChanged.connect(
            lambda: self.text_a_edited.emit(self.a_editor.toPlainText())
        )
        self.a_caption = QLabel("the live prompt")
        self.a_caption.setObjectName("muted")

    def _build_b(self) -> None:
        self.mode = QComboBox()
        for label, mode in _MODES:
            self.mode.addItem(label, mode)
        self.mode.currentIndexChanged.connect(lambda _index: self._mode_picked())
        self.b_editor = QPlainTextEdit()
        self.b_editor.setObjectName("prompt")
        self.b_editor.setPlaceholderText("B: another prompt, e.g. “OpenClaw news this week”")
        self.b_editor.setTabChangesFocus(True)
        self.b_editor.textChanged.connect(
            lambda: self.text_b_edited.emit(self.b_editor.toPlainText())
        )
        self.b_file = QLabel("")
        self.b_file.setWordWrap(True)
        self.b_choose = QPushButton("Choose…")
        self.b_choose.clicked.connect(self._choose_b)
        file_page = QWidget()
        file_row = QVBoxLayout(file_page)
        file_row.setContentsMargins(0, 0, 0, 0)
        chooser = QHBoxLayout()
        chooser.addWidget(self.b_file, 1)
        chooser.addWidget(self.b_choose)
        file_row.addLayout(chooser)
        same = QLabel("B's prompt is A's: only the rule pack or the catalog differs.")
        same.setObjectName("muted")
        file_row.addWidget(same)
        file_row.addStretch(1)
        self.b_stack = QStackedWidget()
        self.b_stack.addWidget(self.b_editor)
        self.b_stack.addWidget(file_page)
        self.b_caption = QLabel("")
        self.b_caption.setObjectName("muted")
        for caption in (self.a_caption, self.b_caption):  # cut at the edge, never wider
            caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for editor in (self.a_editor, self.b_editor):
            editor.setFixedHeight(_EDITOR_HEIGHT)
        self.b_stack.setFixedHeight(_EDITOR_HEIGHT)

    def _build_controls(self) -> None:
        self.rank_tools = QCheckBox("rank tools")
        self.rank_tools.setToolTip(
            "Rank the request's catalog (the sample when none is open) on both sides"
        )
        self.rank_tools.setChecked(True)
        self.rank_tools.toggled.connect(self.rank_tools_changed)
        self.suite_button = QPushButton("Run a suite under both packs…")
        self.suite_button.clicked.connect(self.suite_requested)
        # The controls sit in the corner of the result pages' tab bar: no row of their own.
        self.controls = QWidget()
        controls = QHBoxLayout(self.controls)
        controls.setContentsMargins(0, 0, 0, 2)
        controls.addWidget(self.rank_tools)
        controls.addWidget(self.suite_button)

    def _lay_out(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(3)
        a_head = QHBoxLayout()
        a_head.addWidget(_chip("A", "chip_a"))
        a_head.addWidget(self.a_caption, 1)
        b_head = QHBoxLayout()
        b_head.addWidget(_chip("B", "chip_b"))
        b_head.addWidget(self.mode)
        b_head.addWidget(self.b_caption, 1)
        grid.addLayout(a_head, 0, 0)
        grid.addLayout(b_head, 0, 1)
        grid.addWidget(self.a_editor, 1, 0)
        grid.addWidget(self.b_stack, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)

    # -- side A and side B -----------------------------------------------------------------
    def show_text_a(self, text: str) -> None:
        """The live prompt changed elsewhere: A follows it (while the view is hidden, once it
        is shown: a keystroke in the live view does not lay this editor out again)."""
        self._text_a = text
        if self.isVisible():
            self.follow_text_a()

    def follow_text_a(self) -> None:
        if self.a_editor.toPlainText() != self._text_a:
            self.a_editor.blockSignals(True)
            self.a_editor.setPlainText(self._text_a)
            self.a_editor.blockSignals(False)

    def set_text_b(self, text: str) -> None:
        """Compare A with another prompt, as if it had been typed as B."""
        self.mode.setCurrentIndex(0)
        self.b_editor.setPlainText(text)

    def show_b_source(self, mode: str, name: str) -> None:
        """B's rule pack or catalog was chosen."""
        self._b_names[mode] = name
        index = self.mode.findData(mode)
        if index != self.mode.currentIndex():
            self.mode.setCurrentIndex(index)
        else:
            self._mode_picked()

    def _mode_picked(self) -> None:
        mode = str(self.mode.currentData())
        self.b_stack.setCurrentIndex(0 if mode == "prompt" else 1)
        what = "rule pack" if mode == "rules" else "catalog"
        name = self._b_names.get(mode)
        self.b_file.setText(f"<b>{what}:</b> {name}" if name else f"<i>no {what} chosen yet</i>")
        self.b_choose.setText(f"Choose {what}…")
        ready = mode != "prompt" and name is not None
        self.suite_button.setEnabled(ready)
        self.suite_button.setText(
            "Run a suite under both catalogs…"
            if mode == "catalog"
            else "Run a suite under both packs…"
        )
        self.suite_button.setToolTip(
            "" if ready else "Choose another rule pack (or catalog) for B first"
        )
        self.rank_tools.setEnabled(mode != "catalog")
        self.mode_changed.emit(mode)

    def _choose_b(self) -> None:
        if self.mode.currentData() == "rules":
            self.rules_b_requested.emit()
        else:
            self.catalog_b_requested.emit()

    def show_comparison(self, comparison: Comparison | None) -> None:
        """Caption each side with how it was inspected; underline the flipped flags' words."""
        if comparison is None:
            for editor in (self.a_editor, self.b_editor):
                editor.setExtraSelections([])
            self.a_caption.setText("the live prompt")
            self.b_caption.setText("")
            return
        a, b = comparison.a, comparison.b
        self.a_caption.setText(f"the live prompt · {_side_caption(a)}")
        self.b_caption.setText(_side_caption(b))
        self.a_caption.setToolTip(self.a_caption.text())
        self.b_caption.setToolTip(self.b_caption.text())
        flags = comparison.flags
        _mark(self.a_editor, a.text, [s for f in flags for s in f.evidence_a], A_INK)
        _mark(self.b_editor, b.text, [s for f in flags for s in f.evidence_b], B_INK)


def _mark(editor: QPlainTextEdit, text: str, spans: Sequence[TextSpan], ink: str) -> None:
    """Underline the words that set a flag that flipped, in the prompt they were found in
    (none while the field shows another text)."""
    selections = []
    if editor.toPlainText() == text:
        for span in spans:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(editor.document())
            cursor.setPosition(_utf16(text, span.start))
            cursor.setPosition(_utf16(text, span.end), QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            fmt = QTextCharFormat()
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(colour(ink))
            fmt.setForeground(colour(ink))
            fmt.setFontWeight(QFont.Weight.DemiBold)
            selection.format = fmt
            selections.append(selection)
    editor.setExtraSelections(selections)


def _utf16(text: str, index: int) -> int:
    """A Python string offset as Qt's position (a character outside the BMP counts two)."""
    return index + sum(1 for char in text[:index] if ord(char) > 0xFFFF)
