"""`run_batch`: records in input order with file and line, bad lines beside them, any number
of workers giving the same file, and resuming that ends in the file an uninterrupted run
writes."""

from __future__ import annotations

import datetime as dt
import fcntl
import gzip
import json
import threading
from pathlib import Path

import pytest

import routescope
from routescope._outcome import FIELDS
from routescope._stages import STAGES
from routescope.batch import BatchError
from routescope.batch import _run as run_module

from ._logs import prompts, read_jsonl, run_batch, suite_prompts, write_jsonl

TODAY = dt.date(2026, 2, 5)
CATALOG = Path(str(routescope.resources_root())) / "catalog"


class StopError(Exception):
    """Raised from the progress hook: the run ends there, as a kill would end it."""


def stop_after(chunks: int) -> object:
    seen = [0]

    def hook(prompts: int, bad: int) -> None:
        seen[0] += 1
        if seen[0] >= chunks:
            raise StopError

    return hook


@pytest.fixture
def logs(tmp_path: Path) -> list[str]:
    """A JSONL log with bad lines among the prompts, a CSV, a gzip text log: ~600 prompts."""
    folder = tmp_path / "logs"
    folder.mkdir()
    rows: list[object] = [{"prompt": p} for p in prompts(300, 50)]
    rows[10] = {"text": 5}
    rows[20] = {"messages": [{"role": "user", "content": "best ramen near Denver"}]}
    body = "".join(json.dumps(r) + "\n" for r in rows)
    body = body.replace('{"prompt"', "not json {", 1) + "\n\n" + '{"prompt": "last"}'
    (folder / "a.jsonl").write_text(body, encoding="utf-8")
    csv_rows = "".join(f'{i},"{p}"\n' for i, p in enumerate(prompts(150, 80, seed=3)))
    (folder / "b.csv").write_text('id,prompt\n7,"two\nlines"\n' + csv_rows, encoding="utf-8")
    text = "".join(p + "\n" for p in suite_prompts())
    (folder / "c.txt.gz").write_bytes(gzip.compress(text.encode()))
    return [str(folder / "a.jsonl"), str(folder / "b.csv"), str(folder / "*.gz")]


def run(logs: list[str], out: Path, **options: object) -> routescope.batch.BatchSummary:
    options.setdefault("today", TODAY)
    options.setdefault("timings", False)
    options.setdefault("block_size", 4096)
    return run_batch(logs, out, **options)


def test_one_record_a_prompt_in_input_order_and_bad_lines_beside(
    logs: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "results.jsonl"
    summary = run(logs, out, timings=True)
    records = read_jsonl(out)
    assert summary.complete and not summary.already_complete
    assert summary.prompts == len(records) and summary.files == 3
    order = [(r["source"], r["line"]) for r in records]
    files = {source: i for i, source in enumerate(dict.fromkeys(s for s, _ in order))}
    assert order == sorted(order, key=lambda pair: (files[pair[0]], pair[1]))
    first = records[0]
    assert (first["source"], first["line"]) == (logs[0], 2)  # line 1 is not JSON
    assert list(first) == list(FIELDS)
    assert first["timings_us"]["total"] > 0
    chat = next(r for r in records if r["line"] == 21 and r["source"] == logs[0])
    assert chat["prompt"] == "best ramen near Denver" and chat["strategy"] == "local"
    csv_first = next(r for r in records if r["source"].endswith("b.csv"))
    assert (csv_first["line"], csv_first["prompt"]) == (2, "two\nlines")
    assert next(r for r in records if r["source"].endswith("b.csv") and r["line"] == 4)
    gz = [r for r in records if r["source"].endswith("c.txt.gz")]
    assert [r["prompt"] for r in gz] == suite_prompts()
    bad = read_jsonl(tmp_path / "results.bad.jsonl")
    assert [(b["line"], b["reason"].split(":")[0]) for b in bad] == [
        (1, "invalid JSON"),
        (11, "field text is a JSON number, not text or a chat"),
        (301, "empty line"),
        (302, "empty line"),
    ]
    assert summary.bad == 4 and summary.bad_lines_file == str(tmp_path / "results.bad.jsonl")
    assert [b.line for b in summary.first_bad] == [1, 11, 301, 302]
    last = [r for r in records if r["source"] == logs[0]][-1]
    assert (last["line"], last["prompt"]) == (303, "last")


def test_two_workers_write_the_same_file_as_one(logs: list[str], tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    two = tmp_path / "two.jsonl"
    run(logs, one)
    summary = run(logs, two, workers=2)
    assert summary.workers == 2
    assert two.read_bytes() == one.read_bytes()
    assert (tmp_path / "two.bad.jsonl").read_bytes() == (tmp_path / "one.bad.jsonl").read_bytes()


def test_a_small_input_is_spread_over_the_workers(tmp_path: Path) -> None:
    """No block size given: one 256 KiB partition with one worker; with two, about four
    partitions a worker, so that both rank prompts (one 256 KiB partition is 3,000 prompts,
    twelve seconds of work with a catalog)."""
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in prompts(2400, 60)])
    size = log.stat().st_size
    assert 128 << 10 < size < 256 << 10
    chunks = {1: [0], 2: [0]}
    for workers, seen in chunks.items():

        def count(prompts: int, bad: int, seen: list[int] = seen) -> None:
            seen[0] += 1

        out = tmp_path / f"{workers}.jsonl"
        run([str(log)], out, workers=workers, block_size=None, on_chunk=count)
    assert chunks[1] == [1]
    assert 7 <= chunks[2][0] <= 9  # ≈ 4 a worker
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()


def test_partition_bytes() -> None:
    options = routescope.batch.BatchOptions
    assert options(block_size=8192, workers=2).partition_bytes(10 << 20) == 8192
    assert options().partition_bytes(100 << 10) == 256 << 10
    assert options(workers=2).partition_bytes(100 << 20) == 256 << 10  # a big input: unchanged
    assert options(workers=2).partition_bytes(800 << 10) == 100 << 10
    assert options(workers=4).partition_bytes(100 << 10) == 16 << 10  # never below 16 KiB
    assert options(workers=2).partition_bytes(0) == 16 << 10


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_batch_resumes_into_the_same_file(
    logs: list[str], tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    reference = tmp_path / "reference.jsonl"
    run(logs, reference)
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, workers=workers, on_chunk=stop_after(5))
    partial = out.read_bytes()
    assert 0 < len(partial) < len(reference.read_bytes())
    assert reference.read_bytes().startswith(partial)
    with pytest.raises(StopError):  # a second interruption, further on
        run(logs, out, workers=workers, on_chunk=stop_after(4))
    summary = run(logs, out, workers=workers)
    assert summary.done_before > 0 and summary.complete
    assert out.read_bytes() == reference.read_bytes()
    assert (tmp_path / "out.bad.jsonl").read_bytes() == (
        tmp_path / "reference.bad.jsonl"
    ).read_bytes()


def test_what_was_written_after_the_last_commit_is_cut_and_done_again(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = tmp_path / "reference.jsonl"
    run(logs, reference)
    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 3600.0)  # only the first and last commit
    monkeypatch.setattr(routescope.batch._state.Output, "commit", lambda self: None)
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(3))
    monkeypatch.undo()
    with out.open("ab") as torn:  # a kill in the middle of a write
        torn.write(b'{"source":"half a rec')
    run(logs, out)
    assert out.read_bytes() == reference.read_bytes()


def test_a_finished_batch_is_not_run_again(logs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    run(logs, out)
    before = out.read_bytes()
    again = run(logs, out, today=None)
    assert again.already_complete and again.prompts == len(read_jsonl(out))
    assert out.read_bytes() == before


def test_a_resumed_batch_keeps_its_date(logs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, today=dt.date(2025, 1, 2), on_chunk=stop_after(2))
    run(logs, out, today=None)
    assert {r["today"] for r in read_jsonl(out)} == {"2025-01-02"}


def test_other_options_or_changed_inputs_are_refused_and_nothing_is_written(
    logs: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(2))
    before = out.read_bytes()
    with pytest.raises(BatchError, match=r"begun with --today 2026-02-05, not 2026-02-06"):
        run(logs, out, today=dt.date(2026, 2, 6))
    with pytest.raises(BatchError, match=r"other options \(timings: False, now True\)"):
        run(logs, out, timings=True)
    with pytest.raises(BatchError, match=r"other options \(field"):
        run(logs, out, field="prompt")
    with Path(logs[0]).open("a") as log:
        log.write('{"prompt": "one more"}\n')
    with pytest.raises(BatchError, match=r"the inputs changed since .*a\.jsonl: [\d,]+ bytes"):
        run(logs, out)
    assert out.read_bytes() == before


def test_a_long_input_path_keeps_its_file_name_in_the_message(tmp_path: Path) -> None:
    folder = tmp_path.joinpath(*["a-rather-long-folder-name"] * 6)
    folder.mkdir(parents=True)
    log = folder / "traffic.jsonl"
    log.write_text("".join(f'{{"prompt": "p{n}"}}\n' for n in range(1000)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run([str(log)], out, block_size=4096, on_chunk=stop_after(1))
    with log.open("a") as stream:
        stream.write('{"prompt": "one more"}\n')
    with pytest.raises(BatchError, match=r"…[^ ]*/traffic\.jsonl: [\d,]+ bytes, now [\d,]+"):
        run([str(log)], out)


def test_removing_the_results_starts_over(logs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(2))
    out.unlink()
    summary = run(logs, out)
    assert summary.done_before == 0 and summary.complete


def test_parquet_holds_the_same_records_in_flat_columns(logs: list[str], tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    run(logs, tmp_path / "out.jsonl", timings=True)
    with pytest.raises(StopError):
        run(logs, tmp_path / "out.parquet", timings=True, on_chunk=stop_after(3))
    assert not (tmp_path / "out.parquet").exists()  # only ever complete
    run(logs, tmp_path / "out.parquet", timings=True)
    assert not (tmp_path / "out.partial.jsonl").exists()
    table = pq.read_table(tmp_path / "out.parquet")
    rows = table.to_pylist()
    records = read_jsonl(tmp_path / "out.jsonl")
    assert len(rows) == len(records)
    flat = [routescope.Outcome.row_of_record(r) for r in records]
    drop = {f"timings_us_{s}" for s in STAGES}
    assert [{k: v for k, v in r.items() if k not in drop} for r in rows] == [
        {k: v for k, v in r.items() if k not in drop} for r in flat
    ]
    assert str(table.schema.field("intents").type.value_type) == "string"
    assert table.schema.field("today").type == "date32[day]"
    assert run(logs, tmp_path / "out.parquet", timings=True).already_complete


def test_an_over_long_line_is_a_bad_line(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_bytes(b"before\n" + b"word " * 20_000 + b"\nafter\n")
    summary = run([str(log)], tmp_path / "out.jsonl", max_line_bytes=1024)
    assert [r["prompt"] for r in read_jsonl(tmp_path / "out.jsonl")] == ["before", "after"]
    (bad,) = read_jsonl(tmp_path / "out.bad.jsonl")
    assert bad["line"] == 2 and bad["reason"] == "over-long record (more than 1,024 bytes)"
    assert bad["excerpt"].startswith("word word") and len(bad["excerpt"]) <= 120
    assert summary.bad == 1


def test_a_catalog_ranks_tools_for_every_prompt(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in suite_prompts()[:30]])
    run([str(log)], tmp_path / "out.jsonl", catalog=CATALOG, k=3, timings=True)
    records = read_jsonl(tmp_path / "out.jsonl")
    assert all(len(r["tools"]) == 3 and r["top_tool"] == r["tools"][0] for r in records)
    assert all(isinstance(r["tool_fits"], bool) for r in records)
    assert all("tools" in r["timings_us"] for r in records)


def test_blocks_of_records_embedded_together_keep_records_and_bad_lines_in_line_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: with a catalog, records are read in blocks (`BLOCK` records or `BLOCK_BYTES`)
    whose prompts are embedded together; blocks cut anywhere give the file one block gives."""
    from routescope.batch import _work

    rows: list[object] = [{"prompt": p} for p in suite_prompts()[:14]]
    rows[3] = {"no prompt": 1}
    rows[9] = {"prompt": "word " * 40}  # a long record: the byte budget ends its block
    lines = [json.dumps(row) for row in rows]
    lines[6] = "{not json"
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run([str(log)], tmp_path / "whole.jsonl", catalog=CATALOG, k=3)
    monkeypatch.setattr(_work, "BLOCK", 4)
    monkeypatch.setattr(_work, "BLOCK_BYTES", 150)
    run([str(log)], tmp_path / "cut.jsonl", catalog=CATALOG, k=3)
    records = read_jsonl(tmp_path / "cut.jsonl")
    assert records == read_jsonl(tmp_path / "whole.jsonl")
    assert [r["line"] for r in records] == [n for n in range(1, 15) if n not in (4, 7)]
    bad = read_jsonl(tmp_path / "cut.bad.jsonl")
    assert [b["line"] for b in bad] == [4, 7]
    assert bad == read_jsonl(tmp_path / "whole.bad.jsonl")


def test_outputs_that_are_not_the_batchs_are_never_written(logs: list[str], tmp_path: Path) -> None:
    mine = tmp_path / "mine.jsonl"
    mine.write_text("precious\n")
    with pytest.raises(BatchError, match=r"mine\.jsonl exists and is not a batch in progress"):
        run(logs, mine)
    (tmp_path / "other.bad.jsonl").write_text("precious\n")
    with pytest.raises(BatchError, match=r"other\.bad\.jsonl exists and is not a batch"):
        run(logs, tmp_path / "other.jsonl")
    target = tmp_path / "target.jsonl"
    (tmp_path / "link.jsonl").symlink_to(target)
    with pytest.raises(BatchError, match=r"link\.jsonl is a symbolic link"):
        run(logs, tmp_path / "link.jsonl")
    with pytest.raises(BatchError, match=r"is also an input"):
        run(logs, Path(logs[0]))
    with pytest.raises(BatchError, match=r"no such folder"):
        run(logs, tmp_path / "nowhere" / "out.jsonl")
    assert mine.read_text() == "precious\n" and not target.exists()
    assert (tmp_path / "other.bad.jsonl").read_text() == "precious\n"


def test_a_second_batch_on_the_same_output_is_refused(logs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with pytest.raises(StopError):
        run(logs, out, on_chunk=stop_after(2))
    with out.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with pytest.raises(BatchError, match="another batch is writing"):
            run(logs, out)


def test_a_file_that_changes_during_the_batch_stops_it_with_one_line(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in prompts(400)])

    def grow(prompts: int, bad: int) -> None:
        with log.open("a") as stream:
            stream.write('{"prompt": "more"}\n')

    with pytest.raises(BatchError, match=r"log\.jsonl: the file changed while the batch ran"):
        run([str(log)], tmp_path / "out.jsonl", on_chunk=grow)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "workers must be"),
        ({"engine": "spark"}, "unknown engine"),
        ({"scheduler": "tcp://127.0.0.1:1"}, "goes with the dask engine"),
        ({"block_size": 10}, "block size"),
        ({"k": 3}, "goes with a catalog"),
        ({"field": "a..b"}, "dotted path"),
    ],
)
def test_bad_options_are_one_line(
    logs: list[str], tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(BatchError, match=message):
        run(logs, tmp_path / "out.jsonl", **options)
    assert not (tmp_path / "out.jsonl").exists()


def test_a_progress_bar_on_a_terminal_and_silence_elsewhere(
    logs: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bar is as wide as the terminal says (here: whatever runs the tests); wide enough for
    # its postfix, which a narrow one cuts.
    monkeypatch.setenv("COLUMNS", "120")
    run(logs, tmp_path / "quiet.jsonl")  # stderr is not a terminal here
    assert capsys.readouterr().err == ""
    run(logs, tmp_path / "bar.jsonl", progress=True)
    bar = capsys.readouterr().err
    assert "routescope batch: 100%|" in bar and "bad]" in bar
    assert f"{len(read_jsonl(tmp_path / 'bar.jsonl')):,} prompts" in bar


def test_a_write_that_fails_half_way_is_cut_off_and_done_again(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records written, then the disk fills while writing the chunk's bad lines: exit with one
    line; the next run neither loses nor repeats the chunk."""
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 0.0)
    run(logs, tmp_path / "reference.jsonl")
    real = routescope.batch._state._write_all

    def full(handle: int, data: bytes, path: Path) -> None:
        if path.name == "out.bad.jsonl" and b'"line":301' in data:
            raise BatchError(f"{path}: cannot write: No space left on device")
        real(handle, data, path)

    monkeypatch.setattr(routescope.batch._state, "_write_all", full)
    with pytest.raises(BatchError, match="No space left on device"):
        run(logs, tmp_path / "out.jsonl")
    monkeypatch.undo()
    run(logs, tmp_path / "out.jsonl")
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
    assert (tmp_path / "out.bad.jsonl").read_bytes() == (
        tmp_path / "reference.bad.jsonl"
    ).read_bytes()


def test_progress_is_told_with_the_share_of_the_input_and_a_cancel_resumes(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hooks a window needs: how far the batch got (input bytes, counts, rate) when it has
    planned and after each chunk, and an event that stops it with what it wrote kept."""
    monkeypatch.setattr(run_module, "CHECKPOINT_S", 3600.0)  # a cancel commits by itself
    reference = tmp_path / "reference.jsonl"
    run(logs, reference)
    out = tmp_path / "out.jsonl"
    cancel = threading.Event()
    seen: list[routescope.batch.BatchProgress] = []

    def told(progress: routescope.batch.BatchProgress) -> None:
        seen.append(progress)
        if len(seen) == 4:  # the start, then three chunks
            cancel.set()

    summary = run(logs, out, on_progress=told, cancel=cancel)
    assert not summary.complete and summary.notes[-1].startswith("cancelled after")
    assert len(seen) == 4 and seen[0].prompts == seen[0].read == seen[0].read_before == 0
    assert seen[-1].prompts + seen[-1].bad == summary.prompts + summary.bad > 0
    reads = [p.read for p in seen]
    assert reads == sorted(reads) and 0 < seen[-1].share < 1
    assert seen[-1].rate > 0 and seen[-1].seconds_left is not None
    partial = out.read_bytes()
    assert 0 < len(partial) < len(reference.read_bytes())
    assert reference.read_bytes().startswith(partial)
    # Cancelled before it starts: nothing more is written.
    cancel_now = threading.Event()
    cancel_now.set()
    assert run(logs, out, cancel=cancel_now).prompts == summary.prompts
    assert out.read_bytes() == partial
    # Run again: it resumes, and ends in the file an uninterrupted run writes.
    resumed: list[routescope.batch.BatchProgress] = []
    again = run(logs, out, on_progress=resumed.append)
    assert again.complete and again.done_before == summary.prompts + summary.bad
    assert resumed[0].done_before == again.done_before and resumed[0].read_before > 0
    assert resumed[-1].share == 1.0
    assert out.read_bytes() == reference.read_bytes()


def test_a_cancelled_parquet_batch_writes_no_parquet_file_until_resumed(
    logs: list[str], tmp_path: Path
) -> None:
    pytest.importorskip("pyarrow.parquet")
    cancel = threading.Event()
    out = tmp_path / "out.parquet"
    summary = run(logs, out, on_chunk=lambda prompts, bad: cancel.set(), cancel=cancel)
    assert not summary.complete and not out.exists()
    assert run(logs, out).complete and out.exists()
