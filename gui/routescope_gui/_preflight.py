"""Say which system library Qt is missing, in one line, before Qt finds out the hard way.

Two failures are caught here, without importing Qt:

- importing `PySide6.QtWidgets` raises `ImportError` naming the first shared library the
  dynamic loader could not find (`libEGL.so.1: cannot open shared object file`):
  `import_problem` turns it into one line naming the Debian package that provides it;
- the xcb platform plugin is loaded only when the `QApplication` is made, and when one of its
  libraries is missing Qt aborts the interpreter (a core dump) with a hint that names
  `libxcb-cursor0` whatever the library was: `xcb_problem` loads the plugin's libraries first.

The package names are Debian's (Ubuntu's are the same); an unknown library still gets its line.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

__all__ = [
    "DEBIAN_PACKAGES",
    "XCB_LIBRARIES",
    "import_problem",
    "missing_line",
    "needs_xcb",
    "xcb_problem",
]

DEBIAN_PACKAGES: Mapping[str, str] = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
}
"""The Debian/Ubuntu package of each system library Qt's widgets and xcb plugin load."""

XCB_LIBRARIES: tuple[str, ...] = (
    "libxcb.so.1",
    "libX11-xcb.so.1",
    "libX11.so.6",
    "libxkbcommon.so.0",
    "libxkbcommon-x11.so.0",
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render-util.so.0",
    "libxcb-render.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-util.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libGL.so.1",
    "libEGL.so.1",
)
"""What PySide6 6.11's `plugins/platforms/libqxcb.so` links beyond Qt itself and the C/C++
runtime (`ldd`), checked here because Qt aborts instead of raising when one is missing."""

_NOT_FOUND = re.compile(r"([\w.+-]+\.so(?:\.[\w]+)*): cannot open shared object file")

Loader = Callable[[str], bool]
"""Whether a shared library (by soname) can be loaded."""


def missing_line(libraries: Iterable[str]) -> str:
    """One line naming the missing libraries and the packages that provide them."""
    names = list(dict.fromkeys(libraries))
    packages = list(dict.fromkeys(DEBIAN_PACKAGES[n] for n in names if n in DEBIAN_PACKAGES))
    described = ", ".join(
        f"{name} (Debian/Ubuntu package: {DEBIAN_PACKAGES[name]})"
        if name in DEBIAN_PACKAGES
        else f"{name} (package unknown: look it up with `apt-file search {name}`)"
        for name in names
    )
    plural = "libraries" if len(names) > 1 else "library"
    line = f"routescope-gui: missing system {plural} {described}"
    if packages:
        line += f"; install with: sudo apt install {' '.join(packages)}"
    if getattr(sys, "frozen", False):  # the desktop bundle ships the window alone
        return line + "; `--self-test` runs without them"
    return line + "; or use the command line: routescope inspect 'your prompt'"


def import_problem(error: BaseException) -> str | None:
    """The line for a failed Qt import when a shared library is missing (None: another cause,
    such as PySide6 not being installed)."""
    found = _NOT_FOUND.search(str(error))
    return missing_line([found.group(1)]) if found else None


def needs_xcb(environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether Qt will load its xcb plugin: on Linux, with xcb asked for, or with nothing asked
    for, an X display and no Wayland one (Qt prefers Wayland when both are there)."""
    environ = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return False
    asked = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if asked:
        return asked == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def xcb_problem(load: Loader | None = None) -> str | None:
    """The line naming every library of the xcb plugin that cannot be loaded (None: all can)."""
    load = load or _loads
    missing = [name for name in XCB_LIBRARIES if not load(name)]
    return missing_line(missing) if missing else None


def _qt_folders() -> list[Path]:
    """Where a library shipped with Qt lives: PySide6's `Qt/lib`, and a frozen bundle's own
    folder (the dynamic loader finds those through Qt's RUNPATH, not by soname)."""
    folders = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        folders.append(Path(bundle))
    spec = importlib.util.find_spec("PySide6")  # the package is not imported: no Qt loads
    if spec is not None and spec.submodule_search_locations:
        folders += [Path(p) / "Qt" / "lib" for p in spec.submodule_search_locations]
    return folders


def _loads(name: str) -> bool:
    if any((folder / name).is_file() for folder in _qt_folders()):
        return True
    try:
        ctypes.CDLL(name, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError:
        return False
    return True
