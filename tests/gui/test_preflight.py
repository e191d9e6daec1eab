"""A missing system library is one line naming it and its Debian package, not a core dump."""

import os
import subprocess
import sys

import pytest

from routescope_gui import _preflight

EGL_ERROR = "libEGL.so.1: cannot open shared object file: No such file or directory"


def test_a_missing_library_in_the_qt_import_names_its_package() -> None:
    line = _preflight.import_problem(ImportError(EGL_ERROR))
    assert line is not None and "\n" not in line
    assert line.startswith("routescope-gui: missing system library libEGL.so.1 ")
    assert "(Debian/Ubuntu package: libegl1)" in line and "sudo apt install libegl1" in line


def test_an_unknown_library_still_gets_its_line() -> None:
    error = OSError("libfoo-bar.so.7: cannot open shared object file: No such file or directory")
    line = _preflight.import_problem(error)
    assert line is not None and "libfoo-bar.so.7" in line and "package unknown" in line
    assert "apt install" not in line


def test_other_import_errors_are_not_about_libraries() -> None:
    assert _preflight.import_problem(ImportError("No module named 'PySide6'")) is None


def test_every_checked_xcb_library_has_its_package() -> None:
    assert set(_preflight.XCB_LIBRARIES) <= set(_preflight.DEBIAN_PACKAGES)


def test_the_xcb_check_names_every_missing_library_once() -> None:
    missing = {"libxcb-cursor.so.0", "libxcb-icccm.so.4"}
    asked: list[str] = []

    def load(name: str) -> bool:
        asked.append(name)
        return name not in missing

    line = _preflight.xcb_problem(load)
    assert asked == list(_preflight.XCB_LIBRARIES)
    assert line is not None and "\n" not in line
    assert (
        "missing system libraries libxcb-cursor.so.0 (Debian/Ubuntu package: libxcb-cursor0)"
        in line
    )
    assert "libxcb-icccm.so.4 (Debian/Ubuntu package: libxcb-icccm4)" in line
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4;" in line
    assert _preflight.xcb_problem(lambda _name: True) is None


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"DISPLAY": ":0"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "xcb:nomouse"}, True),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland;xcb"}, False),
        ({}, False),
    ],
)
def test_xcb_is_checked_only_when_qt_will_load_it(environ: dict[str, str], expected: bool) -> None:
    assert _preflight.needs_xcb(environ, "linux") is expected
    assert _preflight.needs_xcb(environ, "darwin") is False


def test_the_real_loader_finds_the_c_library_and_not_a_made_up_one() -> None:
    assert _preflight._loads("libc.so.6")
    assert not _preflight._loads("libroutescope-no-such-library.so.0")


# The window started as a user would, with the loader or the Qt import made to fail.
MISSING_XCB = """\
import sys
from routescope_gui import _preflight, app

_preflight._loads = lambda name: name != "libxcb-cursor.so.0"
sys.exit(app.main([]))
"""
MISSING_EGL = f"""\
import sys
from importlib.abc import MetaPathFinder


class NoEgl(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "PySide6.QtWidgets":
            raise ImportError({EGL_ERROR!r})
        return None


sys.meta_path.insert(0, NoEgl())
from routescope_gui.app import main

sys.exit(main([]))
"""


def _gui(code: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**env, **environ},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_missing_xcb_library_is_one_line_and_status_2() -> None:
    done = _gui(MISSING_XCB, DISPLAY=":99")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert "libxcb-cursor.so.0 (Debian/Ubuntu package: libxcb-cursor0)" in done.stderr


def test_a_missing_library_of_qt_itself_is_one_line_and_status_2() -> None:
    done = _gui(MISSING_EGL, DISPLAY=":99")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert "missing system library libEGL.so.1 (Debian/Ubuntu package: libegl1)" in done.stderr


def test_the_bundle_does_not_point_to_a_command_line_it_lacks(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from routescope_gui._preflight import missing_line

    assert "routescope inspect" in missing_line(["libEGL.so.1"])
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    line = missing_line(["libEGL.so.1"])
    assert "routescope inspect" not in line and "--self-test" in line
