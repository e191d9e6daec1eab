"""The batch model: a log routed in a worker thread with progress, cancelled with what it did
kept and resumed, results opened as they are, and a prompt behind a figure opened live (on its
batch's date, with its batch's rule pack)."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import routescope
from routescope.batch import BatchProgress
from routescope_gui import _batch_model
from tests._support import TODAY
from tests.core.batch._logs import suite_prompts
from tests.gui._support import record

LONG = " ".join(["how do I install FastAPI on Ubuntu behind nginx with systemd"] * 8)


def write_log(
    folder: Path, count: int = 200, extra: tuple[str, ...] = ()
) -> tuple[Path, list[str]]:
    """A text log of `count` prompts of the built-in suites (and `extra` ones after them)."""
    known = [" ".join(p.split()) for p in suite_prompts()]
    prompts = [known[i % len(known)] for i in range(count)] + list(extra)
    log = folder / "traffic.txt"
    log.write_text("".join(p + "\n" for p in prompts), encoding="utf-8")
    return log, prompts


def results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@contextmanager
def held_after_first_chunk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Batches hold after their first chunk until they are cancelled: a cancel lands mid-run
    whatever the machine's speed (and small partitions make several chunks of a small log)."""
    real: Callable[..., Any] = routescope.batch.run_batch

    def held(*args: Any, on_progress: Any, cancel: threading.Event, **options: Any) -> Any:
        def tell(progress: BatchProgress) -> None:
            on_progress(progress)
            if progress.prompts:
                assert cancel.wait(30)

        return real(*args, on_progress=tell, cancel=cancel, **options)

    with monkeypatch.context() as patch:
        patch.setattr(_batch_model, "BLOCK_BYTES", 4096)
        patch.setattr(routescope.batch, "run_batch", held)
        yield


def test_a_batch_runs_in_a_worker_with_progress_then_reads_its_report(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_batch_model, "BLOCK_BYTES", 4096)  # several chunks: several steps
    log, prompts = write_log(tmp_path)
    out = tmp_path / "traffic.results.jsonl"
    model = session.batch
    started, progress, reading = (
        record(model.started),
        record(model.progress),
        record(model.reading),
    )
    with qtbot.waitSignal(model.finished, timeout=120_000) as blocker:
        model.run(str(log), out)
        assert model.running and session.busy
    summary, report = blocker.args
    assert started == [(str(log), str(out))] and reading == [str(out)]
    assert summary.complete and summary.prompts == report.prompts == len(prompts)
    assert summary.today == TODAY.isoformat() and report.first_today == TODAY.isoformat()
    shares = [p.share for p in progress if isinstance(p, BatchProgress)]
    assert len(shares) == len(progress) >= 3 and shares == sorted(shares) and shares[-1] == 1.0
    assert [r["prompt"] for r in results(out)] == prompts
    assert model.report is report and model.summary is summary and model.results == out
    assert not model.running


def test_cancel_keeps_what_was_done_and_running_again_continues(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, prompts = write_log(tmp_path)
    out = tmp_path / "out.jsonl"
    model = session.batch

    def cancel_once_under_way(progress: BatchProgress) -> None:
        if progress.prompts:
            model.cancel()

    model.progress.connect(cancel_once_under_way)
    with held_after_first_chunk(monkeypatch), qtbot.waitSignal(model.cancelled, timeout=60_000):
        model.run(str(log), out)
    model.progress.disconnect(cancel_once_under_way)
    assert not model.running and model.report is None
    kept = results(out)
    assert 0 < len(kept) < len(prompts)
    assert [r["prompt"] for r in kept] == prompts[: len(kept)]
    with qtbot.waitSignal(model.finished, timeout=120_000) as blocker:
        model.run(str(log), out)
    summary, report = blocker.args
    assert summary.complete and summary.done_before == len(kept)
    assert report.prompts == len(prompts)
    assert [r["prompt"] for r in results(out)] == prompts


def test_the_cancelled_summary_says_what_was_kept(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log, _prompts = write_log(tmp_path)
    model = session.batch
    model.progress.connect(lambda progress: progress.prompts and model.cancel())
    with held_after_first_chunk(monkeypatch), qtbot.waitSignal(model.cancelled) as blocker:
        model.run(str(log), tmp_path / "out.jsonl")
    (summary,) = blocker.args
    assert not summary.complete and summary.prompts == len(results(tmp_path / "out.jsonl"))
    assert summary.notes[-1].startswith("cancelled after")


def test_results_open_as_they_are_and_a_prompt_opens_on_its_batchs_date(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path
) -> None:
    log, prompts = write_log(tmp_path, 40, extra=(LONG,))
    out = tmp_path / "made.jsonl"
    routescope.batch.run_batch(
        [str(log)], out, routescope.batch.BatchOptions(today=dt.date(2030, 7, 4)), progress=False
    )
    model = session.batch
    # Another pack in the window: prompts still open with the pack the batch used (the
    # built-in one, as its state says).
    pack = routescope.RulesRef.builtin().text.replace('name = "', 'name = "edited ', 1)
    session.set_rules(routescope.RulesRef.from_text(pack, "edited.toml"))
    notes = record(model.note)
    with qtbot.waitSignal(model.finished, timeout=60_000) as blocker:
        model.open_results(out)
    summary, report = blocker.args
    assert summary is None and report.prompts == len(prompts) and notes == [""]
    ref = report.strategies.bars[0].examples[0]
    with qtbot.waitSignal(session.inspection.inspected, timeout=20_000):
        model.open_prompt(ref)
    request = session.request
    assert request.text == ref.prompt and request.today == dt.date(2030, 7, 4)
    assert request.rules.is_builtin
    # A prompt the report cut opens whole, read from the results.
    cut = next(
        example
        for bar in report.strategies.bars
        for example in bar.examples
        if example.prompt.endswith("…")
    )
    with qtbot.waitSignal(session.inspection.inspected, timeout=20_000):
        model.open_prompt(cut)
    assert session.request.text == LONG and len(LONG) > len(cut.prompt)


def test_results_of_another_rule_pack_say_so(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log, _prompts = write_log(tmp_path, 10)
    pack = routescope.RulesRef.builtin().text.replace('name = "', 'name = "edited ', 1)
    edited = routescope.RulesRef.from_text(pack, "edited.toml")
    out = tmp_path / "made.jsonl"
    routescope.batch.run_batch(
        [str(log)], out, routescope.batch.BatchOptions(today=TODAY, rules=edited), progress=False
    )
    with qtbot.waitSignal(session.batch.note, timeout=60_000) as blocker:
        session.batch.open_results(out)
    assert "another rule pack" in blocker.args[0]


def test_what_cannot_be_read_is_reported(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.batch
    with qtbot.waitSignal(model.failed, timeout=20_000) as blocker:
        model.run(str(tmp_path / "nowhere" / "*.txt"), tmp_path / "out.jsonl")
    assert "nowhere" in blocker.args[0] and not model.running
    (tmp_path / "notes.jsonl").write_text("not results\n", encoding="utf-8")
    with qtbot.waitSignal(model.failed, timeout=20_000) as blocker:
        model.open_results(tmp_path / "notes.jsonl")
    assert "notes.jsonl" in blocker.args[0] and model.report is None
