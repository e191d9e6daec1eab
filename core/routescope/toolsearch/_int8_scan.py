"""The int8 scan of the tool vectors: int8 codes with one scale per row, NumKong's SIMD dot
products against the query quantised the same way, a bound on how far each estimate is from
the exact cosine, and the exact rescore of every tool that bound cannot rule out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import one_line
from ._vector_scores import VectorScores

if TYPE_CHECKING:
    from numkong import PackedMatrix

__all__ = ["_Int8Scan"]

_QUANTISE_BLOCK = 4_096
"""Rows quantised at a time (bounds the float64 temporaries of a build)."""
_PROBE_ROWS = 512
"""Rows whose int8 products the self-test of a scan recomputes with numpy."""
_GROUP = 32
"""Tools per group whose best estimate the search's first cut is taken from."""


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
