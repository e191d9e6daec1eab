"""Bounded reads of the files a user names: type and size are checked before anything is read.

A rule pack, context, suite or catalog entry that is a directory, a socket, `/dev/zero`, a FIFO
without a writer or a multi-gigabyte file gives one clear line, never a hang or a MemoryError.
A pipe the user names on purpose (`--rules <(…)`) is read up to the same limit within a deadline.
"""

from __future__ import annotations

import os
import select
import stat
import time
from pathlib import Path

from ._errors import RoutescopeError

__all__ = ["MB", "STREAM_DEADLINE_S", "read_bytes", "read_text"]

MB = 1 << 20
STREAM_DEADLINE_S = 10.0
"""How long a pipe or device may take to deliver its content."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def read_bytes(
    path: str | Path,
    *,
    what: str,
    limit: int,
    error: type[RoutescopeError],
    streams: bool = True,
) -> bytes:
    """The content of `path`, at most `limit` bytes; `error(one line)` otherwise. `streams`
    allows FIFOs and character devices (read within `STREAM_DEADLINE_S`)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    if stat.S_ISREG(info.st_mode):
        if info.st_size > limit:
            raise error(
                f"{path}: {what} is too large: {_size(info.st_size)} (limit {_size(limit)})"
            )
        try:
            with open(path, "rb") as stream:
                data = stream.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    elif streams and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        data = _read_stream(path, what, limit, error)
    else:
        raise error(f"{path}: cannot read {what}: {_kind(info.st_mode)}")
    if len(data) > limit:
        raise error(f"{path}: {what} is too large: more than {_size(limit)}")
    return data


def read_text(
    path: str | Path,
    *,
    what: str,
    limit: int,
    error: type[RoutescopeError],
    streams: bool = True,
) -> str:
    """`read_bytes` decoded as UTF-8 (a leading byte-order mark is dropped)."""
    data = read_bytes(path, what=what, limit=limit, error=error, streams=streams)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"{path}: {what} is not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def _read_stream(path: str | Path, what: str, limit: int, error: type[RoutescopeError]) -> bytes:
    """Read a pipe or device without blocking past the deadline: a FIFO with no writer reads as
    empty, `/dev/zero` stops at the limit, a writer that stalls times out."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {exc.strerror or exc}") from None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + STREAM_DEADLINE_S
    try:
        while size <= limit:
            left = deadline - time.monotonic()
            if left <= 0:
                raise error(f"{path}: {what} did not arrive within {STREAM_DEADLINE_S:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _size(count: int) -> str:
    return f"{count / MB:,.1f} MB" if count >= MB else f"{count:,} bytes"
