"""Every command of the README's "Command line" section runs as written, from the checkout."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
_SECTION = README.split("## Command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
COMMANDS = [
    line.split("  #", 1)[0].strip()
    for line in _SECTION.splitlines()
    if line.strip() and "my-suite.yaml" not in line  # --update needs a copy of your own
]


def test_the_section_was_found() -> None:
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(command: str) -> None:
    stdin = None
    if "|" in command:
        producer, command = (part.strip() for part in command.split("|", 1))
        stdin = shlex.split(producer)[1]  # `echo "…" | routescope …`
    words = shlex.split(command)
    assert words[0] == "routescope"
    done = subprocess.run(
        [sys.executable, "-m", "routescope", *words[1:]],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{command}: {done.stderr}"
    assert done.stdout.strip()


def test_readme_example_files_exist() -> None:
    for path in re.findall(r"\b((?:examples|resources)/[\w./-]+)", README):
        assert (ROOT / path.rstrip(".")).exists(), path
