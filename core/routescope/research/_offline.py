"""Offline search, the default backend: no network, no key.

A Tantivy index (title, body, url, source kind; BM25 with the title boosted 3×) over
documentation that is already on the machine:

- ``stdlib``: for each top-level module of ``sys.stdlib_module_names``, its module docstring and
  the docstrings of its public classes, methods and functions, read from the SOURCE with
  ``ast`` (never imported: ``antigravity``, ``this``, ``idlelib``, ``tkinter`` have side
  effects), a package's public submodules included; modules without Python source are skipped,
  except a short allowlist of compiled modules that are safe to import (``sys``, ``math``,
  ``itertools``, ``time``…), whose docstrings are read from the imported objects. URL
  ``https://docs.python.org/3/library/<module>.html``.
- ``topic``: pydoc's topics (``pydoc_data.topics.topics``). Their labels do not name the page
  of the reference they come from, so the URL is the documentation's search page for the topic,
  ``https://docs.python.org/3/search.html?q=<topic>``.
- ``package``: the installed distributions' metadata (name, summary, long description,
  keywords); URL from ``Project-URL`` (Documentation first, then Homepage, then Source), else
  ``Home-page``, else ``https://pypi.org/project/<name>/``.

Every document's body is capped (``MAX_BODY_CHARS``) and so is their number
(``MAX_DOCUMENTS``). The index is built once per cache key (a hash of the Python version and
the installed distributions with their versions, or of the documents themselves when they are
given) in ``platformdirs.user_cache_dir("routescope")/research``, the first time it is needed
(not in the constructor, so constructing is cheap on a UI thread). The cache is not trusted: a
folder is opened only when its manifest (written last: size and SHA-256 of every file, the key,
the document count) matches; anything else is set aside and rebuilt. Builds go to a private
temporary folder renamed into place, so concurrent builds do not collide; a cache folder that
cannot be written falls back to a temporary one (``stats.notes`` says so).

``search`` never raises (cancellation aside): failures are ``SearchResponse`` values.
``document(url)`` gives a hit's page text from the index, so offline results are "fetched"
without HTTP.
"""

from __future__ import annotations

import ast
import asyncio
import atexit
import contextlib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import stat
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal
from urllib.parse import quote, urlsplit

import platformdirs
import tantivy

from routescope.research._loop import PageRead
from routescope.research._models import ProviderError, SearchHit, SearchResponse
from routescope.toolsearch import tokens

from .._cache import (
    clean_stale,
    discard,
    files_problem,
    folder_files,
    temporary_sibling,
    writable_problem,
)

__all__ = [
    "MAX_BODY_CHARS",
    "MAX_DOCUMENTS",
    "DocumentKind",
    "IndexStats",
    "OfflineDocument",
    "OfflineIndexError",
    "OfflineReader",
    "OfflineSearch",
    "machine_documents",
    "machine_key",
    "offline_cache_folder",
    "package_documents",
    "snippet",
    "stdlib_documents",
    "topic_documents",
]

DocumentKind = Literal["stdlib", "topic", "package", "other"]

MAX_BODY_CHARS = 20_000
"""A document's body is cut here (on a word boundary)."""
MAX_DOCUMENTS = 20_000
"""At most this many documents are indexed."""
MAX_TITLE_CHARS = 200
MAX_QUERY_CHARS = 2_000
MAX_QUERY_TERMS = 64
MAX_RESULTS_LIMIT = 50
SNIPPET_CHARS = 240
TITLE_BOOST = 3.0

_FORMAT = 1
"""The layout of an index folder and of its documents; a change makes every cache rebuild."""
_MANIFEST = "manifest.json"
_LOCKS = frozenset({".tantivy-meta.lock", ".tantivy-writer.lock"})
_UNCHECKED = _LOCKS | {_MANIFEST}
_MAX_SOURCE_BYTES = 2_000_000
_MAX_PACKAGE_FILES = 200
_SKIPPED_SUBPACKAGES = frozenset({"test", "tests", "idle_test", "__pycache__", "__phello__"})
_DOCS = "https://docs.python.org/3"
#: Compiled standard modules (no Python source) that are safe to import for their docstrings.
_SAFE_COMPILED = frozenset(
    {
        "array",
        "atexit",
        "binascii",
        "builtins",
        "cmath",
        "errno",
        "faulthandler",
        "fcntl",
        "gc",
        "grp",
        "itertools",
        "marshal",
        "math",
        "mmap",
        "posix",
        "pwd",
        "resource",
        "select",
        "sys",
        "time",
        "unicodedata",
        "zlib",
    }
)


@dataclass(frozen=True, slots=True)
class OfflineDocument:
    """One indexed page: ``url`` is where the text is published (http or https)."""

    url: str
    title: str
    body: str
    kind: DocumentKind = "other"


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What the index holds and what opening it did."""

    folder: Path
    documents: int
    size_bytes: int
    built: bool
    """True when this object built the index, False when it opened a cached one."""
    build_seconds: float
    """How long the build took (when it was built: by whichever process built it)."""
    notes: tuple[str, ...] = ()
    """What happened to the cache, one line each (temporary folder, corrupt index rebuilt)."""


# --- the machine's documentation -------------------------------------------------------------


def offline_cache_folder() -> Path:
    return Path(platformdirs.user_cache_dir("routescope")) / "research"


def _distributions() -> list[tuple[str, str, importlib.metadata.Distribution]]:
    """(normalised name, version, distribution), one per name (the first found), sorted."""
    seen: dict[str, tuple[str, str, importlib.metadata.Distribution]] = {}
    for dist in importlib.metadata.distributions():
        try:
            name = dist.metadata["Name"]
            version = dist.version
        except Exception:  # a broken METADATA file: not indexed
            continue
        if not isinstance(name, str) or not name.strip():
            continue
        key = re.sub(r"[-_.]+", "-", name.strip()).lower()
        seen.setdefault(key, (key, str(version), dist))
    return [seen[k] for k in sorted(seen)]


def machine_key() -> str:
    """The cache key of the machine's documentation: a hash of the Python version and the set
    of installed distributions with their versions (cheap: no documentation is read)."""
    payload = {
        "format": _FORMAT,
        "caps": [MAX_BODY_CHARS, MAX_DOCUMENTS],
        "python": sys.version,
        "implementation": sys.implementation.cache_tag,
        "stdlib": sysconfig.get_path("stdlib"),
        "distributions": [[name, version] for name, version, _ in _distributions()],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _documents_key(documents: Sequence[OfflineDocument]) -> str:
    digest = hashlib.sha256(json.dumps([_FORMAT, MAX_BODY_CHARS, MAX_DOCUMENTS]).encode())
    for document in documents:
        for part in (document.url, document.title, document.body, document.kind):
            encoded = part.encode("utf-8", "surrogatepass")
            digest.update(len(encoded).to_bytes(8, "big"))
            digest.update(encoded)
    return digest.hexdigest()


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def _literal_all(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return None
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                return set(value)
    return None


def _source_docs(path: Path, prefix: str) -> tuple[str, list[str]]:
    """The module docstring of the module at ``path`` ('' when none) and its documentation:
    that docstring, then its public classes with their public methods and its public
    functions, each as one paragraph; ('', []) when unreadable."""
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return "", []
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):
        return "", []
    parts: list[str] = []
    docstring = ast.get_docstring(tree)
    if docstring:
        parts.append(docstring if not prefix else f"{prefix}: {docstring}")
    public = _literal_all(tree)

    def shown(name: str) -> bool:
        return name in public if public is not None else not name.startswith("_")

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and shown(node.name):
            text = ast.get_docstring(node)
            if text:
                parts.append(f"{node.name}(): {text}")
        elif isinstance(node, ast.ClassDef) and shown(node.name):
            text = ast.get_docstring(node)
            if text:
                parts.append(f"class {node.name}: {text}")
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    not item.name.startswith("_") or item.name == "__init__"
                ):
                    text = ast.get_docstring(item)
                    if text:
                        parts.append(f"{node.name}.{item.name}(): {text}")
    return docstring or "", parts


def _module_source(name: str) -> tuple[Path, Path | None] | None:
    """(the module's source file, its package folder or None), without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    origin = spec.origin
    if origin and origin.endswith(".py") and os.path.isfile(origin):
        source = Path(origin)
    else:  # frozen modules (os, abc, io… in 3.11) still have their source in the stdlib
        filename = getattr(spec.loader_state, "filename", None)
        stdlib = Path(sysconfig.get_path("stdlib"))
        candidates = [Path(filename)] if isinstance(filename, str) else []
        candidates += [stdlib / f"{name}.py", stdlib / name / "__init__.py"]
        found = next((c for c in candidates if c.suffix == ".py" and c.is_file()), None)
        if found is None:
            return None
        source = found
    package = source.parent if source.name == "__init__.py" else None
    return source, package


def _package_files(package: Path) -> Iterator[tuple[Path, str]]:
    """The public submodule sources of a package, sorted, with their dotted suffix."""
    count = 0
    for root, folders, files in os.walk(package):
        folders[:] = sorted(
            f for f in folders if f not in _SKIPPED_SUBPACKAGES and not f.startswith(("_", "."))
        )
        here = Path(root)
        for filename in sorted(files):
            if not filename.endswith(".py") or filename.startswith("_"):
                continue
            count += 1
            if count > _MAX_PACKAGE_FILES:
                return
            relative = (here / filename).relative_to(package).with_suffix("")
            yield here / filename, ".".join(relative.parts)
        if here != package and (here / "__init__.py").is_file():
            relative_pkg = here.relative_to(package)
            yield here / "__init__.py", ".".join(relative_pkg.parts)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit + 1]
    space = cut.rfind(" ", limit // 2)
    return cut[:space] if space > 0 else text[:limit]


def _compiled_docs(name: str) -> tuple[str, list[str]]:
    """Like ``_source_docs`` for an allowlisted compiled module, imported (no side effects)."""
    try:
        module = sys.modules.get(name) or importlib.import_module(name)
    except Exception:
        return "", []
    parts: list[str] = []
    docstring = module.__doc__.strip() if isinstance(module.__doc__, str) else ""
    if docstring:
        parts.append(docstring)
    for attribute in sorted(vars(module)):
        if attribute.startswith("_"):
            continue
        value = getattr(module, attribute, None)
        if not callable(value) or getattr(value, "__module__", name) not in (name, None):
            continue
        doc = getattr(value, "__doc__", None)
        if isinstance(doc, str) and doc.strip():
            parts.append(f"{attribute}(): {doc.strip()}")
    return docstring, parts


def stdlib_documents(names: Iterable[str] | None = None) -> Iterator[OfflineDocument]:
    """One document per top-level standard module that has documentation here."""
    for name in sorted(names if names is not None else sys.stdlib_module_names):
        if name.startswith("_") or name in ("antigravity", "this", "__future__"):
            continue
        parts: list[str] = []
        summary = ""
        located = _module_source(name)
        if located is not None:
            source, package = located
            summary, parts = _source_docs(source, "")
            if package is not None:
                size = sum(len(p) for p in parts)
                for path, dotted in _package_files(package):
                    if size >= MAX_BODY_CHARS:
                        break
                    _, more = _source_docs(path, f"{name}.{dotted}")
                    size += sum(len(p) for p in more)
                    parts.extend(more)
        elif name in _SAFE_COMPILED:
            summary, parts = _compiled_docs(name)
        if not parts:
            continue
        summary = _first_line(summary)
        title = f"{name} — {summary}" if summary else name
        yield OfflineDocument(
            url=f"{_DOCS}/library/{quote(name)}.html",
            title=_cap(title, MAX_TITLE_CHARS),
            body=_cap("\n\n".join(parts), MAX_BODY_CHARS),
            kind="stdlib",
        )


def topic_documents() -> Iterator[OfflineDocument]:
    """One document per pydoc topic (the reference's text for a keyword or a concept)."""
    try:
        from pydoc_data.topics import topics
    except ImportError:
        return
    for topic in sorted(topics):
        text = topics[topic]
        if not isinstance(text, str) or not text.strip():
            continue
        heading = _first_line(text)
        title = f"{topic} — {heading}" if heading and heading.lower() != topic else topic
        yield OfflineDocument(
            url=f"{_DOCS}/search.html?q={quote(topic)}",
            title=_cap(title, MAX_TITLE_CHARS),
            body=_cap(text.strip(), MAX_BODY_CHARS),
            kind="topic",
        )


_URL_PREFERENCE = (
    ("documentation", "docs", "doc"),
    ("homepage", "home", "website"),
    ("source", "sourcecode", "repository", "code", "github"),
)


def _http_url(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value or len(value) > 2048 or any(c.isspace() for c in value):
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return value


def _project_url(meta: dict[str, Any], name: str) -> str:
    labelled: dict[str, str] = {}
    entries = meta.get("project_url") or []
    for entry in [entries] if isinstance(entries, str) else entries:
        if not isinstance(entry, str) or "," not in entry:
            continue
        label, _, value = entry.partition(",")
        url = _http_url(value)
        if url is not None:
            labelled.setdefault(re.sub(r"[^a-z]", "", label.lower()), url)
    for labels in _URL_PREFERENCE:
        for label in labels:
            if label in labelled:
                return labelled[label]
        if labels[0] == "homepage":
            home = _http_url(meta.get("home_page"))
            if home is not None and "UNKNOWN" not in home:
                return home
    return f"https://pypi.org/project/{quote(name)}/"


def package_documents() -> Iterator[OfflineDocument]:
    """One document per installed distribution: name, summary, keywords, long description."""
    for _, version, dist in _distributions():
        try:
            meta = dict(dist.metadata.json)
        except Exception:
            continue
        name = str(meta.get("name") or "").strip()
        if not name:
            continue
        summary = " ".join(str(meta.get("summary") or "").split())
        keywords = meta.get("keywords") or []
        if isinstance(keywords, str):
            keywords = re.split(r"[,\s]+", keywords)
        keyword_text = ", ".join(k for k in keywords if isinstance(k, str) and k)
        description = str(meta.get("description") or "").strip()
        if description == "UNKNOWN":
            description = ""
        body = "\n\n".join(
            p
            for p in (
                summary,
                f"Keywords: {keyword_text}" if keyword_text else "",
                description,
            )
            if p
        )
        title = f"{name} {version} — {summary}" if summary else f"{name} {version}"
        yield OfflineDocument(
            url=_project_url(meta, name),
            title=_cap(title, MAX_TITLE_CHARS),
            body=_cap(body or name, MAX_BODY_CHARS),
            kind="package",
        )


def machine_documents() -> Iterator[OfflineDocument]:
    """The documentation on this machine: standard modules, pydoc topics, distributions."""
    yield from stdlib_documents()
    yield from topic_documents()
    yield from package_documents()


# --- the cache (a small version of the tool search's) ----------------------------------------


def _folder_size(folder: Path) -> int:
    total = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_size
    return total


def _is_panic(exc: BaseException) -> bool:
    """A Rust panic surfaced by pyo3 (``pyo3_runtime.PanicException``, a BaseException)."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


class OfflineIndexError(Exception):
    """The offline index could not be opened or built (one line); ``search`` reports it."""


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("title", stored=True)
    builder.add_text_field("body", stored=True)
    builder.add_text_field("url", stored=True, tokenizer_name="raw")
    builder.add_text_field("kind", stored=True, tokenizer_name="raw")
    return builder.build()


@dataclass
class _Opened:
    folder: Path
    index: tantivy.Index
    searcher: tantivy.Searcher
    schema: tantivy.Schema
    documents: int
    built: bool
    build_seconds: float
    notes: list[str] = field(default_factory=list)


# --- the backend -----------------------------------------------------------------------------


class OfflineSearch:
    """The offline ``SearchProvider``: BM25 over the documentation on this machine.

    ``cache`` is the folder the index lives in (default ``offline_cache_folder()``);
    ``documents`` replaces the machine's documentation (tests index a small fixed corpus):
    a sequence, or a callable that yields them (called only when the index must be built).
    With a callable, give ``key`` too (the cache key of what it yields). The index is opened or
    built on first use (``search``, ``document``, ``open``), once, thread-safely."""

    name: ClassVar[str] = "offline"

    def __init__(
        self,
        cache: Path | None = None,
        *,
        documents: Sequence[OfflineDocument]
        | Callable[[], Iterable[OfflineDocument]]
        | None = None,
        key: str | None = None,
        max_documents: int = MAX_DOCUMENTS,
    ) -> None:
        self.cache = Path(cache) if cache is not None else offline_cache_folder()
        self.max_documents = max(1, min(max_documents, MAX_DOCUMENTS))
        self._fixed: tuple[OfflineDocument, ...] | None = None
        self._source: Callable[[], Iterable[OfflineDocument]]
        if documents is None:
            self._source = machine_documents
            self._key = key
        elif callable(documents):
            self._source = documents
            if key is None:
                raise ValueError("a document source needs a cache key")
            self._key = key
        else:
            self._fixed = tuple(documents)
            fixed = self._fixed
            self._source = lambda: fixed
            self._key = key
        self._lock = threading.Lock()
        self._opened: _Opened | None = None

    def __repr__(self) -> str:
        return f"OfflineSearch(cache={str(self.cache)!r})"

    @property
    def key(self) -> str:
        """The cache key: a hash of what is indexed (computed once, on first use)."""
        if self._key is None:
            base = machine_key() if self._fixed is None else _documents_key(self._fixed)
            if self.max_documents != MAX_DOCUMENTS:
                base = hashlib.sha256(f"{base}:{self.max_documents}".encode()).hexdigest()
            self._key = base
        return self._key

    # -- opening and building ----------------------------------------------------------------
    def open(self) -> IndexStats:
        """Open the cached index or build it; the stats of what is open. Raises
        ``OfflineIndexError`` (one line) when neither works."""
        opened = self._ensure()
        return IndexStats(
            folder=opened.folder,
            documents=opened.documents,
            size_bytes=_folder_size(opened.folder),
            built=opened.built,
            build_seconds=opened.build_seconds,
            notes=tuple(opened.notes),
        )

    def _ensure(self) -> _Opened:
        opened = self._opened
        if opened is not None:
            return opened
        with self._lock:
            if self._opened is None:
                try:
                    self._opened = self._open_or_build()
                except OfflineIndexError:
                    raise
                except (OSError, ValueError) as exc:
                    raise OfflineIndexError(f"offline index: {_line(exc)}") from None
                except BaseException as exc:
                    if not _is_panic(exc):
                        raise
                    raise OfflineIndexError(
                        f"offline index: Tantivy failed: {_line(exc)}"
                    ) from None
            return self._opened

    def _open_or_build(self) -> _Opened:
        notes: list[str] = []
        write = self.cache
        problem = writable_problem(self.cache)
        if problem is not None:
            write = Path(tempfile.mkdtemp(prefix="routescope-research-"))
            atexit.register(shutil.rmtree, write, ignore_errors=True)
            notes.append(
                f"cache folder {self.cache} cannot be written ({problem}): "
                f"using the temporary folder {write}"
            )
        name = f"offline-{self.key[:24]}"
        final = write / name
        if os.path.lexists(final):
            opened = self._open_verified(final)
            if not isinstance(opened, str):
                opened.notes[:0] = notes
                return opened
            discard(final)
            notes.append(f"offline index {final}: {opened}: rebuilt")
        elif write != self.cache and os.path.lexists(self.cache / name):
            source = self.cache / name  # readable but not writable: copy it in
            problem = self._check_files(source)
            if problem is None:
                copied = self._copy_in(source, final)
                if not isinstance(copied, str):
                    copied.notes[:0] = notes
                    return copied
                problem = copied
            notes.append(f"offline index {source}: {problem}: rebuilt")
        built = self._build(final)
        built.notes[:0] = notes
        return built

    def _copy_in(self, source: Path, final: Path) -> _Opened | str:
        temporary = self._temporary(final)
        try:
            for entry in os.scandir(source):
                if entry.name not in _LOCKS and entry.is_file(follow_symlinks=False):
                    shutil.copyfile(entry.path, temporary / entry.name)
        except OSError as exc:
            shutil.rmtree(temporary, ignore_errors=True)
            return f"cannot be copied: {_line(exc)}"
        return self._publish(temporary, final, built=False)

    def _temporary(self, final: Path) -> Path:
        return temporary_sibling(final, folder=True)

    def _build(self, final: Path) -> _Opened:
        clean_stale(final.parent)
        temporary = self._temporary(final)
        try:
            self._write(temporary)
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise
        return self._publish(temporary, final, built=True)

    def _publish(self, temporary: Path, final: Path, *, built: bool) -> _Opened:
        """Rename our complete folder into place; when another process was first, use its
        folder if it verifies (else replace it once), and drop ours."""
        for _ in range(2):
            try:
                os.rename(temporary, final)
            except OSError:  # a folder (or a file) is already there
                theirs = self._open_verified(final)
                if not isinstance(theirs, str):
                    shutil.rmtree(temporary, ignore_errors=True)
                    return theirs
                discard(final)
                continue
            opened = self._open_verified(final)
            if isinstance(opened, str):
                raise OfflineIndexError(f"offline index {final} unusable after a build: {opened}")
            opened.built = built
            return opened
        opened = self._open_verified(temporary)  # still something in the way: use ours
        if isinstance(opened, str):
            raise OfflineIndexError(f"offline index {final} unusable after a build: {opened}")
        opened.built = built
        return opened

    def _write(self, folder: Path) -> None:
        """Index the documents into the empty ``folder``, then write the manifest, last."""
        started = time.perf_counter()
        index = tantivy.Index(_schema(), path=str(folder), reuse=False)
        writer = index.writer(heap_size=50_000_000, num_threads=1)
        count = 0
        for document in self._source():
            if count >= self.max_documents:
                break
            if _http_url(document.url) is None:
                continue
            writer.add_document(
                tantivy.Document(
                    title=_cap(document.title, MAX_TITLE_CHARS),
                    body=_cap(document.body, MAX_BODY_CHARS),
                    url=document.url,
                    kind=document.kind,
                )
            )
            count += 1
        writer.commit()
        writer.wait_merging_threads()
        del writer, index
        files = folder_files(folder, _UNCHECKED)
        manifest = {
            "format": _FORMAT,
            "key": self.key,
            "documents": count,
            "build_seconds": round(time.perf_counter() - started, 3),
            "files": files,
        }
        (folder / _MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")

    def _manifest(self, folder: Path) -> dict[str, Any] | str:
        try:
            info = os.lstat(folder)
        except OSError as exc:
            return exc.strerror or "cannot be read"
        if not stat.S_ISDIR(info.st_mode):
            return "not a folder"
        path = folder / _MANIFEST
        try:
            if not path.is_file() or path.stat().st_size > 1_000_000:
                return "incomplete (no manifest)"
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return "incomplete (no manifest)"
        except (ValueError, RecursionError):
            return "its manifest is not valid JSON"
        if not isinstance(manifest, dict):
            return "its manifest is malformed"
        if manifest.get("format") != _FORMAT or manifest.get("key") != self.key:
            return "its manifest is for other documents or another format"
        documents = manifest.get("documents")
        if not isinstance(documents, int) or isinstance(documents, bool) or documents < 0:
            return "its manifest is malformed"
        return manifest

    def _check_files(self, folder: Path) -> str | None:
        """None when ``folder`` holds exactly the files its manifest lists (sizes, SHA-256)."""
        manifest = self._manifest(folder)
        if isinstance(manifest, str):
            return manifest
        files = manifest.get("files")
        if not isinstance(files, dict) or "meta.json" not in files:
            return "its manifest lists no files"
        return files_problem(folder, files)

    def _open_verified(self, folder: Path) -> _Opened | str:
        """The index in ``folder`` when its manifest matches and Tantivy opens it with the
        documents the manifest counts; otherwise why not. Tantivy never sees a file that does
        not match the manifest."""
        problem = self._check_files(folder)
        if problem is not None:
            return problem
        manifest = self._manifest(folder)
        assert not isinstance(manifest, str)
        try:
            index = tantivy.Index(_schema(), path=str(folder), reuse=True)
            searcher = index.searcher()
            if searcher.num_docs != manifest["documents"]:
                return f"holds {searcher.num_docs} documents, its manifest {manifest['documents']}"
        except ValueError as exc:
            return f"Tantivy cannot open it: {_line(exc)}"
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            return f"Tantivy cannot open it: {_line(exc)}"
        seconds = manifest.get("build_seconds")
        return _Opened(
            folder=folder,
            index=index,
            searcher=searcher,
            schema=index.schema,
            documents=manifest["documents"],
            built=False,
            build_seconds=float(seconds) if isinstance(seconds, int | float) else 0.0,
        )

    # -- searching -----------------------------------------------------------------------------
    def _query(self, schema: tantivy.Schema, terms: list[str]) -> tantivy.Query:
        clauses = []
        for term in terms:
            title = tantivy.Query.term_query(schema, "title", term)
            clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(title, TITLE_BOOST)))
            clauses.append((tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", term)))
        return tantivy.Query.boolean_query(clauses)

    def search_sync(self, terms: list[str], max_results: int) -> tuple[list[SearchHit], int]:
        """The hits for ``terms`` (already tokenised) and how many repeated URLs were dropped.
        Raises ``OfflineIndexError`` when the index cannot be opened or built."""
        opened = self._ensure()
        if opened.documents == 0:
            return [], 0
        limit = max(1, min(max_results * 2 + 5, opened.documents))
        try:
            result = opened.searcher.search(self._query(opened.schema, terms), limit)
            hits: list[SearchHit] = []
            seen: set[str] = set()
            duplicates = 0
            for score, address in result.hits:
                if len(hits) >= max_results:
                    break
                stored = opened.searcher.doc(address)
                url = _stored(stored, "url")
                if not url:
                    continue
                if url in seen:
                    duplicates += 1
                    continue
                seen.add(url)
                hits.append(
                    SearchHit(
                        url=url,
                        title=_stored(stored, "title"),
                        snippet=snippet(_stored(stored, "body"), terms),
                        rank=len(hits) + 1,
                        provider=self.name,
                        score=round(float(score), 4),
                    )
                )
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            raise OfflineIndexError(f"offline index {opened.folder} failed: {_line(exc)}") from None
        return hits, duplicates

    async def search(self, query: str, *, max_results: int = 5) -> SearchResponse:
        """BM25 over the offline index; failures are values (``empty`` when nothing matches,
        ``server_error`` when the index cannot be opened or built)."""
        started = time.perf_counter()
        max_results = min(max(1, max_results), MAX_RESULTS_LIMIT)
        collapsed = " ".join(str(query).split())
        sent = collapsed
        action: Literal["sent", "shortened", "refused"] = "sent"
        if len(collapsed) > MAX_QUERY_CHARS:
            cut = collapsed[: MAX_QUERY_CHARS + 1]
            space = cut.rfind(" ")
            sent = cut[:space] if space > 0 else collapsed[:MAX_QUERY_CHARS]
            action = "shortened"
        terms = list(dict.fromkeys(tokens(sent)))
        if len(terms) > MAX_QUERY_TERMS:
            terms = terms[:MAX_QUERY_TERMS]
            action = "shortened"

        def done(
            error: ProviderError | None,
            *,
            status: int | None,
            results: Sequence[SearchHit] = (),
            duplicates: int = 0,
            query_action: Literal["sent", "shortened", "refused"] = action,
        ) -> SearchResponse:
            return SearchResponse(
                provider=self.name,
                query=sent,
                original_query=str(query),
                query_action=query_action,
                status=status,
                url=f"offline://index/{self._key[:24] if self._key else 'machine'}",
                results=tuple(results),
                error=error,
                duration_ms=max(0.0, (time.perf_counter() - started) * 1000.0),
                requests=0,
                duplicates=duplicates,
            )

        if not terms:
            return done(
                ProviderError(kind="empty", message="the query has no searchable words"),
                status=None,
                query_action="refused",
            )
        try:
            hits, duplicates = await asyncio.to_thread(self.search_sync, terms, max_results)
        except OfflineIndexError as exc:
            return done(
                ProviderError(kind="server_error", message=str(exc)[:300], retryable=False),
                status=None,
            )
        except Exception as exc:
            return done(
                ProviderError(
                    kind="server_error",
                    message=f"offline search failed: {type(exc).__name__}: {_line(exc)}"[:300],
                ),
                status=None,
            )
        if not hits:
            return done(
                ProviderError(kind="empty", message="no results", status=200),
                status=200,
                duplicates=duplicates,
            )
        return done(None, status=200, results=hits, duplicates=duplicates)

    def page(self, url: str) -> tuple[str, str] | None:
        """(title, text) of what the index holds for ``url`` (documents sharing a URL joined),
        or None when it is not in the index or the index cannot be used. Never raises."""
        try:
            opened = self._ensure()
            if opened.documents == 0:
                return None
            query = tantivy.Query.term_query(opened.schema, "url", url)
            result = opened.searcher.search(query, 10)
            titles: list[str] = []
            bodies: list[str] = []
            for _, address in result.hits:
                stored = opened.searcher.doc(address)
                titles.append(_stored(stored, "title"))
                bodies.append(_stored(stored, "body"))
        except Exception:
            return None
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            return None
        if not titles:
            return None
        return titles[0], "\n\n".join(b for b in bodies if b)

    def document(self, url: str) -> str | None:
        """The indexed text published at ``url``: its title, a blank line, its body (documents
        sharing a URL joined); None when it is not in the index. Never raises."""
        found = self.page(url)
        if found is None:
            return None
        title, body = found
        return f"{title}\n\n{body}".strip()


class OfflineReader:
    """The loop's ``PageReader`` for offline results: a page's text comes from the index, so
    nothing is fetched and no address is contacted (``rule`` is ``offline-index``). A URL that
    is not in the index is reported with ``error``."""

    rule: ClassVar[str] = "offline-index"

    def __init__(self, search: OfflineSearch) -> None:
        self.search = search

    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        return await asyncio.to_thread(self._read, list(urls))

    def _read(self, urls: list[str]) -> list[PageRead]:
        pages: list[PageRead] = []
        for url in urls:
            found = self.search.page(url)
            if found is None:
                pages.append(PageRead(url, True, self.rule, None, "not in the offline index"))
            else:
                title, text = found
                pages.append(PageRead(url, True, self.rule, 200, None, title, text))
        return pages


def _stored(document: tantivy.Document, name: str) -> str:
    values = document[name]
    return values[0] if values and isinstance(values[0], str) else ""


def snippet(body: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """A window of about ``width`` characters of ``body`` around the first matched term
    (whitespace collapsed, cut on word boundaries, "…" where text was left out); the start of
    the body when no term occurs."""
    text = " ".join(body.split())
    if len(text) <= width:
        return text
    wanted = set(terms)
    position = None
    for match in re.finditer(r"[^\W_]+", text):
        if match.group().lower() in wanted:
            position = match.start()
            break
    if position is None:
        position = 0
    start = max(0, position - width // 3)
    if start > 0:
        space = text.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and position - space < width // 2 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start + width // 2, end)
        end = space if space > 0 else end
    window = text[start:end].strip()
    return ("…" if start > 0 else "") + window + ("…" if end < len(text) else "")
