"""The Routescope window: a thin PySide6 view over the `routescope` library."""

from ._window import MainWindow

__all__ = ["MainWindow"]
