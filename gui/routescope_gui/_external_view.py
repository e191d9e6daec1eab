"""The External panel: the routers of a routers file beside the built-in ones. Each router is
a row, ticked to route the prompt: its route and score, its evidence, its latency and (while
the prompt is judged) the route expected; under it each route's score as a bar with its
evidence, the signals that matched, the tools or flags it chose (`_external_rows`). A router
that failed on the prompt (a timeout, a 5xx, garbage, a rate limit) or cannot start says so on
its row. Under the rows, the selected router's answer as it came (collapsed at first).

It renders what the `RoutersModel` reports; it asks for a file, the routers to tick and a
new try, nothing more."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._external_rows import (
    COLUMNS,
    EXPECTED,
    LATENCY,
    NAME,
    ROUTE,
    WHY,
    fill_asking,
    fill_decision,
    fill_not_chosen,
    fill_problem,
)
from ._menus import ElidedLabel
from ._widgets import BarDelegate, Placeholder, enable_copy, row_of

if TYPE_CHECKING:
    from routescope.external import ExternalDecision, Routers

__all__ = ["ExternalView"]

NO_FILE = (
    "Put your own routers beside the built-in ones: open a routers file (File ▸ Open routers "
    "file…) declaring an HTTP routing service (vLLM Semantic Router, a model router behind an "
    "OpenAI-compatible endpoint), a Python function or a semantic-router file — "
    "examples/routers/routers.toml has one of each (docs/routers.md)."
)
_WIDTHS = {NAME: 120, ROUTE: 156, LATENCY: 68, EXPECTED: 96}
_RAW_LINES = 8
"""The raw answer's height when it is shown, in lines."""


class ExternalView(QWidget):
    """Renders the routers of a file and their decisions about the prompt.

    Attributes:
        tree: a row per router (ticked: it routes the prompt); raw_button, raw_view: the
            selected router's answer as it came; status: the file and how many routers answer.
        decisions: the decision shown for each router, by name.

    Signals:
        open_requested: the analyst asks to open a routers file.
        refresh_requested: the analyst asks every router again.
        chosen_changed: emitted with the names of the routers ticked.
    """

    open_requested = Signal()
    refresh_requested = Signal()
    chosen_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decisions: dict[str, ExternalDecision] = {}
        self._kinds: dict[str, str] = {}
        self._path = ""
        self._filling = False
        self.menu_entries: Callable[[QMenu, QModelIndex], None] = lambda _menu, _index: None
        """Adds a row's own entries to the tree's context menu (the judging's)."""
        self.open_button = QPushButton("Open routers file…")
        self.open_button.setToolTip("a TOML file of [routers.NAME] tables (docs/routers.md)")
        self.open_button.clicked.connect(self.open_requested)
        self.refresh_button = QPushButton("Ask again")
        self.refresh_button.setToolTip("ask every router ticked again (a service back up)")
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.refresh_button.setEnabled(False)
        self.status = ElidedLabel("no routers file", max_width=640)
        self.status.setObjectName("muted")
        self.tree = self._make_tree()
        self.placeholder = Placeholder(self.tree, NO_FILE)
        self.raw_button = QToolButton()
        self.raw_button.setCheckable(True)
        self.raw_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.raw_button.setArrowType(Qt.ArrowType.RightArrow)
        self.raw_button.setText("Raw answer")
        self.raw_button.setToolTip("the selected router's answer as it came (secrets masked)")
        self.raw_button.toggled.connect(self._toggle_raw)
        self.raw_view = QPlainTextEdit(readOnly=True)
        self.raw_view.setObjectName("json")
        self.raw_view.setVisible(False)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("external")
        self.split.addWidget(self.tree)
        self.split.addWidget(self.raw_view)
        self.split.setCollapsible(0, False)
        layout = QVBoxLayout(self)
        top = row_of((self.status, 1), self.raw_button, self.refresh_button, self.open_button)
        layout.addWidget(top)
        layout.addWidget(self.split, 1)

    def _make_tree(self) -> QTreeWidget:
        tree = QTreeWidget()
        tree.setObjectName("externalTree")
        tree.setHeaderLabels(list(COLUMNS))
        tree.setAlternatingRowColors(True)
        tree.setUniformRowHeights(True)
        tree.setItemDelegateForColumn(ROUTE, BarDelegate(tree, sample="0.000 "))
        header = tree.header()
        header.setStretchLastSection(False)
        for column, width in _WIDTHS.items():
            header.resizeSection(column, width)
        header.setSectionResizeMode(WHY, QHeaderView.ResizeMode.Stretch)
        tree.headerItem().setToolTip(
            ROUTE, "the route chosen and its score; under it, each route's score as a bar"
        )
        tree.headerItem().setToolTip(LATENCY, "how long each router took (the whole call)")
        tree.setColumnHidden(EXPECTED, True)
        tree.itemChanged.connect(self._item_changed)
        tree.currentItemChanged.connect(lambda *_items: self._show_raw())
        enable_copy(tree, lambda menu, index: self.menu_entries(menu, index))
        return tree

    # -- the file and the routers ------------------------------------------------------------
    def show_routers(self, declared: Routers) -> None:
        """A routers file was opened: a row a router, unticked until `show_chosen`."""
        self.decisions.clear()
        self._kinds = {name: declared.specs[name].kind for name in declared.names}
        self._path = str(declared.path)
        self._filling = True
        self.tree.clear()
        for name, kind in self._kinds.items():
            item = QTreeWidgetItem(self.tree)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(NAME, Qt.CheckState.Unchecked)
            fill_not_chosen(item, name, kind)
        self._filling = False
        self.status.setText(f"{declared.path.name}: {len(self._kinds)} router(s)")
        self.status.setToolTip(str(declared.path))
        self.refresh_button.setEnabled(True)
        first = self.tree.topLevelItem(0)
        if first is not None:
            self.tree.setCurrentItem(first)

    def show_open_error(self, message: str) -> None:
        """A routers file could not be read: why (the routers shown before stay)."""
        self.status.setText(f"cannot open the routers file: {message}")
        self.status.setToolTip(message)

    def show_chosen(self, names: Sequence[str]) -> None:
        """Tick the routers that route the prompt (the others say they are not asked)."""
        self._filling = True
        for name, item in self._items():
            chosen = name in names
            state = Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked
            if item.checkState(NAME) != state:
                item.setCheckState(NAME, state)
            if not chosen:
                self.decisions.pop(name, None)
                fill_not_chosen(item, name, self._kinds[name])
            elif item.text(ROUTE) == "—":
                item.setText(ROUTE, "")
                item.setText(WHY, self._kinds[name])
        self._filling = False
        self._show_raw()

    def chosen(self) -> list[str]:
        """The routers ticked, in the file's order."""
        return [
            name for name, item in self._items() if item.checkState(NAME) == Qt.CheckState.Checked
        ]

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if not self._filling and column == NAME and item.parent() is None:
            self.chosen_changed.emit(self.chosen())

    # -- decisions ---------------------------------------------------------------------------
    def show_asking(self, name: str) -> None:
        item = self.item(name)
        if item is not None:
            fill_asking(item, name not in self.decisions)

    def show_decided(self, name: str, decision: ExternalDecision) -> None:
        item = self.item(name)
        if item is None:
            return
        first = name not in self.decisions
        self.decisions[name] = decision
        fill_decision(item, decision)
        if first:
            item.setExpanded(True)
            for child in (item.child(n) for n in range(item.childCount())):
                chosen = child is not None and child.text(NAME).startswith("▶")
                if child is not None and (chosen or child.text(NAME) == "signals"):
                    child.setExpanded(True)
        self._show_raw()

    def show_problem(self, name: str, why: str) -> None:
        item = self.item(name)
        if item is not None:
            self.decisions.pop(name, None)
            short = why
            for where in (f"{self._path}: routers.{name}: ", f"router {name!r}: "):
                short = short.removeprefix(where)
            fill_problem(item, name, self._kinds.get(name, ""), why, short)
            self._show_raw()

    def show_cleared(self) -> None:
        """No prompt: no decision (the routers stay listed)."""
        self.decisions.clear()
        for name, item in self._items():
            chosen = item.checkState(NAME) == Qt.CheckState.Checked
            fill_not_chosen(item, name, self._kinds[name])
            if chosen:
                item.setText(ROUTE, "")
                item.setText(WHY, f"{self._kinds[name]} · type a prompt")
        self._show_raw()

    # -- rows --------------------------------------------------------------------------------
    def _items(self) -> list[tuple[str, QTreeWidgetItem]]:
        tree = self.tree
        found = []
        for number in range(tree.topLevelItemCount()):
            item = tree.topLevelItem(number)
            if item is not None:
                found.append((item.text(NAME), item))
        return found

    def item(self, name: str) -> QTreeWidgetItem | None:
        """The row of the router `name`."""
        return next((item for shown, item in self._items() if shown == name), None)

    def router_of(self, item: QTreeWidgetItem | None) -> str | None:
        """The router a row is about (a route, an utterance or a signal: its router's)."""
        while item is not None and item.parent() is not None:
            item = item.parent()
        return None if item is None else item.text(NAME)

    # -- the raw answer ----------------------------------------------------------------------
    def _toggle_raw(self, shown: bool) -> None:
        self.raw_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.raw_view.setVisible(shown)
        if shown:
            lines = self.raw_view.fontMetrics().lineSpacing() * _RAW_LINES
            self.split.setSizes([max(self.split.height() - lines, lines), lines])
        self._show_raw()

    def _show_raw(self) -> None:
        name = self.router_of(self.tree.currentItem())
        decision = self.decisions.get(name or "")
        raw = decision.raw if decision is not None else ""
        where = f"{name}'s answer" if name else "the selected router's answer"
        self.raw_button.setText(f"Raw answer ({name})" if name else "Raw answer")
        if not self.raw_view.isVisible():
            return
        text = _pretty(raw) if raw else f"({where}: nothing received)"
        if self.raw_view.toPlainText() != text:
            self.raw_view.setPlainText(text)


def _pretty(raw: str) -> str:
    """The raw answer indented when it is JSON (as received otherwise)."""
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw
