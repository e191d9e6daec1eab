"""The Routescope window: PySide6 views over the `routescope` library, driven by a `Session`.

`MainWindow` and `Session` load on first use, so `routescope_gui.app` can start (and say that
the GUI extra is missing) without importing Qt.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._session import Session
    from ._window import MainWindow

__all__ = ["MainWindow", "Session"]

_NAMES = {"MainWindow": "._window", "Session": "._session"}


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
