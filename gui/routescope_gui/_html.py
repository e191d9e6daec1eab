"""Rich text shared by the views: word diffs, clipping, counts with their nouns, and a delegate
that draws HTML cells."""

from __future__ import annotations

import difflib
import functools
import html
from collections import OrderedDict

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
)

from ._style import Scheme, css, scheme_now

__all__ = ["HTML_ROLE", "HtmlDelegate", "clip", "counted", "muted", "word_diff_html"]

HTML_ROLE = Qt.ItemDataRole.UserRole + 1
"""The item-data role a model answers with rich text for `HtmlDelegate` to draw."""

_Index = QModelIndex | QPersistentModelIndex


def word_diff_html(before: str, after: str, limit: int | None = None) -> str:
    """`after` as HTML, words added since `before` in green, words removed struck out in red
    (the theme's `added` and `removed`); with `limit`, only the words within about that many
    characters, then "…" (a cell of a few lines shows no more, and laying out the rest costs
    milliseconds at each keystroke)."""
    return _word_diff_html(before, after, limit, scheme_now())


@functools.lru_cache(maxsize=256)
def _word_diff_html(before: str, after: str, limit: int | None, scheme: Scheme) -> str:
    """(Kept: a table asks for a cell's markup to measure it and again to paint it.)"""
    old, new = before.split(), after.split()
    runs: list[tuple[str, list[str]]] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            runs.append(("removed", old[a0:a1]))
        if op in ("replace", "insert"):
            runs.append(("added", new[b0:b1]))
        if op == "equal":
            runs.append(("same", new[b0:b1]))
    parts: list[str] = []
    room = len(before) + len(after) if limit is None else limit
    for kind, words in runs:
        kept = _within(words, room)
        room -= sum(len(word) + 1 for word in kept)
        if kept:
            parts.append(_diff_span(kind, html.escape(" ".join(kept)), scheme))
        if len(kept) < len(words):
            parts.append(_ELLIPSIS)
            break
    return " ".join(parts)


def _diff_span(kind: str, words: str, scheme: Scheme) -> str:
    """Words removed (struck out), added (on their fill) or the same, as HTML."""
    if kind == "removed":
        ink = css("removed_text", scheme)
        return f'<span style="color:{ink};text-decoration:line-through">{words}</span>'
    if kind == "added":
        ink, fill = css("added_text", scheme), css("added", scheme)
        return f'<span style="color:{ink};background:{fill}">{words}</span>'
    return words


def _within(words: list[str], room: int) -> list[str]:
    """The first of `words` whose characters (and a space each) fit in `room`."""
    kept: list[str] = []
    for word in words:
        room -= len(word) + 1
        if room < 0:
            break
        kept.append(word)
    return kept


def counted(count: int, noun: str, plural: str = "") -> str:
    """`count` with its noun, singular for one: "1 attempt", "3 searches" (`plural`, default
    the noun and an s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def clip(text: str, limit: int = 300) -> str:
    """`text`, cut at `limit` characters with its full length named (a cell must stay small)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def muted(text: str) -> str:
    """Secondary text as HTML: escaped, in the theme's muted colour."""
    return f"<span style='color:{css('muted')}'>{html.escape(text)}</span>"


_DOCUMENTS_KEPT = 256
"""Laid-out cells a delegate keeps (a few tables' worth of visible cells)."""
_ELLIPSIS = "…"
_ELLIPSIS_ROOM = 2
"""Characters "…" replaces at the end of a cut cell's last line."""
_CELL_CHARACTERS = 2_000
"""A cell of `max_lines` lays out at most this much of its text: more never shows in a few
lines, and a prompt may be megabytes long."""


class HtmlDelegate(QStyledItemDelegate):
    """Draws a cell's HTML_ROLE rich text (the sanitize diff), else the plain text.

    With `max_lines`, a cell is at most that many lines high: longer text (rich or plain) is cut
    at the end of its last line with "…" (the model's tooltip and copy give it in full). Without,
    a cell is as high as its text (the default)."""

    def __init__(self, parent: QObject | None = None, *, max_lines: int | None = None) -> None:
        super().__init__(parent)
        self.max_lines = max_lines
        # A cell is measured, then painted, and most cells stay the same from one keystroke to
        # the next: each laid-out document serves all of these.
        self._documents: OrderedDict[tuple[str, str, int], QTextDocument] = OrderedDict()

    def _plain(
        self, index: _Index, width: int, option: QStyleOptionViewItem
    ) -> QStyleOptionViewItem:
        """A plain cell's option: with `max_lines`, only as much text as `width` can show, its
        last line elided by the style (Qt lays it out: no document)."""
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        if self.max_lines is not None:
            opt.text = opt.text[: self._characters(width, option)]
            opt.textElideMode = Qt.TextElideMode.ElideRight
        return opt

    def _characters(self, width: int, option: QStyleOptionViewItem) -> int:
        """Twice the characters `max_lines` lines of `width` hold with the font's average
        character (narrow letters fit more): more never shows, and would be laid out for
        nothing."""
        per_line = width // max(1, option.fontMetrics.averageCharWidth()) + 1
        return min(_CELL_CHARACTERS, 2 * per_line * ((self.max_lines or 1) + 1))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        markup = index.data(HTML_ROLE)
        widget = option.widget
        style = widget.style() if widget else QApplication.style()
        if not markup:
            opt = self._plain(index, option.rect.width(), option)
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect
        doc = self._document(str(markup), opt, rect.width())
        painter.save()
        painter.translate(
            rect.left(), rect.top() + max(0.0, (rect.height() - doc.size().height()) / 2)
        )
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        view = self.parent()
        width = view.columnWidth(index.column()) if isinstance(view, QTableView) else 300
        if isinstance(view, QTableView) and view.showGrid():
            width -= 1  # the grid line takes a pixel: measure at the width `paint` draws at
        markup = index.data(HTML_ROLE)
        if not markup:
            if self.max_lines is None:
                return super().sizeHint(option, index)
            opt = self._plain(index, width, option)
            opt.rect.setWidth(width)
            widget = opt.widget
            style = widget.style() if widget else QApplication.style()
            size = style.sizeFromContents(QStyle.ContentsType.CT_ItemViewItem, opt, QSize(), widget)
            most = self.max_lines * opt.fontMetrics.lineSpacing() + 12
            return QSize(size.width(), min(size.height(), most))
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        doc = self._document(str(markup), opt, width)
        return QSize(width, int(doc.size().height()) + 4)

    def _document(self, markup: str, option: QStyleOptionViewItem, width: int) -> QTextDocument:
        key = (markup, option.font.key(), width)
        doc = self._documents.get(key)
        if doc is not None:
            self._documents.move_to_end(key)
            return doc
        doc = QTextDocument(self)  # Qt's to delete: one left to Python outlives the application
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(4)
        doc.setHtml(markup)
        doc.setTextWidth(width)
        if self.max_lines is not None:
            _cut_to_lines(doc, self.max_lines)
        self._documents[key] = doc
        if len(self._documents) > _DOCUMENTS_KEPT:
            self._documents.popitem(last=False)[1].deleteLater()
        return doc


def _line_count(doc: QTextDocument) -> int:
    doc.size()  # lays the document out
    block, lines = doc.begin(), 0
    while block.isValid():
        layout = block.layout()
        lines += layout.lineCount() if layout is not None else 1
        block = block.next()
    return lines


def _cut_to_lines(doc: QTextDocument, lines: int) -> bool:
    """Cut a laid-out document to its first `lines` lines, ending them with "…" (the text's
    formats kept); False when it already fits."""
    if _line_count(doc) <= lines:
        return False
    block, seen, end = doc.begin(), 0, 0
    while block.isValid():
        layout = block.layout()
        count = layout.lineCount() if layout is not None else 0
        if layout is not None and seen + count >= lines:
            line = layout.lineAt(lines - seen - 1)
            end = block.position() + line.textStart() + line.textLength()
            break
        seen += count
        block = block.next()
    # "…" takes the room of the last characters before it (each relayout costs, so one try).
    end = max(0, end - _ELLIPSIS_ROOM)
    cursor = QTextCursor(doc)
    cursor.setPosition(end)
    cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    cursor.insertText(_ELLIPSIS)
    # Still too long (narrow letters gave way to a wide "…"): a character at a time.
    while end > 0 and _line_count(doc) > lines:
        cursor.setPosition(end - 1)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        end -= 1
    return True
