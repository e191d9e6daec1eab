"""Rich text shared by the views: word diffs, clipping, and a delegate that draws HTML cells."""

from __future__ import annotations

import difflib
import functools
import html

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView

__all__ = ["HTML_ROLE", "HtmlDelegate", "clip", "muted", "word_diff_html"]

HTML_ROLE = Qt.ItemDataRole.UserRole + 1
"""The item-data role a model answers with rich text for `HtmlDelegate` to draw."""

_Index = QModelIndex | QPersistentModelIndex


@functools.lru_cache(maxsize=256)
def word_diff_html(before: str, after: str) -> str:
    """`after` as HTML, words added since `before` in green, words removed struck out in red.
    (Kept: a table asks for a cell's markup to measure it and again to paint it.)"""
    old, new = before.split(), after.split()
    parts: list[str] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            removed = html.escape(" ".join(old[a0:a1]))
            parts.append(
                f'<span style="color:#c62828;text-decoration:line-through">{removed}</span>'
            )
        if op in ("replace", "insert"):
            added = html.escape(" ".join(new[b0:b1]))
            parts.append(f'<span style="color:#1b5e20;background:#e3f6e5">{added}</span>')
        if op == "equal":
            parts.append(html.escape(" ".join(new[b0:b1])))
    return " ".join(parts)


def clip(text: str, limit: int = 300) -> str:
    """`text`, cut at `limit` characters with its full length named (a cell must stay small)."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def muted(text: str) -> str:
    """Secondary text as HTML: escaped, in the muted colour."""
    return f"<span style='color:#607d8b'>{html.escape(text)}</span>"


class HtmlDelegate(QStyledItemDelegate):
    """Draws a cell's HTML_ROLE rich text (the sanitize diff), else the plain text."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        markup = index.data(HTML_ROLE)
        if not markup:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect
        doc = self._document(markup, opt, rect.width())
        painter.save()
        painter.translate(
            rect.left(), rect.top() + max(0.0, (rect.height() - doc.size().height()) / 2)
        )
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        markup = index.data(HTML_ROLE)
        if not markup:
            return super().sizeHint(option, index)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        view = self.parent()
        width = view.columnWidth(index.column()) if isinstance(view, QTableView) else 300
        if isinstance(view, QTableView) and view.showGrid():
            width -= 1  # the grid line takes a pixel: measure at the width `paint` draws at
        doc = self._document(markup, opt, width)
        return QSize(width, int(doc.size().height()) + 4)

    @staticmethod
    def _document(markup: str, option: QStyleOptionViewItem, width: int) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(4)
        doc.setHtml(markup)
        doc.setTextWidth(width)
        return doc
