"""Research in other words: the embedding model the project ships (all-MiniLM-L6-v2, int8
ONNX, `routescope._embedding`) reads the goal and the pages' passages, beside the term evidence.

- **Passages** (`passages`): a document's title, the first paragraphs of its text and the
  paragraphs that introduce a function or a class (`name(): what it does`), each cut at
  `PASSAGE_CHARS` — the sentences that say what a module can do, at most `PASSAGES_PER_PAGE`.
- **The offline corpus's passage vectors** (`PassageIndex`, `PassageVectors`) are embedded once
  per corpus and model, in batches sorted by length, and cached beside the offline index (a
  file written atomically, checked when read: a bad one is rebuilt). They rank the corpus for a
  query by its best passage (`PassageVectors.rank`: the embedding model alone, and the dense
  half of the offline search's hybrid ranking) and give the pages read their passages without
  embedding them again.
- **A run's semantics** (`Semantics`): the goal and its aspects (`aspects`: the clauses it asks
  for, "save a list" and "read it back") embedded once; each page read is scored by its best
  passage against the goal (`PageSemantics.similarity`, the passage quoted) and against each
  aspect. Pages that are not in the offline index (the web) have their passages embedded at
  read time, `PASSAGES_PER_PAGE` at most.

Without the model (the `semantic` extra not installed) `semantics_for` answers None, and the
evidence says it is terms only. Query-time products run on one BLAS thread."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from .._analysis import COMPOUND_WORD
from .._cache import cache_dir, discard, write_atomically
from .._embedding import one_blas_thread
from .._errors import EmbedderError, one_line
from ..optimise._goal_terms import STOPWORDS

__all__ = [
    "PASSAGES_PER_PAGE",
    "PASSAGE_CHARS",
    "BuildStoppedError",
    "Embedder",
    "PageSemantics",
    "PassageIndex",
    "PassageVectors",
    "Semantics",
    "aspects",
    "bundled_embedder",
    "passages",
]

PASSAGE_CHARS = 200
"""A passage is cut here (on a word boundary)."""
PASSAGES_PER_PAGE = 48
"""At most this many passages of one document (its title included)."""
_LIST_LINES = 16
"""At most this many lines of a module's summary lists become passages."""
_LIST_ITEM = re.compile(r"^[\w.()\[\], *]{2,60}\s+--\s+\S")
"""A line of a summary list: `gethostname() -- return the current hostname`."""
_HEADING = re.compile(r"^(?:class )?[A-Za-z_][\w.]*(?:\(\))?: \S")
"""A paragraph that introduces a function or a class: `node(): Returns the computer's …`."""
_FORMAT = 2
_BATCH = 32
_QUERY_CACHE = 256


class Embedder(Protocol):
    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...


# -- passages ------------------------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ", limit // 2)
    return cut[:space] if space > 0 else cut


def passages(title: str, body: str, *, limit: int = PASSAGES_PER_PAGE) -> list[str]:
    """The passages of one document that say what it is about: its title, its first two
    paragraphs, the lines of the lists that sum a module up (`gethostname() -- return the
    current hostname`), then every paragraph that introduces a function or a class (a
    module's reference), else its next paragraphs; each cut at `PASSAGE_CHARS`, at most
    `limit`."""
    found = [" ".join(title.split())] if title.strip() else []
    raw = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    paragraphs = [" ".join(p.split()) for p in raw]
    paragraphs = [p for p in paragraphs if len(p) >= 20]
    listed = [
        " ".join(line.split())
        for paragraph in raw
        for line in paragraph.splitlines()
        if _LIST_ITEM.match(line.strip())
    ][:_LIST_LINES]
    headings = [p for p in paragraphs if _HEADING.match(p)]
    if len(headings) >= 4:
        lead = [p for p in paragraphs[:2] if not _HEADING.match(p)]
        chosen = lead + listed + headings
    else:
        chosen = paragraphs[:2] + listed + paragraphs[2:]
    for paragraph in chosen:
        if len(found) >= limit:
            break
        passage = _cut(paragraph, PASSAGE_CHARS)
        if passage not in found:
            found.append(passage)
    return found[: max(1, limit)]


_SPLIT = re.compile(
    r"\s*(?:,|;|\band then\b|\bthen\b|\band\b(?! vice versa)|\bwhile\b|\bbut\b)\s*", re.I
)


def aspects(goal: str) -> list[str]:
    """The separate things a goal asks for: its clauses (split at "and", "then", commas), each
    with two content words or more (a shorter one joins its neighbour); the goal itself when
    it asks for one thing."""
    parts = [p.strip(" ?.!") for p in _SPLIT.split(goal) if p and p.strip(" ?.!")]
    merged: list[str] = []
    for part in parts:
        words = [w for w in COMPOUND_WORD.findall(part) if w.lower() not in STOPWORDS]
        if merged and len(words) < 2:
            merged[-1] = f"{merged[-1]} and {part}"
        elif not merged and len(words) < 2 and len(parts) > 1:
            merged.append(part)
        else:
            merged.append(part)
    if (
        len(merged) > 1
        and len([w for w in COMPOUND_WORD.findall(merged[0]) if w.lower() not in STOPWORDS]) < 2
    ):
        merged[1] = f"{merged[0]} {merged[1]}"
        merged.pop(0)
    return merged if len(merged) > 1 else [goal.strip()]


# -- the corpus's passage vectors ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PassageVectors:
    """The passages of a corpus and their vectors: document `i` owns rows
    `starts[i]:starts[i + 1]`."""

    urls: tuple[str, ...]
    starts: np.ndarray
    texts: tuple[str, ...]
    vectors: np.ndarray
    model_id: str
    build_seconds: float = 0.0
    _where: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._where:
            self._where.update({url: i for i, url in enumerate(self.urls)})

    @property
    def count(self) -> int:
        return len(self.texts)

    def page(self, url: str) -> tuple[tuple[str, ...], np.ndarray] | None:
        """The passages of the document at `url` and their vectors, or None."""
        index = self._where.get(url)
        if index is None:
            return None
        start, end = int(self.starts[index]), int(self.starts[index + 1])
        return self.texts[start:end], self.vectors[start:end]

    def rank(self, query: np.ndarray, k: int) -> list[tuple[str, float, str]]:
        """The `k` documents whose best passage is nearest `query` (a normalised vector):
        (URL, cosine, that passage), best first."""
        if not self.urls or k <= 0:
            return []
        with one_blas_thread():
            scores = self.vectors @ query.astype(np.float32)
        starts = self.starts[:-1]
        nonempty = self.starts[1:] > starts
        best = np.full(len(self.urls), -1.0, dtype=np.float32)
        if nonempty.any():
            best[nonempty] = np.maximum.reduceat(scores, starts[nonempty])
        top = np.argsort(-best, kind="stable")[:k]
        ranked = []
        for i in top:
            if not nonempty[i]:
                continue
            start, end = int(self.starts[i]), int(self.starts[i + 1])
            at = start + int(np.argmax(scores[start:end]))
            ranked.append((self.urls[i], round(float(best[i]), 4), self.texts[at]))
        return ranked


def _embed_sorted(
    embedder: Embedder, texts: Sequence[str], stop: threading.Event | None = None
) -> np.ndarray:
    """`texts` embedded in batches of similar length (little padding), in their order. When
    `stop` is set, `BuildStoppedError` is raised before the next batch."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    rows: list[np.ndarray] = []
    for start in range(0, len(order), _BATCH):
        if stop is not None and stop.is_set():
            raise BuildStoppedError("the passage vectors' build was stopped")
        batch = [texts[i] for i in order[start : start + _BATCH]]
        rows.append(np.asarray(embedder.embed(batch), dtype=np.float32))
    if not rows:
        return np.zeros((0, 1), dtype=np.float32)
    stacked = np.concatenate(rows)
    vectors = np.empty_like(stacked)
    vectors[np.asarray(order)] = stacked
    return vectors


def _pack(vectors: PassageVectors, key: str) -> bytes:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        header=np.array(
            json.dumps(
                {
                    "format": _FORMAT,
                    "key": key,
                    "model": vectors.model_id,
                    "seconds": vectors.build_seconds,
                }
            )
        ),
        urls=np.array(vectors.urls, dtype=str),
        starts=vectors.starts.astype(np.int64),
        texts=np.array(vectors.texts, dtype=str),
        vectors=vectors.vectors.astype(np.float16),
    )
    return buffer.getvalue()


def _unpack(path: Path, key: str, model_id: str) -> PassageVectors | None:
    """The vectors cached at `path` if they are this corpus's and model's, whole and sane."""
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            urls = tuple(str(u) for u in data["urls"])
            starts = np.asarray(data["starts"], dtype=np.int64)
            texts = tuple(str(t) for t in data["texts"])
            vectors = np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError, EOFError):
        return None
    if header.get("format") != _FORMAT or header.get("key") != key:
        return None
    if header.get("model") != model_id or vectors.ndim != 2:
        return None
    if len(starts) != len(urls) + 1 or int(starts[0]) != 0 or int(starts[-1]) != len(texts):
        return None
    if np.any(np.diff(starts) < 0) or vectors.shape[0] != len(texts):
        return None
    if not np.isfinite(vectors).all():
        return None
    seconds = header.get("seconds", 0.0)
    return PassageVectors(
        urls,
        starts,
        texts,
        vectors,
        model_id,
        float(seconds) if isinstance(seconds, int | float) else 0.0,
    )


class BuildStoppedError(EmbedderError):
    """`PassageIndex.stop` stopped a build of passage vectors: nothing was cached."""


class PassageIndex:
    """The passage vectors of one corpus, built once per corpus and model and cached in
    `cache` (`passages-<key>-<model>.npz`): `open()` loads or builds them, once,
    thread-safely. `documents` yields the corpus's (url, title, body); `embedder` makes the
    model for the build (it may use every core: a one-off), `model_id` names it. `stop()`
    ends a build under way after its current batch (`BuildStoppedError`)."""

    def __init__(
        self,
        cache: Path,
        key: str,
        documents: Callable[[], Iterable[tuple[str, str, str]]],
        *,
        embedder: Callable[[], Embedder],
        model_id: str,
    ) -> None:
        self.cache = cache
        self.key = key
        self.model_id = model_id
        self._documents = documents
        self._embedder = embedder
        self._lock = threading.Lock()
        self._vectors: PassageVectors | None = None
        self._stop = threading.Event()
        self.note = ""
        """What happened to the cache (rebuilt, not writable), one line; "" when nothing."""

    @property
    def ready(self) -> bool:
        """The vectors are loaded (no build waits)."""
        return self._vectors is not None

    def path(self) -> Path:
        safe = re.sub(r"[^A-Za-z0-9.-]+", "-", self.model_id)[:60]
        return cache_dir(self.cache).folder / f"passages-{self.key[:24]}-{safe}.npz"

    def cached(self) -> bool:
        """Whether a file for these vectors is there (not checked: `open` checks it)."""
        return self.ready or self.path().is_file()

    def stop(self) -> None:
        """End a build under way after the batch it is embedding, and any later one at once:
        `open` then raises `BuildStoppedError`. Loaded vectors stay usable."""
        self._stop.set()

    def open(self) -> PassageVectors:
        """The corpus's passage vectors: the cached file when it is sound, else built (and
        cached when the folder can be written). Raises EmbedderError (one line) when the model
        cannot run."""
        with self._lock:
            if self._vectors is None:
                self._vectors = self._load_or_build()
            return self._vectors

    def _load_or_build(self) -> PassageVectors:
        places = cache_dir(self.cache)
        final = places.folder / self.path().name
        if final.is_file():
            found = _unpack(final, self.key, self.model_id)
            if found is not None:
                return found
            self.note = f"passage vectors at {final} were not sound: rebuilt"
            with contextlib.suppress(OSError):
                discard(final)
        vectors = self.build()
        target = places.write / final.name
        try:
            write_atomically(target, _pack(vectors, self.key))
        except OSError as exc:
            self.note = f"passage vectors not cached: {one_line(str(exc), 160)}"
        if places.note:
            self.note = places.note
        return vectors

    def build(self) -> PassageVectors:
        """Embed the corpus's passages (not cached)."""
        started = time.perf_counter()
        urls: list[str] = []
        starts = [0]
        texts: list[str] = []
        seen: set[str] = set()
        for url, title, body in self._documents():
            if self._stop.is_set():
                raise BuildStoppedError("the passage vectors' build was stopped")
            if url in seen:
                continue
            seen.add(url)
            urls.append(url)
            texts.extend(passages(title, body))
            starts.append(len(texts))
        embedder = self._embedder()
        vectors = (
            _embed_sorted(embedder, texts, self._stop) if texts else np.zeros((0, 384), np.float32)
        )
        return PassageVectors(
            tuple(urls),
            np.asarray(starts, dtype=np.int64),
            tuple(texts),
            vectors,
            self.model_id,
            round(time.perf_counter() - started, 2),
        )


# -- the bundled model ---------------------------------------------------------------------------

_MODELS: dict[int, Embedder] = {}
_MODELS_LOCK = threading.Lock()


def bundled_embedder(threads: int = 1) -> Embedder | None:
    """The bundled MiniLM (one per thread count and process), or None when it is not
    installed or cannot load."""
    with _MODELS_LOCK:
        known = _MODELS.get(threads)
        if known is not None:
            return known
        from .._embedding import MiniLMOnnx, model_installed

        if not model_installed():
            return None
        try:
            model = MiniLMOnnx(threads=threads, max_tokens=128)
        except EmbedderError:
            return None
        _MODELS[threads] = model
        return model


def build_threads() -> int:
    """Threads for a one-off build: every core (at most 4)."""
    return max(1, min(4, os.cpu_count() or 1))


# -- one run's semantics -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PageSemantics:
    """How near a page's passages come to the goal and to each of its aspects."""

    url: str
    similarity: float
    """The cosine of the goal and the page's nearest passage."""
    passage: str
    """That passage."""
    aspects: tuple[float, ...]
    """Per aspect of the goal, the cosine of its nearest passage on the page."""
    aspect_passages: tuple[str, ...]


class Semantics:
    """One run's goal, read by the embedding model: the goal and its aspects embedded once;
    `pages` scores the pages read (passages from `vectors` when the page is in the offline
    index, embedded here otherwise)."""

    def __init__(
        self, goal: str, embedder: Embedder, vectors: PassageVectors | None = None
    ) -> None:
        self.goal = goal
        self.embedder = embedder
        self.vectors = vectors
        self.aspects = tuple(aspects(goal))
        texts = [goal, *self.aspects] if len(self.aspects) > 1 else [goal]
        rows = np.asarray(embedder.embed(texts), dtype=np.float32)
        self.goal_vector = rows[0]
        self.aspect_vectors = rows[1:] if len(self.aspects) > 1 else rows[:1]
        self._pages: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}
        self.model_id = embedder.model_id

    def embed_query(self, text: str) -> np.ndarray:
        row: np.ndarray = np.asarray(self.embedder.embed([text]), dtype=np.float32)[0]
        return row

    def _passages(self, sources: Sequence[tuple[str, str, str]]) -> None:
        """Make sure every source's passages and vectors are known (one batch for the new)."""
        missing: list[tuple[str, list[str]]] = []
        for url, title, text in sources:
            if url in self._pages:
                continue
            known = self.vectors.page(url) if self.vectors is not None else None
            if known is not None:
                self._pages[url] = known
            else:
                missing.append((url, passages(title, text)))
        texts = [t for _, found in missing for t in found]
        if not texts:
            return
        rows = _embed_sorted(self.embedder, texts)
        at = 0
        for url, found in missing:
            self._pages[url] = (tuple(found), rows[at : at + len(found)])
            at += len(found)

    def pages(self, sources: Sequence[tuple[str, str, str]]) -> dict[str, PageSemantics]:
        """Each source (url, title, text) scored against the goal and its aspects."""
        self._passages(sources)
        scored: dict[str, PageSemantics] = {}
        for url, _, _ in sources:
            texts, rows = self._pages[url]
            if not texts:
                scored[url] = PageSemantics(url, 0.0, "", (0.0,) * len(self.aspect_vectors), ())
                continue
            with one_blas_thread():
                goal = rows @ self.goal_vector
                per_aspect = rows @ self.aspect_vectors.T
            best = int(np.argmax(goal))
            aspect_best = np.argmax(per_aspect, axis=0)
            scored[url] = PageSemantics(
                url,
                _cos(goal[best]),
                texts[best],
                tuple(_cos(per_aspect[i, a]) for a, i in enumerate(aspect_best)),
                tuple(texts[int(i)] for i in aspect_best),
            )
        return scored


def _cos(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]
    return 0.0 if math.isnan(number) else round(max(-1.0, min(1.0, number)), 4)
