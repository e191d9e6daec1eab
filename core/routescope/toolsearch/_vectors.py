"""Tool vectors: the on-disk cache (untrusted, validated when read, a resumable first build) and
the vector search — an exact float32 product for small catalogs, from `QUANTISED_FROM` tools an
int8 scan whose shortlist is rescored exactly (the same tools, the same cosines)."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import io
import math
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from threadpoolctl import ThreadpoolController

from .._cache import CacheDir, cache_dir, discard, temporary_sibling
from .._errors import EmbedderError, one_line
from .._files import read_bytes, replace_file_with
from .._secrets import redact_url
from ._catalog import Catalog
from ._embed import _MAX_DIMENSION, Embedder, _normalise, embedding_text

if TYPE_CHECKING:
    from numkong import PackedMatrix

__all__ = [
    "QUANTISED_FROM",
    "ProgressCallback",
    "VectorIndex",
    "VectorScores",
    "one_blas_thread",
]

_CHUNK = 64
"""Texts per embedding call; also the checkpoint step of a first build."""
_NPY_HEADER_LIMIT = 64 * 1024
ProgressCallback = Callable[[int, int], None]
"""`progress(done, total)`: tools embedded so far, of all the catalog's tools."""


@functools.cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS libraries loaded (numpy's): once


def one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """BLAS limited to one thread for the block (query-time work), restored after."""
    limit: contextlib.AbstractContextManager[object] = _blas().limit(limits=1, user_api="blas")
    return limit


def _dimension(embedder: Embedder) -> int | None:
    value = getattr(embedder, "dimension", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _check_rows(rows: object, count: int, width: int | None, who: str) -> np.ndarray:
    """An embedder's answer as a finite float32 matrix of `count` rows (and `width` columns)."""
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):
        raise EmbedderError(
            f"embedding model {who} returned something that is not a matrix"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != count or not 0 < matrix.shape[1] <= _MAX_DIMENSION:
        raise EmbedderError(
            f"embedding model {who} returned an array of shape {matrix.shape} for {count} texts"
        )
    if width is not None and matrix.shape[1] != width:
        raise EmbedderError(
            f"embedding model {who} returned vectors of {matrix.shape[1]} dimensions, not {width}"
        )
    if not np.isfinite(matrix).all():
        raise EmbedderError(f"embedding model {who} returned vectors that are not finite (NaN)")
    return matrix


def _load_matrix(path: Path, rows: int, width: int | None) -> np.ndarray | str:
    """The cached matrix at `path` if it is exactly what this catalog needs — a plain `.npy`
    of float32, `rows` × `width` (any width up to 65,536 when unknown), every value finite —
    else why not. Nothing is unpickled and nothing larger than that shape is read."""
    limit = _NPY_HEADER_LIMIT + rows * (width or _MAX_DIMENSION) * 4
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
    if len(shape) != 2 or shape[0] != rows or not 0 < shape[1] <= _MAX_DIMENSION:
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


class _Checkpoint:
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
    def open(cls, path: Path, total: int, width: int | None) -> _Checkpoint | None:
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
            and 0 < stored <= _MAX_DIMENSION
            and (width is None or stored == width)
        )
        if not usable:
            os.ftruncate(descriptor, 0)
            return None
        count = min((size - cls.HEADER) // (stored * 4), total)
        if count < total:
            count -= count % _CHUNK  # whole chunks, as a fresh build would have made them
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


# -- the search ----------------------------------------------------------------------------------
QUANTISED_FROM = 4_096
"""From this many tools the search scans int8 codes of the tool vectors (a quarter of the bytes
of float32) and rescores its shortlist exactly. Below, one float32 product costs little more
(measured right after a query embedding: 346 against 228 µs at 4,000 × 384, 149 against 144 at
1,000), and small catalogs keep their results to the last bit."""
_QUANTISE_BLOCK = 4_096
"""Rows quantised at a time (bounds the float64 temporaries of a build)."""
_PROBE_ROWS = 512
"""Rows whose int8 products the self-test of a scan recomputes with numpy."""
_GROUP = 32
"""Tools per group whose best estimate the search's first cut is taken from."""


def _cosines(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with the query, computed row by row in numpy's own loop (no
    BLAS: no thread to wake, and a row's value is the same whichever rows come with it)."""
    products: np.ndarray = np.einsum("ij,j->i", rows, query)
    return products


def _top(values: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """(index, value) of the `limit` largest values, best first; ties keep catalog order."""
    limit = min(limit, len(values))
    if limit <= 0:
        return []
    top = (
        np.argpartition(-values, limit - 1)[:limit]
        if limit < len(values)
        else np.arange(len(values))
    )
    ordered = sorted(top.tolist(), key=lambda i: (-float(values[i]), i))
    return [(i, float(values[i])) for i in ordered]


class VectorScores:
    """A query's cosine similarity to every tool of an index, read like an array: `scores[i]`
    (a float), `scores[[i, j, …]]` (an array), `scores > value` (an array of booleans),
    `rank(i)`, `np.asarray(scores)` (every cosine, exact); `hits`, the best tools with their
    cosines, best first (ties in catalog order).

    Below `QUANTISED_FROM` tools every value is the exact cosine (one float32 product). From
    there the values start as int8 estimates, each within `bound` of the exact cosine, and the
    search rescores from the float32 rows every tool that could be among `hits`, so `hits` are
    the tools and cosines of an exact search. `scores[i]`, `scores[[…]]` and `rank(i)` are
    always exact: a tool not rescored yet is rescored then, and kept (for `rank(i)`, every tool
    whose estimate is within `bound` of tool i's cosine). `scores > value` compares with the
    values as they stand, estimates included: a rank counted with it (1 + how many are
    greater) is exact among the rescored tools and, beyond them, can be off by the tools whose
    cosine is within about 1e-3 of tool i's (of 2,500 clustered vectors, up to 1 %)."""

    def __init__(
        self,
        values: np.ndarray,
        hits: list[tuple[int, float]],
        *,
        rows: np.ndarray | None = None,
        query: np.ndarray | None = None,
        known: np.ndarray | None = None,
        bound: float = 0.0,
    ) -> None:
        self._values = values
        self.hits = hits
        self.bound = bound
        """How far an estimate can be from the exact cosine (0.0 when all are exact)."""
        self._rows, self._query, self._known = rows, query, known

    @property
    def exact(self) -> bool:
        """True when every value is the exact cosine."""
        return self._known is None

    @property
    def rescored(self) -> int:
        """How many tools have their exact cosine (all of them when `exact`)."""
        known = self._known
        return len(self._values) if known is None else int(np.count_nonzero(known))

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: Sequence[int] | np.ndarray) -> np.ndarray: ...

    @overload
    def __getitem__(self, index: int | np.integer[Any]) -> float: ...

    def __getitem__(
        self, index: Sequence[int] | np.ndarray | int | np.integer[Any]
    ) -> np.ndarray | float:
        if not isinstance(index, int | np.integer):
            return self.exact_at(np.asarray(index, dtype=np.intp))
        known = self._known  # one tool: a fusion reads dozens per search, so no detour
        if known is not None and not known[index]:
            assert self._rows is not None and self._query is not None
            # numpy's loop for one row adds in the order it does for many: the same value
            self._values[index] = np.einsum("j,j->", self._rows[index], self._query)
            known[index] = True
        return float(self._values[index])

    def exact_at(self, indices: np.ndarray) -> np.ndarray:
        """The exact cosines of the tools at `indices` (rescoring those not known yet)."""
        self._rescore(indices)
        picked: np.ndarray = self._values[indices]
        return picked

    def __gt__(self, value: float) -> np.ndarray:
        above: np.ndarray = self._values > value
        return above

    def rank(self, index: int) -> int:
        """1 + how many tools have a higher cosine than tool `index`, exactly: the tools whose
        estimate is within `bound` of its cosine are rescored first (a few near the top of a
        catalog, thousands of 100,000 in its thick)."""
        value = self[index]
        if self._known is not None:
            self._rescore(np.flatnonzero(np.abs(self._values - value) <= self.bound))
        return int(np.count_nonzero(self._values > value)) + 1

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        known = self._known
        if known is not None:
            self._rescore(np.flatnonzero(~known))
            self._known, self.bound = None, 0.0
        return np.array(self._values, dtype=dtype, copy=True)

    def first_exact(self, indices: np.ndarray) -> np.ndarray:
        """The exact cosines of the tools at `indices` (distinct), none of them known yet."""
        assert self._known is not None and self._rows is not None and self._query is not None
        exact = _cosines(self._rows[indices], self._query)
        self._values[indices] = exact
        self._known[indices] = True
        return exact

    def _rescore(self, chosen: np.ndarray) -> None:
        """The exact cosine of each tool in `chosen` that has an estimate still."""
        known = self._known
        if known is None or not len(chosen):
            return
        missing = chosen[~known[chosen]]
        if not len(missing):
            return
        assert self._rows is not None and self._query is not None
        self._values[missing] = _cosines(self._rows[missing], self._query)
        known[missing] = True


class _Int8Scan:
    """The tool vectors as int8 codes, one scale per row (v ≈ v̂ = scale·code), scanned with
    NumKong's SIMD int8 dot products against the query quantised the same way (x ≈ x̂).

    The estimate v̂·x̂ differs from v·x by v̂·(x − x̂) + (v − v̂)·x, so by at most
    ‖v̂‖·‖x − x̂‖ + ‖v − v̂‖·‖x‖ (Cauchy–Schwarz), plus float rounding: `bound` uses the largest
    ‖v̂‖ and ‖v − v̂‖ of the catalog (about 0.01 for unit vectors of 384 dimensions). A tool
    whose estimate is below (the k-th best exact cosine found) − bound cannot be among the k
    best, so rescoring every other tool exactly gives the k best of an exact search."""

    def __init__(
        self,
        kernels: Any,
        packed: PackedMatrix,
        scales: np.ndarray,
        error: float,
        size: float,
        width: int,
    ) -> None:
        self._kernels, self._packed, self._scales = kernels, packed, scales
        self._error, self._size, self._width = error, size, width
        self.failure: str | None = None
        """Why the scan stopped working (a NumKong error at query time), None while it works."""

    @property
    def nbytes(self) -> int:
        """The memory the codes and scales take, beside the float32 rows."""
        return int(self._packed.nbytes) + self._scales.nbytes

    @classmethod
    def build(cls, rows: np.ndarray) -> _Int8Scan | str:
        """The scan of `rows` (a finite float32 matrix), or why there is none: NumKong not
        installed, no SIMD kernels for this processor, or products that fail the self-test."""
        try:
            import numkong
        except ImportError:
            return "NumKong is not installed"
        try:
            capabilities = numkong.get_capabilities()
        except Exception as exc:  # a compiled module: any failure means "do not use it"
            return f"NumKong cannot tell this processor's kernels: {_said(exc)}"
        if not any(on for name, on in capabilities.items() if name != "serial"):
            return "NumKong has no SIMD kernels for this processor"
        count, width = rows.shape
        codes = np.empty((count, width), dtype=np.int8)
        scales = np.empty(count, dtype=np.float32)
        error = size = 0.0
        for start in range(0, count, _QUANTISE_BLOCK):
            block = rows[start : start + _QUANTISE_BLOCK].astype(np.float64)
            peak = np.abs(block).max(axis=1)
            scale = np.where(peak > 0, peak / 127, 1.0).astype(np.float32)
            wide = scale.astype(np.float64)[:, None]
            code = np.clip(np.rint(block / wide), -127, 127)
            approx = code * wide
            error = max(error, float(np.sqrt(((block - approx) ** 2).sum(axis=1)).max()))
            size = max(size, float(np.sqrt((approx**2).sum(axis=1)).max()))
            codes[start : start + len(block)] = code
            scales[start : start + len(block)] = scale
        try:
            packed = numkong.dots_pack(codes)
            failure = cls._self_test(numkong, packed, codes)
        except Exception as exc:  # a compiled module: any failure means "do not use it"
            return f"NumKong failed: {_said(exc)}"
        return failure or cls(numkong, packed, scales, error, size, width)

    @staticmethod
    def _self_test(kernels: Any, packed: PackedMatrix, codes: np.ndarray) -> str | None:
        """None when NumKong's products of a probe with sample rows are numpy's, else why."""
        count, width = codes.shape
        probe = ((np.arange(width) * 37) % 255 - 127).astype(np.int8)
        got = np.asarray(kernels.dots_packed(probe[None, :], packed))
        if got.shape != (1, count):
            return f"NumKong returned products of shape {got.shape} for {count} rows"
        sample = np.unique(np.linspace(0, count - 1, min(count, _PROBE_ROWS)).astype(np.intp))
        expected = codes[sample].astype(np.int64) @ probe.astype(np.int64)
        if not np.array_equal(got[0, sample].astype(np.int64), expected):
            return "NumKong's int8 products differ from numpy's on this processor"
        return None

    def estimate(self, query: np.ndarray) -> tuple[np.ndarray, float] | None:
        """Every tool's estimated cosine (a new float32 array) and `bound`; None for a query
        that cannot be scaled to int8 (all zeros) or when the scan fails (`failure` says
        why)."""
        x = query.astype(np.float64)
        peak = float(np.abs(x).max()) if len(x) else 0.0
        if not 0.0 < peak < math.inf:
            return None
        code = np.rint(x * (127 / peak))  # within ±127: |x| ≤ peak
        rest = x - code * (peak / 127)
        norm, rest_norm = math.sqrt(x.dot(x)), math.sqrt(rest.dot(rest))
        try:
            raw = np.asarray(self._kernels.dots_packed(code.astype(np.int8)[None, :], self._packed))
        except Exception as exc:  # a compiled module: any failure means "do not use it"
            self.failure = f"NumKong failed: {_said(exc)}"
            return None
        values = np.multiply(raw[0], self._scales, dtype=np.float32)
        values *= peak / 127
        # rounding: of the estimate (3 float32 roundings) and of two exact float32 products
        rounding = (
            (2 * self._width + 8) * 2.0**-24 * (self._size + self._error) * (norm + rest_norm)
        )
        bound = self._error * norm + self._size * rest_norm + rounding
        return values, bound

    def search(self, rows: np.ndarray, query: np.ndarray, limit: int) -> VectorScores | None:
        """The query's scores with the `limit` best tools of an exact search as `hits`, or None
        (see `estimate`)."""
        estimated = self.estimate(query)
        if estimated is None:
            return None
        values, bound = estimated
        count = len(values)
        known = np.zeros(count, dtype=bool)
        scores = VectorScores(values, [], rows=rows, query=query, known=known, bound=bound)
        limit = min(limit, count)
        if limit <= 0:
            return scores
        # A cut that `limit` estimates or more reach (the k-th best of the maxima of groups of
        # tools: one pass, where the k-th best estimate of all takes a partition): at least k
        # tools have a cosine ≥ cut − bound, so a tool below cut − 2·bound is not among the k
        # best, and rescoring the others finds them. When many are that near, the best ones
        # rescored first give a higher floor (their k-th best cosine), which leaves fewer.
        size = min(_GROUP, count // (4 * limit))
        if size > 1:
            best = values[: count // size * size].reshape(size, -1).max(axis=0)
            cut = float(np.partition(best, len(best) - limit)[len(best) - limit])
        else:
            cut = float(np.partition(values, count - limit)[count - limit])
        near = np.flatnonzero(values >= cut - 2 * bound)
        if len(near) > 3 * limit:
            head = near[values[near] >= cut]
            exact = scores.first_exact(head)
            floor = float(np.partition(exact, len(exact) - limit)[len(exact) - limit])
            near = near[values[near] >= floor - bound]
            exact = scores.exact_at(near)
        else:
            exact = scores.first_exact(near)
        order = np.argsort(-exact, kind="stable")[:limit]  # `near` is in catalog order
        scores.hits = list(zip(near[order].tolist(), exact[order].tolist(), strict=True))
        return scores


def _said(exc: BaseException) -> str:
    return one_line(f"{type(exc).__name__}: {exc}", 200, collapse=True)


class VectorIndex:
    """Tool vectors (canonical template), cached on disk by model and catalog.

    The cache is untrusted: a file is used only if it is a plain float32 `.npy` of exactly
    (tools × width) finite values, else it is set aside and rebuilt. The first build embeds
    in chunks of 64, reports `progress(done, total)`, and checkpoints every chunk, so an
    interrupted build continues where it stopped; the result is published atomically.

    From `quantised_from` tools the search scans int8 codes of the vectors and rescores its
    shortlist exactly (`query`). The codes are made from the float32 rows whenever they are
    set (about 0.06 s per 10,000 tools of 384 dimensions), never read from disk: the float32
    file stays the only cache to validate. `notes` says when they cannot be made (NumKong not
    installed, no SIMD kernels, a failed self-test): the search is then the float32 one."""

    quantised_from: int | None = QUANTISED_FROM
    """From how many tools the search scans int8 codes (None: never); read when the matrix is
    set."""

    def __init__(
        self,
        catalog: Catalog,
        embedder: Embedder,
        folder: Path | CacheDir,
        *,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.embedder = embedder
        self.built = False
        self.path: Path | None = None
        """The cache file the vectors came from or went to (None: not cached)."""
        self.resumed = 0
        """Rows taken over from an interrupted build."""
        self.notes: list[str] = []
        places = folder if isinstance(folder, CacheDir) else cache_dir(folder)
        digest = hashlib.sha256(embedder.model_id.encode()).hexdigest()[:12]
        name = f"vectors-{digest}-{catalog.fingerprint}.npy"
        texts = [embedding_text(tool) for tool in catalog.tools]
        width = _dimension(embedder)
        loaded = self._cached(places, name, len(texts), width)
        if loaded is not None:
            self.matrix, self.path = loaded
            return
        final = places.write / name
        checkpoint = None
        if texts:
            with contextlib.suppress(OSError):
                checkpoint = _Checkpoint.open(
                    places.write / f".{name.removesuffix('.npy')}.partial", len(texts), width
                )
        try:
            if checkpoint is not None and (again := self._cached(places, name, len(texts), width)):
                self.matrix, self.path = again  # another process finished while we waited
                checkpoint.close(finished=True)  # a checkpoint of finished vectors: not needed
                checkpoint = None
                return
            self.matrix = self._embed_all(texts, checkpoint, progress)
        except BaseException:
            if checkpoint is not None:
                checkpoint.close(finished=False)
            raise
        self.built, self.path = True, final
        try:
            self._save(final)
        except OSError as exc:
            self.notes.append(f"tool vectors not cached in {places.write}: {exc.strerror or exc}")
        if checkpoint is not None:
            checkpoint.close(finished=True)

    def _cached(
        self, places: CacheDir, name: str, rows: int, width: int | None
    ) -> tuple[np.ndarray, Path] | None:
        for place in places.places:
            path = place / name
            if not os.path.lexists(path):
                continue
            matrix = _load_matrix(path, rows, width)
            if isinstance(matrix, np.ndarray):
                return matrix, path
            self.notes.append(f"vector cache {path} {matrix}: rebuilt")
            if place == places.write:
                discard(path)
        return None

    def _embed_all(
        self,
        texts: list[str],
        checkpoint: _Checkpoint | None,
        progress: ProgressCallback | None,
    ) -> np.ndarray:
        who = redact_url(self.embedder.model_id)
        width = _dimension(self.embedder)
        # A batch is padded to its longest text: batches of similar lengths halve the tokens
        # the model runs on. The checkpoint holds rows in this order; it is the same next time.
        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
        texts = [texts[i] for i in order]
        chunks: list[np.ndarray] = []
        if checkpoint is not None and checkpoint.rows is not None and len(checkpoint.rows):
            chunks.append(checkpoint.rows)
            self.resumed = len(checkpoint.rows)
        done = self.resumed
        if progress is not None:
            progress(done, len(texts))
        while done < len(texts):
            part = texts[done : done + _CHUNK]
            rows = _check_rows(self.embedder.embed(part), len(part), width, who)
            if width is None:
                width = rows.shape[1]
                if chunks and chunks[0].shape[1] != width:  # the model changed under its name
                    chunks, done, self.resumed = [], 0, 0
                    continue
            chunks.append(rows)
            if checkpoint is not None:
                checkpoint.append(rows)
            done += len(part)
            if progress is not None:
                progress(done, len(texts))
        if not chunks:
            return np.zeros((0, width or 1), dtype=np.float32)
        rows = np.vstack(chunks).astype(np.float32, copy=False)
        matrix = np.empty_like(rows)
        matrix[order] = rows
        return matrix

    def _save(self, path: Path) -> None:
        # Streamed into the cache's own temporary file, so the matrix is never copied to bytes.
        replace_file_with(
            path,
            lambda stream: np.save(stream, np.ascontiguousarray(self.matrix), allow_pickle=False),
            temporary=temporary_sibling(path, folder=False),
        )

    @classmethod
    def from_matrix(
        cls,
        matrix: np.ndarray,
        embedder: Embedder,
        *,
        quantised_from: int | Literal["default"] | None = "default",
    ) -> VectorIndex:
        """An index over vectors computed elsewhere (benchmarks, precomputed catalogs);
        `quantised_from` overrides the class's for this index."""
        rows = _check_rows(matrix, len(matrix), None, redact_url(embedder.model_id))
        index = cls.__new__(cls)
        index.embedder, index.built = embedder, False
        index.resumed, index.notes, index.path = 0, [], None
        if quantised_from != "default":
            index.quantised_from = quantised_from
        index.matrix = _normalise(rows)
        return index

    @property
    def matrix(self) -> np.ndarray:
        """The tool vectors, one row per tool (float32). Without int8 codes they are stored
        column-major: on one thread OpenBLAS multiplies a column-major matrix by a vector 3×
        faster than a row-major one (measured: 0.36 against 1.1 ms at 10,000 × 384). With
        them, row-major: the search reads whole rows to rescore its shortlist."""
        return self._matrix

    @matrix.setter
    def matrix(self, rows: np.ndarray) -> None:
        self._scan: _Int8Scan | None = None
        threshold = self.quantised_from
        if threshold is not None and len(rows) >= max(threshold, 1):
            scan = _Int8Scan.build(rows)
            if isinstance(scan, str):
                self.notes.append(f"exact vector search over {len(rows):,} tools: {scan}")
            else:
                self._scan = scan
        self._matrix = np.asfortranarray(rows) if self._scan is None else np.ascontiguousarray(rows)

    @property
    def quantised(self) -> bool:
        """True when the search scans int8 codes (`quantised_from` tools or more, NumKong
        installed and working)."""
        return self._scan is not None

    @property
    def nbytes(self) -> int:
        """The memory of the vectors: float32 rows, plus int8 codes and scales when quantised."""
        scan = self._scan
        return self._matrix.nbytes + (scan.nbytes if scan is not None else 0)

    @property
    def width(self) -> int:
        return int(self.matrix.shape[1])

    def check_query(self, query_vector: object) -> np.ndarray:
        """`query_vector` as a finite float32 vector of this index's width, or EmbedderError."""
        vector = np.asarray(query_vector)
        if vector.shape != (self.width,):
            raise EmbedderError(
                f"the query vector has shape {vector.shape}, the tool vectors {self.width} "
                "dimensions"
            )
        if not np.isfinite(vector).all():
            raise EmbedderError("the query vector holds values that are not finite (NaN)")
        return vector

    def similarities(self, query_vector: np.ndarray) -> np.ndarray:
        """The exact cosine similarity of the query to every tool, in catalog order: every
        tool at once (e.g. "why not this tool?"); a search uses `query`. One float32 product
        on one BLAS thread (waking a second one costs milliseconds on a busy machine, the
        product itself a fraction of one); with int8 codes, the rows one by one as `query`
        rescores them, so that both give a tool the same cosine."""
        if self._scan is not None:
            return _cosines(self._matrix, np.asarray(query_vector, dtype=np.float32))
        with one_blas_thread():
            scores: np.ndarray = self.matrix @ query_vector
        return scores

    def query(self, query_vector: np.ndarray, limit: int) -> VectorScores:
        """The query's `VectorScores`, whose `hits` are the `limit` best tools and their
        cosines, those of an exact float32 search: one product below `quantised_from` tools,
        else the int8 scan and an exact rescore of its shortlist. On one BLAS thread."""
        scan = self._scan
        if scan is not None:
            found = scan.search(self._matrix, np.asarray(query_vector, dtype=np.float32), limit)
            if found is not None:
                return found
            if scan.failure is not None:  # NumKong broke: exact searches from now on
                self.notes.append(f"exact vector search from now on: {scan.failure}")
                self._scan = None
                self._matrix = np.asfortranarray(self._matrix)
        with one_blas_thread():
            values: np.ndarray = self._matrix @ query_vector
        return VectorScores(values, _top(values, limit))

    def search(
        self, query_vector: np.ndarray, limit: int, scores: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(tool index, cosine similarity) of the `limit` best tools, best first; ties keep
        catalog order. `scores`: every similarity, when they were computed already."""
        if scores is None:
            return self.query(query_vector, limit).hits
        return _top(scores, limit)
