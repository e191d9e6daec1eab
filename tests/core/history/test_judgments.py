"""Judged sets in the history store: judging merges fields, a judgment survives a reopen,
a set exports as a labelled set `routescope score` reads (same numbers), imports and merges."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest

from routescope import HistoryError
from routescope.history import CLEAR, History
from routescope.judge import Labels, read_labelled, score_set
from routescope.rules import default_rules

TODAY = dt.date(2026, 11, 27)


def test_judging_merges_fields_and_clear_forgets_one(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite3")
    history.judge("pizza near me", TODAY, {"local": True})
    history.judge("pizza near me", TODAY, {"place_hint": "", "tech": False})
    assert history.judgment("pizza near me", TODAY) == Labels(local=True, tech=False, place_hint="")
    history.judge("pizza near me", TODAY, {"tech": CLEAR})
    assert history.judgment("pizza near me", TODAY) == Labels(local=True, place_hint="")
    with pytest.raises(ValueError, match="unknown label 'locale'"):
        history.judge("pizza near me", TODAY, {"locale": True})
    assert history.unjudge("pizza near me", TODAY) and history.judged() == []


def test_a_judgment_survives_a_reopen_and_sets_are_apart(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    history = History.open(path)
    history.judge("state parks", TODAY, {"local": True}, set_name="mine")
    history.judge("State of Pakistan", TODAY, {"local": False})
    history.close()
    again = History.open(path)
    assert again.judged_sets() == [("judged", 1), ("mine", 1)]
    (case,) = again.judged("mine")
    assert (case.prompt, case.today, case.labels) == ("state parks", TODAY, Labels(local=True))
    assert again.merge_judged("mine", "judged") == 1
    assert {c.prompt for c in again.judged()} == {"state parks", "State of Pakistan"}


def test_an_exported_set_scores_as_the_judged_one(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite3")
    history.judge(
        "Find me a hair stylist in Fremont, CA",
        TODAY,
        {"local": True, "tech": False, "troubleshooting": False, "place_hint": "Fremont, CA"},
    )
    history.judge("Who was Iqbal to the State of Pakistan?", TODAY, {"local": False})
    out = tmp_path / "judged.jsonl"
    assert history.export_judged(out) == 2
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["labels"]["place_hint"] == "Fremont, CA" and lines[0]["today"] == "2026-11-27"
    exported = score_set(read_labelled(out), default_rules()).to_json()
    judged = score_set(history.judged(), default_rules()).to_json()
    assert exported == judged and judged["macro_f1"] == 0.0
    other = History.open(tmp_path / "other.sqlite3")
    assert other.import_judged(out, "imported") == 2
    assert [c.labels for c in other.judged("imported")] == [c.labels for c in history.judged()]


def test_export_never_writes_through_a_link(tmp_path: Path) -> None:
    history = History.open(tmp_path / "h.sqlite3")
    history.judge("x", TODAY, {"local": False})
    target = tmp_path / "mine.txt"
    target.write_text("keep", encoding="utf-8")
    (tmp_path / "link.jsonl").symlink_to(target)
    with pytest.raises(HistoryError, match="symbolic link"):
        history.export_judged(tmp_path / "link.jsonl")
    assert target.read_text(encoding="utf-8") == "keep"


def test_a_store_made_before_judgments_gets_their_table(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    History.open(path).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE judgments")
    history = History.open(path)
    assert history.judge("x", TODAY, {"local": False}) == Labels(local=False)
    read_only = History.open(path, read_only=True)
    assert read_only.judged_sets() == [("judged", 1)]


def test_a_split_set_keeps_its_parts(tmp_path: Path) -> None:
    labelled = tmp_path / "split.jsonl"
    labelled.write_text(
        json.dumps({"prompt": "pizza near me", "labels": {"local": True}, "part": "tune"})
        + "\n"
        + json.dumps({"prompt": "ramen in austin", "labels": {"local": True}, "part": "heldout"})
        + "\n"
        + json.dumps({"prompt": "install fastapi", "labels": {"tech": True}})
        + "\n",
        encoding="utf-8",
    )
    history = History.open(tmp_path / "h.sqlite3")
    assert history.import_judged(labelled, "split") == 3
    parts = {c.prompt: c.part for c in history.judged("split")}
    assert parts == {"pizza near me": "tune", "ramen in austin": "heldout", "install fastapi": None}
    # judged again in the window (no part given): the part stays
    day = history.judged("split")[0].today  # (the set's date: it gives none)
    history.judge("ramen in austin", day, {"place_hint": "austin"}, set_name="split")
    assert {c.prompt: c.part for c in history.judged("split")}["ramen in austin"] == "heldout"
    history.merge_judged("split", "merged")
    assert {c.prompt: c.part for c in history.judged("merged")} == parts
    out = tmp_path / "out.jsonl"
    history.export_judged(out, "split")
    assert {c.prompt: c.part for c in read_labelled(out)} == parts
    scored = score_set(history.judged("split"), default_rules())
    assert sorted(scored.parts) == ["heldout", "tune"]


def test_a_store_made_before_parts_gets_the_column(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    History.open(path).close()
    with sqlite3.connect(path) as db:  # the table as the first version made it
        db.execute("DROP TABLE judgments")
        db.execute(
            "CREATE TABLE judgments (set_name TEXT NOT NULL, prompt TEXT NOT NULL, "
            "today TEXT NOT NULL, context TEXT, labels TEXT NOT NULL, updated REAL NOT NULL, "
            "PRIMARY KEY (set_name, prompt, today)) WITHOUT ROWID"
        )
        db.execute(
            "INSERT INTO judgments VALUES ('judged', 'x', '2026-11-27', NULL, "
            "'{\"local\": false}', 1.0)"
        )
    read_only = History.open(path, read_only=True)  # read as it is: nothing is changed
    (case,) = read_only.judged()
    assert case.labels == Labels(local=False) and case.part is None
    read_only.close()
    history = History.open(path)
    history.judge("y", TODAY, {"local": True}, part="heldout")
    assert {c.prompt: c.part for c in history.judged()} == {"x": None, "y": "heldout"}
