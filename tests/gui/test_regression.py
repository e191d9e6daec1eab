import datetime as dt
from pathlib import Path

from routescope import resources_root
from routescope_gui import MainWindow

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


def make_window(qtbot) -> MainWindow:  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    return window


def run(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    view = window.regression
    with qtbot.waitSignal(view.runner.finished, timeout=20_000):
        view.run()


def test_built_in_suite_runs_in_the_background_with_progress(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    window = make_window(qtbot)
    view = window.regression
    assert view.load(str(resources_root() / "fixtures" / "strategy.yaml"))
    progress: list[int] = []
    view.runner.progress.connect(lambda done, total: progress.append(done))
    run(qtbot, window)
    assert view.result is not None and view.result.failed == 0
    assert len(progress) > 1 and progress[-1] == len(view.suite.cases)  # type: ignore[union-attr]
    assert view.cases.rowCount() == len(view.suite.cases)  # type: ignore[union-attr]
    assert view.matrix.rowCount() == 3 and "precision" in view.metrics.text()


def test_filter_diff_accept_and_open_live(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    path.write_text(SUITE, encoding="utf-8")
    window = make_window(qtbot)
    view = window.regression
    assert view.load(str(path))
    run(qtbot, window)
    view.filter.setCurrentText("Failures")
    assert view.cases.rowCount() == 1
    view.cases.selectRow(0)
    assert [view.diffs.item(0, c).text() for c in range(4)] == [
        "strategy",
        "equals",
        '"general"',
        '"tech"',
    ]
    # Open the failing case in the live view with its exact inputs.
    view.live_button.click()
    assert window.views.currentIndex() == 0
    assert window.editor.toPlainText() == "How do I install FastAPI?"
    assert window.inspector.today == dt.date(2030, 7, 4)
    # Accept it as golden: the file keeps its comments, and the re-run passes.
    window.views.setCurrentIndex(1)
    view.cases.selectRow(0)
    with qtbot.waitSignal(view.runner.finished, timeout=20_000):
        view.accept_button.click()
    text = path.read_text(encoding="utf-8")
    assert "strategy: tech" in text and "# demo suite" in text
    assert view.result is not None and view.result.failed == 0
    view.filter.setCurrentText("Changed")
    assert view.cases.rowCount() == 1


def test_a_bad_suite_is_reported_not_raised(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text("suite: x\n", encoding="utf-8")
    window = make_window(qtbot)
    assert not window.regression.load(str(path))
    assert "cases" in window.regression.summary.text()
