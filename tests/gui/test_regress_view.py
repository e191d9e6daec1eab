"""The regression view, wired to a session in the real window."""

import datetime as dt
from pathlib import Path

import pytest

import routescope
from routescope_gui import MainWindow
from tests.gui._support import contrast

SUITE = """\
# demo suite
suite: demo
router: strategy
today: 2030-07-04
cases:
  - id: right
    prompt: pizza near me
    expect: {strategy: local}
  - id: wrong
    prompt: How do I install FastAPI?
    expect:
      strategy: general   # wrong on purpose
"""


def opened(qtbot, window: MainWindow, path: Path) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.regress.opened, timeout=20_000):
        window.session.regress.open(path)


def ran(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.regress.finished, timeout=60_000):
        window.regress_view.run_button.click()


def test_a_built_in_suite_runs_with_progress_and_a_report(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = window.regress_view
    window.show_tab("Regression")
    opened(qtbot, window, routescope.resources_root() / "fixtures" / "strategy.yaml")
    cases = len(view.suite.cases)
    assert view.case_model.rowCount() == cases and "press Run" in view.summary.text()
    ran(qtbot, window)
    assert view.result is not None and view.result.failed == 0
    assert view.progress_bar.value() == cases and view.progress_bar.format() == f"{cases} / {cases}"
    assert view.case_model.rowCount() == cases
    assert view.case_model.index(0, 0).data() == "✓"
    assert view.matrix.rowCount() == 3 and "precision" in view.metrics.text()


def test_filter_diff_open_live_and_accept(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    path.write_text(SUITE, encoding="utf-8")
    view = window.regress_view
    window.show_tab("Regression")
    opened(qtbot, window, path)
    ran(qtbot, window)
    view.filter.setCurrentText("Failures")
    assert view.case_model.rowCount() == 1
    view.cases.selectRow(0)
    assert [view.diffs.item(0, c).text() for c in range(4)] == [
        "strategy",
        "equals",
        '"general"',
        '"tech"',
    ]
    assert view.accept_button.isEnabled() and view.live_button.isEnabled()
    # Open the failing case in the live view with its exact inputs.
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        view.live_button.click()
    assert window.views.currentWidget() is window.live
    assert window.editor.toPlainText() == "How do I install FastAPI?"
    assert window.today_edit.date().toPython() == dt.date(2030, 7, 4)
    # The strategy suite's case opens on the Plan tab and says its own date stands in for the
    # session's until the prompt is edited.
    assert window.tabs.currentWidget() is window.strategy_view.plan_table
    qtbot.waitUntil(lambda: "case wrong shown" in window.statusBar().currentMessage())
    assert "(today 2030-07-04); the session's come back" in window.statusBar().currentMessage()
    assert window.strategy_view.decision_panel.badge.text() == "TECH"
    # Accept it as golden: the file keeps its comments, and the re-run passes.
    window.show_tab("Regression")
    view.cases.selectRow(0)
    with qtbot.waitSignal(window.session.regress.finished, timeout=20_000):
        view.accept_button.click()
    text = path.read_text(encoding="utf-8")
    assert "strategy: tech" in text and "# demo suite" in text
    assert view.result is not None and view.result.failed == 0
    assert "1 changed since the last run" in view.summary.text()
    view.filter.setCurrentText("Changed")
    assert view.case_model.rowCount() == 1 and view.case_model.case_id(0) == "wrong"


def test_a_bad_suite_is_reported_not_raised(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text("suite: x\n", encoding="utf-8")
    with qtbot.waitSignal(window.session.regress.failed, timeout=20_000):
        window.session.regress.open(path)
    assert "cases" in window.regress_view.summary.text()
    assert not window.regress_view.run_button.isEnabled()


def test_a_linter_case_opens_on_the_linter_tab(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lint.yaml"
    path.write_text(
        "suite: lint\nrouter: linter\ncases:\n"
        "  - id: vague\n    prompt: config\n    expect: {query_class: vague}\n",
        encoding="utf-8",
    )
    window.show_tab("Regression")
    opened(qtbot, window, path)
    ran(qtbot, window)
    window.regress_view.cases.selectRow(0)
    window.regress_view.live_button.click()
    qtbot.waitUntil(lambda: window.editor.toPlainText() == "config")
    assert window.views.currentWidget() is window.live
    assert window.tabs.currentWidget() is window.linter_view


def test_undo_accept_by_button_and_by_ctrl_z(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from routescope_gui._regress_view import RegressView
    from routescope_gui._wiring import connect_regress

    path = tmp_path / "demo.yaml"
    original = SUITE.encode("utf-8")
    path.write_bytes(original)
    model, view = session.regress, RegressView()
    qtbot.addWidget(view)
    connect_regress(view, model, choose_suite=lambda: None, open_case=lambda _case: None)
    view.show()
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.open(path)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        view.run_button.click()
    assert not view.undo_button.isEnabled() and not view.undo_action.isEnabled()
    view.filter.setCurrentText("Failures")
    view.cases.selectRow(0)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        view.accept_button.click()
    assert path.read_bytes() != original and view.undo_button.isEnabled()
    with qtbot.waitSignal(model.finished, timeout=20_000):
        view.undo_button.click()
    assert path.read_bytes() == original and not view.undo_button.isEnabled()
    assert "1 failed, 1 changed since the last run" in view.summary.text()
    # Ctrl+Z does the same while the focus is in the view.
    view.cases.selectRow(0)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        view.accept_button.click()
    view.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    view.cases.setFocus()
    with qtbot.waitSignal(model.finished, timeout=20_000):
        qtbot.keyClick(view.cases, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert path.read_bytes() == original


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_matrix_counts_read_in_both_schemes(qtbot, window, request, scheme: str) -> None:  # type: ignore[no-untyped-def]
    if scheme == "dark":
        request.getfixturevalue("dark")
    view = window.regress_view
    window.show_tab("Regression")
    opened(qtbot, window, routescope.resources_root() / "fixtures" / "strategy.yaml")
    ran(qtbot, window)
    matrix = view.matrix
    cells = [
        item
        for row in range(matrix.rowCount())
        for column in range(matrix.columnCount())
        if (item := matrix.item(row, column)) is not None and item.text() != "0"
    ]
    diagonal = matrix.item(0, 0)
    assert diagonal is not None and diagonal in cells
    for item in cells:  # the right counts (the diagonal) and any wrong ones: on their fill
        assert contrast(item.foreground().color(), item.background().color()) >= 4.5
