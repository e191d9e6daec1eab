"""Issue 25: the bad-lines file keeps the first `BAD_LINES_WRITTEN` bad lines in full and only
counts the rest by reason (a log of nothing but bad lines cannot fill the disk), resuming
included; a CSV quote left open does not swallow the rest of the file."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path

import pytest

import routescope
from routescope.batch import _run as run_module
from routescope.batch._progress import BAD_LINES_KEPT
from routescope.cli import main

from ._logs import read_jsonl, run_batch

TODAY = dt.date(2026, 2, 5)
CAP = 100
LINES = 30_000


class StopError(Exception):
    """Raised from the progress hook: the run ends there, as a kill would end it."""


def stop_after(chunks: int) -> object:
    seen = [0]

    def hook(prompts: int, bad: int) -> None:
        seen[0] += 1
        if seen[0] >= chunks:
            raise StopError

    return hook


def run(logs: list[str], out: Path, **options: object) -> routescope.batch.BatchSummary:
    options.setdefault("today", TODAY)
    options.setdefault("timings", False)
    options.setdefault("block_size", 4096)
    return run_batch(logs, out, **options)


def bad_log(tmp_path: Path, *, zipped: bool) -> list[str]:
    """30,000 lines: empty ones, every 7th not JSON, and three prompts among them."""
    lines = ["not json {" if i % 7 == 3 else "" for i in range(LINES)]
    for i in (0, 15_000, LINES - 1):
        lines[i] = json.dumps({"prompt": f"weather in Oslo tomorrow, take {i}"})
    data = "".join(line + "\n" for line in lines).encode()
    path = tmp_path / ("empty.jsonl.gz" if zipped else "empty.jsonl")
    path.write_bytes(gzip.compress(data) if zipped else data)
    return [str(path)]


EXPECTED_INVALID = sum(1 for i in range(LINES) if i % 7 == 3 and i not in (0, 15_000, LINES - 1))
EXPECTED_BAD = LINES - 3


@pytest.mark.parametrize("zipped", [False, True])
def test_past_the_cap_bad_lines_are_only_counted_by_reason_and_resuming_gives_the_same_files(
    tmp_path: Path, zipped: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_module, "BAD_LINES_WRITTEN", CAP)
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    logs = bad_log(tmp_path, zipped=zipped)
    reference = tmp_path / "reference.jsonl"
    summary = run(logs, reference)
    assert summary.complete and summary.prompts == 3 and summary.bad == EXPECTED_BAD
    bad = read_jsonl(tmp_path / "reference.bad.jsonl")
    assert len(bad) == CAP  # exactly the cap's lines, the first ones, in full
    assert [b["line"] for b in bad] == list(range(2, CAP + 2))
    assert {b["reason"].split(":")[0] for b in bad} == {"empty line", "invalid JSON"}
    listed_invalid = sum(1 for b in bad if b["reason"].startswith("invalid JSON"))
    assert summary.bad_not_listed == {
        "empty line": EXPECTED_BAD - EXPECTED_INVALID - (CAP - listed_invalid),
        "invalid JSON": EXPECTED_INVALID - listed_invalid,
    }
    assert sum(summary.bad_not_listed.values()) == EXPECTED_BAD - CAP
    state = json.loads((tmp_path / "reference.state.json").read_text())
    assert state["bad_not_listed"] == summary.bad_not_listed and state["bad"] == EXPECTED_BAD

    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):  # killed midway, then again further on
        run(logs, out, on_chunk=stop_after(2))
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(3))
    resumed = run(logs, out)
    assert resumed.done_before > 0 and resumed.complete
    assert out.read_bytes() == reference.read_bytes()
    assert (tmp_path / "out.bad.jsonl").read_bytes() == (
        tmp_path / "reference.bad.jsonl"
    ).read_bytes()
    assert (tmp_path / "out.state.json").read_bytes() == (
        tmp_path / "reference.state.json"
    ).read_bytes()
    assert resumed.bad == summary.bad and resumed.bad_not_listed == summary.bad_not_listed


def mixed_log(tmp_path: Path) -> list[str]:
    """3,000 lines, one in 13 bad (empty, or not JSON): bad lines all the way through."""
    lines = [
        ("" if i % 2 else "not json {")
        if i % 13 == 5
        else json.dumps({"prompt": f"weather in Oslo tomorrow, take {i}"})
        for i in range(3_000)
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return [str(path)]


@pytest.mark.parametrize("chunks", [1, 6])
def test_a_resumed_batch_counts_and_lists_the_bad_lines_of_the_whole_input(
    tmp_path: Path,
    chunks: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 25: the summary of a batch stopped after `chunks` chunks and run again is the
    uninterrupted run's: every bad line counted, and the batch's first ones listed (those
    before the resume point read back from the bad-lines file), on the command line too."""
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    logs = mixed_log(tmp_path)
    reference = run(logs, tmp_path / "reference.jsonl")
    assert reference.complete and reference.bad == 231 and len(reference.first_bad) == 10

    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(chunks))
    before = json.loads((tmp_path / "out.state.json").read_text())["bad"]
    assert 0 < before < reference.bad  # bad lines before the resume point and after it
    assert (before < BAD_LINES_KEPT) == (chunks == 1)  # the list made of both runs', or not
    resumed = run(logs, out)
    assert resumed.complete and resumed.done_before > 0
    assert (resumed.prompts, resumed.bad, resumed.bad_not_listed) == (
        reference.prompts,
        reference.bad,
        reference.bad_not_listed,
    )
    assert resumed.first_bad == reference.first_bad
    assert resumed.bad_lines_file == str(tmp_path / "out.bad.jsonl")
    again = run(logs, out)  # already complete: the same counts and list
    assert again.already_complete
    assert (again.bad, again.first_bad) == (reference.bad, reference.first_bad)

    cli = ["batch", "--today", TODAY.isoformat(), "--no-timings", "--block-size", "4k"]
    assert main([*cli, *logs, "--out", str(tmp_path / "cli-reference.jsonl")]) == 0
    whole = capsys.readouterr().out.splitlines()[1:]
    with pytest.raises(StopError):
        run(logs, tmp_path / "cli.jsonl", on_chunk=stop_after(chunks))
    assert main([*cli, *logs, "--out", str(tmp_path / "cli.jsonl")]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert "continued after" in shown[0]
    assert [line.replace("cli.bad", "cli-reference.bad") for line in shown[1:]] == whole
    assert whole[0].startswith("231 bad lines → ") and len(whole) == 1 + 10 + 1


def test_a_bad_lines_file_that_cannot_be_read_back_lists_what_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The resumed summary lists the earlier runs' bad lines up to one it cannot read back (a
    damaged file); the counts, from the state, are whole all the same."""
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    logs = mixed_log(tmp_path)
    reference = run(logs, tmp_path / "reference.jsonl")
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(6))
    bad_file = tmp_path / "out.bad.jsonl"
    lines = bad_file.read_bytes().splitlines(keepends=True)
    lines[2] = b"#" * (len(lines[2]) - 1) + b"\n"  # the same length: only its text is damaged
    bad_file.write_bytes(b"".join(lines))
    resumed = run(logs, out)
    assert resumed.first_bad[:2] == reference.first_bad[:2]
    # past the damaged line, the earlier runs' are not listed: this run's follow
    earlier = json.loads((tmp_path / "reference.bad.jsonl").read_bytes().splitlines()[len(lines)])
    assert resumed.first_bad[2].line == earlier["line"]
    assert (resumed.prompts, resumed.bad) == (reference.prompts, reference.bad)


def test_a_batch_under_the_cap_writes_no_count_in_its_state(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_text('{"prompt": "weather in Oslo"}\n\nnot json\n', encoding="utf-8")
    summary = run([str(log)], tmp_path / "out.jsonl")
    assert summary.bad == 2 and summary.bad_not_listed == {}
    assert len(read_jsonl(tmp_path / "out.bad.jsonl")) == 2
    assert "bad_not_listed" not in json.loads((tmp_path / "out.state.json").read_text())


def test_reasons_past_the_cap_are_a_bounded_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_module, "BAD_REASONS_COUNTED", 3)
    counts: dict[str, int] = {}
    reasons = [f"invalid JSON: at char {i}" for i in range(5)]
    reasons += [f"no column {i} (the row has 1)" for i in range(2, 7)]
    run_module._count_not_listed(counts, reasons)
    assert counts == {"invalid JSON": 5, "no column 2": 1, "no column 3": 1, "other": 3}


def unclosed_csv(tmp_path: Path, rows: int) -> Path:
    """A CSV of `rows` rows whose 5th row (line 6, after the header) opens a quote that is
    never closed: no other row has a quote."""
    body = [f"{i},weather in Oslo on day {i}\n" for i in range(1, rows + 1)]
    body[4] = '5,"weather in Oslo on day 5\n'
    path = tmp_path / "open.csv"
    path.write_text("id,prompt\n" + "".join(body), encoding="utf-8")
    return path


def test_a_csv_quote_left_open_is_a_bad_line_and_the_rows_after_it_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outcome: the quote of row 5 (line 6) is still open 1,000 lines on, so line 6 alone is
    a bad line saying so, and the 999 lines it had swallowed are read again as rows: every
    other row is a prompt. Partitions planned at any size cut the file at the same records
    (the driver plans with the worker's reading), and resuming gives the same files."""
    log = [str(unclosed_csv(tmp_path, 3_000))]
    whole = tmp_path / "whole.jsonl"
    summary = run(log, whole, block_size=1 << 20)
    assert summary.complete and summary.prompts == 2_999 and summary.bad == 1
    (bad,) = read_jsonl(tmp_path / "whole.bad.jsonl")
    assert bad["line"] == 6 and bad["excerpt"] == '5,"weather in Oslo on day 5'
    assert bad["reason"] == (
        "unclosed quote: a quoted field opened on this line is not closed (within 1,000 "
        "lines); the 999 lines after it are read again as rows"
    )
    records = read_jsonl(whole)
    assert [r["line"] for r in records] == [n for n in range(2, 3_002) if n != 6]
    assert records[4]["prompt"] == "weather in Oslo on day 6"

    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):  # small partitions, some ending inside the open quote
        run(log, out, block_size=4096, on_chunk=stop_after(3))
    run(log, out, block_size=4096)
    assert out.read_bytes() == whole.read_bytes()
    assert (tmp_path / "out.bad.jsonl").read_bytes() == (tmp_path / "whole.bad.jsonl").read_bytes()


def test_a_csv_quote_open_at_the_end_of_the_file_is_a_bad_line(tmp_path: Path) -> None:
    """Outcome: with fewer than 1,000 lines left, the open quote ends at the end of the file
    as Python's csv reads it; that record is a bad line that says how many lines it holds."""
    log = [str(unclosed_csv(tmp_path, 30))]
    summary = run(log, tmp_path / "out.jsonl")
    assert summary.prompts == 4 and summary.bad == 1
    (bad,) = read_jsonl(tmp_path / "out.bad.jsonl")
    assert bad["line"] == 6 and bad["reason"] == (
        "unclosed quote: a quoted field opened on this line is not closed (the 25 lines after "
        "it, to the end of the file, are in it)"
    )
