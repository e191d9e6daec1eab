"""The Quality view: the pack scored on the current judged set with the same figures as
`routescope score` on the set exported; a figure's prompts listed with the evidence of each
decision; scored again (off the UI thread) as the pack changes, only while the view is shown; a
linter vocabulary that does not fit the judged prompts says so."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import uuid
from pathlib import Path

from PySide6.QtWidgets import QTableWidget

import routescope
from routescope.judge import LabelledCase, Labels
from routescope_gui import MainWindow
from routescope_gui._judging import QUALITY
from routescope_gui._quality_model import QualityModel
from routescope_gui._quality_view import NO_JUDGMENTS, QualityView, figure
from routescope_gui._style import colour
from tests._support import TODAY, routescope_cli
from tests.gui._own_history import own_window  # noqa: F401 (`window`: a history of its own)
from tests.gui._support import record

JUDGED: list[tuple[str, dict[str, object]]] = [
    (
        "Who was Mohammad Iqbal to the State of Pakistan?",
        {"local": False, "tech": False, "entities": ["Mohammad Iqbal", "Pakistan"]},
    ),
    (
        "Find me a hair stylist in Fremont, CA",
        {"local": True, "tech": False, "purchase": False, "place_hint": "Fremont, CA"},
    ),
    ("How do I install FastAPI on Ubuntu?", {"tech": True, "local": False, "purchase": False}),
    ("pizza near me", {"local": True, "place_hint": "", "time_sensitive": False}),
    ("best laptop under $1000", {"purchase": True, "tech": True, "local": False}),
    ("Post review, organize the lines in summary.txt", {"purchase": False, "tech": True}),
    ("pod CrashLoopBackOff how to fix", {"troubleshooting": True, "tech": True}),
    ("latest React release notes", {"time_sensitive": True, "entities": ["React"]}),
    (
        "find where the retry decorator is defined in src/http/client.py",
        {"tech": True, "linter_class": "guided"},
    ),
]


def _text(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()


def _judged_window(qtbot, window: MainWindow) -> QualityView:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    model = window.session.judge
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    model.use_set(f"quality {uuid.uuid4().hex}")  # (the tests' window share a history)
    for prompt, labels in JUDGED:
        assert model.judge(prompt, TODAY, labels)
    view = window.judging.quality_view
    with qtbot.waitSignal(window.session.quality.scored, timeout=30_000):
        window.show_tab(QUALITY)
    assert window.views.currentWidget() is view
    return view


def test_the_window_scores_as_routescope_score_does(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path: Path
) -> None:
    view = _judged_window(qtbot, window)
    out = tmp_path / "judged.jsonl"
    done = record(window.session.judge.done)
    window.session.judge.export(out)
    qtbot.waitUntil(lambda: bool(done), timeout=20_000)
    ran = routescope_cli("score", str(out), "--json")
    assert ran.returncode == 0, ran.stderr
    cli = json.loads(ran.stdout)
    assert cli["cases"] == len(JUDGED)
    shown = view.result
    assert shown is not None
    mine = shown.score.whole.to_json(misses=False)
    for key in ("macro_f1", "strategy", "place", "entities", "linter"):
        if key == "strategy" or key == "linter":
            assert mine[key]["accuracy"] == cli[key]["accuracy"]  # type: ignore[index]
            assert mine[key]["matrix"] == cli[key]["matrix"]  # type: ignore[index]
        else:
            assert mine[key] == cli[key] or _figures(mine[key]) == _figures(cli[key]), key
    # … and the view shows those numbers
    for row, (name, flag) in enumerate(cli["flags"].items()):
        cells = [_text(view.flags, row, column) for column in range(8)]
        assert cells[0] == name
        assert cells[1:4] == [figure(flag["precision"]), figure(flag["recall"]), figure(flag["f1"])]
        assert cells[4:8] == [str(flag[k]) for k in ("tp", "fp", "fn", "labelled")]
    assert f"macro-F1 <b>{figure(cli['macro_f1'])}</b>" in view.macro.text()
    assert view.strategy_accuracy.text().startswith(
        f"accuracy {figure(cli['strategy']['accuracy'])}"
    )
    for row, expected in enumerate(("general", "local", "tech")):
        for column, got in enumerate(("general", "local", "tech"), 1):
            count = cli["strategy"]["matrix"].get(expected, {}).get(got, 0)
            assert _text(view.strategy, row, column) == str(count)
    place = [r for r in range(view.figures.rowCount()) if _text(view.figures, r, 0) == "place hint"]
    assert _text(view.figures, place[0], 1) == figure(cli["place"]["accuracy"])
    entities = view.figures.rowCount() - 1
    assert _text(view.figures, entities, 1) == (
        f"P {figure(cli['entities']['precision'])} · R {figure(cli['entities']['recall'])}"
    )
    assert view.linter_box.isVisibleTo(view)  # labelled once: its confusion is shown


def _figures(data: object) -> object:
    if isinstance(data, dict):
        return {k: _figures(v) for k, v in data.items() if k != "cases"}
    return data


def test_a_figure_lists_its_prompts_with_the_evidence(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = _judged_window(qtbot, window)
    names = [_text(view.flags, row, 0) for row in range(view.flags.rowCount())]
    local = names.index("local")
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: view.body.sizes()[0] > 0)
    figures_alone = view.body.sizes()[0]
    view.pick(view.flags, local, 5)  # local: false positives
    # The prompts' pane takes its room once it has prompts to list (the figures had it).
    qtbot.waitUntil(lambda: view.body.sizes()[0] < figures_alone)
    listed = view.listed()
    assert [case.prompt for case, _field in listed] == [JUDGED[0][0]]
    assert _text(view.prompts, 0, 1) == "local" and _text(view.prompts, 0, 2) == "off"
    decided = view.prompts.item(0, 3)
    assert decided is not None and decided.text() == "✗ on"
    assert decided.background().color() == colour("miss")
    assert _text(view.prompts, 0, 4) == 'local keyword "state" “State” @30–35'
    assert "local: false positives" in view.caption.text()
    # a confusion cell, and a prompt opened live on its date
    view.pick(view.strategy, 1, 1)  # labelled local, decided general
    prompts = [case.prompt for case, _field in view.listed()]
    assert JUDGED[1][0] in prompts
    row = prompts.index(JUDGED[1][0])
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        view.prompts.cellDoubleClicked.emit(row, 0)
    assert window.session.request.text == JUDGED[1][0]
    assert window.views.currentWidget() is window.live


def test_the_pack_edited_is_scored_again_while_the_view_is_shown(  # type: ignore[no-untyped-def]
    qtbot, window
) -> None:
    view = _judged_window(qtbot, window)
    quality = window.session.quality
    names = [_text(view.flags, row, 0) for row in range(view.flags.rowCount())]
    local = names.index("local")
    assert _text(view.flags, local, 5) == "1"  # "state" makes the Iqbal prompt local
    rules = window.session.request.rules
    edited = rules.text.replace('"state", ', "", 1)
    assert edited != rules.text
    with qtbot.waitSignal(quality.scored, timeout=30_000):
        window.session.set_rules(routescope.RulesRef.from_text(edited, "edited.toml"))
    assert _text(view.flags, local, 5) == "0"
    # hidden: a change waits until the view is shown again
    window.show_tab("Plan")
    scoring = record(quality.scoring)
    window.session.set_rules(rules)
    qtbot.wait(50)  # (longer than nothing: no timer runs while hidden)
    assert scoring == [] and not quality.busy
    with qtbot.waitSignal(quality.scored, timeout=30_000):
        window.show_tab(QUALITY)
    assert _text(view.flags, local, 5) == "1"
    # a prompt opened live (the same pack, the same set) is not scored again
    window.session.open_request(window.session.request.replace(text="pizza near me"))
    qtbot.wait(50)
    assert len(scoring) == 1


def test_an_empty_set_says_how_to_judge(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    window.session.judge.use_set(f"empty {uuid.uuid4().hex}")
    with qtbot.waitSignal(window.session.quality.scored, timeout=30_000) as scored:
        window.show_tab(QUALITY)
    assert scored.args == [None]
    view = window.judging.quality_view
    assert view.hint.isVisibleTo(view) and view.hint.text() == NO_JUDGMENTS
    assert not view.body.isVisibleTo(view) and "«empty " in view.title.text()


def test_a_linter_vocabulary_that_does_not_fit_says_what_to_do(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    words = ("weather", "recipes", "hotels", "flights", "museums")
    cases = [
        LabelledCase(f"c{n}", f"{words[n % 5]} in paris for a weekend {n}", Labels(tech=False))
        for n in range(24)
    ]
    request = routescope.Request.build("", today=TODAY)
    model = QualityModel(lambda: request, lambda: ("web", cases), delay_ms=0)
    view = QualityView()
    qtbot.addWidget(view)
    model.scored.connect(view.show_result)
    with qtbot.waitSignal(model.scored, timeout=30_000):
        model.set_enabled(True)
    assert view.notes.isVisibleTo(view)
    text = view.notes.text()
    assert "the linter's anchors match nothing in 24 of 24 prompts" in text
    assert "point [linter] anchors at your codebase" in text
    assert view.result is not None and view.result.cases["c0"].today == dt.date(2026, 1, 1)


def test_a_split_set_shows_each_part(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    model = window.session.judge
    model.use_set(f"split {uuid.uuid4().hex}")
    labelled = tmp_path / "split.jsonl"
    lines = [
        {"prompt": prompt, "labels": labels, "part": "tune" if n % 2 else "heldout"}
        for n, (prompt, labels) in enumerate(JUDGED)
    ]
    labelled.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    model.import_file(labelled)
    qtbot.waitUntil(lambda: model.size == len(JUDGED), timeout=20_000)
    assert {case.part for case in model.cases()} == {"tune", "heldout"}
    view = window.judging.quality_view
    with qtbot.waitSignal(window.session.quality.scored, timeout=30_000):
        window.show_tab(QUALITY)
    assert view.part.isVisibleTo(view)
    assert [view.part.itemText(i) for i in range(view.part.count())] == [
        f"whole set ({len(JUDGED)})",
        "heldout part (5)",
        "tune part (4)",
    ]
    view.part.setCurrentIndex(1)
    assert view.card().cases == 5
    labelled_total = sum(int(_text(view.flags, row, 7)) for row in range(view.flags.rowCount()))
    held = view.result.score.parts["heldout"]  # type: ignore[union-attr]
    assert labelled_total == sum(flag.labelled for flag in held.flags.values())
    # a judgment in the window keeps the prompt's part
    first = next(c for c in model.cases() if c.prompt == JUDGED[0][0])
    model.judge(first.prompt, first.today, {"purchase": False})
    again = [c for c in model.cases() if c.prompt == JUDGED[0][0]]
    assert [c.part for c in again] == ["heldout"] and again[0].labels.purchase is False
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    assert [c.part for c in model.cases() if c.prompt == JUDGED[0][0]] == ["heldout"]


def _screenshot_quality(labels: Path, target: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "routescope_gui", "--screenshot", str(target)]
    command += ["--tab", QUALITY, "--labels", str(labels), "--today", TODAY.isoformat()]
    return subprocess.run(
        [*command, "pizza near me"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_labelled_file_given_at_start_is_scored_in_the_quality_tab(tmp_path: Path) -> None:
    labels = tmp_path / "mine.jsonl"
    lines = [json.dumps({"prompt": prompt, "labels": fields}) for prompt, fields in JUDGED]
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _screenshot_quality(labels, tmp_path / "quality.png")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "quality.png").read_bytes()[:4] == b"\x89PNG"


def test_a_labelled_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path: Path) -> None:
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x00\xff\xfe" * 100)
    for labels in (tmp_path / "missing.jsonl", binary):
        done = _screenshot_quality(labels, tmp_path / "quality.png")
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert lines[-1].startswith("routescope-gui: error: ") and labels.name in lines[-1]
        assert "Traceback" not in done.stderr
        assert not (tmp_path / "quality.png").exists()
