"""Reading labelled sets: JSON lines, CSV and suites give one model; bad lines are one error."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from routescope import LabelsError, resources_root
from routescope.judge import Labels, read_labelled

FIXTURES = Path(str(resources_root() / "fixtures"))


def write(path: Path, *lines: object) -> Path:
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_the_issue_s_jsonl_form_is_read_and_other_keys_are_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path / "set.jsonl",
        {
            "prompt": "FastAPI hosting in Austin",
            "labels": {
                "local": True,
                "time_sensitive": False,
                "tech": False,
                "troubleshooting": False,
                "purchase": False,
                "place_hint": "Austin",
                "entities": ["FastAPI"],
            },
            "source": "somewhere",
            "part": "heldout",
        },
        {"prompt": "pizza", "labels": {"local": None}},
    )
    first, second = read_labelled(path)
    assert first.labels.local is True and first.labels.place_hint == "Austin"
    assert first.labels.entities == ("FastAPI",)
    assert first.extra == {"source": "somewhere", "part": "heldout"} and first.part == "heldout"
    assert first.id == "set.jsonl:1" and first.today == dt.date(2026, 1, 1)
    assert second.labels == Labels()  # null is not labelled


def test_strategy_is_derived_from_the_flags_only_when_they_decide_it() -> None:
    assert Labels(local=True).expected_strategy() == "local"
    assert Labels(local=False, tech=True).expected_strategy() == "tech"
    assert Labels(local=False, tech=False, troubleshooting=False).expected_strategy() == "general"
    assert Labels(local=False, tech=False).expected_strategy() is None
    assert Labels(strategy="tech", local=True).expected_strategy() == "tech"


def test_csv_cells_are_labels_and_empty_cells_are_not(tmp_path: Path) -> None:
    path = tmp_path / "set.csv"
    path.write_text(
        "id,prompt,local,tech,entities,today,source\n"
        "a,coffee near me,yes,,,2026-11-27,x\n"
        'b,"install FastAPI, then Django",no,true,FastAPI;Django,,y\n',
        encoding="utf-8",
    )
    first, second = read_labelled(path)
    assert first.id == "a" and first.labels == Labels(local=True)
    assert first.today == dt.date(2026, 11, 27) and first.extra == {"source": "x"}
    assert second.labels == Labels(local=False, tech=True, entities=("FastAPI", "Django"))


def test_a_suite_is_a_labelled_set() -> None:
    cases = read_labelled(FIXTURES / "strategy.yaml")
    by_id = {case.id: case for case in cases}
    assert by_id["local-near-me"].labels.strategy == "local"
    assert by_id["local-near-place"].labels.place_hint == "Denver, Colorado"
    assert {case.labels.linter_class for case in read_labelled(FIXTURES / "linter.yaml")} >= {
        "vague",
        "guided",
    }
    assert all(case.labels.agent for case in read_labelled(FIXTURES / "contract.yaml"))


def test_a_suite_case_may_carry_labels(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "suite: s\ncases:\n  - id: a\n    prompt: hair stylist in Fremont, CA\n"
        "    labels: {local: true, place_hint: 'Fremont, CA'}\n",
        encoding="utf-8",
    )
    (case,) = read_labelled(path)
    assert case.labels == Labels(local=True, place_hint="Fremont, CA")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": "x", "labels": {"locale": true}}', "unknown label 'locale'"),
        ('{"prompt": "x", "labels": {"local": "yes"}}', "must be true or false"),
        ('{"prompt": "x", "labels": {"strategy": "web"}}', "must be one of general, local, tech"),
        ('{"prompt": "", "labels": {}}', "empty"),
        ('{"labels": {}}', "text"),
        ("[1]", "a labelled case is a JSON object"),
        ("{oops", "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"prompt": "x", "today": "2026-02-30"}', "'today' must be a date"),
    ],
)
def test_a_bad_line_is_one_error_naming_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "fine"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(LabelsError) as raised:
        read_labelled(path)
    text = str(raised.value)
    assert f"{path}:2" in text and message in text and "\n" not in text


def test_repeated_ids_and_empty_files_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "twice.jsonl", {"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"})
    with pytest.raises(LabelsError, match="case id 'a' again"):
        read_labelled(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(LabelsError, match="no labelled case"):
        read_labelled(empty)
