"""A real batch killed with SIGKILL at several moments (driver and workers alike), then run
again: the file is the one an uninterrupted run writes, byte for byte, and at every kill what
is on disk is a prefix of it (lines already written are never lost or changed)."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ._logs import prompts, run_batch, write_jsonl

TODAY = "2026-02-05"


def _start(log: Path, out: Path, workers: int, errors: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "routescope", "batch", str(log), "--out", str(out)]
    command += ["--today", TODAY, "--no-timings", "--block-size", "8k", "--workers", str(workers)]
    with errors.open("ab") as stderr:
        return subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True
        )


def _kill_when(process: subprocess.Popen[bytes], out: Path, size: int) -> bool:
    """SIGKILL the batch (its whole process group) once `out` holds `size` bytes; False when
    it finished first."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        if out.exists() and out.stat().st_size >= size:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            return True
        time.sleep(0.005)
    raise AssertionError("the batch neither wrote nor finished within two minutes")


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_at_any_moment_then_rerun_gives_the_uninterrupted_file(
    tmp_path: Path, workers: int
) -> None:
    rows: list[object] = [{"prompt": p} for p in prompts(2500, 200)]
    rows[700] = {"prompt": ""}  # bad lines too
    rows[1800] = "not a prompt object"
    log = write_jsonl(tmp_path / "log.jsonl", rows)
    reference = tmp_path / "reference.jsonl"
    run_batch([str(log)], reference, today=dt.date.fromisoformat(TODAY), timings=False)
    expected = reference.read_bytes()
    out = tmp_path / "out.jsonl"
    kills = 0
    for fraction in (0.1, 0.45, 0.8):
        process = _start(log, out, workers, tmp_path / "stderr.txt")
        if _kill_when(process, out, int(len(expected) * fraction)):
            kills += 1
        written = out.read_bytes()
        assert expected.startswith(written)  # a prefix; at most its last line cut short
        for line in written.splitlines(keepends=True):
            if line.endswith(b"\n"):
                json.loads(line)
    assert kills >= 2
    process = _start(log, out, workers, tmp_path / "stderr.txt")
    assert process.wait(timeout=300) == 0, (tmp_path / "stderr.txt").read_text()
    assert out.read_bytes() == expected
    assert (tmp_path / "out.bad.jsonl").read_bytes() == (
        tmp_path / "reference.bad.jsonl"
    ).read_bytes()
    assert not list(tmp_path.glob(".*tmp*"))  # no stray temporary files
    assert (tmp_path / "stderr.txt").read_text() == ""  # killed runs say nothing either
