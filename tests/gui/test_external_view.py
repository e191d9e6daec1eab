"""The External tab of the live view against real routers: the semantic-router example file
(the shipped model) and the Python example router, a vLLM Semantic Router on loopback that
holds its answers (typing goes on, the stale answer is dropped), failing ones (one line each);
the routers ticked kept for the next start; each router's expected route judged into the
judged set as `labels.routes`, the label `routescope score --routers` reads."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QTreeWidgetItem

from routescope_gui import MainWindow, Session
from routescope_gui._external import EXTERNAL
from routescope_gui._external_rows import EXPECTED, LATENCY, NAME, ROUTE, WHY
from routescope_gui._widgets import BAR_ROLE
from routescope_gui._window_state import SETTINGS
from tests._support import TODAY
from tests.core.research._loopback import json_reply, serving
from tests.gui._own_history import own_window  # noqa: F401 (`window`: a history of its own)
from tests.gui._routers import (
    EXAMPLE_ROUTERS,
    ONLY_OFFLINE,
    Gate,
    forget_routers,  # noqa: F401 (a fixture)
    http_router,
    routers_file,
)
from tests.gui._support import record

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("forget_routers")]

REFUND = "I was charged twice, refund please"


def _open(qtbot, window: MainWindow, path: Path, unticked: list[str] | None = None) -> None:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.routers.chosen_changed, timeout=10_000):
        window.externals.open_file(path, unticked or ())


def _answered(qtbot, window: MainWindow, text: str) -> None:  # type: ignore[no-untyped-def]
    model = window.session.routers

    def done() -> bool:
        return all(
            (name in model.results and model.results[name].text == text) or name in model.problems
            for name in model.chosen
        )

    qtbot.waitUntil(done, timeout=60_000)


def _row(window: MainWindow, name: str) -> QTreeWidgetItem:
    item = window.externals.view.item(name)
    assert item is not None
    return item


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [child for n in range(item.childCount()) if (child := item.child(n)) is not None]


def test_each_router_shows_its_route_scores_evidence_latency_and_raw_answer(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    _open(qtbot, window, EXAMPLE_ROUTERS, ONLY_OFFLINE)
    assert window.current_tab() == EXTERNAL
    view = window.externals.view
    assert [view.tree.topLevelItem(n).text(NAME) for n in range(4)] == [  # type: ignore[union-attr]
        "support",
        "keywords",
        "vsr",
        "routellm",
    ]
    assert view.chosen() == ["support", "keywords"]
    assert "not asked" in _row(window, "vsr").text(WHY)
    window.set_prompt(REFUND)
    _answered(qtbot, window, REFUND)
    support = _row(window, "support")
    assert support.text(ROUTE) == "billing · 0.928"
    assert "confidence 0.928 ≥ threshold 0.500" in support.text(WHY)
    assert support.text(LATENCY).endswith(" ms")
    routes = _children(support)
    assert [route.text(NAME).strip() for route in routes] == [
        "▶ billing",
        "outage",
        "how_to",
        "chitchat",
    ]
    billing, outage = routes[0], routes[1]
    assert billing.isExpanded() and billing.data(ROUTE, BAR_ROLE) > 0
    utterances = _children(billing)
    assert utterances and "“I was charged twice this month”" in utterances[0].text(WHY)
    assert float(utterances[0].text(ROUTE)) > 0.7 and utterances[0].data(ROUTE, BAR_ROLE) > 0.7
    assert outage.text(WHY).startswith("why not: none of its utterances is among the 5 nearest")
    keywords = _row(window, "keywords")
    assert keywords.text(ROUTE) == "billing · 1.000"
    signals = next(child for child in _children(keywords) if child.text(NAME) == "signals")
    assert [child.text(WHY) for child in _children(signals)] == [
        "keyword:charged",
        "keyword:refund",
    ]
    # The raw answer, collapsed at first, is the selected router's.
    view.tree.setCurrentItem(keywords)
    assert not view.raw_view.isVisible()
    view.raw_button.click()
    assert view.raw_view.isVisible() and '"route": "billing"' in view.raw_view.toPlainText()
    assert view.raw_button.text() == "Raw answer (keywords)"


def test_typing_goes_on_while_a_router_is_slow_and_its_stale_answer_is_dropped(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    gate = Gate()
    model = window.session.routers
    with serving(gate) as server:
        _open(qtbot, window, routers_file(tmp_path, slow=http_router(server.url())))
        asked = record(model.routing)
        window.set_prompt("inflation")
        qtbot.waitUntil(lambda: len(server.requests) == 1, timeout=10_000)
        window.editor.setFocus()
        window.editor.moveCursor(window.editor.textCursor().MoveOperation.End)
        qtbot.keyClicks(window.editor, " and the price of bread")
        typed = "inflation and the price of bread"
        # Every key was taken and routed by the built-in routers while the router answers.
        assert window.editor.toPlainText() == typed
        inspection = window.session.inspection
        qtbot.waitUntil(lambda: inspection.result is not None)
        qtbot.waitUntil(lambda: inspection.result.context.raw_text == typed)  # type: ignore[union-attr]
        qtbot.waitUntil(lambda: len(asked) == 2, timeout=10_000)  # asked about it, waiting
        slow = _row(window, "slow")
        assert slow.text(LATENCY) == "asking…" and model.results == {}
        gate.open()
        _answered(qtbot, window, typed)
    assert [request.json()["text"] for request in server.requests] == ["inflation", typed]
    assert model.results["slow"].text == typed
    assert slow.text(ROUTE) == "economics · 0.910" and slow.text(LATENCY).endswith(" ms")


def test_a_failing_router_is_one_line_and_the_others_still_answer(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    with serving(lambda _request: json_reply({"error": "overloaded"}, status=503)) as down:
        path = routers_file(
            tmp_path,
            down=http_router(down.url()),
            locked=http_router(down.url(), extra='secret_env = "NO_SUCH_KEY"\n'),
            keywords='kind = "python"\nfunction = "keyword_router:route"\n'
            f'path = "{EXAMPLE_ROUTERS.parent}"\n',
        )
        _open(qtbot, window, path)
        window.set_prompt("the site is down with a 503 error")
        _answered(qtbot, window, "the site is down with a 503 error")
    failed = _row(window, "down")
    assert failed.text(ROUTE) == "error: http" and "HTTP 503" in failed.text(WHY)
    assert failed.childCount() == 0
    locked = _row(window, "locked")
    assert locked.text(ROUTE) == "cannot start"
    assert locked.text(WHY) == "the environment variable NO_SUCH_KEY is not set"
    assert str(path) in locked.toolTip(WHY)  # the whole message names the file
    assert _row(window, "keywords").text(ROUTE).startswith("outage")


def test_the_routers_ticked_are_kept_for_the_next_start(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow, tool_cache: Path, tmp_path: Path
) -> None:
    _open(qtbot, window, EXAMPLE_ROUTERS, ONLY_OFFLINE)
    keywords = _row(window, "keywords")
    keywords.setCheckState(NAME, Qt.CheckState.Unchecked)  # as a click on its box does
    model = window.session.routers
    assert model.chosen == ["support"] and "not asked" in keywords.text(WHY)
    settings = QSettings(*SETTINGS)
    assert settings.value("routers/file") == str(EXAMPLE_ROUTERS)
    second = MainWindow(
        Session(cache=tool_cache, history=tmp_path / "second.sqlite3"), restore=True
    )
    qtbot.addWidget(second)
    qtbot.waitUntil(lambda: second.session.routers.declared is not None, timeout=10_000)
    qtbot.waitUntil(lambda: second.session.routers.chosen == ["support"], timeout=10_000)
    assert second.externals.view.chosen() == ["support"]


def test_the_file_and_view_menus_open_a_routers_file_and_show_the_tab(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    externals = window.externals
    asked: list[str] = []

    def open_path(title: str, filters: str, start: str = "") -> str:
        asked.append(filters)
        return str(EXAMPLE_ROUTERS)

    window.dialogs.open_path = open_path  # type: ignore[method-assign]
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    texts = [action.text() for action in file_menu.actions()]  # type: ignore[union-attr]
    assert texts[texts.index("Open suite…") + 1] == "Open routers file…"
    assert externals.show_action.shortcut().toString() == "Ctrl+Shift+X"
    externals.open_action.trigger()
    assert asked == ["Routers files (*.toml);;All files (*)"]
    qtbot.waitUntil(lambda: window.session.routers.declared is not None, timeout=10_000)
    window.show_tab("Plan")
    externals.show_action.trigger()
    assert window.current_tab() == EXTERNAL and window.tabs.currentWidget() is externals.view


def _judge_ready(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.session.judge.busy, timeout=20_000)
    window.session.judge.use_set(f"external {uuid.uuid4().hex}")


def test_a_routers_expected_route_is_judged_into_the_set_as_score_reads_it(  # type: ignore[no-untyped-def]
    qtbot, window: MainWindow
) -> None:
    _judge_ready(qtbot, window)
    _open(qtbot, window, EXAMPLE_ROUTERS, ONLY_OFFLINE)
    window.set_prompt(REFUND)
    _answered(qtbot, window, REFUND)
    judge, tree = window.externals.judge, window.externals.view.tree
    assert tree.isColumnHidden(EXPECTED)  # nothing judged yet
    support = _row(window, "support")
    tree.setCurrentItem(_children(support)[1])  # a route's row: its router is judged
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_R)
    labels = window.session.judge.judgment(REFUND, TODAY)
    assert labels is not None and labels.expected_route("support") == "billing"
    assert not tree.isColumnHidden(EXPECTED) and support.text(EXPECTED) == "✓ billing"
    judge.expect("keywords", "outage")  # W's menu, choosing a route it knows
    labels = window.session.judge.judgment(REFUND, TODAY)
    assert dict(labels.routes or ()) == {"support": "billing", "keywords": "outage"}  # type: ignore[union-attr]
    keywords = _row(window, "keywords")
    assert keywords.text(EXPECTED) == "✗ outage"
    assert keywords.toolTip(EXPECTED).startswith("expected outage; decided billing")
    judge.expect("support", "outage")
    assert "why not outage: none of its utterances" in support.toolTip(EXPECTED)
    tree.setCurrentItem(keywords)
    qtbot.keyClick(tree, Qt.Key.Key_Delete)
    qtbot.keyClick(tree, Qt.Key.Key_N, Qt.KeyboardModifier.NoModifier)  # no route is right
    labels = window.session.judge.judgment(REFUND, TODAY)
    assert dict(labels.routes or ()) == {"support": "outage", "keywords": ""}  # type: ignore[union-attr]
    assert keywords.text(EXPECTED) == "✗ (none)"
    # What the set exports is a labelled case `routescope score --routers` scores.
    case = next(c for c in window.session.judge.cases() if c.prompt == REFUND)
    assert case.labels.expected_route("keywords") == "" and case.labels.routes is not None
    judge.expect("support", None)
    judge.expect("keywords", None)
    assert window.session.judge.judgment(REFUND, TODAY) is None
    assert tree.isColumnHidden(EXPECTED)
