"""One engine per catalog: `Engines`, a small thread-safe cache of `ToolSearch` engines shared by
everyone who ranks a catalog's tools in one process (the command line, regression and compare
suites, batch workers, the window's models).

An engine is keyed by the catalog's digest (the fingerprint of its standardised tools) and its
path: two files with the same tools still differ in what the engine's `catalog` says about
them (its source, format and skipped entries), which the callers show. A reference is checked
when its catalog is loaded: a file that changed since the reference was made is a
`CatalogError`, never an engine for other tools under the old digest.

This module stays cheap to import (the window makes its `Engines` before the routers load):
the catalog reader and the engine are imported when the first engine is built.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from .._errors import CatalogError, one_line

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._catalog import Catalog
    from ._search import ToolSearch
    from ._vectors import ProgressCallback

__all__ = ["DEFAULT_ENGINES", "CatalogKey", "Engines"]

DEFAULT_ENGINES = 4
"""Engines kept by default: a window's catalog, side B of a comparison and a few recent ones
(each holds a Tantivy index and the tool vectors in memory)."""

_Key = tuple[str, str]
"""(digest, path)."""


class CatalogKey(Protocol):
    """What names a catalog's content: its path and the digest of its tools (`CatalogRef` is
    one; the tool search cannot import it, it sits in a layer above)."""

    @property
    def path(self) -> str: ...

    @property
    def digest(self) -> str: ...


class Engines:
    """A small least-recently-used cache of tool-search engines, one per catalog.

    `get(ref)` loads the catalog at `ref.path` the first time, checks that its tools are still
    the ones `ref.digest` names, and builds its engine; later calls return the same engine.
    `of(catalog)` does the same for a catalog already loaded (the caller read it to report its
    skipped entries, or to take its reference). `cached(ref)` never loads.

    Thread-safe: the window's worker lanes and Dask's threads share one. A catalog is loaded
    and its engine built once even when several threads ask at the same time, and without
    holding up the lookups of other catalogs (a UI thread asking `cached` never waits for a
    build).
    """

    _shared: ClassVar[Engines | None] = None
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        size: int = DEFAULT_ENGINES,
        *,
        cache: Path | None = None,
        progress: ProgressCallback | None = None,
    ) -> None:
        """`size`: the engines kept (the least recently used one goes first); `cache`: the
        folder of their indexes and vectors (default: the user's cache folder); `progress`
        hears about each engine's first build of its tool vectors."""
        if size < 1:
            raise ValueError(f"an Engines cache keeps at least one engine, not {size}")
        self.size = size
        self.cache = cache
        self.progress = progress
        self._engines: OrderedDict[_Key, ToolSearch] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[_Key, threading.Lock] = {}
        """One lock per catalog being built: a second caller waits for the first one's engine
        instead of building its own."""

    @classmethod
    def shared(cls) -> Engines:
        """The process-wide instance (default size and cache folder), for code with no owner
        to hand one down (a batch worker process). Tests that fill it can `clear()` it."""
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def get(self, ref: CatalogKey) -> ToolSearch:
        """The engine of the catalog `ref` names, loaded and built on first use.
        `CatalogError` when the catalog cannot be loaded, or its tools changed since `ref`
        was made."""
        return self._engine((ref.digest, ref.path), lambda: _checked(ref))

    def of(self, catalog: Catalog) -> ToolSearch:
        """The engine of a catalog already loaded (kept by its fingerprint and source path):
        the engine kept for it, else one built on `catalog`."""
        return self._engine((catalog.fingerprint, catalog.source), lambda: catalog)

    def cached(self, ref: CatalogKey) -> ToolSearch | None:
        """The engine kept for `ref`, or None: never loads or builds."""
        with self._lock:
            return self._hit((ref.digest, ref.path))

    def clear(self) -> None:
        """Forget every engine (those handed out keep working)."""
        with self._lock:
            self._engines.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._engines)

    def _engine(self, key: _Key, load: Callable[[], Catalog]) -> ToolSearch:
        with self._lock:
            engine = self._hit(key)
            if engine is not None:
                return engine
            building = self._building.setdefault(key, threading.Lock())
        try:
            with building:
                with self._lock:  # built by the thread we waited for?
                    engine = self._hit(key)
                if engine is None:
                    engine = self._build(load())
                    with self._lock:
                        self._engines[key] = engine
                        while len(self._engines) > self.size:
                            self._engines.popitem(last=False)
                return engine
        finally:
            with self._lock:
                if self._building.get(key) is building:
                    del self._building[key]

    def _hit(self, key: _Key) -> ToolSearch | None:
        """The engine kept under `key`, now the most recently used (the lock is held)."""
        engine = self._engines.get(key)
        if engine is not None:
            self._engines.move_to_end(key)
        return engine

    def _build(self, catalog: Catalog) -> ToolSearch:
        from ._search import ToolSearch

        return ToolSearch(catalog, cache=self.cache, progress=self.progress)


def _checked(ref: CatalogKey) -> Catalog:
    """The catalog at `ref.path`, when its tools are still the ones `ref.digest` names."""
    from ._catalog import load_catalog

    catalog = load_catalog(ref.path)
    if catalog.fingerprint != ref.digest:
        raise CatalogError(
            one_line(
                f"{ref.path}: the catalog changed since it was opened (its tools were "
                f"{ref.digest}, now {catalog.fingerprint}): open it again"
            )
        )
    return catalog
