"""`routescope batch --labels`: the results scored against a labelled set joined by prompt, the
set recorded in the batch's state for `report`, bad labels refused before anything is written."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from routescope.batch import state_of
from routescope.judge import predict, read_labelled, score
from routescope.rules import default_rules
from tests._support import routescope_cli

from . import _labelled as lab
from ._logs import run_batch


def _expected(labels: Path) -> tuple[float | None, float | None]:
    """Macro-F1 and strategy accuracy of the default pack on the joined cases: each as often
    as the log holds its prompt (the pizza twice)."""
    cases = {case.id: case for case in read_labelled(labels)}
    joined = [cases[name] for name in ("pizza", "fastapi", "pizza", "stylist", "ramen")]
    card = score((case, predict(case, default_rules())) for case in joined)
    return card.macro_f1, card.strategy.accuracy


def test_the_summary_scores_the_results_joined_by_prompt(tmp_path: Path) -> None:
    labels = lab.labelled_set(tmp_path)
    out = tmp_path / "r.jsonl"
    summary = run_batch([str(lab.log(tmp_path))], out, labels=labels, timings=False)
    quality = summary.quality
    assert quality is not None
    assert (quality.labelled, quality.found, quality.joined) == (5, 4, 5)
    macro_f1, strategy = _expected(labels)
    assert macro_f1 is not None and strategy is not None
    assert quality.macro_f1 == round(macro_f1, 4)
    assert quality.strategy_accuracy == round(strategy, 4) == 0.8  # the stylist is wrong
    assert quality.labels == str(labels.resolve()) and len(quality.digest) == 16


def test_the_state_records_the_labels_for_report(tmp_path: Path) -> None:
    labels = lab.labelled_set(tmp_path)
    log = lab.log(tmp_path)
    run_batch([str(log)], tmp_path / "plain.jsonl", timings=False)
    assert "labels" not in json.loads((tmp_path / "plain.state.json").read_text())
    summary = run_batch([str(log)], tmp_path / "r.jsonl", labels=labels, timings=False)
    state = state_of(tmp_path / "r.jsonl")
    assert state is not None and state.complete
    assert state.labels is not None and summary.quality is not None
    assert state.labels == {"path": str(labels.resolve()), "digest": summary.quality.digest}


def test_a_complete_batch_run_again_with_labels_records_and_scores_them(tmp_path: Path) -> None:
    log, out = lab.log(tmp_path), tmp_path / "r.jsonl"
    first = run_batch([str(log)], out, timings=False)
    assert first.quality is None
    before = out.read_bytes()
    again = run_batch([str(log)], out, labels=lab.labelled_set(tmp_path), timings=False)
    assert again.already_complete and out.read_bytes() == before  # nothing routed again
    assert again.quality is not None and again.quality.found == 4
    state = state_of(out)
    assert state is not None and state.labels is not None


def test_a_cancelled_batch_scores_once_it_completes(tmp_path: Path) -> None:
    labels, log, out = lab.labelled_set(tmp_path), lab.log(tmp_path), tmp_path / "r.jsonl"
    cancel = threading.Event()
    cancel.set()
    stopped = run_batch([str(log)], out, labels=labels, cancel=cancel, timings=False)
    assert not stopped.complete and stopped.quality is None
    assert any("scored when the batch is complete" in note for note in stopped.notes)
    done = run_batch([str(log)], out, labels=labels, timings=False)
    assert done.complete and done.quality is not None and done.quality.joined == 5


def test_labels_no_log_holds_join_nothing(tmp_path: Path) -> None:
    labels = lab.labelled_set(tmp_path, [lab.LABELLED[-1]])
    summary = run_batch([str(lab.log(tmp_path))], tmp_path / "r.jsonl", labels=labels)
    assert summary.quality is not None
    assert (summary.quality.found, summary.quality.joined, summary.quality.macro_f1) == (0, 0, None)


def test_parquet_results_are_scored_too(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    labels = lab.labelled_set(tmp_path)
    summary = run_batch([str(lab.log(tmp_path))], tmp_path / "r.parquet", labels=labels)
    assert summary.quality is not None and summary.quality.joined == 5


# --- the command line ---------------------------------------------------------------------------


def test_the_command_line_says_how_many_prompts_joined_and_the_scores(tmp_path: Path) -> None:
    labels = lab.labelled_set(tmp_path)
    out = tmp_path / "r.jsonl"
    args = ["batch", str(lab.log(tmp_path)), "--today", lab.TODAY, "--labels", str(labels)]
    done = routescope_cli(*args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    macro_f1, _ = _expected(labels)
    line = done.stdout.splitlines()[1]
    assert line == (
        f"labels {labels.resolve()}: 4 of 5 labelled prompts joined (5 results scored): "
        f"macro-F1 {macro_f1:.3f}, strategy accuracy 0.800"
    )
    as_json = routescope_cli(*args, "--out", str(out), "--json")
    quality = json.loads(as_json.stdout)["quality"]
    assert (quality["found"], quality["joined"], quality["strategy_accuracy"]) == (4, 5, 0.8)


def test_bad_labels_are_one_line_exit_2_and_nothing_is_written(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "x", "labels": {"locale": true}}\n', encoding="utf-8")
    log = lab.log(tmp_path)
    for labels, message in (
        (bad, "unknown label 'locale'"),
        (tmp_path / "none.jsonl", "cannot read labelled set"),
        (tmp_path, "cannot read labelled set"),
    ):
        out = str(tmp_path / "r.jsonl")
        done = routescope_cli("batch", str(log), "--labels", str(labels), "--out", out)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert message in done.stderr and "internal error" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "log.jsonl"]
