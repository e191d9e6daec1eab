"""The prompt editor paints overlapping evidence as merged segments: a keyword over an entity
keeps both its underline and the entity's fill, with readable text in either theme."""

from PySide6.QtGui import QColor, QTextCharFormat

from routescope_gui._editor import Highlight, PromptEditor, _segments
from routescope_gui._style import INK, accent, fill


def span(start: int, end: int, label: str) -> Highlight:
    return Highlight(start, end, label, tooltip=label)


def test_segments_split_at_every_edge_and_keep_the_layer_order() -> None:
    place, local, flip = span(5, 21, "place"), span(0, 21, "local"), span(0, 4, "flip")
    assert _segments([place, local, flip]) == [
        (0, 4, ("local", "flip")),
        (4, 5, ("local",)),
        (5, 21, ("place", "local")),
    ]
    assert _segments([span(3, 3, "entity")]) == []  # empty spans paint nothing
    assert _segments([span(0, 2, "tech"), span(4, 6, "tech")]) == [
        (0, 2, ("tech",)),
        (4, 6, ("tech",)),
    ]


def test_a_keyword_over_a_fill_keeps_the_fill_and_takes_its_accent(qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = PromptEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("near Denver, Colorado")
    editor.show_highlights([span(5, 21, "place"), span(0, 21, "local")])
    selections = editor.extraSelections()
    assert [(s.cursor.selectionStart(), s.cursor.selectionEnd()) for s in selections] == [
        (0, 5),
        (5, 21),
    ]
    both = selections[1].format
    assert both.background().color() == fill("place")  # the place's fill stays
    assert both.underlineStyle() == QTextCharFormat.UnderlineStyle.SingleUnderline
    assert both.foreground().color() == accent("local")  # the keyword's accent is on top
    fill_only = editor._merged(("place",))
    assert fill_only.foreground().color() == QColor(INK)  # dark text on a light fill
