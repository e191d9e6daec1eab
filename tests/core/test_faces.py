"""Every face of the core (`routescope` and each of its subpackages) lists its public names once,
every listed name resolves, no public name has two meanings, and every public error type is
in `routescope.__all__` (issue 24, "Curated faces")."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
from collections import defaultdict
from types import ModuleType

import pytest

import routescope
from routescope import _errors

SUBPACKAGES = sorted(m.name for m in pkgutil.iter_modules(routescope.__path__) if m.ispkg)
FACES = ["routescope", *(f"routescope.{name}" for name in SUBPACKAGES)]

KNOWN_TWO_MEANINGS: dict[str, set[str]] = {}
"""Public names that two faces give to two different objects, while they wait for a rename. A
pair that no longer collides fails the test: remove it."""


def _face(name: str) -> ModuleType:
    return importlib.import_module(name)


def _body(face: ModuleType) -> list[ast.stmt]:
    """The face's top-level statements, with those of its `if TYPE_CHECKING:` block."""
    statements: list[ast.stmt] = []
    for node in ast.parse(inspect.getsource(face)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            statements += node.body
        else:
            statements.append(node)
    return statements


def _declared(face: ModuleType) -> set[str]:
    """The names a `lazy_face` face declares: each `from … import Name as Name`."""
    return {
        alias.name
        for node in _body(face)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    }


def _uses_lazy_face(face: ModuleType) -> bool:
    return any(
        isinstance(node, ast.Assign) and ast.unparse(node.value) == "lazy_face(__name__)"
        for node in _body(face)
    )


def test_every_subpackage_is_a_face() -> None:
    assert len(FACES) == 18  # (issue 27: routescope.optimise)


@pytest.mark.parametrize("name", FACES)
def test_a_face_lists_each_name_once(name: str) -> None:
    face = _face(name)
    assert _uses_lazy_face(face)
    assert face.__all__ == sorted(_declared(face))
    assert dir(face) == face.__all__
    defined = {
        node.name
        for node in _body(face)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    assert not defined, f"{name} defines names of its own: declare them from a private module"


@pytest.mark.parametrize("name", FACES)
def test_every_public_name_resolves(name: str) -> None:
    face = _face(name)
    assert face.__all__, name
    for public in face.__all__:
        assert getattr(face, public) is not None, f"{name}.{public}"
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = face.no_such_name


def _meanings() -> dict[str, dict[str, object]]:
    """Each public name (other than a subpackage) → the faces that export it → what it is."""
    found: dict[str, dict[str, object]] = defaultdict(dict)
    for name in FACES:
        face = _face(name)
        for public in face.__all__:
            value = getattr(face, public)
            if not isinstance(value, ModuleType):  # `routescope.compare` and `compare.compare`
                found[public][name] = value
    return found


def test_no_public_name_has_two_meanings() -> None:
    twice = {
        public: set(faces)
        for public, faces in _meanings().items()
        if len({id(value) for value in faces.values()}) > 1
    }
    assert twice == KNOWN_TWO_MEANINGS


def test_a_name_in_two_faces_is_one_object() -> None:
    """`RulePack` is public in `routescope` and in `routescope.rules`: the very same class."""
    meanings = _meanings()
    assert meanings["RulePack"]["routescope"] is meanings["RulePack"]["routescope.rules"]
    assert meanings["INTENTS"]["routescope.rules"] is meanings["INTENTS"]["routescope.strategy"]


def test_every_public_error_type_is_at_the_top() -> None:
    errors = {
        public: value
        for faces in (_meanings(), {n: {"_errors": getattr(_errors, n)} for n in _errors.__all__})
        for public, by_face in faces.items()
        for value in by_face.values()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    assert {"HistoryError", "OfflineIndexError", "ResearchConfigError", "BatchError"} <= set(errors)
    for public, error in errors.items():
        assert public in routescope.__all__, public
        assert getattr(routescope, public) is error, public


def test_a_face_loads_nothing_until_a_name_is_used() -> None:
    code = (
        "import sys, routescope, routescope.research, routescope.contract, routescope.llm;"
        "routescope.research.ResearchSettings;"  # eager in the research face
        "lazy = ('routescope.research._loop', 'routescope.research._backends', "
        "'routescope.research._report', 'routescope.contract._decide', "
        "'routescope.contract._models', 'routescope.llm._client', 'routescope.rules', "
        "'routescope.strategy', 'routescope._inspect');"
        "bad = [m for m in lazy if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
