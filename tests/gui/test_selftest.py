"""`routescope-gui --self-test` from the checkout: every router answers, nothing leaks out."""

import os
import subprocess
import sys
from pathlib import Path

ROUTER_LINES = (
    "window: painted",
    "strategy: ",
    "linter: ",
    "contract: ",
    "task: ",
    "tools: top=",
    "research: ",
)


def _run(code_or_args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    # A display that does not exist: the self-test must not need (or try) one.
    env = {**os.environ, "DISPLAY": ":99", "HOME": str(home)}
    env.pop("QT_QPA_PLATFORM", None)
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower())
    return subprocess.run(
        [sys.executable, *code_or_args], env=env, capture_output=True, text=True, timeout=300
    )


def test_the_self_test_inspects_through_every_router(tmp_path: Path) -> None:
    done = _run(["-m", "routescope_gui", "--self-test"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    for start in ROUTER_LINES:
        assert sum(line.startswith(start) for line in lines) == 1, (start, done.stdout)
    assert "tools: top=files.find" in done.stdout
    assert "extract: trafilatura" in done.stdout
    assert lines[-1].startswith("self-test: ok in ")
    # Caches, history and settings went to the self-test's own temporary folder.
    assert list(tmp_path.rglob("*")) == []


def test_a_self_test_out_of_time_is_one_line_and_status_1(tmp_path: Path) -> None:
    code = (
        "import sys; from routescope_gui._selftest import run_self_test;"
        "sys.exit(run_self_test(timeout=0.001))"
    )
    done = _run(["-c", code], tmp_path)
    assert done.returncode == 1
    assert done.stderr == "routescope-gui: self-test: no answer within 0.001 s\n"
    assert "self-test: ok" not in done.stdout  # (the routers that answered are printed)
