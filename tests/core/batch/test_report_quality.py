"""A report with labels: it opens with a Quality section (every cell with its prompts, no more
than `--examples`), report.json has `quality` (what `routescope score --json` gives, without the
misses), the labels are the batch's unless `--labels` names others; and `report A B` says which
labelled fields B fixed and which it broke."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from routescope.batch import build_report, compare_results, report_data
from routescope.batch._html import report_html
from tests._support import routescope_cli

from . import _labelled as lab
from ._logs import run_batch
from .test_report_html import _assert_self_contained, _parse


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A batch over the log with the labelled set recorded (the default pack)."""
    out = tmp_path / "a.jsonl"
    run_batch([str(lab.log(tmp_path))], out, labels=lab.labelled_set(tmp_path), timings=False)
    return out


def _section(page: str, section: str) -> str:
    start = page.index(f'<section id="{section}"')
    return page[start : page.index("</section>", start)]


def _text(html: str) -> str:
    return " ".join(" ".join(_parse(html).text).split())


def test_the_report_finds_the_labels_the_batch_recorded(results: Path) -> None:
    report = build_report(results)
    quality = report.quality
    assert quality is not None and quality.recorded
    assert (quality.score.labelled, quality.score.found, quality.score.joined) == (5, 4, 5)
    local = quality.score.whole.flags["local"]
    assert local.fn == ["stylist"] and local.tp == ["pizza", "pizza", "ramen"]
    assert quality.refs["pizza"].line == 1  # the first result each case joined
    assert report.notes == ()


def test_report_json_has_the_scorecard_of_score_without_the_misses(
    results: Path, tmp_path: Path
) -> None:
    data = json.loads(json.dumps(report_data(build_report(results))))
    quality = data["quality"]
    done = routescope_cli("score", str(tmp_path / "labelled.jsonl"), "--json")
    scored = json.loads(done.stdout)
    assert set(scored) - {"pack", "misses"} <= set(quality) and "misses" not in quality
    assert (quality["labelled"], quality["found"], quality["joined"]) == (5, 4, 5)
    assert quality["flags"]["local"]["cases"]["fn"] == ["stylist"]
    assert quality["strategy"]["matrix"]["local"] == {"general": 1, "local": 3}
    assert quality["labels"]["recorded"] is True
    assert quality["where"]["stylist"]["line"] == 4
    assert data["vocabulary"] == [] and data["notes"] == []


def test_without_labels_there_is_no_quality(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_batch([str(lab.log(tmp_path))], out, timings=False)
    report = build_report(out)
    assert report.quality is None and report_data(report)["quality"] is None
    assert _parse(report_html(report)).sections[0] == "leaks"


def test_the_page_opens_with_quality_and_each_cell_lists_its_prompts(results: Path) -> None:
    page = report_html(build_report(results))
    _assert_self_contained(page)
    assert _parse(page).sections[0] == "quality"
    quality = _section(page, "quality")
    text = _text(quality)
    assert "macro-F1 over the intent flags · 4 of 5 labelled prompts found, 5 results scored" in (
        text
    )
    rows = _parse(quality).rows
    local = next(row for row in rows if row[0] == "local")
    assert local[1:8] == ["1.000", "0.750", "0.857", "3", "0", "1", "5"]
    assert "Find me a hair stylist in Fremont, CA" in local[9] and "stylist" in local[9]
    strategy = next(row for row in rows if row[0] == "local" and "✓" in " ".join(row))
    assert strategy[1].startswith("1 ") and "hair stylist" in strategy[1]  # labelled local
    assert strategy[2].startswith("✓ 3 all (2)")  # ramen, and the pizza twice
    assert "pizza near me ×2" in strategy[2]


def test_cells_list_no_more_than_examples(results: Path) -> None:
    one = _section(report_html(build_report(results, examples=1)), "quality")
    cell = next(r for r in _parse(one).rows if r[0] == "local" and "✓" in " ".join(r))[2]
    assert cell.startswith("✓ 3 first 1 (2)") and "ramen" not in cell
    none = _section(report_html(build_report(results, examples=0)), "quality")
    cell = next(r for r in _parse(none).rows if r[0] == "local" and "✓" in " ".join(r))[2]
    assert cell == "✓ 3 2 prompts" and "<details" not in none


def test_labels_given_to_report_override_the_batchs(results: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "set.jsonl"
    other.parent.mkdir()
    other.write_text(json.dumps(lab.LABELLED[2]) + "\n", encoding="utf-8")
    quality = build_report(results, labels=other).quality
    assert quality is not None and not quality.recorded
    assert quality.labels == str(other.resolve()) and quality.score.found == 1


def test_recorded_labels_gone_or_changed_are_a_note(results: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labelled.jsonl"
    labels.write_text(json.dumps(lab.LABELLED[1]) + "\n", encoding="utf-8")
    changed = build_report(results)
    assert changed.quality is not None and changed.quality.score.labelled == 1
    assert changed.notes == (f"{labels} changed since the batch recorded it",)
    labels.unlink()
    gone = build_report(results)
    assert gone.quality is None
    (note,) = gone.notes
    assert note.startswith("the labels the batch recorded cannot be read (") and "--labels" in note
    assert "give --labels FILE" in _text(_section(report_html(gone), "notes"))


def test_labels_that_join_nothing_say_so(results: Path, tmp_path: Path) -> None:
    report = build_report(results, labels=lab.labelled_set(tmp_path, [lab.LABELLED[-1]]))
    assert report.quality is not None and report.quality.score.found == 0
    text = _text(_section(report_html(report), "quality"))
    assert "0 of 1 labelled prompts are in this file" in text


def test_prompts_and_case_ids_are_escaped(tmp_path: Path) -> None:
    hostile = '<script>alert("x")</script> near me \u202e'
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"prompt": hostile}) + "\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    run_batch([str(log)], out, labels=lab.hostile_set(tmp_path, hostile), timings=False)
    page = report_html(build_report(out))
    _assert_self_contained(page)
    assert "<script>" not in page and "<b>id</b>" not in page and "\u202e" not in page
    assert "&lt;b&gt;id&lt;/b&gt;" in page


def test_the_command_line_prints_the_quality_and_refuses_bad_labels(
    results: Path, tmp_path: Path
) -> None:
    done = routescope_cli("report", str(results), "--out", str(tmp_path / "rep"))
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[1]
    assert re.fullmatch(
        rf"quality against {re.escape(str(tmp_path / 'labelled.jsonl'))}: 4 of 5 labelled "
        r"prompts joined \(5 results scored\): macro-F1 0\.\d{3}, strategy accuracy 0\.800, "
        r"place-hint accuracy 1\.000",
        line,
    ), line
    bad = tmp_path / "bad.csv"
    bad.write_text("question\nx\n", encoding="utf-8")
    refused = routescope_cli("report", str(results), "--labels", str(bad), "--out", str(tmp_path))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "needs a 'prompt' column" in refused.stderr


# --- report A B ---------------------------------------------------------------------------------


@pytest.fixture
def pair(results: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A (the default pack, labels recorded) and B (a pack that fixes the stylist and breaks
    the pizza and the ramen), over the same log."""
    b = tmp_path / "b.jsonl"
    run_batch([str(tmp_path / "log.jsonl")], b, rules=lab.other_pack(tmp_path), timings=False)
    return results, b


def test_a_comparison_lists_the_labelled_fields_fixed_and_broken(
    pair: tuple[Path, Path],
) -> None:
    comparison = compare_results(*pair)
    changes = comparison.quality_changes
    assert changes is not None
    assert [(c.case, c.field, c.a, c.b, c.count) for c in changes.fixed] == [
        ("stylist", "local", False, True, 1),
        ("stylist", "strategy", "general", "local", 1),
    ]
    assert [(c.case, c.field, c.expected, c.count) for c in changes.broken] == [
        ("pizza", "local", True, 2),
        ("pizza", "strategy", "local", 2),
        ("ramen", "local", True, 1),
        ("ramen", "strategy", "local", 1),
    ]
    assert changes.broken[0].ref.line == 1
    assert comparison.a.quality is not None and comparison.b.quality is not None
    data = json.loads(json.dumps(report_data(comparison)))
    fixed = data["quality_changes"]["fixed"][0]
    assert (fixed["prompt"], fixed["field"], fixed["case"]) == (
        "Find me a hair stylist in Fremont, CA",
        "local",
        "stylist",
    )
    assert (fixed["expected"], fixed["a"], fixed["b"], fixed["line"]) == (True, False, True, 4)
    assert data["reports"]["b"]["quality"]["flags"]["local"]["fn"] == 3


def test_the_comparison_page_and_text_say_what_was_fixed_and_broken(
    pair: tuple[Path, Path], tmp_path: Path
) -> None:
    page = report_html(compare_results(*pair))
    _assert_self_contained(page)
    assert _parse(page).sections[:2] == ["changed", "quality-changes"]
    section = _section(page, "quality-changes")
    assert "2 labelled fields fixed by B (wrong in A, right in B), 4 broken" in _text(section)
    rows = _parse(section).rows
    assert any(row[0] == "macro-F1" for row in rows)
    assert any(r[:5] == ["strategy", "local", "local", "general", "2"] for r in rows)
    done = routescope_cli("report", str(pair[0]), str(pair[1]), "--out", str(tmp_path / "cmp"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[3] == "labelled fields B fixed: 2; broke: 4"
    assert lines[4].startswith("  fixed stylist · local: labelled True, A False, B True — ")
    assert lines[6] == (
        "  broke pizza · local: labelled True, A True, B False (2 results) — 'pizza near me'"
    )


def test_without_labels_a_comparison_has_no_quality_changes(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    log = str(lab.log(tmp_path))
    run_batch([log], a, timings=False)
    run_batch([log], b, rules=lab.other_pack(tmp_path), timings=False)
    comparison = compare_results(a, b)
    assert comparison.quality_changes is None
    assert report_data(comparison)["quality_changes"] is None
    assert "quality-changes" not in _parse(report_html(comparison)).sections
    given = compare_results(a, b, labels=lab.labelled_set(tmp_path))
    assert given.quality_changes is not None and len(given.quality_changes.broken) == 4
