"""The prompt editor paints overlapping evidence as merged segments: a keyword over an entity
keeps both its underline and the entity's fill, with readable text in either theme."""

from PySide6.QtGui import QColor, QPalette, QTextCharFormat

from routescope_gui._editor import Highlight, PromptEditor, _segments
from routescope_gui._style import INK, accent, fill
from tests.gui._support import contrast


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
    assert both.underlineColor() == accent("local")  # the keyword's accent is its underline
    assert both.foreground().color() == QColor(INK)  # and the text stays dark on the fill
    fill_only = editor._merged(("place",))
    assert fill_only.foreground().color() == QColor(INK)  # dark text on a light fill


def test_a_keyword_over_a_fill_reads_in_the_dark_scheme_too(qtbot, dark) -> None:  # type: ignore[no-untyped-def]
    editor = PromptEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("best ramen near Denver open now")
    editor.show_highlights(
        [span(16, 22, "place"), span(11, 22, "local"), span(28, 31, "time_sensitive")]
    )
    over_fill, alone = editor._merged(("place", "local")), editor._merged(("time_sensitive",))
    ink = over_fill.foreground().color()
    assert contrast(ink, over_fill.background().color()) >= 4.5  # a light fill: dark ink
    assert over_fill.underlineColor() == accent("local", "light")
    base = editor.palette().color(QPalette.ColorRole.Base)
    assert alone.foreground().color() == accent("time_sensitive", "dark")  # on the dark base
    assert contrast(alone.foreground().color(), base) >= 4.5
