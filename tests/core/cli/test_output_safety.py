"""What reaches the terminal is safe: escaped text from files and one-line errors (F16), output
streams that cannot encode or are closed (F26), strict dates (F27), bounded stdin (F11),
skipped skills reported (F22)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import routescope
from routescope.cli import main
from routescope.cli._terminal import escape

EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mEVIL"


def cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "routescope", *args],
        capture_output=True,
        text=True,
        timeout=120,
        **kwargs,  # type: ignore[call-overload]
    )


def test_escape_shows_controls_and_keeps_text() -> None:
    assert escape("a\x1b[2Jb\u202ec\nd") == "a\\x1b[2Jb\\u202ec\\x0ad"
    assert escape("tab\tand\nnewline", one_line=False) == "tab\tand\nnewline"
    assert escape("Zürich → 東京") == "Zürich → 東京"


def test_tool_names_from_a_catalog_are_escaped(tmp_path: Path) -> None:
    catalog = tmp_path / "evil.json"
    catalog.write_text(json.dumps([{"tool_name": f"{EVIL}.run", "description": "alpha"}]))
    done = cli("tools", "--strategy", "exact", "--catalog", str(catalog), "alpha run")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "\\x1b]0;pwned\\x07" in done.stdout


def test_suite_names_and_case_ids_are_escaped(tmp_path: Path) -> None:
    suite = tmp_path / "evil.yaml"
    suite.write_text(
        f"suite: {json.dumps(EVIL)}\nrouter: strategy\ncases:\n"
        f"  - id: {json.dumps(EVIL + ' case')}\n    prompt: pizza near me\n"
        "    expect: {strategy: general}\n"
    )
    done = cli("regress", str(suite))
    assert done.returncode == 1
    assert "\x1b" not in done.stdout and "\\x1b[2J" in done.stdout


def test_error_lines_stay_one_line(tmp_path: Path) -> None:
    done = cli("regress", str(tmp_path / "a\nb\x1b[2J.yaml"))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "\\x0a" in line and "\x1b" not in line


def test_output_that_cannot_encode_shows_escapes() -> None:
    done = cli("inspect", "Best ramen near Denver", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert "\\u2013" in done.stdout


def test_closed_or_full_output_is_one_line() -> None:
    closed = subprocess.run(
        [sys.executable, "-m", "routescope", "inspect", "x"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: __import__("os").close(1),
    )
    assert closed.returncode == 2
    assert closed.stderr.strip() == "routescope: error: standard output is closed"
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "routescope", "inspect", "x"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "routescope: error: cannot write the output: No space left on device"
    )


@pytest.mark.parametrize("value", ["20260205", "2026W051", "2026-02-30", "2026-2-5", " 2026-02-05"])
def test_today_must_be_yyyy_mm_dd(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--today", value, "x"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("routescope: error: --today: expected a date as YYYY-MM-DD")


def test_stdin_larger_than_any_prompt_is_refused_without_reading_it_all() -> None:
    with subprocess.Popen(["cat", "/dev/zero"], stdout=subprocess.PIPE) as endless:
        try:
            done = subprocess.run(
                [sys.executable, "-m", "routescope", "inspect", "-"],
                stdin=endless.stdout,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            endless.kill()
    assert done.returncode == 2
    assert "stdin is too large" in done.stderr


def test_skipped_skills_are_reported(tmp_path: Path) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "SKILL.md").write_text("---\nname: ok\ncommands:\n  - name: run\n---\n")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    done = cli("tools", "--catalog", str(tmp_path), "run")
    assert done.returncode == 0
    assert "ok.run" in done.stdout
    (warning,) = done.stderr.splitlines()
    assert warning.startswith("routescope: warning: skipped: ") and "bad" in warning


def test_inspect_warms_the_routers_before_the_prompt_it_times(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 §2: the timings line showed the first call's compiling (extract 23 ms) where a
    batch shows microseconds; the pack is warmed first, the prompt timed warm."""
    import routescope._inspect as inspect_module

    calls: list[str] = []
    real_warm, real_inspect = inspect_module.warm_up, inspect_module.inspect

    def warm(rules: routescope.RulePack) -> None:
        calls.append(f"warm {rules.name}")
        real_warm(rules)

    def inspect(request: object, **options: object) -> object:
        calls.append("inspect")
        return real_inspect(request, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(inspect_module, "warm_up", warm)
    monkeypatch.setattr(inspect_module, "inspect", inspect)
    assert main(["inspect", "--today", "2026-02-05", "Best ramen near Denver"]) == 0
    assert calls[0] == "warm default" and calls[-1] == "inspect"  # (warming inspects too)
    assert "timings" in capsys.readouterr().out
