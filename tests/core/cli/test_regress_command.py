"""`routescope regress`: exit codes, JSON and `--update`, run as a user runs them."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from routescope import resources_root
from tests._support import DEMO_SUITE, routescope_cli

FIXTURES = Path(str(resources_root() / "fixtures"))


def write(tmp_path: Path) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(DEMO_SUITE, encoding="utf-8")
    return path


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    path = write(tmp_path)
    done = routescope_cli("regress", str(path))
    assert done.returncode == 1
    assert "✗ wrong" in done.stdout
    assert 'strategy: expected "general" (equals), got "tech"' in done.stdout
    assert "precision" in done.stdout
    data = json.loads(routescope_cli("regress", "--json", str(FIXTURES / "linter.yaml")).stdout)
    assert data["suites"][0]["failed"] == 0
    bad = routescope_cli("regress", str(tmp_path / "missing.yaml"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_cli_update_rewrites_one_line(tmp_path: Path) -> None:
    path = write(tmp_path)
    done = routescope_cli("regress", "--update", str(path))
    assert done.returncode == 1  # the tolerant expectation still fails
    assert "updated 1 golden value(s)" in done.stdout
    after = path.read_text(encoding="utf-8")
    diff = difflib.ndiff(DEMO_SUITE.splitlines(), after.splitlines())
    assert [line for line in diff if line[:2] in ("- ", "+ ")] == [
        "-       strategy: general          # a wrong golden",
        "+       strategy: tech          # a wrong golden",
    ]


def test_cli_update_json_counts_values(tmp_path: Path) -> None:
    path = write(tmp_path)
    data = json.loads(routescope_cli("regress", "--update", "--json", str(path)).stdout)
    assert data["updated"] == 1
    assert data["suites"][0]["failed"] == 1  # run again after the update
