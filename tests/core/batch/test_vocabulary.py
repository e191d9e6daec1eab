"""A rule pack's vocabulary that does not fit a log: the linter's anchors or the intent keywords
match nothing in 90 % of its prompts or more, and the report says so and what to do."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import routescope
from routescope.batch import build_report, report_data
from routescope.batch._html import report_html
from routescope.batch._vocabulary import (
    LINTER_ADVICE,
    MIN_PROMPTS,
    NO_ANCHORS,
    TOO_SHORT,
    VocabularyTally,
)
from routescope.linter import lint
from routescope.rules import default_rules
from tests._support import TODAY, routescope_cli

from ._logs import run_batch, write_jsonl
from .test_report_html import _assert_self_contained, _parse

POEM = "write a short poem about the colour number {} and the sea"
"""No anchor of the linter's, no intent keyword."""


def test_the_linter_says_no_anchors_as_the_tally_reads_it() -> None:
    assert NO_ANCHORS in lint(POEM.format(1), default_rules()).classification.rule
    assert lint("hello there", default_rules()).classification.rule.startswith(TOO_SHORT)
    anchored = lint("where is the session schema defined", default_rules())
    assert anchored.classification.total_anchors and NO_ANCHORS not in anchored.classification.rule


def _tally(prompts: list[str]) -> VocabularyTally:
    tally = VocabularyTally()
    for prompt in prompts:
        tally.add(routescope.inspect(prompt, today=TODAY).outcome)
    return tally


def test_both_notes_past_nine_in_ten_prompts() -> None:
    linter, intents = _tally([POEM.format(n) for n in range(MIN_PROMPTS)]).notes("set.jsonl")
    assert (linter.kind, linter.prompts, linter.of, linter.share) == ("linter", 20, 20, 1.0)
    assert linter.advice == LINTER_ADVICE and "strong_anchors/weak_anchors" in linter.advice
    assert intents.kind == "intents" and "routescope suggest --labels set.jsonl" in intents.advice
    assert intents.message == "no intent keyword fires in 20 of 20 prompts (100.0%)"


def test_no_note_below_the_share_or_on_a_few_prompts() -> None:
    assert _tally([POEM.format(n) for n in range(MIN_PROMPTS - 1)]).notes() == ()
    fitting = ["pizza near me and the session config"] * 3 + [POEM.format(n) for n in range(17)]
    assert _tally(fitting).notes() == ()  # each in 85 % of the prompts


def test_prompts_too_short_for_anchors_are_not_counted() -> None:
    tally = _tally(["hello there"] * 30)
    assert (tally.anchored, tally.no_anchors, tally.prompts) == (0, 0, 30)
    assert [note.kind for note in tally.notes()] == ["intents"]
    outcome = routescope.inspect(POEM.format(0), today=TODAY).outcome
    old = VocabularyTally()
    old.add(dataclasses.replace(outcome, lint_rule=None))  # a record that does not say
    assert old.anchored == 0


def test_the_report_says_so_in_the_page_the_json_and_the_text(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": POEM.format(n)} for n in range(25)])
    out = tmp_path / "r.jsonl"
    run_batch([str(log)], out, timings=False)
    report = build_report(out)
    assert [note.kind for note in report.vocabulary] == ["linter", "intents"]
    data = json.loads(json.dumps(report_data(report)))
    assert data["vocabulary"][0] == {
        "kind": "linter",
        "prompts": 25,
        "of": 25,
        "share": 1.0,
        "message": "the linter's anchors match nothing in 25 of 25 prompts (100.0%)",
        "advice": LINTER_ADVICE,
    }
    page = report_html(report)
    _assert_self_contained(page)
    assert _parse(page).sections[:2] == ["vocabulary", "leaks"]
    assert "<code>routescope suggest --labels FILE</code>" in page
    done = routescope_cli("report", str(out), "--out", str(tmp_path / "rep"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == f"vocabulary: {report.vocabulary[0].text()}"
    assert lines[2].startswith("vocabulary: no intent keyword fires in 25 of 25 prompts")
