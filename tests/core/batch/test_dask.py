"""The Dask engine on a small LocalCluster writes the file the local engine writes, byte for
byte, and resumes the same way (here: a batch begun locally, finished on Dask)."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from routescope.batch import BatchError
from routescope.batch import _engines as engines
from routescope.cli import main

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


class Connects:
    """Stands in for `distributed.Client` (or `socket.create_connection`): records each call,
    then fails as a scheduler that never answers makes it fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        raise TimeoutError("Timed out trying to connect")


def test_a_refused_scheduler_fails_at_once_without_dask_trying_it(
    logs: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 25: nothing listening at the address is one line and exit 2 straight away: Dask's
    connect, which retries a refusal until its timeout (20 s), is never called."""
    client = Connects()
    monkeypatch.setattr(distributed, "Client", client)
    with socket.socket() as bound:  # bound but not listening: a connection to it is refused
        bound.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{bound.getsockname()[1]}"
        argv = ["batch", logs[0], "--out", str(tmp_path / "out.jsonl"), "--engine", "dask"]
        assert main([*argv, "--scheduler", address]) == 2
    assert capsys.readouterr().err == (
        f"routescope: error: cannot reach {address}: connection refused (no Dask scheduler "
        "listens there)\n"
    )
    assert client.calls == []


def test_a_host_that_never_answers_keeps_the_timeout(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that gets no answer is given `CONNECT_TIMEOUT_S`, once (the probe's), and
    then is the same one line; Dask's connect is not tried for as long again."""
    connects, client = Connects(), Connects()
    monkeypatch.setattr(socket, "create_connection", connects)
    monkeypatch.setattr(distributed, "Client", client)
    with pytest.raises(BatchError) as caught:
        run(logs, tmp_path / "out.jsonl", engine="dask", scheduler="tcp://127.0.0.1:8786")
    assert str(caught.value) == "cannot reach tcp://127.0.0.1:8786: no answer within 20 s"
    assert connects.calls == [((("127.0.0.1", 8786),), {"timeout": engines.CONNECT_TIMEOUT_S})]
    assert client.calls == []


def test_a_port_that_accepts_but_never_speaks_is_left_to_dask_and_its_timeout(
    logs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Connects()
    monkeypatch.setattr(distributed, "Client", client)
    with socket.socket() as silent:  # the kernel completes the handshake; nobody answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(BatchError, match=r"^cannot reach .*: Timed out trying to connect$"):
            run(logs, tmp_path / "out.jsonl", engine="dask", scheduler=address)
    assert client.calls == [((address,), {"timeout": engines.CONNECT_TIMEOUT_S})]


def test_without_a_scheduler_dask_starts_a_local_cluster_of_processes(
    logs: list[str], tmp_path: Path
) -> None:
    run(logs[:1], tmp_path / "local.jsonl")
    run(logs[:1], tmp_path / "dask.jsonl", engine="dask", workers=1)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
