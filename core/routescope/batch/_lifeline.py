"""A batch's processes die with the process that started them, even when that one is killed
with SIGKILL (issue 25: pool workers and their fork server used to live on).

On Linux each such process asks the kernel for SIGKILL when its parent dies
(`prctl(PR_SET_PDEATHSIG)`), then checks its parent is still the expected one (it may have
died before the request). The chain of a local pool is driver -> fork server -> workers: the
fork server dies with the driver when it imports `routescope.batch._die_with_driver` (a fork
server preload), and each worker with the fork server (its initializer). A Dask `LocalCluster`
runs its nannies in the driver, so its chain is driver -> workers: each worker, spawned by the
driver, imports `_die_with_driver` first (a worker preload; `_engines.local_cluster`). The
kernel takes the thread that started a process for its parent: a Dask worker's is its nanny's
thread that watches it, which ends only after the worker has. Elsewhere there is no such
signal: these are no-ops."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["DRIVER_ENV", "die_with_parent"]

DRIVER_ENV = "ROUTESCOPE_BATCH_DRIVER_PID"
"""The driver's process id, for a process it starts that cannot be told otherwise (its fork
server): `_die_with_driver` reads it."""
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux), and die now when
    the parent is no longer `parent` (it died before the request: this one was re-parented)."""
    if sys.platform != "linux":  # no parent-death signal on macOS or Windows: a no-op
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        done = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc with prctl (a static or unusual build)
        done = False
    if done and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
