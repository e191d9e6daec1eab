"""What an embedder's answer must be before anything keeps it: a finite float32 matrix of one
row per text, at most `MAX_DIMENSION` wide, L2-normalised. Shared by the embedders, the vector
cache and the index, so that each checks rows the same way."""

from __future__ import annotations

import numpy as np

from .._embedding import normalise as _normalise
from .._errors import EmbedderError

__all__ = ["MAX_DIMENSION", "check_rows", "normalise"]

MAX_DIMENSION = 65_536
"""The widest vector accepted (a bound on what an untrusted answer or cache file may claim)."""


def normalise(rows: np.ndarray) -> np.ndarray:
    """Each row L2-normalised, as float32 (`routescope._embedding.normalise`)."""
    return _normalise(rows)


def check_rows(rows: object, count: int, width: int | None, who: str) -> np.ndarray:
    """An embedder's answer as a finite float32 matrix of `count` rows (and `width` columns)."""
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError, OverflowError):
        raise EmbedderError(
            f"embedding model {who} returned something that is not a matrix"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != count or not 0 < matrix.shape[1] <= MAX_DIMENSION:
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
