"""The wheel carries the resources, and the installed package finds them."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_ships_resources_and_finds_them(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("routescope-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    assert "routescope/resources/rules/default.toml" in names
    assert "routescope/resources/vocabularies/software-names.txt" in names
    assert "routescope/resources/models/all-MiniLM-L6-v2/tokenizer.json" in names
    assert "routescope_gui/app.py" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert not any(name.startswith(("core/", "gui/", "resources/")) for name in names)
    code = (
        "import routescope, sys;"
        "root = routescope.resources_root();"
        "print(root);"
        "assert str(root).startswith(sys.argv[1]), root;"
        "assert routescope.inspect('install FastAPI').strategy == 'tech'"
    )
    site = str(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-c", code, site], env={"PYTHONPATH": site}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    # The built-in suites run from the installed wheel (their caches in a temporary home).
    home = tmp_path / "home"
    home.mkdir()
    env = {"PYTHONPATH": site, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run(
        [sys.executable, "-m", "routescope", "regress", "--builtin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "suite strategy" in done.stdout and "suite tools" in done.stdout


def test_resources_hold_no_python_module() -> None:
    """A .py file under resources/ turns it into a package path the wheel maps to
    routescope/resources, and hatchling then refuses the editable install that `make` runs on a
    fresh clone ("a path rewrite changes a prefix"): scripts live in tests/ or packaging/."""
    root = Path(__file__).resolve().parents[2] / "resources"
    assert not sorted(root.rglob("*.py"))
