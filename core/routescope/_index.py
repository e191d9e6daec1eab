"""Tantivy indexes kept in cache folders (the tool search's keyword index, the offline research
index), opened or built by one routine: `open_index`.

The cache is not trusted. A folder is opened only when its manifest (written last by the build:
what the index is, how many documents it holds, the size and SHA-256 of every file) is this
index's and matches the files, so Tantivy never sees a truncated or altered file (which could
make it panic); anything else is set aside and rebuilt, and a note says so. A build goes to a
private temporary folder published by one rename, so concurrent cold builds all succeed: when
another process publishes first, its folder is used if it verifies. When the cache folder cannot
be written (`CacheDir.write` is then a temporary folder), a valid index in the original folder is
copied in rather than rebuilt: Tantivy cannot open a folder it cannot lock.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tantivy

from ._cache import (
    CacheDir,
    clean_stale,
    discard,
    files_problem,
    folder_files,
    publish_folder,
    temporary_sibling,
    write_atomically,
)
from ._errors import RoutescopeError, one_line
from ._files import MB, read_bytes

__all__ = ["IndexSpec", "OpenIndex", "is_panic", "open_index"]

_MANIFEST = "manifest.json"
_LOCKS = frozenset({".tantivy-meta.lock", ".tantivy-writer.lock"})
_UNCHECKED = _LOCKS | {_MANIFEST}


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """What one index is and how it is written."""

    label: str
    """How messages and notes name it (`keyword index`)."""
    schema: tantivy.Schema
    identity: Mapping[str, Any]
    """What its manifest must hold to be this index: a format and a key, the document count
    when it is known before the build."""
    write: Callable[[tantivy.IndexWriter], int]
    """Adds the documents to an empty index (committed afterwards); returns how many."""
    error: Callable[[str], Exception]
    """The exception (one line) raised when the index can be neither opened nor built."""
    analyzers: Mapping[str, tantivy.TextAnalyzer] = field(default_factory=dict)
    """Tokenizers the schema names, registered whenever the index is opened."""
    check: Callable[[tantivy.Searcher], str | None] | None = None
    """Why an opened index is not the one wanted (its documents), or None."""
    heap_bytes: int = 15_000_000


@dataclass(slots=True)
class OpenIndex:
    """An index opened from a verified folder."""

    folder: Path
    index: tantivy.Index
    searcher: tantivy.Searcher
    documents: int
    build_seconds: float
    """How long its build took, by whichever process built it."""
    built: bool = False
    """True when this call built an index (ours, or another process's published first)."""
    notes: list[str] = field(default_factory=list)
    """What happened to the cache, one line each (a corrupt index rebuilt)."""


class _UnreadableError(RoutescopeError):
    """A manifest that cannot be read (never leaves this module)."""


def is_panic(exc: BaseException) -> bool:
    """A Rust panic surfaced by pyo3 (`pyo3_runtime.PanicException`, a BaseException)."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def open_index(spec: IndexSpec, places: CacheDir, name: str) -> OpenIndex:
    """The index `name` of `places`: opened when it verifies, copied in from a folder that
    cannot be written, else built. Raises `spec.error` (one line) when it cannot be built."""
    notes: list[str] = []
    for place in places.places:
        final = place / name
        if not os.path.lexists(final):
            continue
        if place == places.write:
            found = _open_verified(spec, final)
            if isinstance(found, str):
                discard(final)
        else:
            found = _copy_in(spec, final, places.write / name)
        if not isinstance(found, str):
            return found
        notes.append(f"{spec.label} {final}: {found}: rebuilt")
    built = _build(spec, places.write / name)
    built.notes[:0] = notes
    return built


def _copy_in(spec: IndexSpec, source: Path, final: Path) -> OpenIndex | str:
    """The index in `source` (a folder that cannot be written) copied to `final` when it
    verifies; otherwise why not."""
    checked = _files_checked(spec, source)
    if isinstance(checked, str):
        return checked
    try:
        temporary = temporary_sibling(final, folder=True)
    except OSError as exc:
        return f"cannot be copied: {exc.strerror or exc}"
    try:  # the files only: the copy must be writable whatever the source's modes
        for entry in os.scandir(source):
            if entry.name not in _LOCKS and entry.is_file(follow_symlinks=False):
                shutil.copyfile(entry.path, temporary / entry.name)
    except OSError as exc:
        shutil.rmtree(temporary, ignore_errors=True)
        return f"cannot be copied: {one_line(exc, 200, collapse=True)}"
    return _publish(spec, temporary, final, built=False)


def _build(spec: IndexSpec, final: Path) -> OpenIndex:
    clean_stale(final.parent)
    failed = f"{spec.label} cannot be built in {final.parent}"
    try:
        temporary = temporary_sibling(final, folder=True)
    except OSError as exc:
        raise spec.error(f"{failed}: {exc.strerror or exc}") from None
    try:
        _write(spec, temporary)
    except BaseException as exc:
        # Renamed aside, then removed: the index's reader reloads once on a thread of its own
        # (creating `.tantivy-meta.lock` by the folder's path), maybe while the folder is being
        # removed; removed where it stands, the folder would be left behind with that file.
        discard(temporary)
        if isinstance(exc, OSError | ValueError):
            raise spec.error(f"{failed}: {one_line(exc, 200, collapse=True)}") from None
        if is_panic(exc):
            raise spec.error(
                f"{failed}: Tantivy failed: {one_line(exc, 200, collapse=True)}"
            ) from None
        raise
    return _publish(spec, temporary, final, built=True)


def _publish(spec: IndexSpec, temporary: Path, final: Path, *, built: bool) -> OpenIndex:
    """Rename our complete folder into place; when another process was first, use its
    folder if it verifies (else replace it once), and drop ours."""
    for _ in range(2):
        if publish_folder(temporary, final):
            return _usable(spec, final, final, built)
        theirs = _open_verified(spec, final)
        if not isinstance(theirs, str):
            discard(temporary)
            theirs.built = built
            return theirs
        discard(final)
    # Still something in the way: ours is complete and private, use it where it is.
    return _usable(spec, temporary, final, built)


def _usable(spec: IndexSpec, folder: Path, final: Path, built: bool) -> OpenIndex:
    opened = _open_verified(spec, folder)
    if isinstance(opened, str):
        raise spec.error(f"{spec.label} {final} cannot be used after a build: {opened}")
    opened.built = built
    return opened


def _tantivy(spec: IndexSpec, folder: Path, *, reuse: bool) -> tantivy.Index:
    index = tantivy.Index(spec.schema, path=str(folder), reuse=reuse)
    for name, analyzer in spec.analyzers.items():
        index.register_tokenizer(name, analyzer)
    return index


def _write(spec: IndexSpec, folder: Path) -> None:
    """Index the documents into the empty `folder`, then write the manifest, last."""
    started = time.perf_counter()
    index = _tantivy(spec, folder, reuse=False)
    writer = index.writer(heap_size=spec.heap_bytes, num_threads=1)
    try:
        documents = spec.write(writer)
        writer.commit()
    except BaseException:
        _stop(writer)
        raise
    writer.wait_merging_threads()
    del writer, index  # the files are complete and closed before they are hashed
    manifest = {
        **spec.identity,
        "documents": documents,
        "build_seconds": round(time.perf_counter() - started, 3),
        "files": folder_files(folder, _UNCHECKED),
    }
    write_atomically(folder / _MANIFEST, json.dumps(manifest, indent=1).encode())


def _stop(writer: tantivy.IndexWriter) -> None:
    """End a failed build's writer: its threads are joined before the folder is removed (a
    writer left to the garbage collector, which a traceback delays, would go on writing into
    it). A writer that cannot be stopped (already consumed, or it panics) has no threads left
    to wait for."""
    try:
        writer.wait_merging_threads()
    except BaseException as exc:
        if not (isinstance(exc, Exception) or is_panic(exc)):
            raise


def _read_manifest(folder: Path) -> dict[str, Any] | str:
    try:
        info = os.lstat(folder)
    except OSError as exc:
        return exc.strerror or "cannot be read"
    if not stat.S_ISDIR(info.st_mode):
        return "not a folder"
    try:
        data = read_bytes(
            folder / _MANIFEST, what="manifest", limit=MB, error=_UnreadableError, streams=False
        )
        manifest = json.loads(data.decode("utf-8"))
    except (_UnreadableError, UnicodeDecodeError):
        return "incomplete (no manifest)"
    except (ValueError, RecursionError):
        return "its manifest is not valid JSON"
    return manifest if isinstance(manifest, dict) else "its manifest is malformed"


def _files_checked(spec: IndexSpec, folder: Path) -> dict[str, Any] | str:
    """The manifest of `folder` when it is this index's and the folder holds exactly the files
    it lists (sizes and SHA-256); otherwise why not (one line)."""
    manifest = _read_manifest(folder)
    if isinstance(manifest, str):
        return manifest
    if any(manifest.get(key) != value for key, value in spec.identity.items()):
        return f"its manifest is for another {spec.label} or format"
    documents = manifest.get("documents")
    if not isinstance(documents, int) or isinstance(documents, bool) or documents < 0:
        return "its manifest is malformed"
    files = manifest.get("files")
    if not isinstance(files, dict) or "meta.json" not in files:
        return "its manifest lists no files"
    return files_problem(folder, files) or manifest


def _open_verified(spec: IndexSpec, folder: Path) -> OpenIndex | str:
    """The index in `folder` when its files match its manifest and Tantivy opens it with the
    documents the manifest counts (and `spec.check` agrees); otherwise why not (one line)."""
    manifest = _files_checked(spec, folder)
    if isinstance(manifest, str):
        return manifest
    documents: int = manifest["documents"]
    try:
        index = _tantivy(spec, folder, reuse=True)
        searcher = index.searcher()
        if searcher.num_docs != documents:
            return f"holds {searcher.num_docs} documents, its manifest {documents}"
        problem = spec.check(searcher) if spec.check is not None else None
    except ValueError as exc:
        return f"Tantivy cannot open it: {one_line(exc, 200, collapse=True)}"
    except BaseException as exc:
        if not is_panic(exc):
            raise
        return f"Tantivy cannot open it: {one_line(exc, 200, collapse=True)}"
    if problem is not None:
        return problem
    seconds = manifest.get("build_seconds")
    return OpenIndex(
        folder=folder,
        index=index,
        searcher=searcher,
        documents=documents,
        build_seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
    )
