"""The history model: the store opens in a worker thread; inspections are recorded once the
prompt rests (a burst of keystrokes is one entry); entries are listed, pinned, deleted and
reopened as their exact request."""

from pathlib import Path

import routescope
from routescope.history import History
from routescope_gui import Session
from routescope_gui._history_model import HistoryModel, HistoryQuery
from tests._support import TODAY


def _session(tmp_path: Path, tool_cache: Path) -> Session:
    return Session(
        routescope.Request.build("", today=TODAY),
        cache=tool_cache,
        history=tmp_path / "history.sqlite3",
    )


def test_a_burst_of_keystrokes_is_recorded_once_after_the_prompt_rests(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = session.history
    with qtbot.waitSignal(model.opened, timeout=20_000) as opened:
        model.start()
    assert opened.args == [None] and model.enabled
    for prefix in ("piz", "pizza", "pizza near", "pizza near me"):
        session.set_text(prefix)
    assert model.busy  # waiting for the prompt to rest: nothing recorded while typing

    def one_entry() -> bool:
        return not model.busy and model.store is not None and model.store.count() == 1

    qtbot.waitUntil(one_entry, timeout=20_000)
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.refresh()
    entries, facets = listed.args
    (entry,) = entries
    assert entry.text == "pizza near me" and entry.summary.strategy == "local"
    assert ("local", 1) in facets.strategies
    session.close()


def test_reopen_pin_and_delete(qtbot, qloop, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "history.sqlite3"
    store = History.open(path)
    requests = [
        routescope.Request.build(text, today=TODAY)
        for text in ("pizza near me", "How do I install FastAPI on Ubuntu?")
    ]
    ids = [store.record(r, routescope.inspect(r)).id for r in requests]  # type: ignore[union-attr]
    store.close()
    current = routescope.Request.build("", today=TODAY)
    model = HistoryModel(lambda: current, path=path, delay_ms=10)
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.start()
    assert len(listed.args[0]) == 2
    with qtbot.waitSignal(model.request_opened, timeout=5_000) as opened:
        model.reopen(ids[1])
    assert opened.args == [requests[1]]
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.pin(ids[0])
    assert [e.pinned for e in listed.args[0]] == [False, True]
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.search(HistoryQuery(pinned_only=True))
    assert [e.id for e in listed.args[0]] == [ids[0]]
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.search(HistoryQuery(text="fast"))
    assert [e.id for e in listed.args[0]] == [ids[1]]
    with qtbot.waitSignal(model.listed, timeout=20_000) as listed:
        model.delete(ids[1])
    assert listed.args[0] == []
    with qtbot.waitSignal(model.failed, timeout=5_000):
        model.reopen(ids[1])
    model.close()


def test_session_files_are_written_and_read_off_the_ui_thread(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = session.history
    session.set_text("pizza near me")
    inspection = session.inspection.result
    assert inspection is not None
    path = tmp_path / "one.json"
    with qtbot.waitSignal(model.session_saved) as saved:
        model.save_session(path, inspection)
        assert model.busy  # the file is written in a worker thread
    assert saved.args == [f"session saved to {path}"]
    session.set_text("history of jazz")
    with qtbot.waitSignal(model.session_opened) as opened:
        model.open_session(path)
    assert opened.args == [f"session opened from {path}", []]
    assert session.request.text == "pizza near me"  # the session made it its own
    with qtbot.waitSignal(model.session_failed) as failed:
        model.open_session(tmp_path / "missing.json")
    assert failed.args[0] == "Open session" and "missing.json" in failed.args[1]


def test_the_last_session_keeps_only_what_is_not_a_default(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = session.history
    assert not model.save_last_session("pizza", "Plan")  # no store yet: nothing kept
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.start()
    assert model.save_last_session("pizza near me", "Linter")
    last = model.last_session()
    assert last is not None and (last.prompt, last.tab) == ("pizza near me", "Linter")
    assert last.today == TODAY and last.rules is None and last.catalog is None
    model.close()


def test_a_prefix_rested_on_gives_its_row_to_the_prompt_it_grew_into(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path
) -> None:
    text = {"now": "pizza"}
    store_path = tmp_path / "history.sqlite3"
    model = HistoryModel(
        lambda: routescope.Request.build(text["now"], today=TODAY), path=store_path, delay_ms=10
    )
    with qtbot.waitSignal(model.opened, timeout=20_000):
        model.start()
    store = model.store
    assert store is not None

    def rows() -> list[tuple[str, int]]:
        return [(entry.text, entry.count) for entry in store.search("")]

    for prompt in ("pizza", "pizza near", "pizza near me"):  # each rested on: recorded
        text["now"] = prompt
        model.record_soon(routescope.inspect(routescope.Request.build(prompt, today=TODAY)))
        qtbot.waitUntil(lambda prompt=prompt: rows() == [(prompt, 1)], timeout=20_000)
    model.record_soon(routescope.inspect(routescope.Request.build("pizza near me", today=TODAY)))
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    assert rows() == [("pizza near me", 1)]  # settled again: not a second row, nor a count
    model.close()


def test_running_leaving_the_prompt_or_changing_tabs_records_it_at_once(  # type: ignore[no-untyped-def]
    qtbot, window, monkeypatch
) -> None:
    from PySide6.QtCore import Qt

    history = window.session.history
    history.recorder.settle_s = 3600.0  # it never rests long enough here
    qtbot.waitUntil(lambda: history.store is not None, timeout=20_000)
    store = history.store
    store.clear(keep_pinned=False)
    monkeypatch.setattr(window.session.research, "run", lambda: None)

    def rows() -> list[str]:
        return [entry.text for entry in store.search("")]

    window.set_prompt("pizza near")
    qtbot.wait(50)
    assert rows() == [] and history.busy  # waiting for the prompt to settle
    window.show_tab("Linter")  # another tab
    qtbot.waitUntil(lambda: rows() == ["pizza near"], timeout=20_000)
    window.set_prompt("pizza near me")
    window.research_action.trigger()  # Ctrl+Enter: the same row follows the prompt
    qtbot.waitUntil(lambda: rows() == ["pizza near me"], timeout=20_000)
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: window.editor.hasFocus())
    window.set_prompt("history of jazz")
    window.strategy_view.context_tree.setFocus(Qt.FocusReason.TabFocusReason)  # prompt left
    assert not window.editor.hasFocus()
    qtbot.waitUntil(lambda: sorted(rows()) == ["history of jazz", "pizza near me"])


def test_a_prompt_recorded_with_its_catalog_has_its_top_tool_and_one_row(  # type: ignore[no-untyped-def]
    qtbot, window
) -> None:
    history, tools = window.session.history, window.session.tools
    history.recorder.settle_s = 3600.0
    qtbot.waitUntil(lambda: history.store is not None, timeout=20_000)
    store = history.store
    store.clear(keep_pinned=False)
    window.set_prompt("why is my container crashing after the deploy?")
    window.show_tab("Linter")  # recorded without a catalog (the Tools tab never shown)
    qtbot.waitUntil(lambda: store.count() == 1, timeout=20_000)
    with qtbot.waitSignal(tools.ranked, timeout=120_000):
        window.show_tab("Tools")  # the sample catalog joins the request
    window.show_tab("Plan")
    qtbot.waitUntil(
        lambda: (
            [(e.text, e.summary.top_tool) for e in store.search("")]
            == [("why is my container crashing after the deploy?", "docker.logs")]
        ),
        timeout=20_000,
    )
