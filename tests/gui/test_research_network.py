"""Research over the network in the window: a real SearXNG-shaped server on 127.0.0.1; runs
start on Ctrl+Enter, attempts arrive one by one, Esc cancels (and says so), editing the prompt
never cancels a run (it is marked stale, to re-run or cancel), a failing server is shown as
such, the report is saved and linked, the settings dialog keeps keys owner-only and never
shows them."""

import asyncio
import json
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit, QWidget

import routescope
from routescope.research import KeyStore, ResearchSettings
from routescope_gui import MainWindow, Session
from routescope_gui._research_model import BY_YOU, NEW_RUN
from routescope_gui._research_settings import ResearchSettingsDialog
from tests._support import TODAY
from tests.gui._support import GOAL, record

SECRET = "tvly-secret-0123456789abcdef"


class Searx:
    """A SearXNG instance whose results point at loopback addresses (the policy refuses them:
    no page is read, so every attempt scores 0 and the loop tries again). `gate`, when
    given, holds each answer until it is set; `failing` makes every answer a 503."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.gate: threading.Event | None = None
        self.failing = False
        searx = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
                searx.queries.append(query)
                if searx.gate is not None:
                    searx.gate.wait(30)
                if searx.failing:
                    self.send_error(503, "every upstream engine is down")
                    return
                port = self.server.server_address[1]
                results = [
                    {"url": f"http://127.0.0.1:{port}/page{i}", "title": f"page {i}", "content": ""}
                    for i in range(3)
                ]
                body = json.dumps({"query": query, "results": results}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        if self.gate is not None:
            self.gate.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def searx() -> Iterator[Searx]:
    server = Searx()
    yield server
    server.close()


@pytest.fixture
def network_window(qtbot, qloop, tmp_path: Path, searx: Searx) -> MainWindow:  # type: ignore[no-untyped-def]
    session = Session(
        routescope.Request.build("", today=TODAY),
        cache=tmp_path,
        keys=KeyStore(tmp_path / "keys.json"),
        reports=tmp_path / "reports",
    )
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.set_research_settings(ResearchSettings(search="searxng", searxng_url=searx.url))
    return window


def test_network_research_waits_for_ctrl_enter_and_shows_each_attempt(
    qtbot,  # type: ignore[no-untyped-def]
    network_window: MainWindow,
    searx: Searx,
    tmp_path: Path,
) -> None:
    window, session, view = network_window, network_window.session, network_window.research_view
    window.show_tab("Research")
    window.set_prompt(GOAL)
    assert not session.research.busy  # no run, none due: network research does not follow typing
    assert not searx.queries and "Ctrl+Enter runs" in view.backends.text()
    arrived: list[int] = []
    session.research.attempt.connect(lambda attempt: arrived.append(view.table.topLevelItemCount()))
    with qtbot.waitSignal(session.research.saved, timeout=30_000) as saved:
        qtbot.keyClick(window.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    result = session.research.result
    assert result is not None and len(result.attempts) == 3
    assert arrived == [1, 2, 3]  # each attempt was on screen before the next one
    assert len(searx.queries) == 3  # the search server only: no result page was fetched
    pages = [p for a in result.attempts for p in a.pages]
    assert pages and all(not p.allowed for p in pages)
    report = Path(saved.args[0])
    assert report.parent.parent == tmp_path / "reports" and report.name == "report.md"
    assert json.loads((report.parent / "report.json").read_text())["goal"] == GOAL
    assert report.parent.name in view.report_link.text()
    assert "web research weak" in view.summary.text()


def test_esc_cancels_a_run_says_so_and_keeps_what_was_shown(
    qtbot,  # type: ignore[no-untyped-def]
    qloop,
    network_window: MainWindow,
    searx: Searx,
) -> None:
    window, model, view = (
        network_window,
        network_window.session.research,
        network_window.research_view,
    )
    searx.gate = threading.Event()
    finished = record(model.finished)
    window.set_prompt(GOAL)
    with qtbot.waitSignal(model.started, timeout=5_000):
        window.research_action.trigger()
    assert view.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: bool(searx.queries), timeout=10_000)
    with qtbot.waitSignal(model.cancelled, timeout=5_000) as cancelled:
        qtbot.keyClick(window.editor, Qt.Key.Key_Escape)
    assert cancelled.args == [BY_YOU]
    assert view.status.text() == f"research cancelled by you — <b>«{GOAL}»</b>"
    assert not view.cancel_button.isEnabled()
    searx.gate.set()
    qtbot.waitUntil(lambda: all(task.done() for task in asyncio.all_tasks(qloop)), timeout=10_000)
    assert not model.busy and not finished and model.result is None


def test_editing_the_prompt_never_cancels_a_network_run(
    qtbot,  # type: ignore[no-untyped-def]
    network_window: MainWindow,
    searx: Searx,
) -> None:
    window, model, view = (
        network_window,
        network_window.session.research,
        network_window.research_view,
    )
    searx.gate = threading.Event()
    cancelled, stale = record(model.cancelled), record(model.stale)
    window.set_prompt(GOAL)
    with qtbot.waitSignal(model.started, timeout=5_000):
        window.run_research()
    qtbot.waitUntil(lambda: bool(searx.queries), timeout=10_000)
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(window.editor, " now")
    window.show_tab("Plan")  # looking at another tab does not cancel it either
    assert not cancelled and model.running_goal == GOAL and stale == [GOAL]
    assert view.stale_bar.isVisibleTo(view)
    assert f"stale:</b> started for <b>«{GOAL}»</b>" in view.stale_label.text()
    assert view.stale_cancel_button.isVisibleTo(view)
    searx.gate.set()
    with qtbot.waitSignal(model.saved, timeout=30_000):
        pass  # the run finished for the prompt it started with, and its report was kept
    assert model.result is not None and model.result.goal == GOAL and not cancelled
    assert f"this result is for <b>«{GOAL}»</b>" in view.stale_label.text()
    assert not view.stale_cancel_button.isVisibleTo(view)
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        view.rerun_button.click()
    assert blocker.args[0].goal == f"{GOAL} now" and window.tabs.currentWidget() is view
    assert stale == [GOAL, ""] and not view.stale_bar.isVisibleTo(view)
    window.set_prompt(GOAL)  # back to an older prompt: the result shown is stale again
    assert stale[-1] == f"{GOAL} now"


def test_a_stale_run_can_be_cancelled_or_replaced(
    qtbot,  # type: ignore[no-untyped-def]
    network_window: MainWindow,
    searx: Searx,
) -> None:
    window, model, view = (
        network_window,
        network_window.session.research,
        network_window.research_view,
    )
    searx.gate = threading.Event()
    window.set_prompt(GOAL)
    with qtbot.waitSignal(model.started, timeout=5_000):
        window.run_research()
    window.set_prompt(f"{GOAL} now")
    with qtbot.waitSignal(model.cancelled) as cancelled:
        view.stale_cancel_button.click()
    assert cancelled.args == [BY_YOU] and not model.busy
    assert view.status.text() == f"research cancelled by you — <b>«{GOAL}»</b>"
    with qtbot.waitSignal(model.started, timeout=5_000):
        window.run_research()
    window.set_prompt(GOAL)
    cancelled, started = record(model.cancelled), record(model.started)
    view.rerun_button.click()
    assert cancelled == [NEW_RUN] and started == [GOAL] and model.running_goal == GOAL
    searx.gate.set()


def test_a_failing_search_server_is_shown_as_such(
    qtbot,  # type: ignore[no-untyped-def]
    network_window: MainWindow,
    searx: Searx,
) -> None:
    window, model, view = (
        network_window,
        network_window.session.research,
        network_window.research_view,
    )
    searx.failing = True
    window.set_prompt(GOAL)
    with qtbot.waitSignal(model.finished, timeout=30_000) as blocker:
        window.run_research()
    result = blocker.args[0]
    assert result.attempts and all(a.status == 503 and a.error for a in result.attempts)
    first = view.table.topLevelItem(0)
    assert first is not None and first.text(3).startswith("searxng · 503 · ")
    assert first.foreground(3).color().name() == "#c62828"
    view.table.setCurrentItem(first)
    assert f"search: searxng · 503 · {result.attempts[0].error}" in view.detail.toPlainText()
    step = result.next_step
    assert f"next step: <b>{step.outcome.replace('_', ' ')}</b> — " in view.summary.text()
    assert view.summary.property("tone") == step.outcome


def test_a_provider_without_its_key_says_so(qtbot, network_window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window, session = network_window, network_window.session
    window.set_research_settings(ResearchSettings(search="tavily"))
    window.set_prompt(GOAL)
    with qtbot.waitSignal(session.research.failed, timeout=10_000) as failed:
        window.run_research()
    assert "tavily needs a key" in failed.args[0]
    assert "research failed: tavily needs a key" in window.research_view.status.text()


def test_the_settings_dialog_stores_typed_keys_owner_only_and_never_shows_them(
    qtbot,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "BSA-environment-key-0042")
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    store = KeyStore(tmp_path / "keys.json")
    dialog = ResearchSettingsDialog(ResearchSettings(), store)
    qtbot.addWidget(dialog)
    brave = dialog.key_fields["BRAVE_API_KEY"]
    assert brave.echoMode() == QLineEdit.EchoMode.Password
    assert brave.placeholderText() == "BSA…0042 (from the environment)"
    ok = dialog._buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.search.setCurrentIndex(dialog.search.findData("tavily"))
    assert "tavily needs a key" in dialog.problem and not ok.isEnabled()
    dialog.key_fields["TAVILY_API_KEY"].setText(SECRET)
    assert dialog.problem == "" and ok.isEnabled()
    dialog.accept()
    assert dialog.settings() == ResearchSettings(search="tavily")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.stored() == {"TAVILY_API_KEY": SECRET}
    again = ResearchSettingsDialog(ResearchSettings(search="tavily"), store)
    qtbot.addWidget(again)
    tavily = again.key_fields["TAVILY_API_KEY"]
    assert tavily.text() == "" and tavily.placeholderText() == "tvl…cdef (from the key file)"
    shown = [
        text
        for widget in again.findChildren(QWidget)
        for text in (
            getattr(widget, "text", lambda: "")(),
            getattr(widget, "placeholderText", lambda: "")(),
            widget.toolTip(),
        )
    ]
    assert shown and not any(SECRET[4:] in text for text in shown)


def test_settings_chosen_are_kept_for_the_next_start(
    qtbot,  # type: ignore[no-untyped-def]
    network_window: MainWindow,
    searx: Searx,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    chosen = ResearchSettings(search="searxng", searxng_url=searx.url, max_attempts=2)

    def accept(dialog: ResearchSettingsDialog) -> ResearchSettingsDialog.DialogCode:
        dialog.search.setCurrentIndex(dialog.search.findData("searxng"))
        dialog.searxng_url.setText(searx.url)
        dialog.max_attempts.setValue(2)
        return ResearchSettingsDialog.DialogCode.Accepted

    monkeypatch.setattr(ResearchSettingsDialog, "exec", accept)
    network_window.edit_research_settings()
    assert network_window.session.research.settings == chosen
    saved = QSettings("Routescope", "routescope-gui").value("research/settings")
    assert json.loads(str(saved))["max_attempts"] == 2
    session = Session(routescope.Request.build("", today=TODAY), cache=tmp_path)
    later = MainWindow(session)
    qtbot.addWidget(later)
    assert later.session.research.settings == chosen
    assert "SearXNG at 127.0.0.1" in later.research_view.backends.text()
    QSettings("Routescope", "routescope-gui").remove("research/settings")


def test_the_settings_dialog_edits_the_grounding(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = ResearchSettingsDialog(
        ResearchSettings(grounding="required"), KeyStore(tmp_path / "k")
    )
    qtbot.addWidget(dialog)
    assert dialog.grounding.currentData() == "required"
    dialog.grounding.setCurrentIndex(dialog.grounding.findData("not_required"))
    assert dialog.settings() == ResearchSettings(grounding="not_required")
