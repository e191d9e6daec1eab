"""Judging where a decision is shown: the Context tree's Expected column and the judge bar in
the live view, by key and by context menu; a mismatch marked with its evidence; Judge… from the
History and Batch lists opens the same judging for that row's prompt and date."""

from __future__ import annotations

import datetime as dt
import uuid

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QTreeWidgetItem

import routescope
from routescope.batch import PromptRef
from routescope.judge import Labels
from routescope_gui import MainWindow
from routescope_gui._batch_prompts import _PromptRow
from routescope_gui._judge_controls import EXPECTED, ContextJudge
from routescope_gui._style import colour
from tests._support import TODAY
from tests.gui._own_history import own_window  # noqa: F401 (`window`: a history of its own)
from tests.gui._support import record

IQBAL = "Who was Mohammad Iqbal to the State of Pakistan?"


def _ready(qtbot, window: MainWindow, prompt: str) -> ContextJudge:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.session.judge.busy, timeout=20_000)
    if not window.property("test_set"):  # a set of its own: the tests' windows share a history
        window.session.judge.use_set(f"controls {uuid.uuid4().hex}")
        window.setProperty("test_set", True)
    window.set_prompt(prompt)
    judge = window.judging.live
    qtbot.waitUntil(lambda: judge.subject is not None and judge.subject.prompt == prompt)
    return judge


def _action(menu: QMenu, starts: str) -> None:
    for action in menu.actions():
        if action.text().startswith(starts):
            action.trigger()
            return
    raise AssertionError(f"no {starts!r} in {[a.text() for a in menu.actions()]}")


def _row(judge: ContextJudge, name: str) -> QTreeWidgetItem:
    row = judge.tree.row(name)
    assert row is not None
    return row


def test_a_flag_judged_by_key_shows_expected_beside_decided(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    judge = _ready(qtbot, window, IQBAL)
    tree = judge.tree
    local = _row(judge, "local")
    assert local.text(1) == "● on" and local.text(EXPECTED) == ""
    assert tree.headerItem().text(EXPECTED) == "Expected"
    assert tree.header().visualIndex(EXPECTED) == 2  # before the evidence
    tree.setFocus()
    tree.setCurrentItem(local)
    qtbot.keyClick(tree, Qt.Key.Key_W)  # wrong: local should be off
    assert local.text(EXPECTED) == "✗ off"
    assert local.background(EXPECTED).color() == colour("miss")
    tip = local.toolTip(EXPECTED)
    assert "expected off; decided on" in tip and 'local keyword "state"' in tip and "@" in tip
    assert "✗ 1 wrong: local" in judge.bar.summary.text()
    tech = _row(judge, "tech")
    tree.setCurrentItem(tech)
    qtbot.keyClick(tree, Qt.Key.Key_R)  # right: tech is off
    assert tech.text(EXPECTED) == "✓ off" and tech.background(EXPECTED).color() == colour("hit")
    store = window.session.history.store
    current = window.session.judge.current
    qtbot.waitUntil(
        lambda: store.judgment(IQBAL, TODAY, set_name=current) == Labels(local=False, tech=False)
    )
    qtbot.keyClick(tree, Qt.Key.Key_Delete)  # forget the tech label
    assert tech.text(EXPECTED) == "" and window.session.judge.judgment(IQBAL, TODAY) == Labels(
        local=False
    )


def test_the_menu_judges_place_entities_strategy_and_all(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    judge = _ready(qtbot, window, "Find me a hair stylist in Fremont, CA")
    model = window.session.judge
    answers = iter(["Fremont, CA", "hair stylist"])
    window.judging.ask = lambda *_question: next(answers)
    place = _row(judge, "place")
    _action(judge.menu_for(place), "Expected place…")
    labels = model.judgment(judge.subject.prompt, TODAY)
    assert labels is not None and labels.place_hint == "Fremont, CA"
    decided = judge.subject.decided
    right = decided.place_hint is not None and decided.place_hint.startswith("Fremont")
    assert place.text(EXPECTED) == f"{'✓' if right else '✗'} Fremont, CA"
    entities = _row(judge, "entities")
    _action(judge.menu_for(entities), "Add an entity…")
    labels = model.judgment(judge.subject.prompt, TODAY)
    assert labels is not None and labels.entities is not None
    assert "hair stylist" in labels.entities
    first = entities.child(0)
    assert first is not None
    name = first.text(1)
    _action(judge.menu_for(first), "✗ Strike")
    labels = model.judgment(judge.subject.prompt, TODAY)
    assert labels is not None and name not in (labels.entities or ())
    assert first.text(EXPECTED) == "✗ struck"
    # the strategy, in the bar, beside what was decided
    bar = judge.bar
    bar.strategy.setCurrentIndex(bar.strategy.findData("local"))
    bar.strategy.activated.emit(bar.strategy.currentIndex())
    labels = model.judgment(judge.subject.prompt, TODAY)
    assert labels is not None and labels.strategy == "local"  # (the seed: general)
    assert "✗ decided" in bar.strategy_mark.text()
    assert "expected local; decided general" in bar.strategy_mark.toolTip()
    # everything as decided, then forget it all
    bar.all_right.click()
    labels = model.judgment(judge.subject.prompt, TODAY)
    assert labels is not None and labels.local == decided.flags["local"]
    assert labels.entities == decided.entities[:6]
    bar.forget.click()
    assert model.judgment(judge.subject.prompt, TODAY) is None
    assert bar.summary.text().startswith("Not judged yet")


def test_a_new_prompt_shows_its_own_judgment(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    judge = _ready(qtbot, window, IQBAL)
    judge.flag_right("local", False)
    judge = _ready(qtbot, window, "pizza near me")
    assert _row(judge, "local").text(EXPECTED) == ""
    judge = _ready(qtbot, window, IQBAL)
    assert _row(judge, "local").text(EXPECTED) == "✗ off"
    window.set_today(TODAY + dt.timedelta(days=1))  # another date: another judgment
    qtbot.waitUntil(lambda: judge.subject is not None and judge.subject.today != TODAY)
    assert _row(judge, "local").text(EXPECTED) == ""


def test_judge_from_the_history_list(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    window.session.judge.use_set(f"history {uuid.uuid4().hex}")
    store = window.session.history.store
    day = dt.date(2025, 3, 1)
    request = routescope.Request.build(IQBAL, today=day)
    entry = store.record(request, routescope.inspect(request))
    assert entry is not None
    view = window.history_view
    with qtbot.waitSignal(window.session.history.listed, timeout=20_000):
        window.session.history.refresh()
    item = view.table.topLevelItem(0)
    assert item is not None
    opened = record(view.judge_requested)
    view._context_menu(view.table.visualItemRect(item).center())
    menu = view.table.findChildren(QMenu)[-1]
    _action(menu, "Judge…")
    menu.close()
    assert opened == [entry.id]
    dialog = window.judging.dialog
    assert dialog is not None and dialog.request == request
    qtbot.waitUntil(lambda: dialog.judge.subject is not None, timeout=20_000)
    assert "from the history" in dialog.heading.text() and "2025-03-01" in dialog.heading.text()
    local = dialog.tree.row("local")
    assert local is not None
    dialog.tree.setCurrentItem(local)
    qtbot.keyClick(dialog.tree, Qt.Key.Key_W)
    assert window.session.judge.judgment(IQBAL, day) == Labels(local=False)
    assert local.text(EXPECTED) == "✗ off"
    dialog.close()


def test_judge_from_a_batch_list(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.session.judge.use_set(f"batch {uuid.uuid4().hex}")
    prompts = window.batch_view.prompt_list
    ref = PromptRef("log.txt", 3, IQBAL, 3)
    prompts.prompt_model._set(
        ("Where", "Prompt"), [_PromptRow(ref, ("log.txt:3", IQBAL), ("", ""))]
    )
    asked = record(window.batch_view.judge_requested)
    menu = QMenu()
    prompts._more_entries(menu, prompts.prompt_model.index(0, 1))
    _action(menu, "Judge…")
    assert asked == [ref]
    # the batch model makes the prompt's request (its whole text, its batch's date)
    request = routescope.Request.build(IQBAL, today=dt.date(2030, 7, 4))
    window.session.batch.prompt_judged.emit(request)
    dialog = window.judging.dialog
    assert dialog is not None and dialog.request == request
    assert "from a batch" in dialog.heading.text()
    dialog.close()
