"""The prompts behind the bar or leak check picked in the Batch view: where each came from and
its text (a leak's offending query too), listed under a caption saying what they are; any of
them opens in the live view."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ._style import colour
from ._widgets import HeaderedTableModel, enable_copy

if TYPE_CHECKING:
    from routescope.batch import Bar, LeakCheck, PromptRef

__all__ = ["PICK", "PromptList", "PromptTableModel"]

PICK = "Click a bar or a leak check to list the prompts behind it."


def _where(ref: PromptRef) -> str:
    return f"{Path(ref.source).name}:{ref.line}"


_Index = QModelIndex | QPersistentModelIndex
_BAR_HEADERS = ("Where", "Prompt")
_LEAK_HEADERS = ("Where", "Strategy", "Offending", "Query", "Prompt")


@dataclass(frozen=True, slots=True)
class _PromptRow:
    ref: PromptRef
    cells: tuple[str, ...]
    tips: tuple[str, ...]


class PromptTableModel(HeaderedTableModel):
    """The prompts behind the bar or leak check picked: where each came from and its text (a
    leak's offending query too)."""

    HEADERS: tuple[str, ...] = _BAR_HEADERS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[_PromptRow] = []

    def show_bar(self, bar: Bar) -> None:
        self._set(
            _BAR_HEADERS,
            [
                _PromptRow(ref, (_where(ref), _flat(ref.prompt)), (ref.source, ref.prompt))
                for ref in bar.examples
            ],
        )

    def show_leak(self, check: LeakCheck) -> None:
        rows = []
        for finding in check.findings:
            ref = finding.ref
            offending = finding.query[finding.start : finding.end]
            rows.append(
                _PromptRow(
                    ref,
                    (_where(ref), finding.strategy, offending, finding.query, _flat(ref.prompt)),
                    (ref.source, finding.detail, offending, finding.query, ref.prompt),
                )
            )
        self._set(_LEAK_HEADERS, rows)

    def clear(self) -> None:
        self._set(_BAR_HEADERS, [])

    def _set(self, headers: tuple[str, ...], rows: list[_PromptRow]) -> None:
        self.beginResetModel()
        self.HEADERS = headers
        self.rows = rows
        self.endResetModel()

    def ref(self, row: int) -> PromptRef | None:
        return self.rows[row].ref if 0 <= row < len(self.rows) else None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.cells[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tips[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and self.HEADERS[index.column()] == "Offending":
            return QBrush(colour("bad"))
        return None


def _flat(text: str) -> str:
    return " ".join(text.split())


class PromptList(QWidget):
    """The prompts picked, under their caption, with a button to open the selected one live.

    Signals:
        open_prompt_requested: emitted with a `PromptRef` to open in the live view.
        judge_requested: emitted with a `PromptRef` to judge (its context menu's Judge…).
    """

    open_prompt_requested = Signal(object)
    judge_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel(PICK)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.prompt_model = PromptTableModel(self)
        self.prompts = self._table()
        self.live_button = QPushButton("Open in live view")
        self.live_button.setToolTip("inspect the selected prompt live, on its batch's date")
        self.live_button.clicked.connect(self._open_selected)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        heading = QHBoxLayout()
        heading.addWidget(self.caption, 1)
        heading.addWidget(self.live_button)
        layout.addLayout(heading)
        layout.addWidget(self.prompts, 1)
        self._enable()

    def _table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.prompt_model)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(24)
        table.horizontalHeader().setStretchLastSection(True)
        enable_copy(table, self._more_entries)
        table.activated.connect(self._open_index)  # a double click, or Enter
        table.selectionModel().selectionChanged.connect(lambda *_args: self._enable())
        return table

    def show_picked(self, caption: str) -> None:
        """Caption the prompts just put in `prompt_model`; the first is selected."""
        self.caption.setText(caption)
        if self.prompt_model.rowCount():
            self.prompts.selectRow(0)
        self._fit_columns()
        self._enable()

    def clear(self) -> None:
        self.prompt_model.clear()
        self.caption.setText(PICK)
        self._enable()

    def _enable(self) -> None:
        self.live_button.setEnabled(self.selected_ref() is not None)

    def _fit_columns(self) -> None:
        """The last column (the prompt) takes the room left; the others fit their text, up to
        a third of the table each."""
        header = self.prompts.horizontalHeader()
        last = self.prompt_model.columnCount() - 1
        for column in range(last + 1):
            mode = (
                QHeaderView.ResizeMode.Stretch
                if column == last
                else QHeaderView.ResizeMode.Interactive
            )
            header.setSectionResizeMode(column, mode)
        self.prompts.resizeColumnsToContents()
        widest = max(120, self.prompts.viewport().width() // 3)
        for column in range(last):
            header.resizeSection(column, min(header.sectionSize(column) + 8, widest))

    def selected_ref(self) -> PromptRef | None:
        index = self.prompts.currentIndex()
        if not index.isValid() or not self.prompts.selectionModel().isRowSelected(index.row()):
            return None
        return self.prompt_model.ref(index.row())

    def _more_entries(self, menu: QMenu, index: QModelIndex) -> None:
        """A row's own entries: open it live, or judge it."""
        ref = self.prompt_model.ref(index.row()) if index.isValid() else None
        if ref is None:
            return
        menu.addSeparator()
        menu.addAction("Open in live view", lambda: self.open_prompt_requested.emit(ref))
        menu.addAction("Judge…", lambda: self.judge_requested.emit(ref))

    def _open_index(self, index: QModelIndex) -> None:
        ref = self.prompt_model.ref(index.row())
        if ref is not None:
            self.open_prompt_requested.emit(ref)

    def _open_selected(self) -> None:
        ref = self.selected_ref()
        if ref is not None:
            self.open_prompt_requested.emit(ref)
