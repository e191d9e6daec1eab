"""Small widgets and helpers the views share: badges, in-place tree rows, copying, lazy tabs,
what an empty view says."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFontMetrics,
    QGuiApplication,
    QPainter,
    QPalette,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QToolTip,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from ._style import colour, named_colour

__all__ = [
    "BAR_ROLE",
    "DIM_ROLE",
    "MARK_ROLE",
    "SEGMENTS_ROLE",
    "Badge",
    "BarDelegate",
    "LazyTabs",
    "Placeholder",
    "StackedBarDelegate",
    "SteadyTabs",
    "bounded_tip",
    "copy_selection",
    "enable_copy",
    "ensure_children",
    "fill_row",
    "relay_least_size",
    "row_of",
    "segment_edges",
    "selection_as_tsv",
    "set_tone",
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
        set_tone(self, tone)


def set_tone(widget: QWidget, tone: str) -> None:
    """Give `widget` the style sheet's look for `tone` (its `tone` property). Qt applies a
    property selector only when the widget is polished again, so that is done on a change."""
    if widget.property("tone") == tone:
        return
    widget.setProperty("tone", tone)
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)


class Placeholder(QObject):
    """What an empty table or tree says over its rows' place while it has none: what will
    appear there and how to get it (a first run's blank panes say nothing otherwise). The
    text is a muted, wrapping label on the view's viewport (the style sheet colours it:
    `QLabel#placeholder`); it goes as soon as a row comes, and comes back with no rows.

    Attributes:
        label: the text's label.
    """

    def __init__(self, view: QAbstractItemView, text: str) -> None:
        viewport = view.viewport()
        super().__init__(viewport)  # (it goes with the viewport, which goes before the view)
        self._viewport = viewport
        self._model = model = view.model()
        self.label = QLabel(text, viewport)
        self.label.setObjectName("placeholder")
        self.label.setWordWrap(True)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        viewport.installEventFilter(self)
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(self._update)
        model.layoutChanged.connect(self._update)
        self._update()

    def set_text(self, text: str) -> None:
        """Say something else while the view is empty (why it is, now)."""
        self.label.setText(text)

    @property
    def shown(self) -> bool:
        """Whether the text shows: the view has no rows (and a text to say)."""
        return not self.label.isHidden()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        room = self._viewport.rect().adjusted(16, 12, -16, -12)
        self.label.setGeometry(room.x(), room.y(), room.width(), min(room.height(), 160))

    def _update(self, *_args: object) -> None:
        self._place()
        self.label.setVisible(self._model.rowCount() == 0 and bool(self.label.text()))


class RoomyColumn(QObject):
    """Keeps one stretching column of a table or tree readable however narrow the view: the
    other columns have their `widths` while they leave `room` pixels for it, and give way in
    proportion (down to `floor` each; those in `keep` never) when they would not — at 1024
    pixels a query column between seven fixed ones was 30 px wide ("Que")."""

    def __init__(
        self,
        view: QTreeView,
        widths: Sequence[int],
        stretch: int,
        *,
        room: int = 180,
        floor: int = 44,
        keep: Sequence[int] = (),
    ) -> None:
        viewport = view.viewport()
        super().__init__(viewport)
        self._viewport = viewport
        self._header = view.header()
        self._widths, self._stretch, self._room, self._floor = list(widths), stretch, room, floor
        self._keep = frozenset(keep)
        self._header.setStretchLastSection(False)
        self._header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
        viewport.installEventFilter(self)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        """Each fixed column's width for the viewport's width now."""
        fixed = [(c, w) for c, w in enumerate(self._widths) if c != self._stretch]
        kept = sum(w for c, w in fixed if c in self._keep)
        wanted = sum(w for c, w in fixed if c not in self._keep)
        spare = self._viewport.width() - self._room - kept
        scale = 1.0 if spare >= wanted else max(0.0, spare) / wanted
        for column, width in fixed:
            if column not in self._keep:
                width = max(self._floor, round(width * scale))
            self._header.resizeSection(column, width)


def row_of(*widgets: QWidget | tuple[QWidget, int]) -> QWidget:
    """A row of widgets without margins; a (widget, stretch) pair takes that share of space."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for entry in widgets:
        widget, stretch = entry if isinstance(entry, tuple) else (entry, 0)
        layout.addWidget(widget, stretch)
    return row


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


TIP_WIDTH = 480
"""The widest a tooltip of long text grows, in pixels: beyond it, it wraps."""


def bounded_tip(text: str, width: int = TIP_WIDTH) -> str:
    """`text` as a tooltip at most `width` pixels wide: unchanged when every line fits, else
    as rich text wrapping at `width` (Qt shows plain text on one line however long it is).
    Empty stays empty (no tooltip)."""
    metrics = QFontMetrics(QToolTip.font())
    if all(metrics.horizontalAdvance(line) <= width for line in text.splitlines()):
        return text
    body = html.escape(text, quote=False).replace("\n", "<br>")
    return f"<table width={width}><tr><td>{body}</td></tr></table>"


def selection_as_tsv(view: QAbstractItemView) -> str:
    """The selected cells of a table or tree as tab-separated text: one line per row, in display
    order, with the columns any selected row uses in the order they are shown, hidden ones left
    out (the current cell when nothing is selected)."""
    selection = view.selectionModel()
    indexes = selection.selectedIndexes() if selection is not None else []
    if not indexes and view.currentIndex().isValid():
        indexes = [view.currentIndex()]
    rows: dict[tuple[int, ...], dict[int, str]] = {}
    for index in indexes:
        text = index.data(Qt.ItemDataRole.DisplayRole)
        cell = "" if text is None else " ".join(str(text).split())  # no tab or newline inside
        rows.setdefault(_position(index), {})[index.column()] = cell
    shown_at = _column_order(view)
    hidden = view.isColumnHidden if isinstance(view, QTreeView | QTableView) else None
    used = {column for cells in rows.values() for column in cells}
    columns = sorted((c for c in used if hidden is None or not hidden(c)), key=shown_at)
    return "\n".join(
        "\t".join(rows[key].get(column, "") for column in columns) for key in sorted(rows)
    )


def _column_order(view: QAbstractItemView) -> Callable[[int], int]:
    """Where a view shows each column (a tree's or table's header may move them)."""
    if isinstance(view, QTreeView):
        return view.header().visualIndex
    if isinstance(view, QTableView):
        return view.horizontalHeader().visualIndex
    return lambda column: column


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


def enable_copy(
    view: QAbstractItemView, more: Callable[[QMenu, QModelIndex], None] | None = None
) -> None:
    """Let the rows of a table or tree be selected together and copied from a context menu.
    (Ctrl+C is the window's Edit ▸ Copy, which copies from whichever view has the focus.)
    `more` adds the row's own entries to the menu (given the index under the pointer)."""
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show_menu(position: QPoint) -> None:
        menu = QMenu(view)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        action = QAction("Copy\tCtrl+C", menu)
        action.setEnabled(bool(view.selectionModel() and view.selectionModel().hasSelection()))
        action.triggered.connect(lambda: copy_selection(view))
        menu.addAction(action)
        if more is not None:
            more(menu, view.indexAt(position))
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
"""Item data: a number from 0 to 1 that `StackedBarDelegate` (`BarDelegate`) paints as a bar
beside the cell's text."""


SEGMENTS_ROLE = Qt.ItemDataRole.UserRole + 3
"""Item data: (name, fraction) pairs that `StackedBarDelegate` paints end to end, one colour per
name; together they make up the bar (`BAR_ROLE`)."""
MARK_ROLE = Qt.ItemDataRole.UserRole + 4
"""Item data: a fraction (0 to 1) where `StackedBarDelegate` draws a thin mark (a threshold)."""
DIM_ROLE = Qt.ItemDataRole.UserRole + 5
"""Item data: True when `StackedBarDelegate` paints the bar faded (a row below a threshold)."""
_BAR_TEXT = "0.0000 "
"""The widest text a stacked bar cell holds: the bar starts after it, so bars line up."""


def segment_edges(fractions: Sequence[float], width: int) -> list[int]:
    """The pixel edges of segments laid end to end in `width` pixels. The running sum is rounded,
    not each width, so the segments add up exactly to the rounded bar (no gap, no overlap)."""
    edges, total = [0], 0.0
    for fraction in fractions:
        total += max(0.0, fraction)
        edges.append(round(min(1.0, total) * width))
    return edges


class StackedBarDelegate(QStyledItemDelegate):
    """Paints a cell's text, then beside it a bar of the segments in `SEGMENTS_ROLE`, each in the
    colour `colours` gives its name (`other` for the rest; each a theme's role or a colour:
    `named_colour`); a cell with only `BAR_ROLE` gets one segment. `MARK_ROLE` draws a mark
    across the bar, `DIM_ROLE` fades it. The text stays off the bar, whole: saturated colours
    that tell segments apart would make text on them hard to read, and a bar shorter than
    the text would cut it. Bars start after the width of `sample` text, so they line up."""

    def __init__(
        self,
        colours: Mapping[str, str],
        other: str = "chart_grey",
        parent: QWidget | None = None,
        *,
        sample: str = _BAR_TEXT,
    ) -> None:
        super().__init__(parent)
        self._colours = dict(colours)
        self._other = other
        self._sample = sample

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        segments = _segments(index)
        if segments is None:
            super().paint(painter, option, index)
            return
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        text, item.text = item.text, ""  # the style paints the background and selection only
        widget = item.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, widget)
        rect: QRect = option.rect
        text_width = item.fontMetrics.horizontalAdvance(self._sample) + 6
        painter.save()
        painter.setPen(_text_colour(item, index))
        painter.drawText(rect.adjusted(4, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, text)
        if index.data(DIM_ROLE):
            painter.setOpacity(0.35)
        bar = QRect(rect.left() + text_width, rect.top() + 4, rect.width() - text_width - 4, 0)
        bar.setHeight(rect.height() - 8)
        self._paint_bar(painter, bar, segments, index.data(MARK_ROLE))
        painter.restore()

    def _paint_bar(
        self, painter: QPainter, bar: QRect, segments: list[tuple[str, float]], mark: object
    ) -> None:
        edges = segment_edges([fraction for _name, fraction in segments], bar.width())
        for (name, _fraction), left, right in zip(segments, edges, edges[1:], strict=False):
            fill = named_colour(self._colours.get(name, self._other))
            painter.fillRect(QRect(bar.left() + left, bar.top(), right - left, bar.height()), fill)
        if isinstance(mark, float) and 0.0 < mark <= 1.0:
            x = bar.left() + round(mark * bar.width())
            painter.setOpacity(1.0)
            painter.fillRect(QRect(x - 1, bar.top() - 2, 2, bar.height() + 4), colour("tick"))


class BarDelegate(StackedBarDelegate):
    """Paints a cell whose `BAR_ROLE` holds a fraction: its text (a number like `sample`), then
    beside it a bar of that fraction of the room left, in the theme's `bar` colour."""

    def __init__(self, parent: QWidget | None = None, *, sample: str = "0.00 ") -> None:
        super().__init__({}, "bar", parent, sample=sample)


def _segments(index: _Index) -> list[tuple[str, float]] | None:
    """The cell's segments; a plain bar is one segment; None: no bar at all."""
    segments = index.data(SEGMENTS_ROLE)
    if segments:
        return [(str(name), float(fraction)) for name, fraction in segments]
    fraction = index.data(BAR_ROLE)
    return None if fraction is None else [("", float(fraction))]


def _text_colour(item: QStyleOptionViewItem, index: _Index) -> QColor:
    if item.state & QStyle.StateFlag.State_Selected:
        return item.palette.color(QPalette.ColorRole.HighlightedText)
    foreground = index.data(Qt.ItemDataRole.ForegroundRole)
    if isinstance(foreground, QBrush):
        return foreground.color()
    if isinstance(foreground, QColor):
        return foreground
    return item.palette.color(QPalette.ColorRole.Text)


class SteadyTabs(QTabWidget):
    """Tabs that do not repaint every page when a page's size hint changes.

    QTabWidget answers each LayoutRequest with an update of its whole area, and a label whose
    text changes inside a page sends one up through every layout: at a keystroke that changes
    the decision's reason, the whole window was painted again (three times the cost of a key).
    Only a change of the tab bar's size needs the tabs laid out again; a resize, a font or a
    style change lays them out anyway."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bar_hint = QSize()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            hint = self.tabBar().sizeHint()
            if hint == self._bar_hint:
                return True
            self._bar_hint = hint
        return super().event(event)


def relay_least_size(page: QWidget) -> None:
    """Tell the tabs that hold `page` its least size changed. `SteadyTabs` does not relay its
    pages' layout requests, so the layout around the tabs would go on giving them the room of
    the old least size and lay the page out squeezed under it; for a size held on purpose (rows
    kept in sight), changed seldom: at a zoom, or when the rows' height changes."""
    parent = page.parentWidget()
    while parent is not None and not isinstance(parent, QTabWidget):
        parent = parent.parentWidget()
    if parent is None:
        return
    parent.updateGeometry()
    for _ in range(6):  # laid out now, up to the window's scroll area (a level a pass)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


class LazyTabs(SteadyTabs):
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
