"""Build the desktop bundle: PyInstaller one-folder from `packaging/routescope.spec`, then its
`.tar.gz`.

    .venv/bin/python packaging/build_bundle.py [--dist DIR] [--work DIR]

writes DIR/routescope/ (run `DIR/routescope/routescope-gui`) and
DIR/routescope-<version>-linux-x86_64.tar.gz (one top folder, `routescope/`).
"""

from __future__ import annotations

import argparse
import platform
import sys
import tarfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "routescope.spec"
BUNDLE = "routescope"
EXECUTABLE = "routescope-gui"

__all__ = ["archive_name", "build", "main"]


def version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def archive_name() -> str:
    return f"{BUNDLE}-{version()}-linux-{platform.machine()}.tar.gz"


def build(dist: Path, work: Path) -> tuple[Path, Path]:
    """Build the bundle into `dist` (PyInstaller's intermediate files in `work`); return the
    bundle's folder and its archive."""
    import PyInstaller.__main__

    dist, work = dist.resolve(), work.resolve()
    PyInstaller.__main__.run(
        [
            "--noconfirm",  # replace a previous bundle without asking
            "--log-level=WARN",
            f"--distpath={dist}",
            f"--workpath={work}",
            str(SPEC),
        ]
    )
    bundle = dist / BUNDLE
    if not (bundle / EXECUTABLE).is_file():
        raise SystemExit(f"build_bundle: no {EXECUTABLE} in {bundle}")
    archive = dist / archive_name()
    # Level 6: nearly level 9's size in half the time (the Qt libraries dominate both).
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=BUNDLE)
    return bundle, archive


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build Routescope's desktop bundle.")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="PyInstaller's work")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    bundle, archive = build(args.dist, args.work)
    mib = 1024 * 1024
    print(f"bundle:  {bundle} ({_size(bundle) / mib:.0f} MiB)")
    print(f"archive: {archive} ({_size(archive) / mib:.1f} MiB)")
    print(f"built in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
