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

import importlib
import importlib.machinery
import re
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, NoReturn

__all__ = ["lazy_face"]


def lazy_face(
    package: str,
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """A face's `__getattr__`, `__dir__` and `__all__`, from its own declaration (above)."""
    face = sys.modules[package]
    eager, lazy = _declaration(_source(face), package)
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


_FROM = re.compile(r"from\s+(\.+)([\w.]*)\s+import\s+(?P<names>[^()#]+?)\s*(?:#.*)?")
_AS_ITSELF = re.compile(r"(\w+)\s+as\s+(\w+)")
_BLOCK = "if TYPE_CHECKING:"


def _declaration(source: str, package: str) -> tuple[set[str], dict[str, tuple[str, str | None]]]:
    """The names a face declares: eager ones (imported `as` themselves at the top level) and
    lazy ones (its `if TYPE_CHECKING:` block) with where each lives. Read line by line: `ast`
    and `tokenize` would cost `import routescope` more than all the rest of it."""
    eager: set[str] = set()
    lazy: dict[str, tuple[str, str | None]] = {}
    inside = False
    for number, line in enumerate(_code_lines(source), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indented = line[0].isspace()
        if not indented:
            inside = stripped == _BLOCK
            found = _FROM.fullmatch(stripped)
            if found is not None:
                eager.update(name for name, _ in _declared(found, package, number, strict=False))
            continue
        if inside:
            found = _FROM.fullmatch(stripped)
            if found is None:
                _refuse(package, number)
            lazy.update(_declared(found, package, number, strict=True))
    return eager, lazy


def _code_lines(source: str) -> list[str]:
    """The face's lines with its docstring blanked (it may quote a declaration)."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith('"""'):
        for index, line in enumerate(lines):
            closes = line.count('"""') >= (2 if index == 0 else 1)
            lines[index] = ""
            if closes:
                break
    return lines


def _declared(
    found: re.Match[str], package: str, number: int, *, strict: bool
) -> list[tuple[str, tuple[str, str | None]]]:
    """`from ._x import A as A, B as B` → `[("A", ("._x", "A")), …]`; `from . import sub as
    sub` → `[("sub", (".sub", None))]`. In the block, any other import is a mistake."""
    dots, module = found.group(1), found.group(2)
    declared = []
    for part in found.group("names").split(","):
        alias = _AS_ITSELF.fullmatch(part.strip())
        if alias is None or alias.group(1) != alias.group(2):
            if strict:
                _refuse(package, number)
            continue
        name = alias.group(1)
        declared.append(
            (name, (f"{dots}{name}", None) if not module else (f"{dots}{module}", name))
        )
    return declared


def _refuse(package: str, number: int) -> NoReturn:
    raise ImportError(
        f"{package}: line {number}: a face's `if TYPE_CHECKING:` block holds only "
        "`from ._module import Name as Name` lines",
        name=package,
    )


def _source(face: ModuleType) -> str:
    """The face's source: read as the file it is (UTF-8, as every face is), else through its
    loader (a zip, PyInstaller's archive)."""
    loader = getattr(face.__spec__, "loader", None)
    if isinstance(loader, importlib.machinery.SourceFileLoader) and face.__file__:
        return loader.get_data(face.__file__).decode("utf-8")
    get_source = getattr(loader, "get_source", None)
    source = get_source(face.__name__) if get_source is not None else None
    if source is None:
        raise ImportError(
            f"{face.__name__}: the source of this face is missing, and its public names are "
            "declared there (a frozen application must ship it: PyInstaller's 'pyz+py')",
            name=face.__name__,
        )
    return str(source)
