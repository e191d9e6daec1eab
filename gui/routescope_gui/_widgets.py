"""Small widgets and helpers the views share: badges, in-place tree rows, copying, lazy tabs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
)
from PySide6.QtGui import QAction, QColor, QGuiApplication, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMenu,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

__all__ = [
    "BAR_ROLE",
    "Badge",
    "BarDelegate",
    "LazyTabs",
    "copy_selection",
    "enable_copy",
    "ensure_children",
    "fill_row",
    "selection_as_tsv",
]


class Badge(QLabel):
    """A coloured label (a strategy, a query class). Its colour comes from the style sheet by
    the `tone` property; the widget is re-polished only when the tone changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("—", parent)
        self.setObjectName("badge")
        self._tone = ""

    @property
    def tone(self) -> str:
        return self._tone

    def show_tone(self, tone: str, text: str) -> None:
        self.setText(text)
        if tone == self._tone:
            return
        self._tone = tone
        self.setProperty("tone", tone)
        style = self.style()
        style.unpolish(self)
        style.polish(self)


def ensure_children(parent: QTreeWidget | QTreeWidgetItem, count: int) -> list[QTreeWidgetItem]:
    """Make `parent` hold exactly `count` child rows and return them in order. Rows that exist
    are reused, so their expansion and selection survive a new result."""
    root = parent.invisibleRootItem() if isinstance(parent, QTreeWidget) else parent
    while root.childCount() > count:
        root.takeChild(root.childCount() - 1)
    if root.childCount() < count:
        root.addChildren([QTreeWidgetItem() for _ in range(count - root.childCount())])
    return [child for index in range(count) if (child := root.child(index)) is not None]


def fill_row(
    item: QTreeWidgetItem, texts: Sequence[str], tooltips: Sequence[str | None] = ()
) -> None:
    """Set a row's texts; each tooltip is the given one, or the cell's own text (cells clip).
    Qt ignores a value equal to the current one, so an unchanged cell repaints nothing."""
    for column, text in enumerate(texts):
        item.setText(column, text)
        tip = tooltips[column] if column < len(tooltips) else None
        item.setToolTip(column, text if tip is None else tip)


def selection_as_tsv(view: QAbstractItemView) -> str:
    """The selected cells of a table or tree as tab-separated text: one line per row, in display
    order, with the columns any selected row uses (the current cell when nothing is selected)."""
    selection = view.selectionModel()
    indexes = selection.selectedIndexes() if selection is not None else []
    if not indexes and view.currentIndex().isValid():
        indexes = [view.currentIndex()]
    rows: dict[tuple[int, ...], dict[int, str]] = {}
    for index in indexes:
        text = index.data(Qt.ItemDataRole.DisplayRole)
        cell = "" if text is None else " ".join(str(text).split())  # no tab or newline inside
        rows.setdefault(_position(index), {})[index.column()] = cell
    columns = sorted({column for cells in rows.values() for column in cells})
    return "\n".join(
        "\t".join(rows[key].get(column, "") for column in columns) for key in sorted(rows)
    )


def _position(index: QModelIndex) -> tuple[int, ...]:
    """The row numbers from the root down to `index`: sorting them gives display order."""
    rows: list[int] = []
    while index.isValid():
        rows.append(index.row())
        index = index.parent()
    return tuple(reversed(rows))


def copy_selection(view: QAbstractItemView) -> None:
    """Put the view's selection on the clipboard as tab-separated text."""
    QGuiApplication.clipboard().setText(selection_as_tsv(view))


def enable_copy(view: QAbstractItemView) -> None:
    """Let the rows of a table or tree be selected together and copied from a context menu.
    (Ctrl+C is the window's Edit ▸ Copy, which copies from whichever view has the focus.)"""
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show_menu(position: QPoint) -> None:
        menu = QMenu(view)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        action = QAction("Copy\tCtrl+C", menu)
        action.setEnabled(bool(view.selectionModel() and view.selectionModel().hasSelection()))
        action.triggered.connect(lambda: copy_selection(view))
        menu.addAction(action)
        menu.popup(view.viewport().mapToGlobal(position))

    view.customContextMenuRequested.connect(show_menu)


_Index = QModelIndex | QPersistentModelIndex


class HeaderedTableModel(QAbstractTableModel):
    """A table model with fixed column `HEADERS`; a subclass keeps its rows in `rows`."""

    HEADERS: tuple[str, ...] = ()
    rows: Sequence[object] = ()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None


BAR_ROLE = Qt.ItemDataRole.UserRole + 2
"""Item data: a number from 0 to 1 that `BarDelegate` paints as a bar under the cell's text."""


class BarDelegate(QStyledItemDelegate):
    """Paints a cell whose `BAR_ROLE` holds a fraction as a bar of that width, text on top."""

    def __init__(self, color: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._color = QColor(color)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        fraction = index.data(BAR_ROLE)
        if fraction is None:
            super().paint(painter, option, index)
            return
        rect: QRect = option.rect
        painter.save()
        width = int((rect.width() - 4) * min(1.0, max(0.0, float(fraction))))
        painter.fillRect(
            QRect(rect.left() + 2, rect.top() + 3, width, rect.height() - 6), self._color
        )
        painter.setPen(QColor("#263238"))
        painter.drawText(rect.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, index.data())
        painter.restore()


class LazyTabs(QTabWidget):
    """Tabs whose pages are filled only while they are shown. `invalidate()` renders the current
    page now and every other page when it becomes current: a hidden page can be costly to fill
    (the raw JSON of a large prompt) and nobody sees it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._renderers: list[tuple[QWidget, Callable[[], None]]] = []
        self._stale: set[int] = set()
        self.currentChanged.connect(lambda _index: self._render_current())

    def add_page(self, page: QWidget, title: str, render: Callable[[], None] | None = None) -> None:
        self.addTab(page, title)
        if render is not None:
            self._renderers.append((page, render))

    def invalidate(self) -> None:
        self._stale = set(range(len(self._renderers)))
        self._render_current()

    def _render_current(self) -> None:
        current = self.currentWidget()
        for number, (page, render) in enumerate(self._renderers):
            if page is current and number in self._stale:
                self._stale.discard(number)
                render()
