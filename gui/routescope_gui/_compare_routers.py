"""The compare view's Routers page: two routers side by side — external routers of the routers
file, or one of them against a built-in decision — on the compared prompts (does each agree?),
and over a suite or labelled set: how often they agree, A's route × B's route as a matrix
whose cells list the prompts behind them, and how often each is right where the set labels
it. Double-click a prompt to open it live. Renders the `RouterCompareModel`'s results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._compare_common import A_INK, B_INK
from ._html import clip
from ._style import colour, css
from ._widgets import enable_copy, fill_row, row_of

if TYPE_CHECKING:
    from routescope.compare import CaseRow, Pick, PromptAgreement, Said, SuiteAgreement

__all__ = ["RoutersPage"]

_HINT = (
    "Pick two routers — the routers of a routers file (File ▸ Open routers file…) or a "
    "built-in decision — to see whether they agree on the prompts above; “Run a set through "
    "both…” runs every case of a suite or labelled set through both and counts."
)
_CASE_COLUMNS = ("Case", "Prompt", "A", "B", "Expected A", "Expected B")


def _said_cell(item: QTreeWidgetItem, column: int, said: Said, expected: str | None) -> None:
    item.setText(column, said.route)
    tip = said.route + (f" — {said.why}" if said.why else "")
    if expected is not None:
        tip += f"\nexpected {expected}"
    item.setToolTip(column, tip)
    ink = "bad" if said.failed else None
    if expected is not None and not said.failed:
        ink = "good" if said.route == expected else "bad"
    item.setData(
        column, Qt.ItemDataRole.ForegroundRole, None if ink is None else QBrush(colour(ink))
    )


class RoutersPage(QWidget):
    """Two routers on the prompts and over a set.

    Attributes:
        suite_result: the set shown (None: none yet); cell: the matrix cell listed (A's route,
            B's route), None: every case that differs.

    Signals:
        picks_changed: emitted with (A's key, B's key) when a router is picked.
        suite_requested: the analyst asks to run a suite or labelled set through both.
        open_case_requested: emitted with a `CaseRow` to open it in the live view.
    """

    picks_changed = Signal(str, str)
    suite_requested = Signal()
    open_case_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suite_result: SuiteAgreement | None = None
        self.cell: tuple[str, str] | None = None
        self._rows: list[CaseRow] = []
        self.pick_a, self.pick_b = QComboBox(), QComboBox()
        for combo in (self.pick_a, self.pick_b):
            combo.setMinimumContentsLength(14)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            combo.currentIndexChanged.connect(lambda _index: self._picked())
        self.suite_button = QPushButton("Run a set through both…")
        self.suite_button.setToolTip(
            "a regression suite (YAML) or a labelled set (JSON lines, CSV)"
        )
        self.suite_button.clicked.connect(self.suite_requested)
        self.prompts = self._prompts_tree()
        self.summary = QLabel(_HINT)
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.matrix = self._matrix_table()
        self.cases = self._cases_tree()
        self.open_button = QPushButton("Open in live view")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self._open_current)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("routersCompare")
        split.addWidget(self.matrix)
        split.addWidget(self.cases)
        split.setSizes([320, 600])
        chip_a, chip_b = QLabel("A"), QLabel("B")
        for chip, ink in ((chip_a, A_INK), (chip_b, B_INK)):
            chip.setStyleSheet(f"QLabel {{ color: {css(ink)}; font-weight: 700; }}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        vs = QLabel("vs")
        vs.setObjectName("muted")
        layout.addWidget(
            row_of(chip_a, self.pick_a, vs, chip_b, self.pick_b, (QLabel(""), 1), self.suite_button)
        )
        layout.addWidget(self.prompts)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addWidget(row_of((QLabel(""), 1), self.open_button))

    def _prompts_tree(self) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setObjectName("routersPrompts")
        tree.setRootIsDecorated(False)
        tree.setHeaderLabels(["Prompt", "A", "B", ""])
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 150), (2, 150), (3, 110)):
            header.resizeSection(column, width)
        rows = 3
        tree.setFixedHeight(tree.fontMetrics().height() * (rows + 1) + 22)
        tree.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        enable_copy(tree)
        return tree

    def _matrix_table(self) -> QTableWidget:
        table = QTableWidget(0, 0)
        table.setObjectName("agreementMatrix")
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.setToolTip("A's route (rows) × B's route (columns): click a cell to list its prompts")
        table.currentCellChanged.connect(lambda row, column, *_: self._cell_picked(row, column))
        return table

    def _cases_tree(self) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setObjectName("agreementCases")
        tree.setRootIsDecorated(False)
        tree.setHeaderLabels(list(_CASE_COLUMNS))
        tree.setAlternatingRowColors(True)
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for column, width in ((0, 70), (2, 90), (3, 90), (4, 96), (5, 96)):
            header.resizeSection(column, width)
        tree.itemDoubleClicked.connect(lambda item, _column: self._open(item))
        tree.currentItemChanged.connect(
            lambda item, _old: self.open_button.setEnabled(item is not None)
        )
        enable_copy(tree)
        return tree

    # -- the routers -------------------------------------------------------------------------
    def show_choices(self, choices: Sequence[Pick], a: Pick, b: Pick) -> None:
        """The routers one can pick, A's and B's picked."""
        for combo, picked in ((self.pick_a, a), (self.pick_b, b)):
            combo.blockSignals(True)
            combo.clear()
            for pick in choices:
                combo.addItem(pick.label, pick.key)
            combo.setCurrentIndex(max(combo.findData(picked.key), 0))
            combo.blockSignals(False)

    def _picked(self) -> None:
        a, b = self.pick_a.currentData(), self.pick_b.currentData()
        if isinstance(a, str) and isinstance(b, str):
            self.picks_changed.emit(a, b)

    def names(self) -> tuple[str, str]:
        return self.pick_a.currentText(), self.pick_b.currentText()

    # -- the prompts -------------------------------------------------------------------------
    def show_prompts(self, found: Sequence[PromptAgreement]) -> None:
        tree = self.prompts
        tree.clear()
        for agreement in found:
            item = QTreeWidgetItem(tree)
            fill_row(item, [f"{agreement.label}: {clip(agreement.text, 200)}"], [agreement.text])
            _said_cell(item, 1, agreement.a, None)
            _said_cell(item, 2, agreement.b, None)
            verdict = "✓ agree" if agreement.agree else "✗ differ"
            item.setText(3, verdict)
            item.setData(
                3,
                Qt.ItemDataRole.ForegroundRole,
                QBrush(colour("good" if agreement.agree else "bad")),
            )
        if not found:
            item = QTreeWidgetItem(tree)
            item.setText(0, "type a prompt (in the Live view, or as A above)")

    def show_prompts_error(self, message: str) -> None:
        self.prompts.clear()
        item = QTreeWidgetItem(self.prompts)
        item.setText(0, f"cannot compare: {message}")
        item.setToolTip(0, message)
        item.setData(0, Qt.ItemDataRole.ForegroundRole, QBrush(colour("bad")))

    # -- a set -------------------------------------------------------------------------------
    def show_running(self, name: str) -> None:
        a, b = self.names()
        self.summary.setText(f"running {name} through {a} and {b}…")
        self.matrix.clear()
        self.matrix.setRowCount(0)
        self.matrix.setColumnCount(0)
        self.cases.clear()
        self.open_button.setEnabled(False)

    def show_suite_error(self, message: str) -> None:
        self.summary.setText(
            f"<span style='color:{css('bad')}'>cannot run the set:</span> {message}"
        )

    def show_suite(self, result: SuiteAgreement) -> None:
        self.suite_result = result
        total = len(result.rows)
        share = f" ({result.agreed / total:.0%})" if total else ""
        lines = [
            f"<b>{Path(result.source).name}</b> · {total} prompts · "
            f"<b>agree on {result.agreed}{share}</b>"
        ]
        rights = []
        for side, pick in (("a", result.a), ("b", result.b)):
            right, labelled = result.right("a" if side == "a" else "b")
            if labelled:
                rights.append(f"{side.upper()} {pick.label} right on {right} of {labelled}")
        errors = result.errors()
        details = rights + ([f"{errors} error(s)"] if errors else [])
        details.append("click a cell to list its prompts; double-click one to open it live")
        lines.append(f"<span style='color:{css('muted')}'>{' · '.join(details)}</span>")
        self.summary.setText("<br>".join(lines))
        self._fill_matrix(result)
        self._list(None)

    def _fill_matrix(self, result: SuiteAgreement) -> None:
        routes_a, routes_b = result.routes()
        table = self.matrix
        table.blockSignals(True)
        table.clear()
        table.setRowCount(len(routes_a))
        table.setColumnCount(len(routes_b))
        table.setVerticalHeaderLabels([f"A: {r}" for r in routes_a])
        table.setHorizontalHeaderLabels([f"B: {r}" for r in routes_b])
        for row, route_a in enumerate(routes_a):
            for column, route_b in enumerate(routes_b):
                count = len(result.cell(route_a, route_b))
                item = QTableWidgetItem(str(count) if count else "")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setData(Qt.ItemDataRole.UserRole, (route_a, route_b))
                item.setToolTip(f"A: {route_a} · B: {route_b} — {count} prompt(s)")
                if count:
                    fill = "hit" if route_a == route_b else "miss"
                    item.setBackground(QBrush(colour(fill)))
                    item.setForeground(QBrush(colour(f"{fill}_text")))
                table.setItem(row, column, item)
        table.blockSignals(False)

    def _cell_picked(self, row: int, column: int) -> None:
        item = self.matrix.item(row, column)
        cell = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self._list((str(cell[0]), str(cell[1])) if cell else None)

    def pick_cell(self, route_a: str, route_b: str) -> None:
        """List the prompts of one cell (as a click on it does)."""
        result = self.suite_result
        if result is None:
            return
        routes_a, routes_b = result.routes()
        if route_a in routes_a and route_b in routes_b:
            self.matrix.setCurrentCell(routes_a.index(route_a), routes_b.index(route_b))

    def _list(self, cell: tuple[str, str] | None) -> None:
        """The prompts behind a cell (None: every prompt on which the routers differ)."""
        result = self.suite_result
        self.cell = cell
        tree = self.cases
        tree.clear()
        if result is None:
            return
        rows = result.cell(*cell) if cell else [row for row in result.rows if not row.agree]
        self._rows = rows
        for row in rows:
            item = QTreeWidgetItem(tree)
            fill_row(item, [row.case_id, clip(row.prompt, 200)], [None, row.prompt])
            _said_cell(item, 2, row.a, row.expected_a)
            _said_cell(item, 3, row.b, row.expected_b)
            item.setText(4, row.expected_a or "")
            item.setText(5, row.expected_b or "")
        if not rows:
            item = QTreeWidgetItem(tree)
            item.setText(1, "they agree on every prompt" if cell is None else "no prompt here")
        self.open_button.setEnabled(False)

    def _open(self, item: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        number = self.cases.indexOfTopLevelItem(item)
        if 0 <= number < len(self._rows):
            self.open_case_requested.emit(self._rows[number])

    def _open_current(self) -> None:
        self._open(self.cases.currentItem())
