"""The child side of a `python` router: a process that imports `module:function` once, then
answers calls over a pipe until the pipe closes. What it sends back is JSON text, so nothing
the function returns can be more than data on the parent's side."""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["serve"]


def serve(connection: Connection, function: str, path: str | None) -> None:
    """Import `function` (`module:name`, with `path` first on sys.path), say whether it could,
    then answer each `(prompt, today, context)` with `("ok", json)` or `("raised", message)`."""
    if path is not None:
        sys.path.insert(0, path)
    module_name, _, name = function.partition(":")
    try:
        target: Any = getattr(importlib.import_module(module_name), name)
        if not callable(target):
            raise TypeError(f"{function} is not callable")
    except BaseException as exc:  # whatever the import raised is the message
        connection.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    connection.send(("ready", ""))
    while True:
        try:
            prompt, today, context = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer = target(prompt, **_accepted(target, today=today, context=context))
            message = ("ok", json.dumps(answer, allow_nan=False, default=str))
        except Exception as exc:  # the function's own failure: a per-prompt result
            message = ("raised", f"{type(exc).__name__}: {exc}")
        connection.send(message)


def _accepted(target: Any, **given: Any) -> dict[str, Any]:
    """The keyword arguments of `given` that `target` takes (all of them with `**kwargs`)."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return given
    return {name: value for name, value in given.items() if name in parameters}
