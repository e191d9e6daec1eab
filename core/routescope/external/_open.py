"""One way to get a running router from its declaration, whatever its kind: `open_router`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from ._declare import HttpSpec, PythonSpec, Routers, load_routers, read_secret
from ._models import ExternalDecision

__all__ = ["ExternalRouter", "open_router"]


class ExternalRouter(Protocol):
    """A running external router. `route` never raises for a prompt: a failure is a decision
    with an `error`. `close` stops what it started (worker processes)."""

    name: str
    kind: str

    def route(
        self,
        prompt: str,
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ExternalDecision: ...

    def route_many(
        self,
        prompts: Sequence[str],
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ExternalDecision]: ...

    def close(self) -> None: ...


def open_router(routers: Routers | str | Path, name: str) -> ExternalRouter:
    """The router `name` of a declaration file, started (RouterError: one line, when it is not
    declared or cannot start: a missing secret, a function that does not import, a
    semantic-router file Routescope cannot run)."""
    declared = routers if isinstance(routers, Routers) else load_routers(routers)
    spec = declared.spec(name)
    if isinstance(spec, HttpSpec):
        from ._http_router import HttpRouter

        return HttpRouter(name, spec, read_secret(declared, name, spec))
    if isinstance(spec, PythonSpec):
        from ._python_router import PythonRouter

        return PythonRouter(name, spec, declared.folder)
    from ._semantic import SemanticRouter

    return SemanticRouter(name, spec, declared.resolve(spec.file))
