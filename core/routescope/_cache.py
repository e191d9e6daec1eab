"""On-disk caches (the tool search's Tantivy folders and vector files, the offline research
index): never trusted, never shared half-written.

- Everything is written beside its final name under a unique hidden temporary name, then
  published with one `os.rename` (a folder) or `os.replace` (a file): a reader sees nothing or a
  complete entry, and concurrent builders of the same catalog never write into one place. When a
  folder is published by another process first, that one is used and ours is dropped.
- An entry that fails validation (a file where a folder belongs, a truncated file, a FIFO, a
  symlink) is renamed aside and removed, then rebuilt.
- A cache folder that cannot be written (read-only, on a read-only file system, under a regular
  file) is replaced by a temporary folder for the life of the process, and `CacheDir.note` says
  so; valid caches in the original folder are still read.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import threading
import time
import uuid
from collections.abc import Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._files import replace_file

__all__ = [
    "CacheDir",
    "cache_dir",
    "clean_stale",
    "discard",
    "file_digest",
    "files_problem",
    "folder_files",
    "publish_folder",
    "temporary_sibling",
    "writable_problem",
    "write_atomically",
]

_STALE_S = 3600.0
"""Temporary entries older than this are left-overs of a killed process and are removed."""
_TEMP_PREFIX = ".tmp-"
_TRASH_PREFIX = ".trash-"


@dataclass(frozen=True, slots=True)
class CacheDir:
    """Where caches are read and written."""

    folder: Path
    """The folder asked for."""
    write: Path
    """Where new caches go: `folder`, or a temporary folder when `folder` cannot be written."""
    note: str | None = None
    """Why `write` is not `folder` (one line), else None."""

    @property
    def places(self) -> tuple[Path, ...]:
        """The folders a cache is looked up in, the written one first."""
        return (self.write,) if self.write == self.folder else (self.write, self.folder)


_resolved: dict[Path, CacheDir] = {}
_lock = threading.Lock()


def writable_problem(folder: Path) -> str | None:
    """None when `folder` exists (or is created) and a file can be created in it; otherwise why
    not. Tests replace this to simulate a read-only folder (they run as root)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(dir=folder, prefix=f"{_TEMP_PREFIX}probe-")
        os.close(descriptor)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def cache_dir(folder: Path) -> CacheDir:
    """The cache places for `folder`, decided once per process and folder."""
    folder = Path(folder)
    with _lock:
        known = _resolved.get(folder)
        if known is not None and (known.write != known.folder or known.write.is_dir()):
            return known
        problem = writable_problem(folder)
        if problem is None:
            resolved = CacheDir(folder, folder)
        else:
            temporary = Path(tempfile.mkdtemp(prefix="routescope-cache-"))
            atexit.register(shutil.rmtree, temporary, ignore_errors=True)
            resolved = CacheDir(
                folder,
                temporary,
                f"cache folder {folder} cannot be written ({problem}): "
                f"using the temporary folder {temporary} for this run",
            )
        _resolved[folder] = resolved
        return resolved


def temporary_sibling(final: Path, *, folder: bool) -> Path:
    """A new, unique, hidden path beside `final` (created: a folder, or an empty file)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    prefix = f"{_TEMP_PREFIX}{final.name}-{os.getpid()}-"
    if folder:
        return Path(tempfile.mkdtemp(dir=final.parent, prefix=prefix))
    descriptor, name = tempfile.mkstemp(dir=final.parent, prefix=prefix)
    os.close(descriptor)
    return Path(name)


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary sibling that the stale clean-up recognises."""
    replace_file(path, data, temporary=temporary_sibling(path, folder=False))


def discard(path: Path) -> None:
    """Remove whatever is at `path` (file, folder, symlink, FIFO): renamed aside first, so a
    concurrent reader never sees half of it and a late writer that works by its path (Tantivy's
    threads) cannot put a file back into the folder being removed. Missing is fine."""
    trash = path.with_name(f"{_TRASH_PREFIX}{path.name}-{uuid.uuid4().hex[:12]}")
    try:
        os.rename(path, trash)
    except FileNotFoundError:
        return
    except OSError:
        trash = path  # cannot rename (another process moved it, or a strange file system)
    _remove(trash)


def _remove(path: Path) -> None:
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def publish_folder(temporary: Path, final: Path) -> bool:
    """Rename the complete folder `temporary` to `final`. True when ours is published; False
    when `final` already exists (another process published it meanwhile, or it is
    something else): then `temporary` is left for the caller to use or drop."""
    try:
        os.rename(temporary, final)
    except OSError:  # ENOTEMPTY / EEXIST: a folder is there; ENOTDIR: a file is there
        return False
    return True


def clean_stale(folder: Path) -> None:
    """Remove the temporary and trash entries that a killed process left in `folder`."""
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(_TRASH_PREFIX):
            _remove(Path(entry.path))
        elif entry.name.startswith(_TEMP_PREFIX):
            try:
                old = now - entry.stat(follow_symlinks=False).st_mtime > _STALE_S
            except OSError:
                continue
            if old:
                _remove(Path(entry.path))


def file_digest(path: Path, size: int) -> str | None:
    """The SHA-256 of the regular file at `path` if it is exactly `size` bytes, else None
    (a symlink, a FIFO, another size: not the file that was written)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size != size:
            return None
        digest = hashlib.file_digest(stream, "sha256")
    return digest.hexdigest()


def folder_files(folder: Path, skip: Set[str] = frozenset()) -> dict[str, list[Any]]:
    """Size and SHA-256 of every regular file in `folder` but those named in `skip`: what a
    manifest records so that a later reader can tell the folder is exactly what was written."""
    files: dict[str, list[Any]] = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name in skip or not entry.is_file(follow_symlinks=False):
            continue
        size = entry.stat(follow_symlinks=False).st_size
        files[entry.name] = [size, file_digest(Path(entry.path), size)]
    return files


def files_problem(folder: Path, files: dict[Any, Any]) -> str | None:
    """Why `folder` does not hold the files a manifest lists (`folder_files`), or None."""
    for name, entry in files.items():
        if (
            not isinstance(name, str)
            or "/" in name
            or name in (".", "..")
            or not isinstance(entry, list)
            or len(entry) != 2
            or not isinstance(entry[0], int)
        ):
            return "its manifest is malformed"
        if file_digest(folder / name, entry[0]) != entry[1]:
            return f"{name} is missing, truncated or altered"
    return None
