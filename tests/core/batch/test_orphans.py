"""Issue 25: a 2-worker batch killed with SIGKILL (the driver only) leaves no process behind:
its fork server, pool workers and resource tracker die with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped, unused-ignore]
import pytest

from ._logs import prompts, write_jsonl

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="a parent-death signal is Linux's")


def _descendants(pid: int, count: int, deadline: float) -> list[psutil.Process]:
    """The driver's descendants once there are `count` of them (bounded wait)."""
    while time.monotonic() < deadline:
        found = psutil.Process(pid).children(recursive=True)
        if len(found) >= count:
            return list(found)
        time.sleep(0.05)
    raise AssertionError(f"the batch did not start {count} processes within a minute")


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_sigkill_of_the_driver_takes_its_workers_along(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in prompts(60000, 200)])
    command = [sys.executable, "-m", "routescope", "batch", str(log)]
    command += ["--out", str(tmp_path / "out.jsonl"), "--workers", "2", "--block-size", "8k"]
    driver = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    family: list[psutil.Process] = []
    try:
        # the resource tracker, the fork server and two workers
        family = _descendants(driver.pid, 4, time.monotonic() + 60)
        while not (tmp_path / "out.jsonl").exists() and driver.poll() is None:
            time.sleep(0.05)  # the workers are routing
        assert driver.poll() is None, "the batch finished before it could be killed"
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
        deadline = time.monotonic() + 20
        while _alive(family) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [(p.pid, p.cmdline()[-1][:60]) for p in _alive(family)]
        assert not left, f"processes outlived the killed driver: {left}"
    finally:
        for process in [*_alive(family)]:
            process.kill()
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.wait(timeout=30)
