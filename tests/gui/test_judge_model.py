"""The judge model: a verdict shows at once and is written to the history store in a worker;
judged sets are switched (the set kept for the next start), merged, imported and exported; with
the history off, judgments stay in memory and file work says why it cannot be done."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import routescope
from routescope.history import CLEAR, History
from routescope.judge import Labels, read_labelled
from routescope_gui import Session
from routescope_gui._judge_model import SET_STATE, JudgeModel, check_set_name
from tests._support import TODAY
from tests.gui._support import record

IQBAL = "Who was Mohammad Iqbal to the State of Pakistan?"
STYLIST = "Find me a hair stylist in Fremont, CA"


def _session(tmp_path: Path, tool_cache: Path) -> Session:
    return Session(
        routescope.Request.build("", today=TODAY),
        cache=tool_cache,
        history=tmp_path / "history.sqlite3",
    )


def _opened(qtbot, session: Session) -> JudgeModel:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(session.history.opened, timeout=20_000):
        session.history.start()
    qtbot.waitUntil(lambda: not session.judge.busy, timeout=20_000)
    return session.judge


def test_a_verdict_shows_at_once_and_is_kept_in_the_store(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = _opened(qtbot, session)
    judged = record(model.judged)
    assert model.judge(IQBAL, TODAY, {"local": False, "entities": ["Mohammad Iqbal"]})
    # shown now, before the store has it
    assert model.judgment(IQBAL, TODAY) == Labels(local=False, entities=("Mohammad Iqbal",))
    assert judged == [(IQBAL, TODAY)] and model.size == 1
    model.judge(IQBAL, TODAY, {"tech": False, "entities": CLEAR})
    assert model.judgment(IQBAL, TODAY) == Labels(local=False, tech=False)
    store = session.history.store
    assert store is not None
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    assert store.judgment(IQBAL, TODAY) == Labels(local=False, tech=False)
    (case,) = model.cases()
    assert case.id == "judged:1" and case.prompt == IQBAL and case.today == TODAY
    # forgetting every field forgets the prompt
    model.judge(IQBAL, TODAY, {"local": CLEAR, "tech": CLEAR})
    assert model.judgment(IQBAL, TODAY) is None and model.size == 0
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    assert store.judgment(IQBAL, TODAY) is None
    session.close()


def test_a_refused_field_changes_nothing(qtbot, qloop, tmp_path, tool_cache) -> None:  # type: ignore[no-untyped-def]
    session = _session(tmp_path, tool_cache)
    model = _opened(qtbot, session)
    failed = record(model.failed)
    assert not model.judge(STYLIST, TODAY, {"entities": [f"e{n}" for n in range(7)]})
    assert model.judgment(STYLIST, TODAY) is None
    assert failed and "at most 6" in str(failed[0])
    session.close()


def test_the_set_judged_into_is_kept_for_the_next_start(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = _opened(qtbot, session)
    model.judge(IQBAL, TODAY, {"local": False})
    assert model.use_set("  web   queries ")
    assert model.current == "web queries" and model.size == 0
    model.judge(STYLIST, TODAY, {"local": True, "place_hint": "Fremont, CA"})
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    assert model.sets == [("judged", 1), ("web queries", 1)]
    session.close()

    again = _session(tmp_path, tool_cache)
    sets = record(again.judge.sets_changed)
    model = _opened(qtbot, again)
    assert model.current == "web queries"
    assert model.judgment(STYLIST, TODAY) == Labels(local=True, place_hint="Fremont, CA")
    assert sets[-1] == ([("judged", 1), ("web queries", 1)], "web queries")
    store = again.history.store
    assert store is not None and store.state(SET_STATE) == "web queries"
    again.close()


def test_sets_merge_import_and_export(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path, tool_cache: Path
) -> None:
    session = _session(tmp_path, tool_cache)
    model = _opened(qtbot, session)
    done, failed = record(model.done), record(model.failed)
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text(
        json.dumps({"prompt": STYLIST, "labels": {"local": True}})
        + "\n"
        + json.dumps({"prompt": "pizza near me", "today": "2026-01-01", "labels": {"local": True}})
        + "\n",
        encoding="utf-8",
    )
    model.judge(IQBAL, TODAY, {"local": False})
    model.import_file(labelled)
    out = tmp_path / "out" / "judged.jsonl"
    out.parent.mkdir()
    model.export(out)
    qtbot.waitUntil(lambda: len(done) == 2, timeout=20_000)
    assert "2 labelled prompt(s) of labelled.jsonl imported into «judged»" in done[0]
    assert str(done[1]).startswith("3 judged prompt(s) of «judged» exported to")
    assert model.size == 3  # read back from the store after the import
    cases = read_labelled(out)
    assert {c.prompt for c in cases} == {IQBAL, STYLIST, "pizza near me"}
    model.merge_into("all")
    qtbot.waitUntil(lambda: len(done) == 3, timeout=20_000)
    assert dict(model.sets)["all"] == 3
    model.merge_into("judged")  # into itself: refused
    model.import_file(tmp_path / "missing.jsonl")
    qtbot.waitUntil(lambda: len(failed) == 2, timeout=20_000)
    assert "merge it into another" in str(failed[0]) and "missing.jsonl" in str(failed[1])
    session.close()


def test_with_the_history_off_judgments_stay_in_memory(  # type: ignore[no-untyped-def]
    qtbot, qloop, tmp_path: Path
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    store = History.open(folder / "history.sqlite3", read_only=True)
    assert not store.enabled
    model = JudgeModel(lambda: store)
    failed = record(model.failed)
    model.start()
    assert failed and "judgments are kept until the window closes" in str(failed[0])
    assert model.judge(IQBAL, TODAY, {"local": False})
    assert model.judgment(IQBAL, TODAY) == Labels(local=False) and not model.busy
    model.export(tmp_path / "x.jsonl")
    assert "cannot export a judged set: the history store is off" in str(failed[-1])
    assert not (tmp_path / "x.jsonl").exists()


def test_a_set_needs_a_name() -> None:
    assert check_set_name("  a  b ") == "a b"
    for bad in ("", "   ", "x" * 81):
        try:
            check_set_name(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_a_judgment_per_date(qtbot, qloop, tmp_path: Path, tool_cache: Path) -> None:  # type: ignore[no-untyped-def]
    session = _session(tmp_path, tool_cache)
    model = _opened(qtbot, session)
    later = TODAY + dt.timedelta(days=400)
    model.judge("latest React release", TODAY, {"time_sensitive": True})
    model.judge("latest React release", later, {"time_sensitive": False})
    assert model.size == 2
    assert model.judgment("latest React release", later) == Labels(time_sensitive=False)
    session.close()
