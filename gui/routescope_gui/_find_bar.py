"""Find in a panel (Edit ▸ Find in panel, Ctrl+F), as in DevTools: one bar for the whole
window, at its foot, that filters the rows of the table or tree in focus (or the text of a
read-only text panel, the Raw JSON) as a word is typed.

Rows whose text (any column) holds the word stay — with the rows above them in a tree, and
the rows under a row that matched — and the others are hidden; Enter and Shift+Enter step
through the matches (each selected and scrolled to), and the bar counts them. A text panel
keeps its text: every match is highlighted and Enter steps through them. The filter follows
the panel's new contents (a new prompt's rows); Esc, or closing the bar, shows every row
again. Only views: what is found is what is shown.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QTableView,
    QTextEdit,
    QToolButton,
    QTreeView,
    QWidget,
)

from ._style import colour

__all__ = ["FindBar", "Findable", "row_matches"]

Findable = QAbstractItemView | QPlainTextEdit
"""What the bar searches: a table, tree or list, or a read-only text panel."""

_Index = QModelIndex | QPersistentModelIndex
_MODEL_SIGNALS = ("modelReset", "rowsInserted", "rowsRemoved", "dataChanged", "layoutChanged")


def row_matches(model: QAbstractItemModel, row: int, parent: _Index, word: str) -> bool:
    """Whether any column of the row shows `word` (case ignored; "" matches every row)."""
    if not word:
        return True
    folded = word.casefold()
    for column in range(model.columnCount(parent)):
        shown = model.data(model.index(row, column, parent), Qt.ItemDataRole.DisplayRole)
        if shown is not None and folded in str(shown).casefold():
            return True
    return False


class FindBar(QWidget):
    """The bar and what it filters.

    Attributes:
        field: the word; count: how many rows (or places) match; target: the panel searched
            (None: none).

    Signals:
        closed: emitted when the bar closes (the window gives the focus back to the panel).
    """

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("findBar")
        self.target: Findable | None = None
        self._hidden: list[tuple[QPersistentModelIndex | None, int]] = []
        """The rows hidden: (their parent, None at the top; their row)."""
        self._matches: list[QPersistentModelIndex] = []
        self._places: list[QTextCursor] = []
        self._at = -1
        self._model: QAbstractItemModel | None = None
        self._again = QTimer(self, singleShot=True, interval=0)
        self._again.timeout.connect(self._apply)
        self.where = QLabel("")
        self.field = QLineEdit()
        self.field.setPlaceholderText("filter the rows…")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(lambda _text: self._apply())
        self.field.installEventFilter(self)
        self.count = QLabel("")
        self.count.setObjectName("muted")
        previous, following, close = QToolButton(), QToolButton(), QToolButton()
        previous.setText("↑")
        previous.setToolTip("previous match (Shift+Enter)")
        previous.clicked.connect(lambda: self.step(-1))
        following.setText("↓")
        following.setToolTip("next match (Enter)")
        following.clicked.connect(lambda: self.step(1))
        close.setText("✕")
        close.setToolTip("show every row again (Esc)")
        close.clicked.connect(self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(self.where)
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        for button in (previous, following, close):
            button.setAutoRaise(True)
            row.addWidget(button)
        self.setVisible(False)

    # -- opening and closing ---------------------------------------------------------------
    def open_on(self, target: Findable, name: str) -> None:
        """Search `target` (named `name` on the bar); the word typed last is kept and
        applied to it."""
        if target is not self.target:
            self._release()
            self.target = target
            if isinstance(target, QAbstractItemView):
                self._watch(target.model())
        self.where.setText(f"Find in {name}:")
        kind = "rows" if isinstance(target, QAbstractItemView) else "text"
        self.field.setPlaceholderText(f"filter the {kind}…")
        self.setVisible(True)
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()
        self._apply()

    def close_bar(self) -> None:
        """Every row shown again, the highlights gone, the bar hidden."""
        self._release()
        self.target = None
        self.setVisible(False)
        self.closed.emit()

    def _release(self) -> None:
        self._unhide()
        self._watch(None)
        if isinstance(self.target, QPlainTextEdit):
            self.target.setExtraSelections([])
        self._matches, self._places, self._at = [], [], -1

    def _watch(self, model: QAbstractItemModel | None) -> None:
        """Apply the filter again when the panel's rows change (a new prompt's)."""
        if self._model is not None:
            for name in _MODEL_SIGNALS:
                getattr(self._model, name).disconnect(self._again.start)
        self._model = model
        if model is not None:
            for name in _MODEL_SIGNALS:
                getattr(model, name).connect(self._again.start)

    # -- finding ---------------------------------------------------------------------------
    def _apply(self) -> None:
        target, word = self.target, self.field.text().strip()
        if target is None or not self.isVisible():
            return
        if isinstance(target, QPlainTextEdit):
            self._find_text(target, word)
        else:
            self._filter(target, word)

    def _filter(self, view: QAbstractItemView, word: str) -> None:
        self._unhide()
        model = view.model()
        self._matches = []
        if model is not None:
            self._filter_rows(view, model, QModelIndex(), word, shown_above=False)
        matched = len(self._matches)
        total = model.rowCount() if model is not None else 0
        self.count.setText("" if not word else f"{matched} of {total} rows")
        self._at = -1
        if self._matches:
            self.step(1)

    def _filter_rows(
        self,
        view: QAbstractItemView,
        model: QAbstractItemModel,
        parent: _Index,
        word: str,
        *,
        shown_above: bool,
    ) -> bool:
        """Hide the rows under `parent` that neither match nor hold a match (all of them are
        kept when a row above matched); whether any row here is kept."""
        kept = False
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            matches = bool(word) and row_matches(model, row, parent, word)
            if matches:
                self._matches.append(QPersistentModelIndex(index))
            below = self._filter_rows(
                view, model, index, word, shown_above=shown_above or matches or not word
            )
            keep = not word or shown_above or matches or below
            if not keep:
                self._hide(view, row, parent)
            kept = kept or keep
        return kept

    def _hide(self, view: QAbstractItemView, row: int, parent: _Index) -> None:
        if isinstance(view, QTreeView):
            view.setRowHidden(row, parent, True)
        elif isinstance(view, QTableView | QListView):
            view.setRowHidden(row, True)
        else:
            return
        self._hidden.append((QPersistentModelIndex(parent) if parent.isValid() else None, row))

    def _unhide(self) -> None:
        """Show the rows hidden (under a row since removed, a tree forgot them itself)."""
        view = self.target
        for parent, row in self._hidden:
            if isinstance(view, QTreeView) and (parent is None or parent.isValid()):
                view.setRowHidden(row, QModelIndex() if parent is None else _index(parent), False)
            elif isinstance(view, QTableView | QListView):
                view.setRowHidden(row, False)
        self._hidden = []

    def _find_text(self, editor: QPlainTextEdit, word: str) -> None:
        self._places = []
        document = editor.document()
        if word:
            cursor = QTextCursor(document)
            while True:
                cursor = document.find(word, cursor, QTextDocument.FindFlag(0))
                if cursor.isNull():
                    break
                self._places.append(QTextCursor(cursor))
        self.count.setText("" if not word else f"{len(self._places)} found")
        self._at = -1
        self._highlight(editor)
        if self._places:
            self.step(1)

    def _highlight(self, editor: QPlainTextEdit) -> None:
        found = QTextCharFormat()
        found.setBackground(colour("trace"))  # amber with the dark ink, in both schemes
        found.setForeground(colour("ink"))
        selections = []
        for place in self._places:
            selection = QTextEdit.ExtraSelection()
            selection.cursor = place
            selection.format = found
            selections.append(selection)
        editor.setExtraSelections(selections)

    def step(self, by: int) -> None:
        """Go to the next (+1) or previous (-1) match: selected and scrolled to."""
        target = self.target
        matches = self._places if isinstance(target, QPlainTextEdit) else self._matches
        if target is None or not matches:
            return
        self._at = (self._at + by) % len(matches)
        if isinstance(target, QPlainTextEdit):
            target.setTextCursor(self._places[self._at])
            target.centerCursor()
            self.count.setText(f"{self._at + 1} of {len(self._places)} found")
            return
        index = _index(self._matches[self._at])
        if index.isValid():
            target.setCurrentIndex(index)
            target.scrollTo(index)
        model = target.model()
        total = model.rowCount() if model is not None else 0
        self.count.setText(f"{self._at + 1} of {len(self._matches)} matches · {total} rows")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and isinstance(event, QKeyEvent):
            key = event.key()
            if event.type() == QEvent.Type.ShortcutOverride and key == Qt.Key.Key_Escape:
                event.accept()  # Esc closes the bar before it cancels research
                return True
            if event.type() == QEvent.Type.KeyPress:
                if key == Qt.Key.Key_Escape:
                    self.close_bar()
                    return True
                if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                    back = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                    self.step(-1 if back else 1)
                    return True
        return super().eventFilter(watched, event)


def _index(kept: QPersistentModelIndex) -> QModelIndex:
    """The index a persistent one stands for now (invalid once its row is gone)."""
    model = kept.model()
    if not kept.isValid() or model is None:
        return QModelIndex()
    return model.index(kept.row(), kept.column(), kept.parent())
