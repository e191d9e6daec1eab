"""The Batch view in the real window: a log run with progress and Cancel, its report's leak
checks and charts, a bar or a leak clicked to list its prompts, a prompt opened live; results
opened without running; the window rendered to PNG on the Batch view."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileDialog, QLabel

import routescope
from routescope.batch import BatchProgress
from routescope_gui import MainWindow
from routescope_gui._batch_charts import BarChart, ChartBar, bar_length
from routescope_gui._batch_run import default_results
from routescope_gui._style import Scheme, colours
from tests._support import TODAY
from tests.gui._support import contrast
from tests.gui.test_batch_model import held_after_first_chunk, write_log

PNG = b"\x89PNG\r\n\x1a\n"


def ran(qtbot, window: MainWindow) -> tuple[Any, Any]:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.batch.finished, timeout=120_000) as blocker:
        qtbot.mouseClick(window.batch_view.run_button, Qt.MouseButton.LeftButton)
    return blocker.args[0], blocker.args[1]


def click_bar(qtbot, chart: BarChart, index: int) -> None:  # type: ignore[no-untyped-def]
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=chart.bar_rect(index).center())


def with_a_leak(results: Path) -> dict[str, Any]:
    """Make one general prompt of a results file plan a `site:` search (a leak to list)."""
    lines = results.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    leaky: dict[str, Any] = next(r for r in records if r["strategy"] == "general")
    leaky["queries"] = [*leaky["queries"], "cheap flights site:example.com"]
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return leaky


def test_a_log_runs_and_a_clicked_bar_lists_prompts_that_open_live(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path
) -> None:
    log, prompts = write_log(tmp_path)
    view = window.batch_view
    window.tab_actions[7].trigger()  # View ▸ Batch (Ctrl+8)
    assert window.views.currentWidget() is view and not view.run_button.isEnabled()
    view.set_log(str(log))
    assert view.out_edit.text() == str(tmp_path / "traffic.results.jsonl")
    summary, report = ran(qtbot, window)
    assert summary.complete and report.prompts == len(prompts)
    assert view.progress_bar.format() == "done"
    assert f"{len(prompts):,} prompts" in view.status.text()
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()
    # The leak checks come first, one card each, with their counts.
    assert [card.count.text() for card in view.leak_cards] == [
        f"{check.count:,}" for check in report.leaks
    ]
    # Each chart shows its figure's bars; a click lists the prompts behind one.
    chart = view.charts["strategies"]
    assert [bar.label for bar in chart.bars] == [bar.label for bar in report.strategies.bars]
    click_bar(qtbot, chart, 1)
    bar = report.strategies.bars[1]
    assert chart.selected == 1 and bar.label in view.caption.text()
    model = view.prompt_model
    assert model.rowCount() == len(bar.examples) > 0
    first = bar.examples[0]
    assert model.index(0, 0).data() == f"traffic.txt:{first.line}"
    assert model.index(0, 1).data() == first.prompt
    # Another chart's bar replaces the list, and the first chart lets go of its bar.
    click_bar(qtbot, view.charts["lint_classes"], 0)
    assert chart.selected == -1 and model.rowCount() == len(report.lint_classes.bars[0].examples)
    click_bar(qtbot, chart, 1)
    # A double click on a prompt opens it in the live view, on the batch's date.
    table = view.prompts
    cell = table.visualRect(model.index(0, 1)).center()
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        # Qt 6's test double click is the second click of one: the first comes before it
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    assert window.views.currentWidget() is window.live
    assert window.editor.toPlainText() == first.prompt
    assert window.session.request.today == TODAY


def test_the_arrow_keys_walk_a_chart_and_open_in_live_view_opens_the_selected_prompt(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path
) -> None:
    log, _prompts = write_log(tmp_path, 60)
    view = window.batch_view
    window.show_tab("Batch")
    view.set_log(str(log))
    _summary, report = ran(qtbot, window)
    chart = view.charts["intents"]
    chart.setFocus()
    qtbot.keyClick(chart, Qt.Key.Key_Down)
    qtbot.keyClick(chart, Qt.Key.Key_Down)
    bar = report.intents.bars[1]
    assert chart.selected == 1 and view.prompt_model.rowCount() == len(bar.examples)
    view.prompts.selectRow(2)
    assert view.live_button.isEnabled()
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        view.live_button.click()
    assert window.editor.toPlainText() == bar.examples[2].prompt
    window.show_tab("Batch")  # Enter on a listed prompt opens it too
    view.prompts.setFocus()
    view.prompts.selectRow(0)
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        qtbot.keyClick(view.prompts, Qt.Key.Key_Return)
    assert window.editor.toPlainText() == bar.examples[0].prompt


def test_cancel_keeps_the_results_and_run_continues_them(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, prompts = write_log(tmp_path)
    view = window.batch_view
    model = window.session.batch
    window.show_tab("Batch")
    view.set_log(str(log))

    def cancel_from_the_view(progress: BatchProgress) -> None:
        if progress.prompts and view.cancel_button.isEnabled():
            assert not view.run_button.isEnabled() and not view.log_edit.isEnabled()
            view.cancel_button.click()

    model.progress.connect(cancel_from_the_view)
    with held_after_first_chunk(monkeypatch), qtbot.waitSignal(model.cancelled, timeout=60_000):
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    model.progress.disconnect(cancel_from_the_view)
    assert "Cancelled" in view.status.text() and "Run again to continue" in view.status.text()
    assert view.run_button.isEnabled() and view.log_edit.isEnabled()
    assert view.run_button.text() == "Continue ▶"
    assert view.report is None and not view.charts["strategies"].isVisible()
    summary, report = ran(qtbot, window)
    assert summary.done_before > 0 and report.prompts == len(prompts)
    assert "after resuming" in view.status.text() and view.run_button.text() == "Run ▶"


def test_results_open_without_running_and_a_leak_lists_its_queries(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, _prompts = write_log(tmp_path, 80)
    out = tmp_path / "made.jsonl"
    routescope.batch.run_batch(
        [str(log)], out, routescope.batch.BatchOptions(today=TODAY), progress=False
    )
    leaky = with_a_leak(out)
    view = window.batch_view
    window.show_tab("Batch")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_args, **_kw: (str(out), ""))
    with qtbot.waitSignal(window.session.batch.finished, timeout=60_000) as blocker:
        qtbot.mouseClick(view.open_button, Qt.MouseButton.LeftButton)
    summary, report = blocker.args
    assert summary is None and view.progress_bar.format() == "opened"
    assert report.leak("site_outside_tech").count == 1
    card = view.leak_cards[0]
    assert card.check is not None and card.check.rule == "site_outside_tech"
    assert card.count.text() == "1" and card.property("tone") == "leak"
    assert view.leak_cards[2].property("tone") == "clean"
    assert "1 offending queries" in view.leak_summary.text()
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    assert card.selected and card.property("tone") == "leak-selected"
    model = view.prompt_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Where", "Strategy", "Offending", "Query", "Prompt"]
    row = [model.index(0, c).data() for c in range(model.columnCount())]
    assert row == [
        f"traffic.txt:{leaky['line']}",
        "general",
        "site:example.com",
        "cheap flights site:example.com",
        leaky["prompt"],
    ]
    click_bar(qtbot, view.charts["strategies"], 0)  # a bar lets go of the leak
    assert not card.selected and card.property("tone") == "leak"


def test_a_log_that_cannot_be_read_is_reported_in_the_view(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view = window.batch_view
    view.set_log(str(tmp_path / "missing.txt"))
    with qtbot.waitSignal(window.session.batch.failed, timeout=20_000):
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert "missing.txt" in view.error and "#c62828" in view.status.text()
    assert view.run_button.isEnabled()


def test_the_results_file_follows_the_log_until_one_is_chosen(qtbot) -> None:  # type: ignore[no-untyped-def]
    assert default_results("/logs/traffic.jsonl.gz") == "/logs/traffic.results.jsonl"
    assert default_results("/logs/day-*.jsonl") == "/logs/batch.results.jsonl"
    assert default_results("  ") == ""
    from routescope_gui._batch_view import BatchView

    view = BatchView()
    qtbot.addWidget(view)
    view.set_log("/logs/a.csv")
    assert view.out_edit.text() == "/logs/a.results.jsonl" and view.run_button.isEnabled()
    view.set_log("/logs/b.txt")
    assert view.out_edit.text() == "/logs/b.results.jsonl"
    view.out_edit.setText("/elsewhere/mine.parquet")
    view.set_log("/logs/c.txt")
    assert view.out_edit.text() == "/elsewhere/mine.parquet"


def test_a_long_figure_folds_after_ten_bars(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = BarChart("tools")
    qtbot.addWidget(chart)
    chart.set_bars([ChartBar(f"tool{i}", 20 - i, (20 - i) / 100) for i in range(12)])
    chart.resize(400, chart.sizeHint().height())
    chart.show()
    assert chart.shown == 10 and chart.foldable
    folded = chart.sizeHint().height()
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=chart.fold_rect().center())
    assert chart.expanded and chart.shown == 12 and chart.sizeHint().height() > folded
    chart.set_expanded(False)
    with qtbot.waitSignal(chart.bar_clicked) as blocker:
        chart.select(9)
        chart.setFocus()
        qtbot.keyClick(chart, Qt.Key.Key_Down)  # past the tenth: the rest unfold
    assert blocker.args == [10] and chart.expanded and chart.selected == 10


def test_bars_are_scaled_to_the_whole_so_that_cards_compare() -> None:
    general = ChartBar("general", 1982, 0.97)  # a strategy card's longest bar
    flag = ChartBar("time_sensitive", 175, 0.09)  # another card's longest bar
    assert bar_length(general, 300) == pytest.approx(291)
    assert bar_length(flag, 300) == pytest.approx(27)  # not as long as 97 %
    assert bar_length(ChartBar("rare", 1, 0.0004), 300) == 2.0  # counted: still seen
    assert bar_length(ChartBar("none", 0, 0.0), 300) == 0.0


def test_the_window_renders_the_batch_view_of_a_results_file(tmp_path: Path) -> None:
    log, _prompts = write_log(tmp_path, 50)
    out = tmp_path / "made.jsonl"
    routescope.batch.run_batch(
        [str(log)], out, routescope.batch.BatchOptions(today=TODAY), progress=False
    )
    target = tmp_path / "batch.png"

    def shot(results: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                *("-m", "routescope_gui", "--screenshot", str(target)),
                *("--tab", "Batch", "--batch-results", str(results)),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )

    done = shot(out)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes()[:8] == PNG and target.stat().st_size > 20_000
    missing = shot(tmp_path / "none.jsonl")
    assert missing.returncode == 2 and "none.jsonl" in missing.stderr


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_report_s_cards_take_the_theme(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path, request, scheme: Scheme
) -> None:
    request.getfixturevalue("dark")  # (the application's palette is put back after)
    window.theme.set_choice(scheme)
    log, _prompts = write_log(tmp_path, 30)
    out = tmp_path / "made.jsonl"
    routescope.batch.run_batch(
        [str(log)], out, routescope.batch.BatchOptions(today=TODAY), progress=False
    )
    view = window.batch_view
    window.show_tab("Batch")
    with qtbot.waitSignal(window.session.batch.finished, timeout=60_000):
        window.session.batch.open_results(str(out))
    named = colours(scheme)
    card = next(c for c in view.leak_cards if c.property("tone") == "clean")
    chart = view.charts["strategies"].parentWidget()
    assert chart is not None and chart.objectName() == "chartCard"
    for frame, fill in ((card, "clean"), (chart, "card")):
        qtbot.waitUntil(lambda frame=frame: frame.height() > 8, timeout=5_000)  # laid out
        image = frame.grab().toImage()
        assert image.pixelColor(frame.width() // 2, frame.height() - 4) == QColor(named[fill])
    title = card.findChild(QLabel, "leakTitle")
    assert title is not None
    assert contrast(title.palette().color(title.foregroundRole()), named["clean"]) >= 4.5
