"""Bounded reads: type and size are checked first; pipes are read within a deadline. The one
atomic write: a new file's mode, an old file's mode kept, streamed content."""

import os
import stat
import threading
from pathlib import Path
from typing import BinaryIO

import pytest

from routescope import RulePackError
from routescope._files import read_text, replace_file, replace_file_with


def read(path: str | Path, limit: int = 1000) -> str:
    return read_text(path, what="rule pack", limit=limit, error=RulePackError)


def test_a_regular_file_is_read_and_its_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "pack.toml"
    path.write_bytes(b"\xef\xbb\xbfname = 'x'\n")
    assert read(path) == "name = 'x'\n"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(b"x" * 1001), "too large: 1,001 bytes (limit 1,000 bytes)"),
        (lambda p: p.mkdir(), "a directory"),
        (lambda p: None, "No such file or directory"),
        (lambda p: p.write_bytes(b"ok \xff"), "not UTF-8 text (invalid byte at offset 3)"),
    ],
)
def test_what_cannot_be_read_is_one_clear_line(tmp_path: Path, make, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "pack.toml"
    make(path)
    with pytest.raises(RulePackError, match=r"pack\.toml: ") as caught:
        read(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_an_endless_device_stops_at_the_limit() -> None:
    with pytest.raises(RulePackError, match="too large: more than 1,000 bytes"):
        read("/dev/zero")


def test_a_named_pipe_is_read_when_a_writer_sends_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as stream:
            stream.write(b"name = 'piped'\n")

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert read(fifo) == "name = 'piped'\n"
    finally:
        writer.join(timeout=10)


def test_streams_can_be_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "SKILL.md"
    os.mkfifo(fifo)
    with pytest.raises(RulePackError, match=r"cannot read skill: not a regular file \(a FIFO\)"):
        read_text(fifo, what="skill", limit=10, error=RulePackError, streams=False)


# -- the atomic write ----------------------------------------------------------------------------


def _umask() -> int:
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_is_owner_only_unless_a_mode_is_asked(tmp_path: Path) -> None:
    replace_file(tmp_path / "private", b"p")
    replace_file(tmp_path / "shared", b"s", mode=0o666)
    assert _mode(tmp_path / "private") == 0o600
    assert _mode(tmp_path / "shared") == 0o666 & ~_umask()
    assert (tmp_path / "shared").read_bytes() == b"s"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private", "shared"]  # no temporary


def test_an_old_files_mode_wins_over_the_new_files_mode(tmp_path: Path) -> None:
    target = tmp_path / "kept"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    replace_file(target, b"new", like=target.stat(), mode=0o666)
    assert target.read_bytes() == b"new" and _mode(target) == 0o640


def test_a_mode_is_not_for_a_caches_temporary_file(tmp_path: Path) -> None:
    temporary = tmp_path / ".tmp-x"
    temporary.touch()
    with pytest.raises(ValueError, match="mode"):
        replace_file(tmp_path / "x", b"x", temporary=temporary, mode=0o666)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("cache", [False, True], ids=["user-file", "cache-temporary"])
def test_streamed_content_replaces_the_file_or_nothing(tmp_path: Path, cache: bool) -> None:
    target = tmp_path / "data.bin"
    target.write_bytes(b"old")

    def temporary() -> Path | None:
        if not cache:
            return None
        made = tmp_path / f".tmp-{len(list(tmp_path.iterdir()))}"
        made.touch()
        return made

    def write(stream: BinaryIO) -> None:
        for part in (b"one ", b"two"):
            stream.write(part)

    replace_file_with(target, write, temporary=temporary())
    assert target.read_bytes() == b"one two"

    def fail(stream: BinaryIO) -> None:
        stream.write(b"half")
        raise RuntimeError("the writer broke")

    with pytest.raises(RuntimeError, match="broke"):
        replace_file_with(target, fail, temporary=temporary())
    assert target.read_bytes() == b"one two"
    assert [p.name for p in tmp_path.iterdir()] == ["data.bin"]  # the temporary file is gone
