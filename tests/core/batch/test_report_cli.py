"""`routescope report RESULTS [B] --out DIR`."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from routescope.cli import main

from . import _fixtures as fx
from .test_report import _base


def _results(folder: Path, name: str = "r.jsonl", **fields: object) -> Path:
    return fx.write_results(
        folder / name,
        [_base(**fields), _base(line=2, queries=["x (site:github.com)"], **fields)],
    )


def test_report_writes_the_page_and_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _results(tmp_path)
    assert main(["report", str(results), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "2 prompts; 1 leaked queries in 1 prompts (site_outside_tech 1, "
        "openclaw_outside_gate 0, as_of_not_time_sensitive 0)"
    )
    assert out[1] == f"wrote {tmp_path / 'out' / 'report.html'} and report.json"
    assert (tmp_path / "out" / "report.html").is_file()
    data = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert data["leaks"]["count"] == 1


def test_report_compares_two_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _results(tmp_path, "a.jsonl")
    b = _results(tmp_path, "b.jsonl", strategy="local")
    assert main(["report", str(a), str(b), "--out", str(tmp_path / "out"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "routescope.compare"
    assert data["changed"] == 2
    assert data["changes"][0]["transitions"][0]["label"] == "general → local"


def test_report_text_for_a_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _results(tmp_path, "a.jsonl")
    assert main(["report", str(a), str(a), "--out", str(tmp_path / "out")]) == 0
    first, second, _ = capsys.readouterr().out.splitlines()
    assert first == (
        "0 of 2 matched prompts changed routing (strategy 0, intents 0, lint_class 0, agent 0, "
        "mode 0, top_tool 0, queries 0)"
    )
    assert second == "leaked queries: A 1, B 1"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "{missing}", "--out", "{out}"], "cannot read results: No such file"),
        (["report", "{bad}", "--out", "{out}"], "line 1: not a JSON object"),
        (["report", "{good}", "{good}", "{good}", "--out", "{out}"], "give one results file"),
        (["report", "{good}", "--out", "{good}"], "--out"),
        (["report", "{good}", "--out", "{out}", "--top", "0"], "--top at least 1"),
        (["report", "{good}"], "the following arguments are required: --out"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    good = _results(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    names = {"missing": tmp_path / "none.jsonl", "bad": bad, "good": good, "out": tmp_path / "o"}
    assert main([arg.format(**names) for arg in argv]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith("routescope: error: ")
    assert message in line
    assert captured.out == ""


def test_report_files_follow_the_umask_they_are_meant_to_be_shared(tmp_path: Path) -> None:
    """Issue 25: report.html and report.json were written owner-only (0600)."""
    umask = os.umask(0o022)
    try:
        assert main(["report", str(_results(tmp_path)), "--out", str(tmp_path / "out")]) == 0
    finally:
        os.umask(umask)
    for name in ("report.html", "report.json"):
        assert stat.S_IMODE((tmp_path / "out" / name).stat().st_mode) == 0o644


@pytest.mark.parametrize("linked", ["report.html", "report.json"])
def test_a_linked_report_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], linked: str
) -> None:
    """Issue 25 §1: one check for every report writer; the link's target is untouched."""
    out = tmp_path / "out"
    out.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me", encoding="utf-8")
    (out / linked).symlink_to(precious)
    assert main(["report", str(_results(tmp_path)), "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"{linked} is a symbolic link" in line
    assert precious.read_text(encoding="utf-8") == "keep me"
    assert [p.name for p in out.iterdir()] == [linked]


def test_a_line_nested_ten_thousand_deep_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 §2: it was `internal error: RecursionError`, exit 1."""
    results = _results(tmp_path)
    with results.open("a", encoding="utf-8") as stream:
        stream.write("[" * 10_000 + "]" * 10_000 + "\n")
    assert main(["report", str(results), "--out", str(tmp_path / "out")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "line 3: not a result (nested too deeply to read)" in line
