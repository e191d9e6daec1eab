"""The documentation already on this machine, as documents for the offline research index.

- `stdlib`: for each top-level module of `sys.stdlib_module_names`, its module docstring and
  the docstrings of its public classes, methods and functions (`_module_docs`), read from the
  SOURCE with `ast` (never imported: `antigravity`, `this`, `idlelib`, `tkinter` have side
  effects), a package's public submodules included; modules without Python source are
  skipped, except a short allowlist of compiled modules that are safe to import (`sys`,
  `math`, `itertools`, `time`…), whose docstrings are read from the imported objects. URL
  `https://docs.python.org/3/library/<module>.html`.
- `topic`: pydoc's topics (`pydoc_data.topics.topics`). Their labels do not name the page of
  the reference they come from, so the URL is the documentation's search page for the topic,
  `https://docs.python.org/3/search.html?q=<topic>`.
- `package`: the installed distributions' metadata (name, summary, long description,
  keywords); URL from `Project-URL` (Documentation first, then Homepage, then Source), else
  `Home-page`, else `https://pypi.org/project/<name>/`. Routescope's own distributions are left
  out (`PROJECT_DISTRIBUTIONS`): its README quotes example prompts, which would make it the
  best source for them.

Every document's body is capped (`MAX_BODY_CHARS`) and so is their number (`MAX_DOCUMENTS`).
`machine_key` and `documents_key` name a corpus for the index's cache.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import re
import sys
import sysconfig
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from ._module_docs import (
    SAFE_COMPILED,
    compiled_docs,
    module_source,
    package_files,
    source_docs,
)

__all__ = [
    "CORPUS_FORMAT",
    "MAX_BODY_CHARS",
    "MAX_DOCUMENTS",
    "MAX_TITLE_CHARS",
    "PROJECT_DISTRIBUTIONS",
    "DocumentKind",
    "OfflineDocument",
    "cap",
    "documents_key",
    "http_url",
    "machine_documents",
    "machine_key",
    "normalised_name",
    "package_documents",
    "stdlib_documents",
    "topic_documents",
]

DocumentKind = Literal["stdlib", "topic", "package", "other"]

MAX_BODY_CHARS = 20_000
"""A document's body is cut here (on a word boundary)."""
MAX_DOCUMENTS = 20_000
"""At most this many documents are indexed."""
MAX_TITLE_CHARS = 200

CORPUS_FORMAT = 3
"""How documents are made; a change makes every cached index rebuild (2: Routescope's own
distributions left out; 3: a module's `__all__` read with what it extends it by, and the
definitions of its top-level `if`/`try` blocks: `os.makedirs`, `os.walk`)."""
PROJECT_DISTRIBUTIONS = frozenset({"routescope", "routescope-gui"})
"""This project's distributions (normalised names): never documentation of the machine."""
_DOCS = "https://docs.python.org/3"


@dataclass(frozen=True, slots=True)
class OfflineDocument:
    """One indexed page: ``url`` is where the text is published (http or https)."""

    url: str
    title: str
    body: str
    kind: DocumentKind = "other"


def _distributions() -> list[tuple[str, str, importlib.metadata.Distribution]]:
    """(normalised name, version, distribution), one per name (the first found), sorted;
    not this project's own (`PROJECT_DISTRIBUTIONS`)."""
    seen: dict[str, tuple[str, str, importlib.metadata.Distribution]] = {}
    for dist in importlib.metadata.distributions():
        try:
            name = dist.metadata["Name"]
            version = dist.version
        except Exception:  # a broken METADATA file: not indexed
            continue
        if not isinstance(name, str) or not name.strip():
            continue
        key = normalised_name(name)
        if key not in PROJECT_DISTRIBUTIONS:
            seen.setdefault(key, (key, str(version), dist))
    return [seen[k] for k in sorted(seen)]


def normalised_name(name: str) -> str:
    """A distribution's name as the packaging standards compare them (`Foo_Bar` → `foo-bar`)."""
    return re.sub(r"[-_.]+", "-", name.strip()).lower()


def machine_key() -> str:
    """The cache key of the machine's documentation: a hash of the Python version and the set
    of installed distributions with their versions (cheap: no documentation is read)."""
    payload = {
        "format": CORPUS_FORMAT,
        "caps": [MAX_BODY_CHARS, MAX_DOCUMENTS],
        "python": sys.version,
        "implementation": sys.implementation.cache_tag,
        "stdlib": sysconfig.get_path("stdlib"),
        "distributions": [[name, version] for name, version, _ in _distributions()],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def documents_key(documents: Sequence[OfflineDocument]) -> str:
    """The cache key of a given corpus: a hash of its documents."""
    digest = hashlib.sha256(json.dumps([CORPUS_FORMAT, MAX_BODY_CHARS, MAX_DOCUMENTS]).encode())
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


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit + 1]
    space = cut.rfind(" ", limit // 2)
    return cut[:space] if space > 0 else text[:limit]


def stdlib_documents(names: Iterable[str] | None = None) -> Iterator[OfflineDocument]:
    """One document per top-level standard module that has documentation here."""
    for name in sorted(names if names is not None else sys.stdlib_module_names):
        if name.startswith("_") or name in ("antigravity", "this", "__future__"):
            continue
        parts: list[str] = []
        summary = ""
        located = module_source(name)
        if located is not None:
            source, package = located
            summary, parts = source_docs(source, "")
            if package is not None:
                size = sum(len(p) for p in parts)
                for path, dotted in package_files(package):
                    if size >= MAX_BODY_CHARS:
                        break
                    _, more = source_docs(path, f"{name}.{dotted}")
                    size += sum(len(p) for p in more)
                    parts.extend(more)
        elif name in SAFE_COMPILED:
            summary, parts = compiled_docs(name)
        if not parts:
            continue
        summary = _first_line(summary)
        title = f"{name} — {summary}" if summary else name
        yield OfflineDocument(
            url=f"{_DOCS}/library/{quote(name)}.html",
            title=cap(title, MAX_TITLE_CHARS),
            body=cap("\n\n".join(parts), MAX_BODY_CHARS),
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
            title=cap(title, MAX_TITLE_CHARS),
            body=cap(text.strip(), MAX_BODY_CHARS),
            kind="topic",
        )


_URL_PREFERENCE = (
    ("documentation", "docs", "doc"),
    ("homepage", "home", "website"),
    ("source", "sourcecode", "repository", "code", "github"),
)


def http_url(value: object) -> str | None:
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
        url = http_url(value)
        if url is not None:
            labelled.setdefault(re.sub(r"[^a-z]", "", label.lower()), url)
    for labels in _URL_PREFERENCE:
        for label in labels:
            if label in labelled:
                return labelled[label]
        if labels[0] == "homepage":
            home = http_url(meta.get("home_page"))
            if home is not None and "UNKNOWN" not in home:
                return home
    return f"https://pypi.org/project/{quote(name)}/"


def package_documents() -> Iterator[OfflineDocument]:
    """One document per installed distribution (not this project's): name, summary, keywords,
    long description."""
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
            title=cap(title, MAX_TITLE_CHARS),
            body=cap(body or name, MAX_BODY_CHARS),
            kind="package",
        )


def machine_documents() -> Iterator[OfflineDocument]:
    """The documentation on this machine: standard modules, pydoc topics, distributions."""
    yield from stdlib_documents()
    yield from topic_documents()
    yield from package_documents()
