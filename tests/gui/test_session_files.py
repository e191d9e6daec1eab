"""The last session restored at start; File ▸ Save/Open session, exports, regression cases:
the window asks, the models write and read the files off the UI thread."""

import json
from pathlib import Path
from typing import Any

import pytest

import routescope
from routescope.cli import main as routescope_main
from routescope.history import open_session
from routescope_gui import MainWindow, Session
from routescope_gui._dialogs import Dialogs
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
    monkeypatch.setattr(Dialogs, "tell", lambda _self, _title, text: messages.append(text))
    return messages


def written(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    """Wait for the models' file work to end (they write and read off the UI thread)."""
    session = window.session
    qtbot.waitUntil(lambda: not (session.history.busy or session.inspection.busy))
    qtbot.waitUntil(lambda: not session.regress.busy)


def without_timings(value: Any) -> Any:
    """A JSON value without its measured timings (every run measures its own)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "timings_us"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


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
    window.dialogs.save_path = lambda *_a, **_k: str(path)
    with qtbot.waitSignal(window.session.history.session_saved):
        window.save_session_action.trigger()
    assert window.statusBar().currentMessage() == f"session saved to {path}"
    assert open_session(path).entries[0].request.text == PROMPT

    inspected(qtbot, window, "How do I install FastAPI?")
    window.show_tab("Batch")
    window.dialogs.open_path = lambda *_a: str(path)
    with qtbot.waitSignal(window.session.history.session_opened):
        window.open_session_action.trigger()
    assert window.editor.toPlainText() == PROMPT
    assert window.session.request.text == PROMPT
    assert window.views.currentWidget() is window.live
    assert window.statusBar().currentMessage() == f"session opened from {path}"
    assert told == []


def test_opening_a_session_shows_its_warnings(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    path = tmp_path / "one.json"
    with qtbot.waitSignal(window.session.history.session_saved):
        assert window.files.save_session(path)
    text = (routescope.resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace('name = "default"', 'name = "mine"'), encoding="utf-8")
    assert window.open_rules(mine)
    with qtbot.waitSignal(window.session.history.session_opened) as opened:
        window.files.open_session(path)
    warnings = opened.args[1]
    assert warnings
    assert told == ["\n".join(warnings)]


def test_a_bad_session_file_is_one_line(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.json"
    path.write_text("{}", encoding="utf-8")
    with qtbot.waitSignal(window.session.history.session_failed):
        window.files.open_session(path)
    assert len(told) == 1 and "\n" not in told[0]


def test_a_session_that_cannot_be_saved_is_one_line(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    with qtbot.waitSignal(window.session.history.session_failed):
        assert window.files.save_session(tmp_path)  # a folder: not a file to replace
    assert len(told) == 1 and "cannot save the session" in told[0] and "\n" not in told[0]


def test_export_the_inspection_as_json_and_markdown(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    as_json, as_md = tmp_path / "i.json", tmp_path / "i.md"
    window.dialogs.save_path = lambda *_a, **_k: str(as_json)
    with qtbot.waitSignal(window.session.inspection.exported):
        window.export_json_action.trigger()
    assert json.loads(as_json.read_text(encoding="utf-8"))["strategy"] == "local"
    assert window.statusBar().currentMessage() == f"inspection exported to {as_json}"
    window.dialogs.save_path = lambda *_a, **_k: str(as_md)
    with qtbot.waitSignal(window.session.inspection.exported):
        window.export_markdown_action.trigger()
    assert PROMPT in as_md.read_text(encoding="utf-8")


def test_the_json_export_is_what_inspect_json_prints(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path, capsys
) -> None:
    """One serializer: the export holds every router, the catalog's ranking included, exactly
    as `routescope inspect --json` prints it for the same request."""
    window.show_tab("Tools")  # the Tools tab loads the sample catalog's engine
    tools = window.session.tools
    qtbot.waitUntil(lambda: tools.engine is not None, timeout=60_000)
    qtbot.waitUntil(lambda: window.session.request.catalog is not None)
    inspected(qtbot, window)
    qtbot.waitUntil(lambda: tools.ranking is not None and not tools.busy, timeout=30_000)
    path = tmp_path / "i.json"
    with qtbot.waitSignal(window.session.inspection.exported, timeout=30_000):
        assert window.files.export_inspection(path, "json")
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["tools"]["results"]  # the ranking: what the export left out before

    catalog = window.session.request.catalog
    assert catalog is not None
    capsys.readouterr()
    args = ["inspect", "--json", "--today", TODAY.isoformat(), "--catalog", catalog.path, PROMPT]
    assert routescope_main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert without_timings(exported) == without_timings(printed)
    assert set(exported["timings_us"]) == set(printed["timings_us"])  # the same stages


def test_without_the_tools_tab_the_export_is_still_what_inspect_json_prints(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path, capsys
) -> None:
    """The Tools tab never shown (no catalog in the request): the export ranks the sample
    catalog's tools, as `inspect --json` does without `--catalog` — same prompt, date and
    pack, same JSON (the timings aside); the Markdown export has the ranking too."""
    pack = tmp_path / "mine.toml"
    text = routescope.RulesRef.builtin().text.replace('name = "default"', 'name = "mine"', 1)
    pack.write_text(text, encoding="utf-8")
    assert window.open_rules(pack)
    inspected(qtbot, window, "why is my container crashing after the deploy?")
    assert window.session.request.catalog is None
    path, summary = tmp_path / "i.json", tmp_path / "i.md"
    with qtbot.waitSignal(window.session.inspection.exported, timeout=120_000):
        assert window.files.export_inspection(path, "json")
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["rules"] == "mine" and exported["tools"]["results"]
    capsys.readouterr()
    args = ["inspect", "why is my container crashing after the deploy?", "--json"]
    args += ["--today", TODAY.isoformat(), "--rules", str(pack)]
    assert routescope_main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert without_timings(exported) == without_timings(printed)
    with qtbot.waitSignal(window.session.inspection.exported, timeout=30_000):
        assert window.files.export_inspection(summary, "md")
    assert "## Tools: hybrid" in summary.read_text(encoding="utf-8")


def test_nothing_inspected_nothing_exported(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    assert not window.files.export_inspection(tmp_path / "i.json", "json")
    assert told and not (tmp_path / "i.json").exists()


def test_an_export_that_cannot_be_written_is_one_line(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    with qtbot.waitSignal(window.session.inspection.export_failed):
        assert window.files.export_inspection(tmp_path, "md")  # a folder: not a file to replace
    assert len(told) == 1 and "cannot export the inspection" in told[0]


def test_save_as_regression_case(qtbot, window, tmp_path: Path, told) -> None:  # type: ignore[no-untyped-def]
    inspected(qtbot, window)
    suite = tmp_path / "suite.yaml"
    window.dialogs.save_path = lambda *_a, **_k: str(suite)
    window.dialogs.case_id = lambda: "pizza"
    with qtbot.waitSignal(window.session.regress.case_saved):
        window.save_case_action.trigger()
    assert told == []
    assert window.statusBar().currentMessage() == f"case pizza saved to {suite}"
    loaded = routescope.regress.load_suite(suite)
    assert [case.id for case in loaded.cases] == ["pizza"]

    with qtbot.waitSignal(window.session.regress.case_failed):
        window.save_case_action.trigger()  # the same id again: refused, in one line
    assert len(told) == 1 and "\n" not in told[0]
    assert [case.id for case in routescope.regress.load_suite(suite).cases] == ["pizza"]


def test_nothing_inspected_no_case_asked_for(qtbot, window, told) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []
    window.dialogs.save_path = lambda *_a, **_k: asked.append("path") or ""
    window.save_case_action.trigger()
    assert told == ["Nothing inspected yet: type a prompt first."] and asked == []
