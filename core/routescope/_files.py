"""Bounded reads of the files a user names: type and size are checked before anything is read;
and the one atomic write (`replace_file`, or `replace_file_with` for content written as a
stream): a temporary file beside the target, renamed over it.

A rule pack, context, suite or catalog entry that is a directory, a socket, `/dev/zero`, a FIFO
without a writer or a multi-gigabyte file gives one clear line, never a hang or a MemoryError.
A pipe the user names on purpose (`--rules <(…)`) is read up to the same limit within a deadline.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import select
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ._errors import RoutescopeError

__all__ = [
    "MB",
    "STREAM_DEADLINE_S",
    "OwnerNotKeptError",
    "TemporaryFileError",
    "file_kind",
    "read_bytes",
    "read_text",
    "replace_file",
    "replace_file_with",
]

MB = 1 << 20
STREAM_DEADLINE_S = 10.0
"""How long a pipe or device may take to deliver its content."""


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, for a message ("a FIFO")."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "an unusual file")


def existing_output(path: Path) -> os.stat_result | None:
    """The status of a file about to be replaced with a new one (None when there is none).
    OSError when nothing may be written there: a symbolic link (an output is never written
    through one: a link to your file, or a dangling one, would otherwise change or create its
    target) or anything but a regular file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise OSError(
            errno.ELOOP,
            f"{path.name} is a symbolic link: nothing is written through one (remove it, or "
            "choose another folder)",
            str(path),
        )
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EEXIST, f"{path.name} is {file_kind(info.st_mode)}", str(path))
    return info


def _refused(mode: int) -> str:
    """Why a file is not read: what it is, and for a stream refused, that it is not a file."""
    kind = file_kind(mode)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or kind == "an unusual file":
        return f"not a regular file ({kind})"
    return kind


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
        raise error(f"{path}: cannot read {what}: {_refused(info.st_mode)}")
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


class TemporaryFileError(OSError):
    """The folder cannot take the temporary file: nothing was written."""


class OwnerNotKeptError(PermissionError):
    """The temporary file cannot be given the old file's owner: nothing was written."""


_TEMPORARY = "abcdefghijklmnopqrstuvwxyz0123456789_"
"""The characters of `tempfile.mkstemp`'s random part (8 of them)."""


def replace_file(
    target: Path,
    data: bytes,
    *,
    temporary: Path | None = None,
    like: os.stat_result | None = None,
    mode: int | None = None,
) -> None:
    """Replace `target` with `data` atomically: written to a temporary file beside it, then
    renamed over it; on any failure the temporary file is removed and `target` is untouched.

    `temporary`: an empty file the caller made beside `target` (a cache names its own, so its
    clean-up can find them). Without one, the write is a user's file: the temporary file is
    made here, locked while in use (strays of killed writes are removed, locked ones are not),
    given `like`'s owner and mode, flushed to disk, and the folder synced after the rename.

    `mode`: the permission bits of a new file (when there is no `like`), combined with the
    process umask as `open` and `Path.touch` combine theirs (`0o666` gives `0o644` under the
    usual umask 022). Without it a new file stays owner-only (0600, as `mkstemp` makes it).
    Only for a user's file: not with `temporary`.

    Failures reach the caller as OSError: `TemporaryFileError` when the folder cannot take the
    temporary file, `OwnerNotKeptError` when it cannot be given `like`'s owner."""
    replace_file_with(
        target, lambda stream: stream.write(data), temporary=temporary, like=like, mode=mode
    )


def replace_file_with(
    target: Path,
    write: Callable[[BinaryIO], object],
    *,
    temporary: Path | None = None,
    like: os.stat_result | None = None,
    mode: int | None = None,
) -> None:
    """`replace_file` for content made by writing to a stream (`np.save`): `write` writes it
    to the temporary file (open for binary writing), so it is never held in memory whole."""
    if temporary is not None:
        if mode is not None:
            # A cache's temporary file keeps the mode its maker gave it: nothing here sets it.
            raise ValueError("replace_file: `mode` is for a user's file, not with `temporary`")
        _write_and_rename(temporary, target, write)
        return
    folder = target.parent
    _remove_stray_temporaries(folder, target.name)
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise TemporaryFileError(exc.errno, exc.strerror or str(exc)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            _lock(stream.fileno())  # marks the file in use: not a stray of a killed write
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
            if like is not None:
                _keep_owner(stream.fileno(), like)
                os.fchmod(stream.fileno(), stat.S_IMODE(like.st_mode))  # after chown: set-id
            elif mode is not None:
                # Before the rename, so the file never shows under its name with other bits.
                os.fchmod(stream.fileno(), mode & ~_umask())
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    _sync_folder(folder)


def _umask() -> int:
    """This process's umask, read without changing it (Linux); else the usual 022. Setting it
    to read it back (`os.umask`) would race with other threads creating files."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _write_and_rename(temporary: Path, target: Path, write: Callable[[BinaryIO], object]) -> None:
    try:
        with open(temporary, "wb") as stream:
            write(stream)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _keep_owner(handle: int, like: os.stat_result) -> None:
    """Give the temporary file the old file's owner and group (root updating a user's file)."""
    stats = os.fstat(handle)
    uid = like.st_uid if stats.st_uid != like.st_uid else -1
    gid = like.st_gid if stats.st_gid != like.st_gid else -1
    if uid != -1 or gid != -1:
        try:
            os.fchown(handle, uid, gid)
        except PermissionError as exc:
            raise OwnerNotKeptError(exc.errno, exc.strerror) from None


def _lock(handle: int) -> None:
    if sys.platform != "win32":
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_EX)


def _remove_stray_temporaries(folder: Path, name: str) -> None:
    """Remove the temporary files (`.NAME.xxxxxxxx.tmp`) that a write of the same file killed
    before its rename left behind; one that another write holds locked is in use."""
    pattern = re.compile(rf"\.{re.escape(name)}\.[{_TEMPORARY}]{{8}}\.tmp")
    try:
        entries = [entry.name for entry in os.scandir(folder) if pattern.fullmatch(entry.name)]
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            _remove_if_unused(folder / entry)


def _remove_if_unused(candidate: Path) -> None:
    handle = os.open(candidate, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return
        if sys.platform != "win32":
            import fcntl

            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # a write running now
        candidate.unlink()
    finally:
        os.close(handle)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (where folders can be opened)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
