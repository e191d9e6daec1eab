"""The prompt editor: entity spans, the place hint and intent keywords highlighted in place."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import ClassVar

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QHelpEvent, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QTextEdit, QToolTip, QWidget

from routescope import Inspection

from ._style import LABELS, accent, fill

__all__ = ["Highlight", "Legend", "PromptEditor", "highlights"]

_MAX_HIGHLIGHTS = 400


@dataclass(frozen=True, slots=True)
class Highlight:
    """One span to paint: Python string offsets into the prompt, and what it is."""

    start: int
    end: int
    label: str
    tooltip: str


def highlights(result: Inspection) -> list[Highlight]:
    """Everything the routers found in the prompt, as spans to paint."""
    ctx = result.context
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
        for a in result.lint.evidence
    ]
    return found


class _Utf16:
    """Maps Python string offsets to Qt's UTF-16 positions (they differ after an emoji)."""

    def __init__(self, text: str) -> None:
        self._astral = (
            [i for i, c in enumerate(text) if ord(c) > 0xFFFF] if not text.isascii() else []
        )

    def __call__(self, index: int) -> int:
        return index + bisect_left(self._astral, index)


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
        self.setMouseTracking(True)

    def show_highlights(self, spans: list[Highlight]) -> None:
        to_qt = _Utf16(self.toPlainText())
        selections = []
        # Entities and places as fills first, then keywords as underlines on top of them.
        ordered = sorted(
            spans[:_MAX_HIGHLIGHTS], key=lambda h: h.label not in ("entity", "place", "anchor")
        )
        for span in ordered:
            selection = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.document())
            cursor.setPosition(to_qt(span.start))
            cursor.setPosition(to_qt(span.end), QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format = self._format(span.label)
            selections.append(selection)
        self.setExtraSelections(selections)
        self._hovered = spans

    def _format(self, label: str) -> QTextCharFormat:
        fmt = QTextCharFormat()
        if label in ("entity", "place", "anchor"):
            fmt.setBackground(fill(label))
        else:
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
            fmt.setUnderlineColor(accent(label))
            fmt.setForeground(accent(label))
            fmt.setFontWeight(QFont.Weight.DemiBold)
            fmt.setProperty(QTextFormat.Property.FullWidthSelection, False)
        return fmt

    def spans_at(self, index: int) -> list[Highlight]:
        """The highlights covering a Python string offset (for tooltips and tests)."""
        return [h for h in self._hovered if h.start <= index < h.end]

    def event(self, event: QEvent) -> bool:
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip:
            cursor = self.cursorForPosition(self.viewport().mapFromGlobal(event.globalPos()))
            text = self.toPlainText()
            index = _from_qt(text, cursor.position())
            tips = [h.tooltip for h in self.spans_at(index)]
            if tips:
                QToolTip.showText(event.globalPos(), "\n".join(tips), self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


def _from_qt(text: str, position: int) -> int:
    index = units = 0
    while index < len(text) and units < position:
        units += 2 if ord(text[index]) > 0xFFFF else 1
        index += 1
    return index


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
        for label, name in self.NAMES.items():
            chip = QLabel(name)
            fill_colour, accent_colour = LABELS[label]
            if label in ("entity", "place", "anchor"):
                css = f"background:{fill_colour}; color:#263238;"
            else:
                css = f"color:{accent_colour}; border:1px solid {accent_colour}; font-weight:600;"
            chip.setStyleSheet(f"QLabel {{ {css} border-radius: 9px; padding: 1px 8px; }}")
            chip.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(chip)
        layout.addStretch(1)
