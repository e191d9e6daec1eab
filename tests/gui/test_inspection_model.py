"""The inspection model: the request inspected as it changes, large prompts off the UI thread,
and the step-through of the decision's plan."""

import json
import threading

import routescope
from routescope_gui._inspection_model import BACKGROUND_CHARS, NOTHING_INSPECTED
from tests.gui._support import record


def test_a_prompt_is_inspected_at_once(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    model = session.inspection
    with qtbot.waitSignal(model.inspected) as blocker:
        session.set_text("pizza near me")
    assert blocker.args[0] is model.result and model.result.strategy == "local"
    with qtbot.assertNotEmitted(model.inspected):
        session.set_search(routescope.toolsearch.SearchSettings(k=5))  # not what it depends on


def test_a_burst_of_changes_is_inspected_once_more_when_the_event_loop_comes_round(
    qtbot,  # type: ignore[no-untyped-def]
    session,
) -> None:
    inspected = record(session.inspection.inspected)
    for text in ("p", "pi", "piz", "pizza", "pizza near me"):
        session.set_text(text)
    assert [i.context.raw_text for i in inspected] == ["p"]  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: len(inspected) == 2)
    assert inspected[-1].context.raw_text == "pizza near me"  # type: ignore[attr-defined]
    assert inspected[-1].strategy == "local"  # type: ignore[attr-defined]


def test_blank_and_unusable_prompts(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    model = session.inspection
    session.set_text("pizza")
    with qtbot.waitSignal(model.inspected) as blocker:
        session.set_text("   ")
    assert blocker.args == [None] and model.result is None
    with qtbot.waitSignal(model.failed) as blocker:
        session.set_text("\x00\x01")
    assert blocker.args[0] == "text is only control characters (U+0000, U+0001)"
    assert model.result is None
    with qtbot.waitSignal(model.failed) as blocker:
        session.set_text("\u200b")
    assert blocker.args[0] == "text is only invisible characters (U+200B)"


def test_a_large_prompt_is_inspected_off_the_ui_thread(qtbot, session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    threads: list[int] = []
    inspect = routescope.inspect

    def spy(request: routescope.Request) -> routescope.Inspection:
        threads.append(threading.get_ident())
        return inspect(request)

    monkeypatch.setattr(routescope, "inspect", spy)
    large = "install FastAPI now " * (BACKGROUND_CHARS // 10)
    with qtbot.waitSignal(session.inspection.inspected, timeout=20_000) as blocker:
        session.set_text(large)
    assert blocker.args[0].context.raw_text == large
    assert threads and threading.get_ident() not in threads


def test_a_stale_large_result_is_dropped(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    model = session.inspection
    inspected = record(model.inspected)
    session.set_text("install FastAPI now " * (BACKGROUND_CHARS // 10))
    session.set_text("pizza near me")  # while the large prompt is in the works
    qtbot.waitUntil(lambda: not session.busy, timeout=20_000)
    assert [i.context.raw_text for i in inspected] == ["pizza near me"]  # type: ignore[attr-defined]
    assert model.result is not None and model.result.strategy == "local"


def test_the_plan_steps_through_with_the_request_rules(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    model = session.inspection
    session.set_text("Lend 100 USDC on Kamino")
    step = model.plan_progress()
    assert step is not None and step.next is not None and step.next.tool == "wallet_connect"
    for _ in range(3):
        with qtbot.waitSignal(model.plan_stepped):
            model.step_plan()
    step = model.plan_progress()
    assert step is not None and step.done and step.reason == "tool plan complete"
    model.reset_plan()
    assert model.plan_results == []
    session.set_text("Lend 200 USDC on Kamino")  # a new decision starts from its first step
    assert model.plan_results == []


def test_an_export_is_written_off_the_ui_thread(qtbot, session, tmp_path) -> None:  # type: ignore[no-untyped-def]
    model = session.inspection
    with qtbot.waitSignal(model.export_failed) as refused:
        model.export(tmp_path / "none.json", "json")  # nothing inspected yet
    assert refused.args == [NOTHING_INSPECTED] and not (tmp_path / "none.json").exists()
    session.set_text("pizza near me")
    path = tmp_path / "i.json"
    with qtbot.waitSignal(model.exported, timeout=120_000) as exported:
        model.export(path, "json")
        assert model.busy
    assert exported.args == [f"inspection exported to {path}"]
    data = json.loads(path.read_text(encoding="utf-8"))
    # no engine loaded yet: one is built for the sample catalog, as `inspect --json` does
    assert data["strategy"] == "local" and data["tools"]["results"]
