"""A Python module's documentation, read for the offline corpus (`_corpus.stdlib_documents`):
from its SOURCE with `ast` (never imported: `antigravity`, `this`, `idlelib`, `tkinter` have
side effects) — its docstring, then its public classes with their public methods and its public
functions, a package's public submodules included — or, for a short allowlist of compiled
modules that are safe to import (`SAFE_COMPILED`), from the imported objects."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

__all__ = ["SAFE_COMPILED", "compiled_docs", "module_source", "package_files", "source_docs"]

_MAX_SOURCE_BYTES = 2_000_000
_MAX_PACKAGE_FILES = 200
_SKIPPED_SUBPACKAGES = frozenset({"test", "tests", "idle_test", "__pycache__", "__phello__"})
#: Compiled standard modules (no Python source) that are safe to import for their docstrings.
SAFE_COMPILED = frozenset(
    {
        "array",
        "atexit",
        "binascii",
        "builtins",
        "cmath",
        "errno",
        "faulthandler",
        "fcntl",
        "gc",
        "grp",
        "itertools",
        "marshal",
        "math",
        "mmap",
        "posix",
        "pwd",
        "resource",
        "select",
        "sys",
        "time",
        "unicodedata",
        "zlib",
    }
)


def _strings(node: ast.expr) -> list[str] | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements, and those of its top-level `if` and `try` blocks (where a
    module defines what a platform has: `os.makedirs`, `os.walk`)."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)


def _is_all(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "__all__"


def _literal_all(tree: ast.Module) -> set[str] | None:
    """The module's `__all__` as its source spells it: the literal list and what
    `__all__.extend(…)`, `.append(…)` and `+= […]` add to it (`os` builds it that way);
    None when there is none or it is computed."""
    names: set[str] | None = None
    for node in _top_level(tree.body):
        if isinstance(node, ast.Assign) and any(_is_all(t) for t in node.targets):
            found = _strings(node.value)
            if found is None:
                return None
            names = set(found)
        elif isinstance(node, ast.AugAssign) and _is_all(node.target) and names is not None:
            names.update(_strings(node.value) or [])
        elif (
            names is not None
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and _is_all(node.value.func.value)
            and node.value.func.attr in ("extend", "append")
            and node.value.args
        ):
            names.update(_strings(node.value.args[0]) or [])
    return names


def source_docs(path: Path, prefix: str) -> tuple[str, list[str]]:
    """The module docstring of the module at ``path`` ('' when none) and its documentation:
    that docstring, then its public classes with their public methods and its public
    functions, each as one paragraph; ('', []) when unreadable."""
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return "", []
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
        return "", []
    parts: list[str] = []
    docstring = ast.get_docstring(tree)
    if docstring:
        parts.append(docstring if not prefix else f"{prefix}: {docstring}")
    public = _literal_all(tree)

    def shown(name: str) -> bool:
        return name in public if public is not None else not name.startswith("_")

    seen: set[str] = set()
    for node in _top_level(tree.body):
        name = getattr(node, "name", None)
        if name in seen:  # a platform's variant of a definition documented already
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            seen.add(node.name)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and shown(node.name):
            text = ast.get_docstring(node)
            if text:
                parts.append(f"{node.name}(): {text}")
        elif isinstance(node, ast.ClassDef) and shown(node.name):
            text = ast.get_docstring(node)
            if text:
                parts.append(f"class {node.name}: {text}")
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    not item.name.startswith("_") or item.name == "__init__"
                ):
                    text = ast.get_docstring(item)
                    if text:
                        parts.append(f"{node.name}.{item.name}(): {text}")
    return docstring or "", parts


def module_source(name: str) -> tuple[Path, Path | None] | None:
    """(the module's source file, its package folder or None), without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    origin = spec.origin
    if origin and origin.endswith(".py") and os.path.isfile(origin):
        source = Path(origin)
    else:  # frozen modules (os, abc, io… in 3.11) still have their source in the stdlib
        filename = getattr(spec.loader_state, "filename", None)
        stdlib = Path(sysconfig.get_path("stdlib"))
        candidates = [Path(filename)] if isinstance(filename, str) else []
        candidates += [stdlib / f"{name}.py", stdlib / name / "__init__.py"]
        found = next((c for c in candidates if c.suffix == ".py" and c.is_file()), None)
        if found is None:
            return None
        source = found
    package = source.parent if source.name == "__init__.py" else None
    return source, package


def package_files(package: Path) -> Iterator[tuple[Path, str]]:
    """The public submodule sources of a package, sorted, with their dotted suffix."""
    count = 0
    for root, folders, files in os.walk(package):
        folders[:] = sorted(
            f for f in folders if f not in _SKIPPED_SUBPACKAGES and not f.startswith(("_", "."))
        )
        here = Path(root)
        for filename in sorted(files):
            if not filename.endswith(".py") or filename.startswith("_"):
                continue
            count += 1
            if count > _MAX_PACKAGE_FILES:
                return
            relative = (here / filename).relative_to(package).with_suffix("")
            yield here / filename, ".".join(relative.parts)
        if here != package and (here / "__init__.py").is_file():
            relative_pkg = here.relative_to(package)
            yield here / "__init__.py", ".".join(relative_pkg.parts)


def compiled_docs(name: str) -> tuple[str, list[str]]:
    """Like ``source_docs`` for an allowlisted compiled module, imported (no side effects)."""
    try:
        module = sys.modules.get(name) or importlib.import_module(name)
    except Exception:
        return "", []
    parts: list[str] = []
    docstring = module.__doc__.strip() if isinstance(module.__doc__, str) else ""
    if docstring:
        parts.append(docstring)
    for attribute in sorted(vars(module)):
        if attribute.startswith("_"):
            continue
        value = getattr(module, attribute, None)
        if not callable(value) or getattr(value, "__module__", name) not in (name, None):
            continue
        doc = getattr(value, "__doc__", None)
        if isinstance(doc, str) and doc.strip():
            parts.append(f"{attribute}(): {doc.strip()}")
    return docstring, parts
