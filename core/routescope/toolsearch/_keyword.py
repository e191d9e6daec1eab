"""Keyword search: a Tantivy index over the canonical fields, with per-field explanations.

Each field is indexed twice: as the seed has it (Tantivy's default tokenizer: the canonical
pipeline) and analyzed for English by Tantivy itself (`ANALYZER`: simple tokenizer, long
tokens removed, lower-cased, English stop words, Snowball stemming), after identifiers are
split (`split_identifiers`: `getCurrentWeather` → `get Current Weather`; snake_case, dotted and
kebab names fall apart in the tokenizer). Queries go through the same analyzer."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from .._cache import (
    CacheDir,
    cache_dir,
    clean_stale,
    discard,
    files_problem,
    folder_files,
    publish_folder,
    temporary_sibling,
    write_atomically,
)
from .._errors import CatalogError
from .._files import MB, read_text
from ._canonical import canonical
from ._catalog import Catalog

__all__ = [  # canonical: for _embed
    "ANALYZED_SUFFIX",
    "ANALYZER",
    "KeywordHit",
    "KeywordIndex",
    "analyzed_terms",
    "canonical",
    "split_identifiers",
    "tokens",
]

_FORMAT = 4
"""The layout of an index folder; a change makes every cached index rebuild."""
_MANIFEST = "manifest.json"
_LOCKS = frozenset({".tantivy-meta.lock", ".tantivy-writer.lock"})
_UNCHECKED = _LOCKS | {_MANIFEST}

_TOKEN = re.compile(r"[^\W_]+")  # what Tantivy's default tokenizer keeps, lower-cased


ANALYZER = "routescope_en"
ANALYZED_SUFFIX = "__en"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])")


def split_identifiers(text: str) -> str:
    """camelCase and PascalCase words split apart (`getHTTPResponse2` → `get HTTP Response 2`)."""
    return _CAMEL.sub(" ", text)


REQUEST_STOP_WORDS = (
    *("i", "me", "my", "myself", "we", "us", "our", "you", "your", "yours"),
    *("he", "him", "his", "she", "her", "its", "them", "please", "kindly", "can", "could"),
    *("would", "hey", "hi"),
)
"""Words of how people ask, not of what they ask for, dropped on top of Tantivy's English
list (which keeps pronouns: "give me the gist" matched a `remind me` intent)."""


@functools.cache
def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.custom_stopword(list(REQUEST_STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def analyzed_terms(text: str) -> list[str]:
    """The terms Tantivy's English analyzer makes of `text`, identifiers split first."""
    return list(_analyzer().analyze(split_identifiers(text)))


def stems_to_words(text: str) -> dict[str, str]:
    """Each analyzed term of `text` → the word of `text` it came from (lower case, the first
    one), so an explanation can say "crashing", not "crash"."""
    words: dict[str, str] = {}
    for word in _TOKEN.findall(split_identifiers(text)):
        for stem in _analyzer().analyze(word):
            words.setdefault(stem, word.lower())
    return words


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens, as Tantivy's default tokenizer makes them (at most 40 bytes)."""
    return [t for t in _TOKEN.findall(text.lower()) if len(t.encode()) <= 40]


def _field_values(tool: Any, spec: dict[str, Any]) -> str:
    value = getattr(tool, spec["source"])
    if isinstance(value, tuple):
        return str(spec.get("joined_with", " ")).join(value)
    return str(value)


@dataclass(slots=True)
class KeywordHit:
    tool_index: int
    score: float
    rank: int
    fields: dict[str, float]
    """Per-field contribution to the BM25 score, from Tantivy's explanation (boost included)."""
    matched_terms: dict[str, list[str]]
    address: Any = None


class KeywordIndex:
    """A Tantivy index of a catalog, persisted in `folder`, rebuilt when the catalog changes.

    The cache is untrusted: a folder is used only when its manifest (the size and SHA-256 of
    every file, written last by the build) matches, Tantivy opens it, and it holds exactly the
    catalog's tools; otherwise it is set aside and rebuilt once (`CatalogError`, one line, if
    that fails too). Builds go to a unique temporary folder published by one rename, so
    concurrent cold builds of one catalog all succeed. A folder that cannot be written is
    replaced by a temporary one (`cache_note` says so).
    """

    def __init__(self, catalog: Catalog, folder: Path | CacheDir) -> None:
        spec = canonical()["keyword"]["fields"]
        self.fields = [f for f in spec if f["in_query_parser"]]
        self.catalog = catalog
        self.fingerprint = catalog.fingerprint
        places = folder if isinstance(folder, CacheDir) else cache_dir(folder)
        self.cache_note = places.note
        self.notes: list[str] = [places.note] if places.note else []
        """What happened to the cache, one line each (fallback folder, corrupt index rebuilt)."""
        self._spec = spec
        self._schema_value = self._schema(spec)
        layout = json.dumps([_FORMAT, spec], sort_keys=True).encode()
        self.name = f"tantivy-{self.fingerprint}-{hashlib.sha256(layout).hexdigest()[:8]}"
        self.built = False
        self.folder, self.index, self._ordinals = self._open_or_build(places)
        self._addresses: dict[int, tuple[int, int]] | None = None
        self.searcher = self.index.searcher()
        self.schema = self.index.schema

    def _schema(self, spec: list[dict[str, Any]]) -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("ordinal", stored=True, indexed=True)
        for field_spec in spec:
            builder.add_text_field(field_spec["name"], stored=True)
        for field_spec in self.fields:
            builder.add_text_field(
                field_spec["name"] + ANALYZED_SUFFIX, stored=False, tokenizer_name=ANALYZER
            )
        return builder.build()

    # -- the cache -----------------------------------------------------------------------
    def _open_or_build(
        self, places: CacheDir
    ) -> tuple[Path, tantivy.Index, dict[tuple[int, int], int]]:
        write = places.write / self.name
        problem = None
        for place in places.places:
            final = place / self.name
            if not os.path.lexists(final):
                continue
            if place == places.write:
                opened = self._open_verified(final)
                if not isinstance(opened, str):
                    return (final, *opened)
                discard(final)
                problem = f"{final}: {opened}"
            else:  # a folder we cannot write: Tantivy cannot even read there, so copy it
                copied = self._check_files(final) or self._copy_in(final, write)
                if not isinstance(copied, str):
                    return copied
                problem = f"{final}: {copied}"
        if problem is not None:
            self.notes.append(f"keyword index {problem}: rebuilt")
        return self._build(write)

    def _copy_in(
        self, source: Path, final: Path
    ) -> tuple[Path, tantivy.Index, dict[tuple[int, int], int]] | str:
        """A verified copy of the index folder `source` published at `final`."""
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
            return f"cannot be copied: {_line(exc)}"
        return self._publish(temporary, final)

    def _build(self, final: Path) -> tuple[Path, tantivy.Index, dict[tuple[int, int], int]]:
        clean_stale(final.parent)
        try:
            temporary = temporary_sibling(final, folder=True)
        except OSError as exc:
            raise CatalogError(
                f"keyword index cannot be built in {final.parent}: {exc.strerror or exc}"
            ) from None
        try:
            self._write(temporary)
        except (OSError, ValueError) as exc:
            shutil.rmtree(temporary, ignore_errors=True)
            raise CatalogError(
                f"keyword index cannot be built in {final.parent}: {_line(exc)}"
            ) from None
        except BaseException as exc:
            shutil.rmtree(temporary, ignore_errors=True)
            if not _is_panic(exc):
                raise
            raise CatalogError(
                f"keyword index cannot be built in {final.parent}: Tantivy failed: {_line(exc)}"
            ) from None
        self.built = True
        return self._publish(temporary, final)

    def _publish(
        self, temporary: Path, final: Path
    ) -> tuple[Path, tantivy.Index, dict[tuple[int, int], int]]:
        """Rename our complete folder into place; when another process was first, use its
        folder if it verifies (else replace it once), and drop ours."""
        for _ in range(2):
            if publish_folder(temporary, final):
                opened = self._open_verified(final)
                if isinstance(opened, str):
                    raise CatalogError(
                        f"keyword index {final} cannot be used after a rebuild: {opened}"
                    )
                return (final, *opened)
            theirs = self._open_verified(final)
            if not isinstance(theirs, str):
                shutil.rmtree(temporary, ignore_errors=True)
                return (final, *theirs)
            discard(final)
        # Still something in the way: ours is complete and private, use it where it is.
        opened = self._open_verified(temporary)
        if isinstance(opened, str):
            raise CatalogError(f"keyword index {final} cannot be used after a rebuild: {opened}")
        return (temporary, *opened)

    def _write(self, folder: Path) -> None:
        """Index every tool into the empty `folder`, then write the manifest, last."""
        index = tantivy.Index(self._schema_value, path=str(folder), reuse=False)
        index.register_tokenizer(ANALYZER, _analyzer())
        writer = index.writer(heap_size=15_000_000, num_threads=1)
        for ordinal, tool in enumerate(self.catalog.tools):
            values: dict[str, Any] = {f["name"]: _field_values(tool, f) for f in self._spec}
            for f in self.fields:
                values[f["name"] + ANALYZED_SUFFIX] = split_identifiers(values[f["name"]])
            writer.add_document(tantivy.Document(ordinal=ordinal, **values))
        writer.commit()
        writer.wait_merging_threads()
        del writer, index
        files = folder_files(folder, _UNCHECKED)
        manifest = {
            "format": _FORMAT,
            "fingerprint": self.fingerprint,
            "documents": len(self.catalog.tools),
            "files": files,
        }
        write_atomically(folder / _MANIFEST, json.dumps(manifest, indent=1).encode())

    def _open_verified(
        self, folder: Path
    ) -> tuple[tantivy.Index, dict[tuple[int, int], int]] | str:
        """The index in `folder` and its ordinal map if it is the one this catalog needs and
        intact; otherwise why not (one line). Tantivy never sees a file that does not match
        the manifest, so a truncated or altered file cannot make it panic."""
        problem = self._check_files(folder)
        if problem is not None:
            return problem
        try:
            index = tantivy.Index(self._schema_value, path=str(folder), reuse=True)
            index.register_tokenizer(ANALYZER, _analyzer())
            searcher = index.searcher()
            if searcher.num_docs != len(self.catalog.tools):
                return f"holds {searcher.num_docs} tools, the catalog {len(self.catalog.tools)}"
            ordinals = self._map_ordinals(searcher)
        except ValueError as exc:
            return f"Tantivy cannot open it: {_line(exc)}"
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            return f"Tantivy cannot open it: {_line(exc)}"
        if ordinals is None:
            return "its documents are not the catalog's tools"
        return index, ordinals

    def _check_files(self, folder: Path) -> str | None:
        """None when `folder` holds exactly the files its manifest lists (sizes and SHA-256)
        and the manifest is for this catalog and format; otherwise why not."""
        try:
            info = os.lstat(folder)
        except OSError as exc:
            return exc.strerror or "cannot be read"
        if not stat.S_ISDIR(info.st_mode):
            return "not a folder"
        try:
            manifest = json.loads(
                read_text(
                    folder / _MANIFEST,
                    what="index manifest",
                    limit=MB,
                    error=CatalogError,
                    streams=False,
                )
            )
        except CatalogError:
            return "incomplete (no manifest)"
        except (ValueError, RecursionError):
            return "its manifest is not valid JSON"
        expected = {
            "format": _FORMAT,
            "fingerprint": self.fingerprint,
            "documents": len(self.catalog.tools),
        }
        if not isinstance(manifest, dict) or any(manifest.get(k) != v for k, v in expected.items()):
            return "its manifest is for another catalog or format"
        files = manifest.get("files")
        if not isinstance(files, dict) or "meta.json" not in files:
            return "its manifest lists no files"
        return files_problem(folder, files)

    def _map_ordinals(self, searcher: tantivy.Searcher) -> dict[tuple[int, int], int] | None:
        """(segment, doc) → catalog position, when the stored documents are exactly the
        catalog's tools in order; None otherwise."""
        tools = self.catalog.tools
        everything = searcher.search(tantivy.Query.all_query(), max(1, len(tools)))
        ordinals: dict[tuple[int, int], int] = {}
        for _, address in everything.hits:
            document = searcher.doc(address)
            values = document["ordinal"]
            names = document["tool_name"]
            if not values or not names or not isinstance(values[0], int):
                return None
            ordinal = values[0]
            if not 0 <= ordinal < len(tools) or names[0] != tools[ordinal].tool_name:
                return None
            ordinals[(address.segment_ord, address.doc)] = ordinal
        if len(set(ordinals.values())) != len(tools):
            return None
        return ordinals

    def _query(
        self, terms: list[str], boosts: Mapping[str, float], fields: list[str]
    ) -> tantivy.Query:
        clauses = []
        for name in fields:
            for term in dict.fromkeys(terms):
                query = tantivy.Query.term_query(self.schema, name, term)
                boost = boosts.get(name.removesuffix(ANALYZED_SUFFIX), 1.0)
                if boost != 1.0:
                    query = tantivy.Query.boost_query(query, boost)
                clauses.append((tantivy.Occur.Should, query))
        return tantivy.Query.boolean_query(clauses)

    def search(
        self, text: str, boosts: Mapping[str, float], limit: int, *, analyzed: bool = False
    ) -> list[KeywordHit]:
        """BM25 over the parsed fields with the given boosts (hits not yet explained): the
        seed's fields and tokens, or (`analyzed`) the English-analyzed twins."""
        terms = analyzed_terms(text) if analyzed else tokens(text)
        if not terms:
            return []
        suffix = ANALYZED_SUFFIX if analyzed else ""
        names = [f["name"] + suffix for f in self.fields]
        limit = max(1, min(limit, len(self.catalog.tools)))  # Tantivy sizes its heap by limit
        try:
            result = self.searcher.search(self._query(terms, boosts, names), limit)
        except BaseException as exc:
            if not _is_panic(exc):
                raise
            raise CatalogError(f"keyword index {self.folder} failed: {_line(exc)}") from None
        return [
            KeywordHit(self._ordinals[(a.segment_ord, a.doc)], float(score), rank, {}, {}, a)
            for rank, (score, a) in enumerate(result.hits, start=1)
        ]

    def address_of(self, tool_index: int) -> tantivy.DocAddress:
        """The Tantivy address of a tool's document (to explain a hit after its search)."""
        if self._addresses is None:
            self._addresses = {tool: key for key, tool in self._ordinals.items()}
        segment, doc = self._addresses[tool_index]
        return tantivy.DocAddress(segment, doc)

    def explain(
        self, hit: KeywordHit, text: str, boosts: Mapping[str, float], *, analyzed: bool = False
    ) -> None:
        """Fill a hit's per-field contributions from Tantivy's explanation, and its matched
        terms per field (the query's words; under the analyzer, the words whose stems matched).
        Done for the hits a view shows, not for every candidate."""
        split = analyzed_terms if analyzed else tokens
        terms = list(dict.fromkeys(split(text)))
        words = stems_to_words(text) if analyzed else {}
        document = self.searcher.doc(hit.address)
        for spec in self.fields:
            name = spec["name"]
            present = set(split(" ".join(document[name])))
            matched = [t for t in terms if t in present]
            if not matched:
                continue
            searched = name + ANALYZED_SUFFIX if analyzed else name
            query = self._query(matched, boosts, [searched])
            explanation = query.explain(self.searcher, hit.address)
            hit.fields[name] = float(json.loads(explanation.to_json())["value"])
            hit.matched_terms[name] = [words.get(term, term) for term in matched]


def _is_panic(exc: BaseException) -> bool:
    """A Rust panic surfaced by pyo3 (`pyo3_runtime.PanicException`, a BaseException)."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"
