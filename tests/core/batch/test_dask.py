"""The Dask engine on a small LocalCluster writes the file the local engine writes, byte for
byte, and resumes the same way (here: a batch begun locally, finished on Dask)."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from routescope.batch import BatchError
from routescope.batch import _engines as engines

from ._logs import prompts, run_batch, suite_prompts, write_jsonl

distributed = pytest.importorskip("distributed")

TODAY = dt.date(2026, 2, 5)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def logs(tmp_path: Path) -> list[str]:
    rows: list[object] = [{"prompt": p} for p in prompts(400, 60)]
    rows[50] = {"nothing": 1}
    log = write_jsonl(tmp_path / "a.jsonl", rows)
    table = tmp_path / "b.csv"
    table.write_text("prompt\n" + "".join(f'"{p}"\n' for p in prompts(100, 90, seed=4)))
    zipped = tmp_path / "c.txt.gz"
    zipped.write_bytes(gzip.compress("".join(p + "\n" for p in suite_prompts()).encode()))
    return [str(log), str(table), str(zipped)]


def run(logs: list[str], out: Path, **options: object) -> object:
    return run_batch(logs, out, today=TODAY, timings=False, block_size=4096, **options)


def test_dask_writes_the_same_file_as_the_local_engine(
    logs: list[str], tmp_path: Path, scheduler: str
) -> None:
    run(logs, tmp_path / "local.jsonl")
    summary = run(logs, tmp_path / "dask.jsonl", engine="dask", scheduler=scheduler)
    assert summary.engine == "dask" and summary.complete  # type: ignore[attr-defined]
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.bad.jsonl").read_bytes() == (tmp_path / "local.bad.jsonl").read_bytes()
    assert len((tmp_path / "dask.jsonl").read_bytes().splitlines()) == 400 - 1 + 100 + len(
        suite_prompts()
    )


def test_a_batch_begun_locally_finishes_on_dask(
    logs: list[str], tmp_path: Path, scheduler: str
) -> None:
    run(logs, tmp_path / "reference.jsonl")

    def stop(prompts: int, bad: int) -> None:
        if prompts > 150:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(logs, tmp_path / "out.jsonl", on_chunk=stop)
    summary = run(logs, tmp_path / "out.jsonl", engine="dask", scheduler=scheduler)
    assert summary.done_before > 0  # type: ignore[attr-defined]
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert [r["line"] for r in records[:3]] == [1, 2, 3]


def test_an_unreachable_scheduler_is_one_line(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "CONNECT_TIMEOUT_S", 1.0)
    with pytest.raises(BatchError, match=r"cannot reach tcp://127\.0\.0\.1:9"):
        run(logs, tmp_path / "out.jsonl", engine="dask", scheduler="tcp://127.0.0.1:9")


def test_without_a_scheduler_dask_starts_a_local_cluster_of_processes(
    logs: list[str], tmp_path: Path
) -> None:
    run(logs[:1], tmp_path / "local.jsonl")
    run(logs[:1], tmp_path / "dask.jsonl", engine="dask", workers=1)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
