"""Lazy public names of a package (PEP 562): its `__init__` stays cheap to import, each name
loads its private module on first use and is kept in the package from then on."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, modules: dict[str, str], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__`: `modules` maps each lazy name to the private
    module (`"_search"`) that defines it; `public` is the package's `__all__`."""

    def attribute(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted(public)

    return attribute, names
