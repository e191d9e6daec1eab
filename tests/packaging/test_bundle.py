"""The desktop bundle: PyInstaller builds it, it runs its self-test from anywhere, and its
desktop files describe the same application."""

import configparser
import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.gui.test_selftest import ROUTER_LINES

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
DESKTOP = LINUX / "routescope.desktop"
APP_ID = "io.github.routescope.Routescope"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_desktop_file_is_valid() -> None:
    validator = shutil.which("desktop-file-validate")
    if validator:
        done = subprocess.run([validator, str(DESKTOP)], capture_output=True, text=True)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout
    entry = _desktop_entry()
    for key in ("Type", "Name", "Exec", "Icon", "Categories"):
        assert entry.get(key), key
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "routescope-gui"
    assert entry["Categories"].endswith(";") and entry["Keywords"].endswith(";")


def test_the_metainfo_is_valid_and_agrees_with_the_desktop_file() -> None:
    validator = shutil.which("appstreamcli")
    if validator:
        done = subprocess.run(
            [validator, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
    component = ET.parse(METAINFO).getroot()
    assert component.tag == "component" and component.get("type") == "desktop-application"
    for tag in ("id", "metadata_license", "project_license", "name", "summary", "description"):
        assert component.find(tag) is not None, tag
    assert component.findtext("id") == APP_ID
    assert component.findtext("metadata_license") in ("CC0-1.0", "FSFAP", "MIT")
    assert component.findtext("project_license") == "MIT"  # as pyproject.toml says
    entry = _desktop_entry()
    launchable = component.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert component.findtext("name") == entry["Name"]
    assert component.findtext("icon") == entry["Icon"]
    assert entry["X-AppStream-ID"] == APP_ID
    assert component.findtext("provides/binary") == entry["Exec"].split()[0]
    assert (ROOT / "resources" / "icons" / f"{entry['Icon']}.svg").is_file()


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
