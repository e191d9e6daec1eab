"""Window-level fit: focus, zoom, the banner's room, the status bar's timings (issue 19 §1)."""

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

import routescope
from routescope_gui import MainWindow
from routescope_gui._window_state import SETTINGS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_shortcuts_focus_the_prompt_from_any_view(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    for key in (Qt.Key.Key_L, Qt.Key.Key_F6):
        window.show_tab("Batch")
        window.batch_view.setFocus()
        modifier = (
            Qt.KeyboardModifier.ControlModifier
            if key == Qt.Key.Key_L
            else Qt.KeyboardModifier.NoModifier
        )
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        qtbot.keyClick(window.batch_view, key, modifier)
        qtbot.waitUntil(lambda: window.editor.hasFocus())
        assert window.views.currentWidget() is window.live
    window.show_tab("Plan")
    window.strategy_view.context_tree.setFocus()
    window.focus_prompt_action.trigger()
    assert window.editor.hasFocus()


def test_zoom_scales_the_window_font_and_is_remembered(qtbot, window, tool_cache) -> None:  # type: ignore[no-untyped-def]
    base = window.font().pointSizeF()
    window.zoom_in_action.trigger()
    window.zoom_in_action.trigger()
    assert window.font().pointSizeF() == base + 2
    assert window.editor.font().pointSizeF() >= base + 2 or window.zoom_steps == 2
    window.zoom_out_action.trigger()
    assert window.zoom_steps == 1
    again = MainWindow(cache=tool_cache)
    qtbot.addWidget(again)
    assert again.zoom_steps == 1 and again.font().pointSizeF() == base + 1
    window.zoom_reset_action.trigger()
    assert window.font().pointSizeF() == base
    assert int(str(QSettings(*SETTINGS).value("window/zoom"))) == 0


def test_the_banner_takes_room_inside_the_window(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # At its least height, as on a 768-px screen (the walk saw 720 grow to 743 px).
    least = max(window.minimumSizeHint().height(), 400)
    window.resize(1280, least)
    qtbot.waitUntil(lambda: window.height() == least)
    size = window.size()
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    assert not window.open_rules(bad)
    qtbot.waitUntil(lambda: window.banner.isVisible())
    QApplication.processEvents()
    assert window.size() == size
    window.builtin_rules_action.trigger()
    qtbot.waitUntil(lambda: not window.banner.isVisible())
    QApplication.processEvents()
    assert window.size() == size


def test_timings_stay_when_a_message_is_shown(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("pizza near me")
    qtbot.waitUntil(lambda: "µs" in window.timings_label.text())
    window.statusBar().showMessage("Open a rule pack")  # what a menu's hint does
    assert "µs" in window.timings_label.text() and window.timings_label.isVisible()


LONG_PROMPT = (
    "Book a table for four at an Italian restaurant near the Ferry Building in San Francisco "
    "tomorrow at 7pm, then email the confirmation to alice@example.com and add it to my "
    "calendar with a reminder an hour before, and also check the weather forecast for the "
    "evening, and find a parking garage close to the restaurant that is open late"
)


def test_the_context_evidence_column_stays_in_sight_at_1024(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(1024, 768)
    window.set_prompt(LONG_PROMPT)
    tree = window.strategy_view.context_tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() > 0)
    header = tree.header()

    def evidence_in_sight() -> bool:
        # (columns are fitted once the tree is filled and laid out: events, not one pass)
        end = header.sectionViewportPosition(2) + header.sectionSize(2)
        return end <= tree.viewport().width() and tree.horizontalScrollBar().maximum() == 0

    qtbot.waitUntil(evidence_in_sight)
    assert header.sectionSize(2) >= 80
    goal = tree.topLevelItem(3)
    assert goal is not None and goal.text(0) == "Goal"
    assert "Ferry Building" in goal.toolTip(1)  # the whole goal on hover


def test_a_long_query_takes_three_lines_of_the_plan_and_copies_whole(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from routescope_gui._strategy_view import PLAN_LINES
    from routescope_gui._widgets import selection_as_tsv

    window.resize(1024, 768)
    window.show_tab("Plan")
    window.set_prompt(LONG_PROMPT)
    table = window.strategy_view.plan_table
    qtbot.waitUntil(lambda: table.model().rowCount() > 0)
    QApplication.processEvents()
    line = table.fontMetrics().lineSpacing()
    assert table.rowHeight(0) <= PLAN_LINES * line + 16
    assert table.rowHeight(0) >= 2 * line  # the query wraps onto its lines, not one
    table.selectRow(0)
    copied = selection_as_tsv(table)
    assert "open late" in copied  # the query whole, not the lines shown
    assert "open late" in str(table.model().index(0, 3).data(Qt.ItemDataRole.ToolTipRole))


def test_each_tool_row_shows_its_equation_and_long_names_elide_in_the_middle(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QStyleOptionViewItem

    from routescope.toolsearch import score_equation
    from routescope_gui._toolsearch_rows import EQUATION_ROLE
    from routescope_gui._toolsearch_view import ToolSearchView
    from tests.gui.test_toolsearch_view import hit, result

    view = ToolSearchView()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    long_name = "github.pull_requests.create_review_comment"
    hits = [hit(1, long_name, vector=0.6, keyword=0.2)]
    hits += [hit(n, f"files.t{n}", vector=0.5 - n / 50) for n in range(2, 11)]
    view.show_result(result(hits))
    qtbot.waitExposed(view)
    table = view.table
    for n, found in enumerate(hits):
        row = table.topLevelItem(n)
        assert row is not None and row.data(0, EQUATION_ROLE) == score_equation(found)
    assert table.topLevelItem(0).data(0, EQUATION_ROLE).startswith("0.800 = ")  # type: ignore[union-attr]
    one_line = table.fontMetrics().height()
    assert table.sizeHintForRow(0) >= one_line + 8  # a second line: the equation
    assert table.viewport().height() >= 8 * table.sizeHintForRow(0)  # eight rows in sight
    top = table.topLevelItem(0)
    assert top is not None and top.toolTip(1).startswith(long_name)
    option = QStyleOptionViewItem()
    table.itemDelegate().initStyleOption(option, table.indexFromItem(top, 1))
    assert option.textElideMode == Qt.TextElideMode.ElideMiddle
    assert table.columnWidth(1) < table.fontMetrics().horizontalAdvance(long_name) + 16


def test_no_result_tab_widens_the_window_at_1024(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    """At 1024×768 every result tab fits beside the Context pane: none asks for more width than
    the right side has (the Contract tab's unwrapped labels once asked 689 px and pushed the
    live view 30 px past the window)."""
    window.resize(1024, 768)
    window.set_prompt("why is my container crashing after the deploy?")
    tabs = window.live.tabs
    room = 1024 - window.live.splitter.widget(0).minimumSizeHint().width() - 40  # (margins)
    for index in range(tabs.count()):
        tabs.setCurrentIndex(index)  # (a tab shows the prompt's result once it is shown)
        if tabs.tabText(index) == "Contract":
            label = window.contract_view.step_label
            qtbot.waitUntil(lambda label=label: label.text().startswith("next:"))
        QApplication.processEvents()
        page = tabs.widget(index)
        assert page.minimumSizeHint().width() <= room, tabs.tabText(index)


MULTI_NEED = "book a flight to Lisbon, find a hotel near the venue and check the weather there"


@pytest.mark.parametrize("size", [(1024, 768), (1280, 720)])
def test_the_tools_ranking_explains_each_score_without_scrolling_sideways(  # type: ignore[no-untyped-def]
    qtbot, window, size
) -> None:
    """Beside the Context pane and with the Step pane shown, the ranking's rank, tool (with the
    step that placed it), score and Why column lie inside its viewport — no horizontal scroll
    bar (at 1024 px the explanation once sat 412 px to the right, behind one); the detail
    columns that do not fit give way, and the selected tool's explanation is said whole under
    the ranking."""
    from routescope_gui._toolsearch_hits import WHY

    catalog = routescope.CatalogRef.from_path(EXAMPLES / "catalogs" / "openai-tools.json")
    window.resize(*size)
    window.session.set_catalog(catalog)
    window.set_prompt(MULTI_NEED)
    view = window.toolsearch_view
    with qtbot.waitSignal(window.session.tools.ranked, timeout=120_000):
        window.show_tab("Tools")
    qtbot.waitUntil(lambda: view.steps.isVisible() and view.steps.width() > 0)
    table, header = view.table, view.table.header()
    rows = [table.topLevelItem(n) for n in range(table.topLevelItemCount())]
    merged = [n for n, row in enumerate(rows) if row is not None and "step" in row.text(1)]
    assert merged, "the step merge places a tool (step N's best)"

    def explained_in_sight() -> bool:
        room = table.viewport().width()
        ends = [header.sectionViewportPosition(c) + header.sectionSize(c) for c in (0, 1, 2, WHY)]
        return table.horizontalScrollBar().maximum() == 0 and max(ends) <= room

    qtbot.waitUntil(explained_in_sight)
    assert [header.visualIndex(c) for c in (0, 1, 2, WHY)] == [0, 1, 2, 3]
    assert not any(table.isColumnHidden(c) for c in (0, 1, 2, WHY))
    assert header.sectionSize(WHY) >= 90
    label = table.topLevelItem(merged[0]).text(1)  # "search_flights · step 1's best", unelided
    assert table.fontMetrics().horizontalAdvance(label) <= header.sectionSize(1)
    why = table.topLevelItem(0).text(WHY)
    assert why and ("+0." in why or why == "vector only")
    detail = view.detail
    assert detail.isVisible() and " = vector " in detail.text()
    table.setCurrentItem(table.topLevelItem(merged[0]))
    assert "step" in detail.text() and f"#{merged[0] + 1} " in detail.text()
    assert window.live.body_scroll.horizontalScrollBar().maximum() == 0
