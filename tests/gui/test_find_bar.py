"""Find in a panel (Ctrl+F): one bar filters the rows of the table or tree in focus, or finds
in the Raw JSON; Esc shows every row again."""

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication

from routescope_gui import MainWindow
from routescope_gui._find_bar import row_matches

PROMPT = "How do I install FastAPI on Ubuntu?"


def focus(qtbot, widget) -> None:  # type: ignore[no-untyped-def]
    widget.window().activateWindow()
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget)


def shown_rows(table) -> list[int]:  # type: ignore[no-untyped-def]
    return [row for row in range(table.model().rowCount()) if not table.isRowHidden(row)]


def ctrl_f(qtbot, widget) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(widget, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)


def test_from_the_prompt_ctrl_f_filters_the_rows_of_the_tab_shown(
    qtbot, window: MainWindow
) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt(PROMPT)
    table = window.strategy_view.plan_table
    qtbot.waitUntil(lambda: table.model().rowCount() == 2)
    focus(qtbot, window.editor)
    ctrl_f(qtbot, window.editor)
    bar = window.find_bar
    assert bar.isVisible() and bar.target is table and bar.field.hasFocus()
    assert bar.where.text() == "Find in Plan:"
    qtbot.keyClicks(bar.field, "GITHUB")
    assert shown_rows(table) == [1] and table.currentIndex().row() == 1
    assert bar.count.text() == "1 of 1 matches · 2 rows"
    # a new prompt's rows are filtered too
    window.set_prompt("pizza near me")
    qtbot.waitUntil(lambda: bar.count.text() == f"0 of {table.model().rowCount()} rows")
    assert shown_rows(table) == []
    window.set_prompt(PROMPT)
    qtbot.waitUntil(lambda: shown_rows(table) == [1])
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)  # every row again, the prompt focused
    assert not bar.isVisible() and bar.target is None
    assert shown_rows(table) == list(range(table.model().rowCount()))
    assert window.editor.hasFocus()


def test_a_tree_keeps_the_rows_above_a_match(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("best ramen near Denver open now")
    tree = window.strategy_view.context_tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() > 0)
    focus(qtbot, tree)
    window.find_action.trigger()
    bar = window.find_bar
    assert bar.target is tree and bar.where.text() == "Find in Context:"
    qtbot.keyClicks(bar.field, "denver")
    top = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    kept = [item.text(0) for item in top if item is not None and not item.isHidden()]
    assert {"Entities", "Place hint", "Intent flags"} <= set(kept) and "OpenClaw" not in kept

    def shown_under(name: str, column: int) -> list[str]:
        item = next(item for item in top if item is not None and item.text(0) == name)
        children = [item.child(i) for i in range(item.childCount())]
        return [c.text(column) for c in children if c is not None and not c.isHidden()]

    assert shown_under("Entities", 1) == ["Denver"]
    assert shown_under("Intent flags", 0) == ["local"]  # its evidence: "near Denver"
    bar.close_bar()
    assert not any(item.isHidden() for item in top if item is not None)


def test_in_the_raw_json_every_match_is_highlighted_and_stepped_through(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    window.set_prompt(PROMPT)
    window.show_tab("Raw JSON")
    json_view = window.json_view
    qtbot.waitUntil(lambda: "strategy" in json_view.toPlainText())
    focus(qtbot, json_view)
    ctrl_f(qtbot, json_view)
    bar = window.find_bar
    assert bar.target is json_view and bar.where.text() == "Find in Raw JSON:"
    qtbot.keyClicks(bar.field, "fastapi")
    found = len(json_view.extraSelections())
    assert found >= 3 and bar.count.text() == f"1 of {found} found"
    first = json_view.textCursor().position()
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert json_view.textCursor().position() > first
    assert bar.count.text() == f"2 of {found} found"
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert json_view.textCursor().position() == first
    assert json_view.textCursor().selectedText().lower() == "fastapi"
    bar.close_bar()
    assert json_view.extraSelections() == []


def test_a_row_matches_on_any_column_case_ignored() -> None:
    model = QStandardItemModel()
    model.appendRow([QStandardItem("docker.logs"), QStandardItem("Read a container's logs")])
    assert row_matches(model, 0, QModelIndex(), "CONTAINER")
    assert row_matches(model, 0, QModelIndex(), "")
    assert not row_matches(model, 0, QModelIndex(), "kubernetes")
