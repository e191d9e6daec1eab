"""Every command of the README's "Command line" section runs as written, from the checkout."""

import os
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


@pytest.fixture(scope="module")
def history_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user data folder whose history holds what a window recorded (the prompts of the
    `history` commands: entry 1, a local one), to run those commands in, and where `export`
    writes its file."""
    import datetime as dt

    import routescope
    from routescope.history import History

    home = tmp_path_factory.mktemp("history-home")
    history = History.open(home / "routescope" / "history.sqlite3")
    for text in ("How do I install FastAPI on Ubuntu?", "pizza near me"):
        request = routescope.Request.build(text, today=dt.date(2026, 2, 5))
        assert history.record(request, routescope.inspect(request)) is not None
    history.close()
    return home


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_runs(command: str, request: pytest.FixtureRequest) -> None:
    stdin = None
    if "|" in command:
        producer, command = (part.strip() for part in command.split("|", 1))
        stdin = shlex.split(producer)[1]  # `echo "…" | routescope …`
    words = shlex.split(command)
    assert words[0] == "routescope"
    cwd, env = ROOT, None
    if words[1:2] == ["history"]:  # the window's history: a recorded one, in a temporary home
        cwd = request.getfixturevalue("history_home")
        env = {**os.environ, "XDG_DATA_HOME": str(cwd)}
    done = subprocess.run(
        [sys.executable, "-m", "routescope", *words[1:]],
        cwd=cwd,
        env=env,
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
