"""Locate the data shipped with Routescope, in a wheel, an editable install or a checkout."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["resources_root"]


def resources_root() -> Traversable:
    """Return the `resources` folder: inside the package when installed, else the checkout's."""
    packaged = files("routescope") / "resources"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "resources"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError("routescope resources not found (neither packaged nor in a checkout)")
