"""The Research tab's panes keep their rows in a short window: at 1280×720 and 1024×768 the
attempts, the findings and the detail pane each show their least rows (they had two or three),
none lies over another, and their column scrolls inside the tab instead of growing it; picking
a row brings the detail pane into sight with it."""

import dataclasses
import itertools
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QWidget

import routescope
from routescope_gui import MainWindow, Session
from routescope_gui._research_panes import (
    ATTEMPT_ROWS,
    DETAIL_LINES,
    FINDING_ROWS,
    row_height,
)
from routescope_gui._research_view import VERDICT_LINES, ResearchView
from tests._support import TODAY
from tests.gui._support import GOAL, Factory


@pytest.fixture
def researched(qtbot, qloop, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A window with `GOAL` researched offline (the tests' corpus) and its Research tab shown,
    the best attempt open; resized by the test."""
    session = Session(
        routescope.Request.build("", today=TODAY), cache=tmp_path, research_search=Factory()
    )
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.show_tab("Research")
    with qtbot.waitSignal(session.research.finished, timeout=30_000):
        window.set_prompt(GOAL)
    window.research_view.expand_best()
    return window


def line(widget: QWidget) -> int:
    return widget.fontMetrics().lineSpacing()


def _settled(qtbot, view: ResearchView) -> None:  # type: ignore[no-untyped-def]
    """The column has taken its height (a layout pass or two after a change)."""
    column = view.panes.widget()
    assert column is not None
    qtbot.waitUntil(lambda: column.height() >= column.minimumSizeHint().height())
    QApplication.processEvents()


def _assert_laid_out(view: ResearchView) -> None:
    """The verdict and the panes one under the other, none over another, each within the
    column and small enough to be seen whole when scrolled to; the column scrolls inside the
    tab (the tab's page is no taller than the tabs)."""
    column = view.panes.widget()
    assert column is not None
    parts = [view.summary_box, view.table, view.findings, view.detail]
    spans = [QRect(part.mapTo(column, QPoint(0, 0)), part.size()) for part in parts]
    assert all(a.bottom() < b.top() for a, b in itertools.pairwise(spans)), spans
    assert all(column.rect().contains(span) for span in spans), (column.rect(), spans)
    assert all(span.height() <= view.panes.viewport().height() for span in spans)
    assert view.panes.verticalScrollBar().maximum() > 0
    stack = view.parentWidget()  # (the tabs' pages)
    assert stack is not None and view.geometry().bottom() < stack.height()


@pytest.mark.parametrize("size", [(1280, 720), (1024, 768)])
def test_each_pane_keeps_its_rows_and_none_lies_over_another(
    qtbot, researched: MainWindow, size: tuple[int, int]
) -> None:  # type: ignore[no-untyped-def]
    window, view = researched, researched.research_view
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().toTuple() == size)
    _settled(qtbot, view)
    rows = {
        "attempts": view.table.viewport().height() / row_height(view.table),
        "findings": view.findings.viewport().height() / row_height(view.findings),
        "detail": view.detail.viewport().height() / line(view.detail),
    }
    least = {"attempts": ATTEMPT_ROWS, "findings": FINDING_ROWS, "detail": DETAIL_LINES}
    assert all(rows[pane] >= least[pane] for pane in rows), rows  # (they were 2.2, 2.2, 4.1)
    _assert_laid_out(view)
    # A longer verdict takes its lines from the column, not from the panes or the tab.
    result = view.result
    assert result is not None
    warnings = [f"warning number {n} about the pages read" for n in range(12)]
    view.show_result(dataclasses.replace(result, warnings=warnings))
    qtbot.waitUntil(lambda: view.summary_box.height() == VERDICT_LINES * line(view.summary) + 6)
    _settled(qtbot, view)
    _assert_laid_out(view)
    assert window.live.body_scroll.verticalScrollBar().maximum() == 0


def test_picking_a_finding_brings_the_detail_into_sight(qtbot, researched: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window, view = researched, researched.research_view
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1280, 720))
    QApplication.processEvents()
    bar = view.panes.verticalScrollBar()
    assert bar.value() == 0  # the verdict first
    detail = view.detail

    def detail_in_sight() -> int:
        shown = detail.visibleRegion().boundingRect()
        return shown.height() if not shown.isEmpty() else 0

    assert detail_in_sight() < 2 * detail.fontMetrics().lineSpacing()
    finding = view.findings.topLevelItem(0)
    assert finding is not None
    window.activateWindow()
    view.findings.setFocus()
    qtbot.waitUntil(view.findings.hasFocus)
    view.findings.setCurrentItem(finding)
    qtbot.waitUntil(lambda: detail_in_sight() == detail.height())  # the whole pane, here
    row = view.findings.visualItemRect(finding)
    assert row.intersects(view.findings.viewport().visibleRegion().boundingRect())  # still seen
    window.set_prompt("threading")  # another prompt: its verdict first
    qtbot.waitUntil(lambda: view.result is not None and view.result.goal == "threading")
    assert bar.value() == 0
