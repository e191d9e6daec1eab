"""The desktop bundle: PyInstaller builds it with its desktop files, and it runs its self-test
from anywhere (the desktop files themselves: test_linux_files.py)."""

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.gui.test_selftest import ROUTER_LINES

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.routescope.Routescope"


@pytest.mark.slow
def test_the_bundle_builds_and_passes_its_self_test(tmp_path: Path) -> None:
    dist, work = tmp_path / "dist", tmp_path / "work"
    built = subprocess.run(
        [
            sys.executable,
            str(ROOT / "packaging" / "build_bundle.py"),
            f"--dist={dist}",
            f"--work={work}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    shutil.rmtree(work)  # (PyInstaller's intermediate files: as large as the bundle)
    (archive,) = dist.glob("routescope-*-linux-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    assert "routescope/routescope-gui" in names
    assert f"routescope/share/metainfo/{APP_ID}.metainfo.xml" in names
    assert "routescope/share/applications/routescope.desktop" in names
    assert "routescope/share/icons/hicolor/scalable/apps/routescope.svg" in names

    # Moved elsewhere, with a home of its own: it finds its data inside itself and writes
    # nothing outside its temporary folder.
    bundle = tmp_path / "moved" / "Routescope"
    bundle.parent.mkdir()
    (dist / "routescope").rename(bundle)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "DISPLAY": ":99",  # none there: the self-test must not need one
        **{
            name: str(home / name.lower())
            for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
        },
    }
    done = subprocess.run(
        [str(bundle / "routescope-gui"), "--self-test"],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for start in ROUTER_LINES:
        assert sum(line.startswith(start) for line in lines) == 1, (start, done.stdout)
    assert "extract: trafilatura" in done.stdout  # not the standard-library fallback
    assert lines[-1].startswith("self-test: ok in ")
    assert list(home.rglob("*")) == []
