"""Issue 25: a 2-worker batch killed with SIGKILL (the driver only) leaves no process behind:
its fork server, pool workers and resource tracker die with it; so do the workers of a Dask
local cluster (`--engine dask`), even ones too busy to notice their driver is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
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


def _kill_and_count_survivors(
    driver: subprocess.Popen[bytes], family: list[psutil.Process]
) -> None:
    """SIGKILL the driver alone, then wait (bounded) for its family to go: none may stay."""
    assert driver.poll() is None, "the batch finished before it could be killed"
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait(timeout=30)
    deadline = time.monotonic() + 20
    while _alive(family) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [(p.pid, p.cmdline()[-1][:60]) for p in _alive(family)]
    assert not left, f"processes outlived the killed driver: {left}"


def _clean_up(driver: subprocess.Popen[bytes], family: list[psutil.Process]) -> None:
    for process in [*_alive(family)]:
        process.kill()
    if driver.poll() is None:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)


def _batch(tmp_path: Path, *options: str) -> subprocess.Popen[bytes]:
    log = write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in prompts(60000, 200)])
    command = [sys.executable, "-m", "routescope", "batch", str(log)]
    command += ["--out", str(tmp_path / "out.jsonl"), "--workers", "2", "--block-size", "8k"]
    return subprocess.Popen(
        [*command, *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def test_sigkill_of_the_driver_takes_its_workers_along(tmp_path: Path) -> None:
    driver = _batch(tmp_path)
    family: list[psutil.Process] = []
    try:
        # the resource tracker, the fork server and two workers
        family = _descendants(driver.pid, 4, time.monotonic() + 60)
        while not (tmp_path / "out.jsonl").exists() and driver.poll() is None:
            time.sleep(0.05)  # the workers are routing
        _kill_and_count_survivors(driver, family)
    finally:
        _clean_up(driver, family)


def test_sigkill_of_a_dask_driver_takes_its_local_cluster_along(tmp_path: Path) -> None:
    """`--engine dask` without a scheduler: a LocalCluster whose nannies run in the driver,
    so the family is the resource tracker and two spawned workers."""
    pytest.importorskip("distributed")
    driver = _batch(tmp_path, "--engine", "dask")
    family: list[psutil.Process] = []
    try:
        family = _descendants(driver.pid, 3, time.monotonic() + 60)
        while not (tmp_path / "out.jsonl").exists() and driver.poll() is None:
            time.sleep(0.05)
        deadline = time.monotonic() + 60
        while (tmp_path / "out.jsonl").stat().st_size == 0 and driver.poll() is None:
            assert time.monotonic() < deadline, "the workers routed nothing within a minute"
            time.sleep(0.05)  # the workers are routing: their chunks are being written
        family = _descendants(driver.pid, 3, time.monotonic() + 60)  # (as they are now)
        _kill_and_count_survivors(driver, family)
    finally:
        _clean_up(driver, family)


_BUSY_DRIVER = textwrap.dedent(
    """
    import re, sys, time
    from distributed import Client
    from routescope.batch._engines import local_cluster

    def busy(marker):
        open(marker, "w").close()
        re.match(r"(a+)+$", "a" * 64 + "b")  # never ends, and never lets go of the GIL

    if __name__ == "__main__":
        with local_cluster(2) as cluster, Client(cluster) as client:
            futures = [client.submit(busy, f"{sys.argv[1]}/busy-{n}", pure=False) for n in (1, 2)]
            time.sleep(600)
    """
)


def test_dask_workers_too_busy_to_notice_die_with_their_driver(tmp_path: Path) -> None:
    """Dask's own watch (a thread that waits for the driver's pipe to close) cannot run while
    the task holds the GIL: the kernel's parent-death signal needs no thread at all."""
    pytest.importorskip("distributed")
    script = tmp_path / "busy_driver.py"
    script.write_text(_BUSY_DRIVER, encoding="utf-8")
    driver = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    family: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 60
        while len(list(tmp_path.glob("busy-*"))) < 2:
            assert driver.poll() is None and time.monotonic() < deadline, "no busy workers"
            time.sleep(0.05)
        family = _descendants(driver.pid, 3, time.monotonic() + 60)
        _kill_and_count_survivors(driver, family)
    finally:
        _clean_up(driver, family)
