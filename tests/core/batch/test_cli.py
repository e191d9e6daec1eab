"""`routescope batch` from the command line, and hostile input: every case ends in exit 0 with
the bad line counted, or in exit 2 with one clear line on stderr, and nothing the user had is
overwritten."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from routescope.cli import main

from ._logs import prompts, read_jsonl, run_batch, write_jsonl

CAPSH = "/usr/sbin/capsh" if Path("/usr/sbin/capsh").exists() else "/sbin/capsh"


def batch(*args: str) -> list[str]:
    return ["batch", "--today", "2026-02-05", *args]


def one_error_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith("routescope: error: ") and "internal error" not in line
    return line


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "log.jsonl", [{"prompt": p} for p in prompts(50)])


def test_the_summary_says_how_many_prompts_and_which_lines_were_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"prompt": "best ramen near Denver"}\n{bad\n\n{"prompt": "install FastAPI"}\n')
    out = tmp_path / "out.jsonl"
    assert main(batch(str(log), "--out", str(out))) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"2 prompts → {out} in ")
    assert f"2 bad lines → {tmp_path / 'out.bad.jsonl'}" in text
    assert f"  {log}:2: invalid JSON: Expecting property name" in text
    assert f"  {log}:3: empty line" in text
    assert main(batch(str(log), "--out", str(out))) == 0
    assert capsys.readouterr().out.startswith(f"already complete: 2 prompts in {out}")
    assert main(batch(str(log), "--out", str(tmp_path / "b.jsonl"), "--json")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["prompts"], summary["bad"], summary["complete"]) == (2, 2, True)
    assert summary["first_bad"][0] == {
        "source": str(log),
        "line": 2,
        "reason": "invalid JSON: Expecting property name enclosed in double quotes: line 1 "
        "column 2 (char 1)",
        "excerpt": "{bad",
    }


def test_field_workers_block_size_and_no_timings(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nested = write_jsonl(tmp_path / "n.jsonl", [{"req": {"q": p}} for p in prompts(40)])
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    common = ["--field", "req.q", "--no-timings", "--block-size", "4k"]
    assert main(batch(str(nested), "--out", str(one), *common)) == 0
    assert main(batch(str(nested), "--out", str(two), "--workers", "2", *common)) == 0
    assert one.read_bytes() == two.read_bytes()
    assert all(r["timings_us"] is None for r in read_jsonl(one))
    assert [r["prompt"] for r in read_jsonl(one)] == prompts(40)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--today", "2026-13-01"], "--today: expected a date as YYYY-MM-DD"),
        (["--block-size", "lots"], "--block-size: a size such as 256k"),
        (["-k", "3"], "-k goes with --catalog"),
        (["--scheduler", "tcp://127.0.0.1:9"], "goes with the dask engine"),
        (["--workers", "0"], "workers must be a whole number"),
        (["--rules", "/dev/null"], "/dev/null"),
        (["--catalog", "/nonexistent/catalog"], "catalog"),
        (["--field", ".x"], "--field '.x': a dotted path"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    line = one_error_line(capsys, batch(str(log), "--out", str(tmp_path / "o.jsonl"), *extra))
    assert message in line
    assert not (tmp_path / "o.jsonl").exists()


def test_hostile_inputs_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out.jsonl")
    os.mkfifo(tmp_path / "fifo.jsonl")
    write_jsonl(tmp_path / "ok.jsonl", [{"prompt": "x"}])
    line = one_error_line(capsys, batch(str(tmp_path / "*.jsonl"), "--out", out))
    assert "fifo.jsonl: not a regular file (a FIFO)" in line
    line = one_error_line(capsys, batch("/dev/zero", "--out", out))
    assert "/dev/zero: not a regular file (a character device)" in line
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    line = one_error_line(capsys, batch(str(tmp_path / "*.txt"), "--out", out))
    assert "zero.txt: not a regular file" in line
    line = one_error_line(capsys, batch(str(tmp_path / "none-*.jsonl"), "--out", out))
    assert "no file matches" in line
    assert not Path(out).exists()


def test_hostile_outputs_exit_2_and_nothing_is_overwritten(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "precious.jsonl"
    precious.write_text("mine\n")
    precious.chmod(0o444)
    line = one_error_line(capsys, batch(str(log), "--out", str(precious)))
    assert "precious.jsonl exists and is not a batch in progress" in line
    link = tmp_path / "link.jsonl"
    link.symlink_to(precious)
    line = one_error_line(capsys, batch(str(log), "--out", str(link)))
    assert "link.jsonl is a symbolic link" in line
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "elsewhere.jsonl")
    one_error_line(capsys, batch(str(log), "--out", str(dangling)))
    line = one_error_line(capsys, batch(str(log), "--out", str(tmp_path)))
    assert "not a regular file" in line
    line = one_error_line(capsys, batch(str(log), "--out", str(log)))
    assert "is also an input" in line
    assert precious.read_text() == "mine\n" and not (tmp_path / "elsewhere.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.jsonl",
        "link.jsonl",
        "log.jsonl",
        "precious.jsonl",
    ]


def test_bad_lines_of_every_kind_are_counted_never_fatal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_bytes(
        b'{"prompt": "first"}\n'
        + b"[" * 10_000
        + b"]" * 10_000
        + b"\n"
        + b'{"prompt": "caf\xe9"}\n'
        + b"\x00\x01\x02binary\n"
        + b'{"other": 1}\n'
        + b"\n"
        + b'{"prompt": "last"}\n'
    )
    table = tmp_path / "b.csv"
    table.write_bytes(b'id,prompt\n1,"with a \x00 NUL"\n2,fine\n')
    out = tmp_path / "out.jsonl"
    assert main(batch(str(jsonl), str(table), "--out", str(out))) == 0
    assert [r["prompt"] for r in read_jsonl(out)] == ["first", "last", "fine"]
    reasons = [(b["line"], b["reason"]) for b in read_jsonl(tmp_path / "out.bad.jsonl")]
    assert reasons == [
        (2, "invalid JSON: nested too deeply"),
        (3, "not UTF-8 text (invalid byte at offset 15)"),
        (4, "binary data (a NUL byte)"),
        (
            5,
            "no prompt field (looked for messages, prompt, input, text, query, question, "
            "content, message); name it with --field",
        ),
        (6, "empty line"),
        (2, "binary data (a NUL byte)"),
    ]
    assert "6 bad lines" in capsys.readouterr().out


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_a_gigabyte_line_is_never_read_whole(tmp_path: Path) -> None:
    """A sparse 1 GiB file of NULs with no line break, then a prompt: a bad line, in bounded
    memory (the largest process stays far below the line's size)."""
    log = tmp_path / "huge.txt"
    with log.open("wb") as stream:
        stream.truncate(1 << 30)
        stream.seek(1 << 30)
        stream.write(b"\nbest ramen near Denver\n")
    out = tmp_path / "out.jsonl"
    measured = (  # VmHWM: this process's peak (ru_maxrss would count the forked test runner)
        "import sys; from routescope.cli import main; code = main(sys.argv[1:]); "
        "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0], file=sys.stderr); "
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", measured, "batch", str(log), "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["prompts"], summary["bad"]) == (1, 1)
    assert summary["first_bad"][0]["reason"] == "over-long record (more than 4,194,304 bytes)"
    assert read_jsonl(out)[0]["line"] == 2
    peak_kib = int(done.stderr.split()[-1])
    assert peak_kib < 300 * 1024  # the line is 1,048,576 KiB


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or not Path(CAPSH).exists(),
    reason="needs root and capsh to drop the right to write anywhere",
)
def test_read_only_results_or_folder_as_root_without_dac_override(
    log: Path, tmp_path: Path
) -> None:
    def run(out: Path) -> subprocess.CompletedProcess[str]:
        command = f"{sys.executable} -m routescope batch {log} --out {out} --today 2026-02-05"
        return subprocess.run(
            [CAPSH, "--drop=cap_dac_override,cap_fowner", "--", "-c", command],
            capture_output=True,
            text=True,
            timeout=120,
        )

    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        done = run(folder / "out.jsonl")
    finally:
        folder.chmod(0o755)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "cannot write" in line and "Permission denied" in line
    assert list(folder.iterdir()) == []
    # an interrupted batch whose results were made read-only: refused, left as it was
    out = tmp_path / "out.jsonl"

    def stop(prompts: int, bad: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch([str(log)], out, today=dt.date(2026, 2, 5), block_size=4096, on_chunk=stop)
    before = out.read_bytes()
    assert before
    out.chmod(0o444)
    done = run(out)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "out.jsonl: cannot write: Permission denied" in line
    assert out.read_bytes() == before


def test_ctrl_c_says_how_to_continue(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("routescope.batch.run_batch", interrupted)
    assert main(batch(str(log), "--out", str(tmp_path / "o.jsonl"))) == 130
    assert capsys.readouterr().err == (
        "routescope: interrupted: run the same command again to continue\n"
    )


def test_a_built_in_pack_is_named_as_score_and_suggest_name_it(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--rules refined` routes with the built-in pack, unless a file has that name."""
    refined, default = tmp_path / "refined.jsonl", tmp_path / "default.jsonl"
    assert main(batch(str(log), "--rules", "refined", "--no-timings", "--out", str(refined))) == 0
    assert main(batch(str(log), "--no-timings", "--out", str(default))) == 0
    assert read_jsonl(refined) != read_jsonl(default)
    line = one_error_line(
        capsys, batch(str(log), "--rules", "nonesuch", "--out", str(tmp_path / "x.jsonl"))
    )
    assert "nonesuch" in line
