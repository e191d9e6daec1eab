"""`lazy_face`: a face's `__getattr__`, `__dir__` and `__all__` from its own declaration."""

from __future__ import annotations

import compileall
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FACE = '''"""A face."""

from __future__ import annotations

from typing import TYPE_CHECKING

from routescope._lazy import lazy_face
from ._eager import EAGER as EAGER
from ._eager import helper

if TYPE_CHECKING:
    from . import sub as sub
    from ._lazy_part import Lazy as Lazy
    from ._lazy_part import lazy as lazy

__getattr__, __dir__, __all__ = lazy_face(__name__)
'''


@pytest.fixture
def packages(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("faces_")]:
        del sys.modules[name]


def _package(root: Path, name: str, face: str = FACE) -> Path:
    folder = root / name
    (folder / "sub").mkdir(parents=True)
    (folder / "__init__.py").write_text(face, encoding="utf-8")
    (folder / "_eager.py").write_text("EAGER = 1\n\ndef helper() -> None: ...\n")
    (folder / "_lazy_part.py").write_text("class Lazy: ...\n\ndef lazy() -> int:\n    return 2\n")
    (folder / "sub" / "__init__.py").write_text("VALUE = 3\n")
    return folder


def test_the_declaration_is_the_public_surface(packages: Path) -> None:
    _package(packages, "faces_ok")
    face = importlib.import_module("faces_ok")
    assert face.__all__ == ["EAGER", "Lazy", "lazy", "sub"]
    assert dir(face) == face.__all__
    assert "faces_ok._lazy_part" not in sys.modules and "faces_ok.sub" not in sys.modules
    assert face.lazy() == 2
    assert face.Lazy is sys.modules["faces_ok._lazy_part"].Lazy
    assert "lazy" in vars(face)  # kept in the face from then on
    assert face.sub.VALUE == 3
    with pytest.raises(AttributeError, match="module 'faces_ok' has no attribute 'helper_'"):
        _ = face.helper_


def test_only_as_name_lines_in_the_type_checking_block(packages: Path) -> None:
    _package(packages, "faces_bad", FACE.replace("import lazy as lazy", "import lazy"))
    with pytest.raises(ImportError, match=r"faces_bad: line 14: a face's `if TYPE_CHECKING:`"):
        importlib.import_module("faces_bad")


def test_a_face_without_its_source_says_so(packages: Path) -> None:
    """A frozen application that ships only bytecode cannot read the declaration."""
    folder = _package(packages, "faces_frozen")
    assert compileall.compile_dir(folder, legacy=True, quiet=1)
    for source in folder.rglob("*.py"):
        source.unlink()
    with pytest.raises(ImportError, match="faces_frozen: the source of this face is missing"):
        importlib.import_module("faces_frozen")
