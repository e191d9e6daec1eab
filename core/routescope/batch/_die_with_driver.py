"""Imported, for its effect, only where a batch's driver names it: first by its fork server
(a preload), or by each worker of its local Dask cluster (a worker preload). It makes this
process die with the driver whose process id is in `DRIVER_ENV` (see `_lifeline`); never
import it elsewhere."""

from __future__ import annotations

import os

from ._lifeline import DRIVER_ENV, die_with_parent

STARTED_IN = os.getpid()
"""The process that imported this module: in a pool worker (forked from the fork server,
which imported it), the fork server's id, the worker's expected parent."""

_driver = os.environ.get(DRIVER_ENV, "")
if _driver.isdigit() and int(_driver) != STARTED_IN:
    die_with_parent(int(_driver))
