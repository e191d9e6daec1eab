"""The desktop bundle: PyInstaller builds it with its desktop files, and it runs its self-test
from anywhere (the desktop files themselves: test_linux_files.py)."""

import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.gui.test_selftest import ROUTER_LINES
from tests.test_readme import shell_blocks

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.routescope.Routescope"
WINDOW = "~/.local/opt/routescope/routescope-gui"
"""The install step that opens the window (and waits for it to close): the only one not run."""


def _bash(command: str, env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", command], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"


def _install_as_the_docs_say(checkout: Path, archive: Path) -> None:
    """Run docs/packaging.md's install steps in a home of their own, from a folder holding the
    built `dist/` as a checkout does; check the launcher, its icon and the metainfo land where
    the desktop finds them; then run its uninstall steps, which leave no file behind."""
    blocks = shell_blocks(ROOT / "docs" / "packaging.md", every=True)
    (install,) = [b for b in blocks if any(c.startswith("tar -xzf") for c in b.commands)]
    (uninstall,) = [b for b in blocks if b.commands[0].startswith("rm -r")]
    home = checkout / "reader"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "DISPLAY": ":99"}
    assert install.commands[0] == "make package"  # built above
    for command in install.commands[1:]:
        named = re.search(r"dist/(routescope-\S+\.tar\.gz)", command)
        if named:
            if platform.machine() == "x86_64":  # the docs name the x86_64 archive
                assert named.group(1) == archive.name, "docs/packaging.md names another version"
            command = command.replace(named.group(0), f"dist/{archive.name}")
        if command != WINDOW:
            _bash(command, env, checkout)
    share = home / ".local" / "share"
    executable = home / ".local" / "opt" / "routescope" / "routescope-gui"
    desktop = share / "applications" / "routescope.desktop"
    assert f"\nExec={executable}\n" in desktop.read_text(encoding="utf-8")
    assert os.access(executable, os.X_OK)
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "routescope.svg").is_file()
    validator = shutil.which("desktop-file-validate")
    if validator:
        done = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
        assert (done.returncode, done.stdout + done.stderr) == (0, "")
    for command in uninstall.commands:
        _bash(command, env, checkout)
    assert [path for path in home.rglob("*") if not path.is_dir()] == []


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
    _install_as_the_docs_say(tmp_path, archive)

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
