"""The external routers of one routers file, started once and shared: whoever holds the
`RouterPool` (the window's External panel and its compare view, a regression suite's run) asks
it for a router by name, from any thread.

A router starts the first time it is asked for (a Python router's worker process, a semantic
router's model: slow, so a window asks from a worker thread); one that cannot start (a missing
secret, a function that does not import) says why each time it is asked, without trying again
until the file is opened again. `close` stops them all (a router still starting is stopped
once it has).
"""

from __future__ import annotations

import threading

from .._errors import RouterError
from ._declare import Routers
from ._open import ExternalRouter, open_router

__all__ = ["RouterPool"]


class RouterPool:
    """The routers of a declaration, each started on first use and kept.

    Attributes:
        declared: the routers file's declaration.
    """

    def __init__(self, declared: Routers) -> None:
        self.declared = declared
        self._lock = threading.Lock()
        self._starting = {name: threading.Lock() for name in declared.names}
        self._started: dict[str, ExternalRouter] = {}
        self._problems: dict[str, str] = {}
        self._closed = False

    def get(self, name: str) -> ExternalRouter:
        """The router `name`, started now if it is not yet (RouterError: why it cannot be)."""
        starting = self._starting.get(name)
        if starting is None:
            self.declared.spec(name)  # raises RouterError naming what the file declares
        assert starting is not None
        with starting:  # (one start at a time per router: a second caller waits for it)
            with self._lock:
                found = self._started.get(name)
                problem = self._problems.get(name)
                closed = self._closed
            if closed:
                raise RouterError(f"router {name!r}: its routers file was closed")
            if found is not None:
                return found
            if problem is not None:
                raise RouterError(problem)
            try:
                router = open_router(self.declared, name)
            except RouterError as exc:
                with self._lock:
                    self._problems[name] = str(exc)
                raise
            with self._lock:
                if not self._closed:
                    self._started[name] = router
                    return router
            router.close()  # closed while it started: nobody will ask it anything
            raise RouterError(f"router {name!r}: its routers file was closed")

    def close(self) -> None:
        """Stop every router started (a Python router's worker processes)."""
        with self._lock:
            self._closed = True
            started, self._started = list(self._started.values()), {}
        for router in started:
            router.close()
