"""The prompt editor: entity spans, the place hint, intent keywords and linter anchors
highlighted in place, with the evidence as tooltips."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import (
    QFont,
    QHelpEvent,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QTextEdit, QToolTip, QWidget

from ._style import LABELS, accent, colour, css, fill

if TYPE_CHECKING:
    from routescope import Inspection

__all__ = ["Highlight", "Legend", "PromptEditor", "highlights"]

_MAX_HIGHLIGHTS = 400
"""Spans painted; the editor slows down with thousands of extra selections."""
_MAX_ANCHORS = 2_000
"""Linter anchors kept for tooltips; a pasted book can have tens of thousands."""
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_FILLED = frozenset({"entity", "place", "anchor", "trace"})
"""Labels painted as a light fill (the others as coloured, underlined text)."""


@dataclass(frozen=True, slots=True)
class Highlight:
    """One span to paint: Python string offsets into the prompt, and what it is."""

    start: int
    end: int
    label: str
    tooltip: str


def highlights(inspection: Inspection) -> list[Highlight]:
    """Everything the routers found in the prompt, as spans to paint."""
    ctx = inspection.context
    found = [
        Highlight(
            e.start, e.end, "entity", f"entity #{rank}: {e.text} — {e.reason} (score {e.score:g})"
        )
        for rank, e in enumerate(ctx.entities.details, start=1)
    ]
    if ctx.entities.place is not None:
        place = ctx.entities.place
        found.append(
            Highlight(place.start, place.end, "place", f"place hint: {place.text} — {place.rule}")
        )
    found += [
        Highlight(m.start, m.end, m.intent, f"intent.{m.intent}: keyword “{m.keyword}”")
        for m in ctx.intent_matches
    ]
    found += [
        Highlight(
            a.start,
            a.end,
            "anchor",
            f"linter: {a.kind} anchor {a.anchor}" + (f" (alias “{a.alias}”)" if a.alias else ""),
        )
        for a in inspection.lint.evidence[:_MAX_ANCHORS]
    ]
    return found


class _Utf16:
    """Maps Python string offsets to Qt's UTF-16 positions and back (they differ after an
    emoji: a character outside the BMP is two UTF-16 units)."""

    def __init__(self, text: str) -> None:
        astral = [] if text.isascii() else [m.start() for m in _ASTRAL.finditer(text)]
        self._astral = astral
        self._astral_qt = [index + before for before, index in enumerate(astral)]

    def to_qt(self, index: int) -> int:
        return index + bisect_left(self._astral, index)

    def to_python(self, position: int) -> int:
        """The offset of a cursor position (never inside a surrogate pair)."""
        return position - bisect_left(self._astral_qt, position)


def _segments(layers: list[Highlight]) -> list[tuple[int, int, tuple[str, ...]]]:
    """The stretches of text between span edges, each with the labels of the spans over it in
    `layers` order (an empty stretch or one under no span is left out)."""
    edges: dict[int, list[tuple[int, bool]]] = {}
    for order, span in enumerate(layers):
        if span.end > span.start:
            edges.setdefault(span.start, []).append((order, True))
            edges.setdefault(span.end, []).append((order, False))
    segments = []
    active: dict[int, str] = {}
    cuts = sorted(edges)
    for at, following in itertools.pairwise(cuts):
        for order, opens in edges[at]:
            if opens:
                active[order] = layers[order].label
            else:
                active.pop(order, None)
        if active:
            segments.append((at, following, tuple(active[o] for o in sorted(active))))
    return segments


class PromptEditor(QPlainTextEdit):
    """A plain-text editor that paints router evidence over the text without changing it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("prompt")
        self.setPlaceholderText(
            "Type a prompt — e.g. “Best ramen near Denver, Colorado tonight” or "
            "“How do I install FastAPI on Ubuntu?”"
        )
        self.setTabChangesFocus(True)
        self._hovered: list[Highlight] = []
        self._spans: list[Highlight] = []
        self._spans_text = ""
        self._marks: dict[str, tuple[str, list[Highlight]]] = {}
        self._offsets = _Utf16("")
        self._formats: dict[tuple[str, ...], QTextCharFormat] = {}
        self.setMouseTracking(True)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._formats.clear()  # another scheme: other accents
            self._paint()
        super().changeEvent(event)

    def show_highlights(self, spans: list[Highlight]) -> None:
        self._spans = spans
        self._spans_text = self.toPlainText()
        self._paint()

    def show_marks(self, layer: str, marks: list[Highlight], text: str) -> None:
        """Marks painted over the highlights, one layer each (`flip`: a word whose removal
        flips a decision; `trace`: a traced entity), for the prompt `text`: a layer is painted
        only while the prompt is that text."""
        self._marks[layer] = (text, marks)
        self._paint()

    def _paint(self) -> None:
        text = self.toPlainText()
        self._offsets = _Utf16(text)
        to_qt = self._offsets.to_qt
        marks = [m for shown, layer in self._marks.values() if shown == text for m in layer]
        spans = self._spans if self._spans_text == text else []  # (marks may come first)
        # Entities and places as fills first, then keywords as underlines on top of them, then
        # the marks: where they overlap, one segment gets their formats merged in that order
        # (overlapping selections would each paint their own colours, not a blend).
        ordered = sorted(spans[:_MAX_HIGHLIGHTS], key=lambda h: h.label not in _FILLED)
        selections = []
        for start, end, labels in _segments([*ordered, *marks[:_MAX_HIGHLIGHTS]]):
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(to_qt(start))
            cursor.setPosition(to_qt(end), QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format = self._merged(labels)
            selections.append(selection)
        self.setExtraSelections(selections)
        self._hovered = [*spans, *marks]

    def _merged(self, labels: tuple[str, ...]) -> QTextCharFormat:
        merged = self._formats.get(labels)
        if merged is None:
            merged = QTextCharFormat()
            on_fill = any(label in _FILLED for label in labels)
            for label in labels:
                merged.merge(self._format(label, on_fill=on_fill))
            self._formats[labels] = merged
        return merged

    def _format(self, label: str, *, on_fill: bool = False) -> QTextCharFormat:
        """A label's look; `on_fill`: over a light fill, whose dark text stays (in both
        schemes): a keyword there is told by its underline, in the light scheme's accent."""
        fmt = QTextCharFormat()
        if label == "flip":  # a word that matters: a wavy underline over its other colours
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(colour("flip"))
            return fmt
        if label == "trace":
            fmt.setBackground(colour("trace"))
            fmt.setForeground(colour("ink"))
            fmt.setFontWeight(QFont.Weight.Bold)
            return fmt
        if label in _FILLED:
            fmt.setBackground(fill(label))
            fmt.setForeground(colour("ink"))  # the fills are light in both themes
        else:
            ink = accent(label, "light" if on_fill else None)
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(ink)
            if not on_fill:
                fmt.setForeground(ink)
            fmt.setFontWeight(QFont.Weight.DemiBold)
            fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        return fmt

    def spans_at(self, index: int) -> list[Highlight]:
        """The highlights covering a Python string offset (for tooltips and tests)."""
        return [h for h in self._hovered if h.start <= index < h.end]

    def event(self, event: QEvent) -> bool:
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip:
            cursor = self.cursorForPosition(self.viewport().mapFromGlobal(event.globalPos()))
            index = self._offsets.to_python(cursor.position())
            tips = [h.tooltip for h in self.spans_at(index)]
            if tips:
                QToolTip.showText(event.globalPos(), "\n".join(tips), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


class Legend(QWidget):
    """Colour chips naming each kind of highlight."""

    NAMES: ClassVar[dict[str, str]] = {
        "entity": "entity",
        "place": "place",
        "tech": "tech",
        "local": "local",
        "purchase": "purchase",
        "troubleshooting": "troubleshooting",
        "time_sensitive": "time",
        "anchor": "linter anchor",
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        caption = QLabel("legend:")
        caption.setObjectName("muted")
        layout.addWidget(caption)
        self._chips: dict[str, QLabel] = {}
        for label, name in self.NAMES.items():
            chip = QLabel(name)
            chip.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(chip)
            self._chips[label] = chip
        layout.addStretch(1)
        self._colour_chips()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.ApplicationPaletteChange:
            self._colour_chips()  # another scheme: other accents
        super().changeEvent(event)

    def _colour_chips(self) -> None:
        for label, chip in self._chips.items():
            if label in _FILLED:
                look = f"background:{LABELS[label][0]}; color:{css('ink')};"
            else:
                ink = accent(label).name()
                look = f"color:{ink}; border:1px solid {ink}; font-weight:600;"
            chip.setStyleSheet(f"QLabel {{ {look} border-radius: 9px; padding: 1px 8px; }}")
