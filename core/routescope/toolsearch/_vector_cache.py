"""The tool vectors' files: the cache (untrusted, read only when it is exactly the float32 matrix
a catalog needs) and the checkpoint of an interrupted first build (appended to under a lock,
continued by the next build of the same catalog and model)."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import stat
from pathlib import Path

import numpy as np

from .._cache import discard
from .._errors import EmbedderError
from .._files import read_bytes
from ._rows import MAX_DIMENSION

__all__ = ["EMBED_CHUNK", "Checkpoint", "load_matrix"]

EMBED_CHUNK = 64
"""Texts per embedding call; also the checkpoint step of a first build."""
_NPY_HEADER_LIMIT = 64 * 1024


def load_matrix(path: Path, rows: int, width: int | None) -> np.ndarray | str:
    """The cached matrix at `path` if it is exactly what this catalog needs — a plain `.npy`
    of float32, `rows` × `width` (any width up to 65,536 when unknown), every value finite —
    else why not. Nothing is unpickled and nothing larger than that shape is read."""
    limit = _NPY_HEADER_LIMIT + rows * (width or MAX_DIMENSION) * 4
    try:
        data = read_bytes(
            path, what="vector cache", limit=limit, error=EmbedderError, streams=False
        )
    except EmbedderError as exc:
        return str(exc).removeprefix(f"{path}: ")
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            return f"unknown .npy version {version}"
    except (ValueError, EOFError, TypeError, SyntaxError, OverflowError):
        return "not a valid .npy file"
    if dtype != np.dtype("<f4") or fortran:
        return f"holds {dtype} values, not float32"
    if len(shape) != 2 or shape[0] != rows or not 0 < shape[1] <= MAX_DIMENSION:
        return f"has shape {shape}, the catalog needs {rows} rows"
    if width is not None and shape[1] != width:
        return f"holds vectors of {shape[1]} dimensions, the model makes {width}"
    offset = stream.tell()
    if len(data) != offset + rows * shape[1] * 4:
        return "is truncated or has trailing bytes"
    matrix = np.frombuffer(data, dtype="<f4", count=rows * shape[1], offset=offset)
    matrix = matrix.reshape(rows, shape[1])
    if not np.isfinite(matrix).all():
        return "holds values that are not finite (NaN or infinity)"
    return matrix


class Checkpoint:
    """The rows of an interrupted first build: a private file beside the cache, appended to
    after every chunk under an exclusive lock (`flock`), read back and continued by the next
    build of the same catalog and model. Layout: 8-byte magic, uint32 width, uint32 zero, then
    float32 rows."""

    MAGIC = b"RSVPART2"  # 2: rows in order of text length
    HEADER = 16

    def __init__(self, descriptor: int, path: Path, rows: np.ndarray | None) -> None:
        self._descriptor, self.path = descriptor, path
        self.rows = rows  # what was there: whole chunks only, validated
        self.width = None if rows is None else rows.shape[1]

    @classmethod
    def open(cls, path: Path, total: int, width: int | None) -> Checkpoint | None:
        """The checkpoint, locked; None when another process holds it (it is building the
        same vectors) or it cannot be created."""
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        descriptor = -1
        for _ in range(2):
            try:
                descriptor = os.open(path, flags, 0o644)
            except OSError:
                discard(path)  # a symlink, a folder, …: not ours
                continue
            if stat.S_ISREG(os.fstat(descriptor).st_mode):
                break
            os.close(descriptor)
            descriptor = -1
            discard(path)
        if descriptor < 0:
            return None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(descriptor).st_ino != os.stat(path).st_ino:
                raise OSError("replaced")  # its builder finished and removed it meanwhile
            rows = cls._read(descriptor, total, width)
        except OSError:
            os.close(descriptor)
            return None
        return cls(descriptor, path, rows)

    @classmethod
    def _read(cls, descriptor: int, total: int, width: int | None) -> np.ndarray | None:
        size = os.fstat(descriptor).st_size
        header = os.pread(descriptor, cls.HEADER, 0)
        stored = int.from_bytes(header[8:12], "little") if len(header) == cls.HEADER else 0
        usable = (
            header[:8] == cls.MAGIC
            and 0 < stored <= MAX_DIMENSION
            and (width is None or stored == width)
        )
        if not usable:
            os.ftruncate(descriptor, 0)
            return None
        count = min((size - cls.HEADER) // (stored * 4), total)
        if count < total:
            count -= count % EMBED_CHUNK  # whole chunks, as a fresh build would have made them
        data = os.pread(descriptor, count * stored * 4, cls.HEADER)
        rows = np.frombuffer(data, dtype="<f4", count=count * stored).reshape(count, stored)
        if len(data) != count * stored * 4 or not np.isfinite(rows).all():
            os.ftruncate(descriptor, 0)
            return None
        os.ftruncate(descriptor, cls.HEADER + count * stored * 4)
        return rows

    def append(self, rows: np.ndarray) -> None:
        if self.width is None or self.width != rows.shape[1]:
            os.ftruncate(self._descriptor, 0)
            header = self.MAGIC + rows.shape[1].to_bytes(4, "little") + bytes(4)
            os.pwrite(self._descriptor, header, 0)
            self.width = rows.shape[1]
        data = np.ascontiguousarray(rows, dtype="<f4").tobytes()
        end = os.fstat(self._descriptor).st_size
        while data:
            written = os.pwrite(self._descriptor, data, end)
            data, end = data[written:], end + written

    def close(self, *, finished: bool) -> None:
        if finished:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        os.close(self._descriptor)
