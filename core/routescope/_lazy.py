"""Lazy public names of a package (PEP 562, as in scientific-python's SPEC 1): its `__init__`
stays cheap to import, each name loads its private module on first use and is kept in the
package from then on.

A face lists each public name once, as `from ._module import Name as Name` (`mypy --strict`
reads `as Name` as an explicit re-export, and import-linter sees the edge), and ends with
`lazy_face`, which reads that declaration from the face's own source:

    from typing import TYPE_CHECKING

    from .._lazy import lazy_face
    from ._settings import Settings as Settings  # eager: loaded with the face

    if TYPE_CHECKING:
        from . import sub as sub  # a subpackage
        from ._search import Engine as Engine, search as search  # lazy

    __getattr__, __dir__, __all__ = lazy_face(__name__)

The names imported `as` themselves are the face's `__all__`; those in the `if TYPE_CHECKING:`
block load on first use. Any other import (`from .._lazy import lazy_face`) is private, and
the block may hold nothing else. A face defines no names of its own: they live in a private
module and are declared like the others.

The declaration is read from source, once per face, when the face is imported. A frozen
application must therefore ship the faces' sources: the PyInstaller bundle collects the
`routescope` package as `pyz+py` (`packaging/routescope.spec`).
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeGuard

__all__ = ["lazy_face"]


def lazy_face(
    package: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """A face's `__getattr__`, `__dir__` and `__all__`, from its own declaration (above)."""
    face = sys.modules[package]
    eager: set[str] = set()
    lazy: dict[str, tuple[str, str | None]] = {}  # name → (module, attribute or a submodule)
    for node in ast.parse(_source(face), face.__file__ or package).body:
        if _is_type_checking(node):
            for declared in node.body:
                for name, where in _declared(declared, package):
                    lazy[name] = where
        elif isinstance(node, ast.ImportFrom):
            eager.update(alias.asname for alias in node.names if alias.asname == alias.name)
    public = sorted(eager | lazy.keys())

    def attribute(name: str) -> Any:
        where = lazy.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = where
        value = (
            importlib.import_module(module, package)
            if attr is None
            else getattr(importlib.import_module(module, package), attr)
        )
        setattr(face, name, value)
        return value

    def names() -> list[str]:
        return list(public)

    return attribute, names, public


def _source(face: ModuleType) -> str:
    """The face's source, through its loader (a file, a zip, PyInstaller's archive)."""
    loader = getattr(face.__spec__, "loader", None)
    get_source = getattr(loader, "get_source", None)
    source = get_source(face.__name__) if get_source is not None else None
    if source is None:
        raise ImportError(
            f"{face.__name__}: the source of this face is missing, and its public names are "
            "declared there (a frozen application must ship it: PyInstaller's 'pyz+py')",
            name=face.__name__,
        )
    return str(source)


def _is_type_checking(node: ast.stmt) -> TypeGuard[ast.If]:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
        and not node.orelse
    )


def _declared(node: ast.stmt, package: str) -> list[tuple[str, tuple[str, str | None]]]:
    """`from ._x import A as A, B as B` → `[("A", ("._x", "A")), …]`; `from . import sub as
    sub` → `[("sub", (".sub", None))]`. Anything else is a mistake in the face."""
    if not isinstance(node, ast.ImportFrom) or any(a.asname != a.name for a in node.names):
        raise ImportError(
            f"{package}: line {node.lineno}: a face's `if TYPE_CHECKING:` block holds only "
            "`from ._module import Name as Name` lines",
            name=package,
        )
    dots = "." * node.level
    if node.module is None:
        return [(a.name, (f"{dots}{a.name}", None)) for a in node.names]
    return [(a.name, (f"{dots}{node.module}", a.name)) for a in node.names]
