"""The stage timing bar: each stage a segment as wide as its share of the time, its µs and
share in the tooltip, its colour a label accent of the theme."""

from PySide6.QtGui import QColor

from routescope_gui._style import accent
from routescope_gui._timing_bar import STAGE_ACCENTS, TimingBar, stage_shares

TIMINGS = {"extract": 300.0, "route": 0.0, "plan": 100.0, "decide": 600.0, "total": 1_050.0}


def test_shares_leave_the_total_out() -> None:
    assert stage_shares(TIMINGS) == [
        ("extract", 300.0, 0.3),
        ("route", 0.0, 0.0),
        ("plan", 100.0, 0.1),
        ("decide", 600.0, 0.6),
    ]
    assert stage_shares({"total": 5.0}) == []
    assert stage_shares({"extract": 0.0}) == [("extract", 0.0, 0.0)]


def test_segments_follow_the_shares_and_say_their_numbers(qtbot) -> None:  # type: ignore[no-untyped-def]
    bar = TimingBar()
    qtbot.addWidget(bar)
    bar.resize(201, bar.sizeHint().height())
    bar.show_timings(TIMINGS)
    boxes = dict(bar.segments())
    assert set(boxes) == {"extract", "plan", "decide"}  # a stage without time has none
    widths = {name: round(box.width()) for name, box in boxes.items()}
    assert widths == {"extract": 60, "plan": 20, "decide": 120}
    assert boxes["extract"].right() <= boxes["plan"].left() + 0.01
    tip = bar.toolTip()
    assert "total 1,050 µs" in tip and "600 µs" in tip and "60%" in tip
    assert bar.accessibleDescription().startswith("extract 300 µs")
    image = bar.grab().toImage()
    middle = boxes["decide"].center().toPoint()
    assert QColor(image.pixel(middle.x(), 2)) == accent(STAGE_ACCENTS["decide"])
    bar.show_timings(None)
    assert bar.segments() == [] and bar.toolTip() == ""
