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


LABELLED_SUITE = """suite: labelled
today: 2026-11-27
cases:
  - id: stylist
    prompt: Find me a hair stylist in Fremont, CA
    labels: {local: true, tech: false, troubleshooting: false, place_hint: "Fremont, CA"}
  - id: ramen
    prompt: best ramen near Denver, Colorado
    expect: {strategy: local}
    labels: {local: true, purchase: true}
"""


def test_a_suite_whose_cases_carry_labels_shows_their_quality(tmp_path: Path) -> None:
    path = tmp_path / "labelled.yaml"
    path.write_text(LABELLED_SUITE, encoding="utf-8")
    done = routescope_cli("regress", str(path))
    assert done.returncode == 0  # labels measure; only expectations pass or fail
    assert f"quality of the labelled cases of {path}:" in done.stdout
    assert "stylist · local: expected True, got False — no rule fired" in done.stdout
    data = json.loads(routescope_cli("regress", "--json", str(path)).stdout)
    quality = data["quality"][str(path)]
    assert quality["flags"]["local"]["recall"] == 0.5 and quality["strategy"]["accuracy"] == 0.5
    plain = json.loads(routescope_cli("regress", "--json", str(FIXTURES / "linter.yaml")).stdout)
    assert plain["quality"] == {}
