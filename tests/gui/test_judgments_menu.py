"""The Judgments menu: the set judged into named at its top and checked in Switch to; a new set,
a switch, a merge, a labelled file imported and the set exported, through the history store;
the Quality view from it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from pathlib import Path

from routescope.judge import read_labelled
from routescope_gui import MainWindow
from routescope_gui._judging import QUALITY
from routescope_gui._judgments_menu import JudgmentsMenu
from tests._support import TODAY
from tests.gui._own_history import own_window  # noqa: F401 (`window`: a history of its own)


def _menu(qtbot, window: MainWindow) -> JudgmentsMenu:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    qtbot.waitUntil(lambda: not window.session.judge.busy, timeout=20_000)
    return window.judging.menu


def test_the_menu_sits_before_help_and_names_the_set(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    menu = _menu(qtbot, window)
    titles = [a.text() for a in window.menuBar().actions()]
    assert titles[-2:] == ["&Judgments", "&Help"]
    name = f"web {uuid.uuid4().hex[:8]}"
    menu.asks.name = lambda *_a: name
    menu.new_action.trigger()
    model = window.session.judge
    assert model.current == name
    assert menu.current_action.text() == f"Judging into «{name}» (0 prompts)"
    assert window.judging.bar.set_label.text() == f"«{name}» · 0 judged"
    model.judge("pizza near me", TODAY, {"local": True})
    assert menu.current_action.text() == f"Judging into «{name}» (1 prompt)"
    menu.quality_action.trigger()
    assert window.views.currentWidget() is window.judging.quality_view
    assert window.current_tab() == QUALITY


def test_switch_merge_import_and_export(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    menu = _menu(qtbot, window)
    model = window.session.judge
    first, second = (f"{n} {uuid.uuid4().hex[:8]}" for n in ("first", "second"))
    model.use_set(first)
    model.judge("pizza near me", TODAY, {"local": True})
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text(
        json.dumps({"prompt": "best laptop under $1000", "labels": {"purchase": True}}) + "\n",
        encoding="utf-8",
    )
    menu.asks.open_path = lambda *_a: str(labelled)
    menu.import_action.trigger()
    qtbot.waitUntil(lambda: model.size == 2, timeout=20_000)
    assert "imported into" in window.statusBar().currentMessage()
    offered: list[Sequence[str]] = []

    def merge_target(_title: str, _label: str, names: Sequence[str]) -> str:
        offered.append(names)
        return second

    menu.asks.name = merge_target
    menu.merge_action.trigger()
    qtbot.waitUntil(lambda: dict(model.sets).get(second) == 2, timeout=20_000)
    assert first not in offered[0]
    menu.aboutToShow.emit()
    switch = {a.text(): a for a in menu.switch_menu.actions()}
    assert switch[f"{first}  (2)"].isChecked() and not switch[f"{second}  (2)"].isChecked()
    switch[f"{second}  (2)"].trigger()
    assert model.current == second
    qtbot.waitUntil(lambda: model.size == 2, timeout=20_000)
    out = tmp_path / "second.jsonl"
    menu.asks.save_path = lambda *_a: str(out)
    menu.export_action.trigger()
    qtbot.waitUntil(out.exists, timeout=20_000)
    cases = read_labelled(out)
    assert {c.prompt for c in cases} == {"pizza near me", "best laptop under $1000"}
    # cancelled questions do nothing
    menu.asks.name = lambda *_a: ""
    menu.new_action.trigger()
    assert model.current == second
