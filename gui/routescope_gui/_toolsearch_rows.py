"""How a ranked tool's score is drawn: the stacked bar of what each signal and boost adds to it
(`Signals.shares`, which sum to the score), its tooltip, and the legend of the colours. Shared
by the whole-request ranking and the per-step tree of the Tools panel.

Under the weighted fusion the keyword part of a bar is split into the query words that moved it
(`KeywordSignal.terms`, largest first, in two alternating shades of the keyword colour), and the
tooltip names each word with what it adds: "0.702 = vector 0.516 + keyword 0.156 (crashing
0.065, why 0.049, container 0.043) + align 0.030".

Each row of the ranking shows its score equation under it, as the command line does
(`routescope.toolsearch.score_equation`: "0.702 = 0.75·cos 0.688 + 0.25·kw 0.62 + align 0.030"),
in a second, smaller, muted line (`RankingTree`); the tool's name is elided in the middle, where
names like `github.pull_requests.create_review_comment` differ least.

Nothing here ranks: the shares, the scores and the verdicts come from `routescope.toolsearch`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from ._style import OTHER_SIGNAL, SIGNAL_COLOURS, colour
from ._widgets import BAR_ROLE, DIM_ROLE, MARK_ROLE, SEGMENTS_ROLE, StackedBarDelegate

if TYPE_CHECKING:
    from routescope.toolsearch import KeywordSignal, ToolHit

__all__ = [
    "EQUATION_ROLE",
    "KEYWORD_SHADE",
    "SHARE_COLOURS",
    "RankingTree",
    "bar_segments",
    "keyword_words",
    "legend_html",
    "ordered_shares",
    "score_text",
    "score_tip",
    "share_delegate",
    "share_label",
    "show_score",
    "word_shares",
]

SHARE_COLOURS = SIGNAL_COLOURS
"""Each signal's colour in a score bar (the theme's: Okabe & Ito's palette)."""
KEYWORD_SHADE = "keyword·"
"""The segment name of every other query word of the keyword part (another shade, the
theme's `shade`), so two words side by side stay apart."""
_BAR_COLOURS = {**SHARE_COLOURS, KEYWORD_SHADE: "shade"}
"""The bars' segments: a signal's colour, or a theme's role (`named_colour`); a boost the
core adds later, before the view names it, gets `OTHER_SIGNAL`."""
_LABELS = {"metadata_alignment_boost": "align", "file_discovery_boost": "files"}
_DIMMED = "faint"
"""The theme's role of the text of a row whose score is below the fit threshold."""
EQUATION_ROLE = Qt.ItemDataRole.UserRole + 7
"""Row data (column 0): the hit's score equation, painted under the row in a second line."""
_EQUATION_SCALE = 0.85
"""The equation's font, of the table's."""
_Index = QModelIndex | QPersistentModelIndex


def share_delegate(parent: QWidget) -> StackedBarDelegate:
    return StackedBarDelegate(_BAR_COLOURS, OTHER_SIGNAL, parent)


def share_label(name: str) -> str:
    return _LABELS.get(name, name.removesuffix("_boost"))


def legend_html() -> str:
    """A line of coloured squares naming the segments of the score bars."""
    return " ".join(
        f"<span style='color:{colour}'>■</span>&nbsp;{share_label(name)}"
        for name, colour in SHARE_COLOURS.items()
    )


def ordered_shares(hit: ToolHit) -> list[tuple[str, float]]:
    """The hit's shares, vector and keyword first, then the boosts in the core's order: the
    same order in every row, so the colours line up down the column."""
    shares = hit.signals.shares
    first = [name for name in ("vector", "keyword") if name in shares]
    return [(name, shares[name]) for name in first + [n for n in shares if n not in first]]


def word_shares(keyword: KeywordSignal | None) -> list[tuple[str, float]]:
    """The query words that moved a weighted hit's keyword share, largest first, with what
    each adds (they add up to the keyword share); [] under the canonical fusion."""
    if keyword is None:
        return []
    return [(t.word, t.share) for t in sorted(keyword.terms, key=lambda t: -t.share)]


def keyword_words(keyword: KeywordSignal | None, limit: int = 4) -> str:
    """ "crashing 0.071, why 0.053, container 0.047" (the largest `limit`, then "…")."""
    words = word_shares(keyword)
    text = ", ".join(f"{word} {share:.3f}" for word, share in words[:limit])
    return text + (f", … {len(words) - limit} more" if len(words) > limit else "")


def bar_segments(hit: ToolHit) -> list[tuple[str, float]]:
    """The bar's segments: `ordered_shares`, the keyword share split into its words."""
    words = word_shares(hit.signals.keyword)
    segments: list[tuple[str, float]] = []
    for name, value in ordered_shares(hit):
        if name == "keyword" and words:
            segments += [
                ("keyword" if n % 2 == 0 else KEYWORD_SHADE, share)
                for n, (_word, share) in enumerate(words)
            ]
        else:
            segments.append((name, value))
    return segments


def score_text(score: float, fusion: str) -> str:
    """Weighted scores run from 0 to about 1 (three decimals tell them apart); RRF scores are
    about a hundred times smaller."""
    return f"{score:.3f}" if fusion == "weighted" else f"{score:.4f}"


def score_tip(hit: ToolHit, fusion: str) -> str:
    """ "0.612 = vector 0.488 + keyword 0.300 (crashing 0.200, deploy 0.100) + align 0.020"
    (the shares that add something; the keyword share's words when the fusion says them)."""
    words = keyword_words(hit.signals.keyword)
    terms = [
        f"{share_label(name)} {score_text(value, fusion)}"
        + (f" ({words})" if name == "keyword" and words else "")
        for name, value in ordered_shares(hit)
        if value
    ]
    total = score_text(hit.score, fusion)
    return f"{total} = {' + '.join(terms)}" if terms else total


def show_score(
    item: QTreeWidgetItem, column: int, hit: ToolHit, top: float, threshold: float, fusion: str
) -> None:
    """Fill a score cell: its text and tooltip, the bar split into the shares, the fit
    threshold's mark, and faded when the score is below a threshold that is set.

    Weighted scores are absolute (a tool that matches on every signal scores about 1): the bar
    is score / max(top, 1), so a weak best hit is a short bar, not a confident full one. RRF
    scores only order the tools: their bars are relative to the best."""
    full = max(top, 1.0) if fusion == "weighted" else top
    scale = 1.0 / full if full > 0 else 0.0
    item.setText(column, score_text(hit.score, fusion))
    item.setToolTip(column, score_tip(hit, fusion))
    item.setData(column, BAR_ROLE, hit.score * scale)
    segments = [(name, value * scale) for name, value in bar_segments(hit)]
    item.setData(column, SEGMENTS_ROLE, segments or None)
    item.setData(column, MARK_ROLE, threshold * scale if threshold > 0 else None)
    below = threshold > 0 and hit.score < threshold
    item.setData(column, DIM_ROLE, below)
    for cell in range(item.columnCount()):
        item.setData(cell, Qt.ItemDataRole.ForegroundRole, colour(_DIMMED) if below else None)


# -- the ranking's rows: the equation under each, the name elided in the middle ------------------


def equation_font(font: QFont) -> QFont:
    """The equation line's font: the table's, smaller."""
    small = QFont(font)
    if font.pointSizeF() > 0:
        small.setPointSizeF(font.pointSizeF() * _EQUATION_SCALE)
    else:
        small.setPixelSize(max(1, round(font.pixelSize() * _EQUATION_SCALE)))
    return small


def _equation_height(font: QFont) -> int:
    return QFontMetrics(equation_font(font)).height() + 2


def _has_equation(index: _Index) -> bool:
    return bool(index.sibling(index.row(), 0).data(EQUATION_ROLE))


def _top_line(option: QStyleOptionViewItem, index: _Index) -> QStyleOptionViewItem:
    """The part of a cell its own content is painted in: all of it, or above the equation."""
    if not _has_equation(index):
        return option
    top = QStyleOptionViewItem(option)
    rect = QRect(option.rect)
    rect.setHeight(rect.height() - _equation_height(option.font))
    top.rect = rect
    return top


def _paint_background(
    delegate: QStyledItemDelegate, painter: QPainter, option: QStyleOptionViewItem, index: _Index
) -> None:
    """The cell's background (selection, hover) over the whole row height, equation included."""
    full = QStyleOptionViewItem(option)
    delegate.initStyleOption(full, index)
    widget = full.widget
    style = widget.style() if widget is not None else QApplication.style()
    style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, full, painter, widget)


def _taller(size: QSize, option: QStyleOptionViewItem, index: _Index) -> QSize:
    if _has_equation(index):
        size.setHeight(size.height() + _equation_height(option.font))
    return size


class _AboveEquation(QStyledItemDelegate):
    """Paints a cell on its row's first line, above the row's equation (a mixin over a
    delegate: the row's background spans both lines)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        if _has_equation(index):
            _paint_background(self, painter, option, index)
        super().paint(painter, _top_line(option, index), index)

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        return _taller(super().sizeHint(option, index), option, index)


class _RankingCells(_AboveEquation):
    """A ranking cell: painted above its row's equation; the tool's name elided in the middle."""

    def __init__(self, name_column: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._name_column = name_column

    def initStyleOption(self, option: QStyleOptionViewItem, index: _Index) -> None:
        super().initStyleOption(option, index)
        if index.column() == self._name_column:
            option.textElideMode = Qt.TextElideMode.ElideMiddle


class _RankingBars(_AboveEquation, StackedBarDelegate):
    """The score bars of the ranking, above each row's equation."""


class RankingTree(QTreeWidget):
    """The ranking: a row per hit with its score equation (`EQUATION_ROLE`) under it, in a
    smaller, muted line from the tool's name to the right edge; the name (column
    `name_column`) elided in the middle; the score bars in `bar_column`."""

    def __init__(self, name_column: int, bar_column: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._name_column = name_column
        self.setUniformRowHeights(False)  # a hit's row has two lines, its details one
        self.setItemDelegate(_RankingCells(name_column, self))
        self.setItemDelegateForColumn(
            bar_column,
            _RankingBars(_BAR_COLOURS, OTHER_SIGNAL, self),
        )

    def drawBranches(self, painter: QPainter, rect: QRect, index: _Index) -> None:
        """The arrow beside the first line, not in the middle of the two."""
        if _has_equation(index):
            rect = QRect(rect)
            rect.setHeight(rect.height() - _equation_height(self.font()))
        super().drawBranches(painter, rect, index)

    def drawRow(self, painter: QPainter, options: QStyleOptionViewItem, index: _Index) -> None:
        super().drawRow(painter, options, index)
        equation = index.sibling(index.row(), 0).data(EQUATION_ROLE)
        if not equation:
            return
        font = equation_font(self.font())
        height = _equation_height(self.font())
        left = self.header().sectionViewportPosition(self._name_column) + 4
        rect = QRect(left, options.rect.bottom() + 1 - height, 0, height - 1)
        rect.setRight(self.viewport().width() - 4)
        selected = self.selectionModel().isSelected(index)
        painter.save()
        painter.setFont(font)
        if selected:
            painter.setPen(options.palette.color(QPalette.ColorRole.HighlightedText))
        else:
            below = index.sibling(index.row(), 0).data(Qt.ItemDataRole.ForegroundRole) is not None
            painter.setPen(colour(_DIMMED if below else "muted"))
        text = QFontMetrics(font).elidedText(
            str(equation), Qt.TextElideMode.ElideRight, rect.width()
        )
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        painter.restore()
