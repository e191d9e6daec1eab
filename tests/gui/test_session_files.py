"""The last session restored at start; File ▸ Save/Open session, exports, regression cases."""

import json
from pathlib import Path

import pytest

import routescope
from routescope.history import open_session
from routescope_gui import MainWindow, Session
from routescope_gui.app import _parse
from tests._support import TODAY

PROMPT = "pizza near me"


def inspected(qtbot, window: MainWindow, text: str = PROMPT) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt(text)
    qtbot.waitUntil(
        lambda: (
            window.session.request.text == text
            and not window.session.inspection.busy
            and window.session.inspection.result is not None
        )
    )


def closed_on_a_prompt(qtbot, tool_cache: Path, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A history store as a window leaves it that closed on `PROMPT`."""
    store = tmp_path / "history.sqlite3"
    first = MainWindow(Session(history=store, cache=tool_cache), restore=True)
    qtbot.addWidget(first)
    qtbot.waitUntil(lambda: first.session.history.store is not None)
    inspected(qtbot, first)
    first.close()
    return store


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the window would have said in a message box."""
    messages: list[str] = []
    monkeypatch.setattr(MainWindow, "_tell", lambda _self, _title, text: messages.append(text))
    return messages


def test_a_new_window_restores_the_last_prompt_and_tab(qtbot, qloop, tool_cache, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = tmp_path / "history.sqlite3"
    first = MainWindow(Session(history=store, cache=tool_cache), restore=True)
    qtbot.addWidget(first)
    first.set_today(TODAY)
    qtbot.waitUntil(lambda: first.session.history.store is not None)
    inspected(qtbot, first)
    first.show_tab("Linter")
    first.close()

    second = MainWindow(Session(history=store, cache=tool_cache), restore=True)
    qtbot.addWidget(second)
    assert second.editor.toPlainText() == PROMPT  # at once; the rest once the store is open
    qtbot.waitUntil(lambda: second.current_tab() == "Linter")
    assert second.session.request.today == TODAY
    qtbot.waitUntil(lambda: not second.session.busy)
    second.close()


def test_the_last_prompt_shows_before_the_store_opens(qtbot, qloop, tool_cache, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = closed_on_a_prompt(qtbot, tool_cache, tmp_path)

    # As `routescope-gui` builds it: the store opens only after the first paint.
    second = MainWindow(Session(history=store, cache=tool_cache), restore=True, open_history=False)
    qtbot.addWidget(second)
    assert second.editor.toPlainText() == PROMPT  # at once, before the routers load
    assert second.session.history.store is None and second.session.inspection.result is None
    second.session.history.start()
    qtbot.waitUntil(lambda: second.session.inspection.result is not None)
    assert second.session.request.text == PROMPT
    qtbot.waitUntil(lambda: not second.session.busy)
    second.close()


def test_an_early_prompt_is_inspected_if_history_fails(qtbot, qloop, tool_cache, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = closed_on_a_prompt(qtbot, tool_cache, tmp_path)
    second = MainWindow(Session(history=store, cache=tool_cache), restore=True, open_history=False)
    qtbot.addWidget(second)
    assert second.editor.toPlainText() == PROMPT
    second.session.history.failed.emit("history is off: the store failed to open")
    qtbot.waitUntil(lambda: second.session.inspection.result is not None)
    assert second.session.request.text == PROMPT
    second.close()


def test_without_restore_a_new_window_starts_blank(qtbot, qloop, tool_cache, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = closed_on_a_prompt(qtbot, tool_cache, tmp_path)

    second = MainWindow(Session(history=store, cache=tool_cache))
    qtbot.addWidget(second)
    qtbot.waitUntil(lambda: second.session.history.store is not None)
    assert second.editor.toPlainText() == ""
    second.close()


def test_no_restore_flag() -> None:
    assert _parse(["--no-restore"]).no_restore
    assert not _parse([]).no_restore


def test_save_and_open_a_session(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    path = tmp_path / "one.json"
    window._ask_save_path = lambda *_a, **_k: str(path)
    window.save_session_action.trigger()
    assert open_session(path).entries[0].request.text == PROMPT

    inspected(qtbot, window, "How do I install FastAPI?")
    window._ask_open_path = lambda *_a: str(path)
    window.open_session_action.trigger()
    assert window.editor.toPlainText() == PROMPT
    assert window.session.request.text == PROMPT
    assert told == []


def test_opening_a_session_shows_its_warnings(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    path = tmp_path / "one.json"
    assert window.save_session(path)
    text = (routescope.resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace('name = "default"', 'name = "mine"'), encoding="utf-8")
    assert window.open_rules(mine)
    warnings = window.open_session(path)
    assert warnings
    assert told == ["\n".join(warnings)]


def test_a_bad_session_file_is_one_line(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text("{}", encoding="utf-8")
    assert window.open_session(path) is None
    assert len(told) == 1 and "\n" not in told[0]


def test_export_the_inspection_as_json_and_markdown(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    as_json, as_md = tmp_path / "i.json", tmp_path / "i.md"
    window._ask_save_path = lambda *_a, **_k: str(as_json)
    window.export_json_action.trigger()
    assert json.loads(as_json.read_text(encoding="utf-8"))["strategy"] == "local"
    window._ask_save_path = lambda *_a, **_k: str(as_md)
    window.export_markdown_action.trigger()
    assert PROMPT in as_md.read_text(encoding="utf-8")


def test_nothing_inspected_nothing_exported(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    assert not window.export_inspection(tmp_path / "i.json", "json")
    assert told and not (tmp_path / "i.json").exists()


def test_save_as_regression_case(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    suite = tmp_path / "suite.yaml"
    window._ask_save_path = lambda *_a, **_k: str(suite)
    window._ask_case_id = lambda: "pizza"
    window.save_case_action.trigger()
    assert told == []
    loaded = routescope.regress.load_suite(suite)
    assert [case.id for case in loaded.cases] == ["pizza"]

    window.save_case_action.trigger()  # the same id again: refused, in one line
    assert len(told) == 1 and "\n" not in told[0]
    assert [case.id for case in routescope.regress.load_suite(suite).cases] == ["pizza"]
