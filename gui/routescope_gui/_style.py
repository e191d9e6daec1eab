"""Colours and the style sheet: one palette for the editor, the legend and the views."""

from __future__ import annotations

from PySide6.QtGui import QColor

# Label -> (fill, accent). Fills are light so the text stays readable under several layers.
LABELS: dict[str, tuple[str, str]] = {
    "entity": ("#d6e6ff", "#2f6fdb"),
    "place": ("#cdf2d6", "#1f8a46"),
    "tech": ("#eadcff", "#7a3fd1"),
    "local": ("#ffe4c2", "#c76a00"),
    "purchase": ("#ffd9e6", "#c2185b"),
    "troubleshooting": ("#ffd2cc", "#c62828"),
    "time_sensitive": ("#fff0a8", "#9a7b00"),
    "anchor": ("#c8f1ee", "#00796b"),
}

CLASS_COLOURS = {"guided": "#2e7d32", "semi": "#f9a825", "vague": "#c62828"}

STRATEGY_COLOURS = {"general": "#546e7a", "local": "#c76a00", "tech": "#7a3fd1"}

MUTED = "#90a4ae"
"""Text and marks that are present but off (an intent flag that is off, a dropped entity)."""


def fill(label: str) -> QColor:
    return QColor(LABELS[label][0])


def accent(label: str) -> QColor:
    return QColor(LABELS[label][1])


# A badge's colour follows its `tone` property, so a new result re-polishes it only when the
# tone changes (a style sheet set per result re-polishes the whole badge every time).
_BADGE_TONES = "\n".join(
    f'QLabel#badge[tone="{tone}"] {{ background: {colour}; }}'
    for tone, colour in {**STRATEGY_COLOURS, **CLASS_COLOURS}.items()
)

STYLE_SHEET = (
    """
QMainWindow, QWidget#central { background: #f6f7f9; }
QGroupBox {
    background: white; border: 1px solid #dde1e6; border-radius: 8px;
    margin-top: 14px; padding: 8px 8px 8px 8px; font-weight: 600;
}
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; color: #37474f; }
QPlainTextEdit#prompt {
    font-size: 15px; border: 1px solid #c5ccd6; border-radius: 6px; padding: 6px;
    background: white; selection-background-color: #90caf9;
}
QLabel#badge {
    color: white; border-radius: 6px; padding: 4px 14px; font-size: 18px; font-weight: 700;
    background: """
    + MUTED
    + """;
}
"""
    + _BADGE_TONES
    + """
QLabel#reason { color: #263238; font-size: 13px; }
QLabel#muted, QLabel#gate { color: #607d8b; }
QLabel#banner {
    background: #ffebee; color: #b71c1c; border: 1px solid #ef9a9a; border-radius: 6px;
    padding: 4px 8px;
}
QLabel#verdict[tone="fits"] { color: #607d8b; }
QLabel#verdict[tone="nofit"] {
    background: #fff4e0; color: #6d4100; border: 1px solid #f0b256; border-radius: 6px;
    padding: 3px 8px;
}
QFrame#stale {
    background: #fff4e0; color: #6d4100; border: 1px solid #f0b256; border-radius: 6px;
}
QLabel#caption {
    background: #fff4e0; color: #6d4100; border: 1px solid #f0b256; border-radius: 4px;
    padding: 1px 6px;
}
QLabel#researchVerdict { border-radius: 6px; padding: 3px 8px; }
QLabel#researchVerdict[tone="proceed"] { background: #edf7ee; }
QLabel#researchVerdict[tone="research_again"] { background: #fff6e5; }
QLabel#researchVerdict[tone="proceed_weak"] { background: #fff6e5; }
QLabel#researchVerdict[tone="escalate"] { background: #fdecec; }
QTableView, QTreeWidget, QPlainTextEdit#json, QTextBrowser#detail {
    background: white; border: 1px solid #dde1e6; border-radius: 6px;
    gridline-color: #eceff1; alternate-background-color: #fafbfc;
}
QHeaderView::section {
    background: #eef1f4; border: none; border-bottom: 1px solid #dde1e6; padding: 4px 6px;
    font-weight: 600; color: #37474f;
}
QStatusBar { color: #455a64; }
QToolBar { background: #eef1f4; border-bottom: 1px solid #dde1e6; spacing: 8px; padding: 4px; }
"""
)
