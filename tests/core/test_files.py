"""Bounded reads: type and size are checked first; pipes are read within a deadline."""

import os
import threading
from pathlib import Path

import pytest

from routescope import RulePackError
from routescope._files import read_text


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
    with pytest.raises(RulePackError, match="not a regular file"):
        read_text(fifo, what="skill", limit=10, error=RulePackError, streams=False)
