"""The regression model: suites load and run in worker threads with progress; goldens are
accepted and the suite re-run; a case opens live; which cases changed since the last run."""

import datetime as dt
from pathlib import Path

import routescope
from routescope_gui._regress_model import RegressModel
from tests.gui._support import record

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


def run_demo_suite(qtbot, session, path: Path) -> RegressModel:  # type: ignore[no-untyped-def]
    """The session's regression model, the demo suite written to `path`, opened and run."""
    path.write_text(SUITE, encoding="utf-8")
    model = session.regress
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.open(path)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        model.run()
    return model


def test_a_suite_runs_in_worker_threads_with_progress(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    model = session.regress
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.open(routescope.resources_root() / "fixtures" / "strategy.yaml")
    progress = record(model.progress)
    with qtbot.waitSignal(model.finished, timeout=60_000) as blocker:
        model.run()
    result, changed = blocker.args
    assert result.failed == 0 and changed is None and model.result is result
    assert model.suite is not None
    total = len(model.suite.cases)
    assert progress[0] == (0, total) and progress[-1] == (total, total)


def test_accept_a_golden_and_open_a_case(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    model = run_demo_suite(qtbot, session, path)
    assert model.result is not None and model.result.failed == 1
    assert model.suite is not None
    with qtbot.waitSignal(session.inspection.inspected, timeout=20_000):
        model.open_case("wrong")  # the session makes the case's request its own
    assert session.request == model.suite.cases[1].request(model.suite)
    assert session.request.today == dt.date(2030, 7, 4)
    accepted = record(model.accepted)
    with qtbot.waitSignal(model.finished, timeout=20_000) as blocker:
        model.accept_golden("wrong")
    assert accepted == [("wrong", 1)]
    result, changed = blocker.args
    assert result.failed == 0 and changed == {"wrong"}
    text = path.read_text(encoding="utf-8")
    assert "strategy: tech" in text and "# demo suite" in text


def test_a_bad_suite_is_reported(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.yaml"
    path.write_text("suite: x\n", encoding="utf-8")
    with qtbot.waitSignal(session.regress.failed, timeout=20_000) as blocker:
        session.regress.open(path)
    assert "cases" in blocker.args[0]


def test_another_suite_has_no_previous_run(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.regress
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    for path in (first, second):
        path.write_text(SUITE, encoding="utf-8")
    for path in (first, first, second):
        with qtbot.waitSignal(model.opened, timeout=20_000):
            model.open(path)
        with qtbot.waitSignal(model.finished, timeout=20_000) as blocker:
            model.run()
    assert blocker.args[1] is None  # the second file's first run: nothing to compare with


def test_which_cases_changed_is_the_cores_answer(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    regress = routescope.regress
    path = tmp_path / "demo.yaml"
    path.write_text(SUITE, encoding="utf-8")
    suite = regress.load_suite(path)
    before = regress.run_suite(suite)
    flipped = [regress.run_case(case, suite, {}) for case in suite.cases]
    flipped[1].passed = True
    after = regress.suite_result(suite, flipped)
    assert (after.passed, after.failed) == (2, 0) and after.report.field == "strategy"
    assert regress.changed_cases(before, after) == {"wrong"}
    assert regress.changed_cases(before, regress.suite_result(suite, flipped[:1])) == set()


def test_an_accept_is_undone_byte_for_byte(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    original = SUITE.replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(original)
    model = session.regress
    undo = record(model.undo_changed)
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.open(path)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        model.run()
    assert not model.can_undo
    with qtbot.waitSignal(model.finished, timeout=20_000):
        model.accept_golden("wrong")
    assert path.read_bytes() != original and model.can_undo and undo[-1] == (True, "wrong")
    undone = record(model.undone)
    with qtbot.waitSignal(model.finished, timeout=20_000) as blocker:
        model.undo_accept()
    assert path.read_bytes() == original
    assert undone == [("wrong", 1)] and not model.can_undo and undo[-1] == (False, "")
    result, changed = blocker.args
    assert result.failed == 1 and changed == {"wrong"}


def test_an_undo_is_refused_when_the_suite_changed_since(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "demo.yaml"
    model = run_demo_suite(qtbot, session, path)
    with qtbot.waitSignal(model.finished, timeout=20_000):
        model.accept_golden("wrong")
    edited = path.read_bytes() + b"# edited by hand\n"
    path.write_bytes(edited)
    with qtbot.waitSignal(model.failed, timeout=20_000) as blocker:
        model.undo_accept()
    assert "changed since the goldens were accepted" in blocker.args[0]
    assert path.read_bytes() == edited and not model.can_undo


def test_a_request_is_saved_as_a_case_off_the_ui_thread(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session.set_text("pizza near me")
    inspection = session.inspection.result
    assert inspection is not None
    model, suite = session.regress, tmp_path / "suite.yaml"
    with qtbot.waitSignal(model.case_saved) as saved:
        model.save_case(suite, "pizza", session.request, inspection)
        assert model.busy
    assert saved.args == [f"case pizza saved to {suite}"]
    assert [case.id for case in routescope.regress.load_suite(suite).cases] == ["pizza"]
    with qtbot.waitSignal(model.case_failed) as failed:
        model.save_case(suite, "pizza", session.request, inspection)
    assert "pizza" in failed.args[0] and "\n" not in failed.args[0]
