"""Tool vectors: `VectorIndex` builds them (embedded in chunks, checkpointed, published to the
cache; `_vector_cache`) or reads them, and searches them — an exact float32 product for small
catalogs, from `QUANTISED_FROM` tools an int8 scan whose shortlist is rescored exactly (the same
tools, the same cosines; `_int8_scan`, `_vector_scores`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import numpy as np

from .._cache import CacheDir, cache_dir, discard, temporary_sibling
from .._embedding import one_blas_thread
from .._errors import EmbedderError
from .._files import replace_file_with
from .._secrets import redact_url
from ._catalog import Catalog
from ._embed import Embedder, embedding_text
from ._int8_scan import _Int8Scan
from ._rows import check_rows, normalise
from ._vector_cache import EMBED_CHUNK, Checkpoint, load_matrix
from ._vector_scores import VectorScores, cosine_scores, top_values

__all__ = [
    "QUANTISED_FROM",
    "ProgressCallback",
    "VectorIndex",
    "VectorScores",
    "one_blas_thread",
]

ProgressCallback = Callable[[int, int], None]
"""`progress(done, total)`: tools embedded so far, of all the catalog's tools."""
QUANTISED_FROM = 4_096
"""From this many tools the search scans int8 codes of the tool vectors (a quarter of the bytes
of float32) and rescores its shortlist exactly. Below, one float32 product costs little more
(measured right after a query embedding: 346 against 228 µs at 4,000 × 384, 149 against 144 at
1,000), and small catalogs keep their results to the last bit."""


def _dimension(embedder: Embedder) -> int | None:
    value = getattr(embedder, "dimension", None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


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
                checkpoint = Checkpoint.open(
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
            matrix = load_matrix(path, rows, width)
            if isinstance(matrix, np.ndarray):
                return matrix, path
            self.notes.append(f"vector cache {path} {matrix}: rebuilt")
            if place == places.write:
                discard(path)
        return None

    def _embed_all(
        self,
        texts: list[str],
        checkpoint: Checkpoint | None,
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
            part = texts[done : done + EMBED_CHUNK]
            rows = check_rows(self.embedder.embed(part), len(part), width, who)
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
        rows = check_rows(matrix, len(matrix), None, redact_url(embedder.model_id))
        index = cls.__new__(cls)
        index.embedder, index.built = embedder, False
        index.resumed, index.notes, index.path = 0, [], None
        if quantised_from != "default":
            index.quantised_from = quantised_from
        index.matrix = normalise(rows)
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
        self._mean_row: np.ndarray | None = None

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
            return cosine_scores(self._matrix, np.asarray(query_vector, dtype=np.float32))
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
        return VectorScores(values, top_values(values, limit))

    def mean_similarity(self, query_vector: np.ndarray) -> float:
        """The query's mean cosine over every tool: its dot product with the mean row (kept
        after the first call: one pass over the rows)."""
        if self._mean_row is None:
            rows = self._matrix
            mean = rows.mean(axis=0, dtype=np.float64) if len(rows) else np.zeros(rows.shape[1])
            self._mean_row = mean.astype(np.float32)
        return float(np.dot(self._mean_row, query_vector))

    def search(
        self, query_vector: np.ndarray, limit: int, scores: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(tool index, cosine similarity) of the `limit` best tools, best first; ties keep
        catalog order. `scores`: every similarity, when they were computed already."""
        if scores is None:
            return self.query(query_vector, limit).hits
        return top_values(scores, limit)
