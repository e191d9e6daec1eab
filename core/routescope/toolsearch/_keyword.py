"""Keyword search: a Tantivy index over the canonical fields, with per-field explanations.

Each field is indexed twice: as the seed has it (Tantivy's default tokenizer: the canonical
pipeline) and analyzed for English by Tantivy itself (`ANALYZER`, from `routescope._analysis`:
simple tokenizer, long tokens removed, lower-cased, English stop words, Snowball stemming),
after identifiers are split (`split_identifiers`). Queries go through the same analyzer. The
index lives in a cache folder (`routescope._index`: verified, rebuilt, published by rename)."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from .._analysis import (
    ANALYZER,
    analyzed_terms,
    analyzer,
    split_identifiers,
    stems_to_words,
    tokens,
)
from .._cache import CacheDir, cache_dir
from .._errors import CatalogError, one_line
from .._index import IndexSpec, is_panic, open_index
from ._canonical import canonical
from ._catalog import Catalog

__all__ = [  # canonical: for _embed; the analysis names: for _search
    "ANALYZED_SUFFIX",
    "ANALYZER",
    "KeywordHit",
    "KeywordIndex",
    "TermScores",
    "analyzed_terms",
    "canonical",
    "split_identifiers",
    "stems_to_words",
    "tokens",
]

_FORMAT = 4
"""The layout of an index folder; a change makes every cached index rebuild."""
_POSTINGS_KEPT = 1_000_000
"""Term postings kept in memory (tool positions, summed over the terms): a term seen before
(typing on, the next query) costs no Tantivy search."""

ANALYZED_SUFFIX = "__en"


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


@dataclass(frozen=True, slots=True)
class TermScores:
    """One analyzed term over the whole catalog: every tool whose searched fields hold it, with
    Tantivy's BM25 for it (summed over the fields, each times its boost)."""

    term: str
    tools: np.ndarray
    """Catalog positions, ascending (int64)."""
    scores: np.ndarray
    """BM25 with the field boosts, aligned with `tools` (float64)."""
    best: float
    """The highest of `scores` (0.0 when no tool holds the term)."""

    @property
    def count(self) -> int:
        """How many tools hold the term."""
        return len(self.tools)

    def score_of(self, tool: int) -> float:
        """The tool's score for the term (0.0 when it does not hold it)."""
        position = int(np.searchsorted(self.tools, tool))
        if position < len(self.tools) and int(self.tools[position]) == tool:
            return float(self.scores[position])
        return 0.0


class KeywordIndex:
    """A Tantivy index of a catalog, persisted in `folder`, rebuilt when the catalog changes.

    The cache is untrusted (`routescope._index`): a folder is used only when its manifest
    matches, Tantivy opens it, and it holds exactly the catalog's tools; otherwise it is set
    aside and rebuilt once (`CatalogError`, one line, if that fails too). Concurrent cold builds
    of one catalog all succeed. A folder that cannot be written is replaced by a temporary one
    (`cache_note` says so).
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
        layout = json.dumps([_FORMAT, spec], sort_keys=True).encode()
        self.name = f"tantivy-{self.fingerprint}-{hashlib.sha256(layout).hexdigest()[:8]}"
        opened = open_index(self._index_spec(), places, self.name)
        self.notes += opened.notes
        self.built = opened.built
        self.folder, self.index, self.searcher = opened.folder, opened.index, opened.searcher
        self.schema = self.index.schema
        ordinals = self._map_ordinals(self.searcher)
        assert ordinals is not None  # open_index checked them
        self._ordinals = ordinals
        self._addresses: dict[int, tuple[int, int]] | None = None
        self._postings: OrderedDict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._postings_size = 0
        self._term_scores: OrderedDict[tuple[str, tuple[float, ...]], TermScores] = OrderedDict()
        self._term_scores_size = 0
        self._postings_lock = threading.Lock()

    def _index_spec(self) -> IndexSpec:
        return IndexSpec(
            label="keyword index",
            schema=self._schema(),
            identity={
                "format": _FORMAT,
                "fingerprint": self.fingerprint,
                "documents": len(self.catalog.tools),
            },
            write=self._write,
            error=CatalogError,
            analyzers={ANALYZER: analyzer()},
            check=self._check,
        )

    def _schema(self) -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("ordinal", stored=True, indexed=True)
        for field_spec in self._spec:
            builder.add_text_field(field_spec["name"], stored=True)
        for field_spec in self.fields:
            builder.add_text_field(
                field_spec["name"] + ANALYZED_SUFFIX, stored=False, tokenizer_name=ANALYZER
            )
        return builder.build()

    def _write(self, writer: tantivy.IndexWriter) -> int:
        """Add every tool to a new index."""
        for ordinal, tool in enumerate(self.catalog.tools):
            values: dict[str, Any] = {f["name"]: _field_values(tool, f) for f in self._spec}
            for f in self.fields:
                values[f["name"] + ANALYZED_SUFFIX] = split_identifiers(values[f["name"]])
            writer.add_document(tantivy.Document(ordinal=ordinal, **values))
        return len(self.catalog.tools)

    def _check(self, searcher: tantivy.Searcher) -> str | None:
        if self._map_ordinals(searcher) is None:
            return "its documents are not the catalog's tools"
        return None

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
            if not is_panic(exc):
                raise
            raise CatalogError(
                f"keyword index {self.folder} failed: {one_line(exc, 200, collapse=True)}"
            ) from None
        return [
            KeywordHit(self._ordinals[(a.segment_ord, a.doc)], float(score), rank, {}, {}, a)
            for rank, (score, a) in enumerate(result.hits, start=1)
        ]

    def postings(self, term: str, field: str) -> tuple[np.ndarray, np.ndarray]:
        """Every tool whose English-analyzed `field` holds `term`, and Tantivy's BM25 for it
        (no boost): catalog positions ascending, and their scores. Kept for the next query."""
        key = (term, field)
        with self._postings_lock:
            found = self._postings.get(key)
            if found is not None:
                self._postings.move_to_end(key)
                return found
        query = tantivy.Query.term_query(self.schema, field + ANALYZED_SUFFIX, term)
        try:
            result = self.searcher.search(query, max(1, len(self.catalog.tools)))
        except BaseException as exc:
            if not is_panic(exc):
                raise
            raise CatalogError(
                f"keyword index {self.folder} failed: {one_line(exc, 200, collapse=True)}"
            ) from None
        pairs = sorted((self._ordinals[(a.segment_ord, a.doc)], float(v)) for v, a in result.hits)
        tools = np.fromiter((t for t, _ in pairs), dtype=np.int64, count=len(pairs))
        scores = np.fromiter((v for _, v in pairs), dtype=np.float64, count=len(pairs))
        with self._postings_lock:
            if key not in self._postings:
                self._postings[key] = (tools, scores)
                self._postings_size += len(tools) + 1
                while self._postings_size > _POSTINGS_KEPT and len(self._postings) > 1:
                    _, (old, _scores) = self._postings.popitem(last=False)
                    self._postings_size -= len(old) + 1
        return tools, scores

    def term_scores(self, term: str, boosts: Mapping[str, float]) -> TermScores:
        """One analyzed term's BM25 for every tool that holds it, over the searched fields,
        each times its boost (1 for a field `boosts` does not name, as in `search`). Kept for
        the next query with the same boosts, within the postings' bound."""
        key = (term, tuple(boosts.get(spec["name"], 1.0) for spec in self.fields))
        with self._postings_lock:
            found = self._term_scores.get(key)
            if found is not None:
                self._term_scores.move_to_end(key)
                return found
        scores = self._combined(term, boosts)
        with self._postings_lock:
            if key not in self._term_scores:
                self._term_scores[key] = scores
                self._term_scores_size += scores.count + 1
                while self._term_scores_size > _POSTINGS_KEPT and len(self._term_scores) > 1:
                    _, old = self._term_scores.popitem(last=False)
                    self._term_scores_size -= old.count + 1
        return scores

    def _combined(self, term: str, boosts: Mapping[str, float]) -> TermScores:
        lists = [
            (tools, scores * boosts.get(spec["name"], 1.0))
            for spec in self.fields
            for tools, scores in [self.postings(term, spec["name"])]
            if len(tools)
        ]
        if not lists:
            empty = np.zeros(0, dtype=np.int64)
            return TermScores(term, empty, np.zeros(0, dtype=np.float64), 0.0)
        if len(lists) == 1:
            tools, scores = lists[0]
        else:
            every = np.concatenate([t for t, _ in lists])
            tools, inverse = np.unique(every, return_inverse=True)
            scores = np.zeros(len(tools), dtype=np.float64)
            np.add.at(scores, inverse, np.concatenate([s for _, s in lists]))
        return TermScores(term, tools, scores, float(scores.max()))

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
        Done for the hits a view shows, not for every candidate. Analyzed, the contributions
        come from the term postings (`postings`: Tantivy's scores of each term, times the
        field's boost), the same numbers the weighted fusion ranks with."""
        if analyzed:
            self._explain_analyzed(hit, text, boosts)
            return
        terms = list(dict.fromkeys(tokens(text)))
        document = self.searcher.doc(hit.address)
        for spec in self.fields:
            name = spec["name"]
            present = set(tokens(" ".join(document[name])))
            matched = [t for t in terms if t in present]
            if not matched:
                continue
            query = self._query(matched, boosts, [name])
            explanation = query.explain(self.searcher, hit.address)
            hit.fields[name] = float(json.loads(explanation.to_json())["value"])
            hit.matched_terms[name] = matched

    def _explain_analyzed(self, hit: KeywordHit, text: str, boosts: Mapping[str, float]) -> None:
        terms = list(dict.fromkeys(analyzed_terms(text)))
        words = stems_to_words(text)
        for spec in self.fields:
            name = spec["name"]
            boost = boosts.get(name, 1.0)
            total, matched = 0.0, []
            for term in terms:
                tools, scores = self.postings(term, name)
                position = int(np.searchsorted(tools, hit.tool_index))
                if position < len(tools) and int(tools[position]) == hit.tool_index:
                    total += boost * float(scores[position])
                    matched.append(words.get(term, term))
            if matched:
                hit.fields[name] = total
                hit.matched_terms[name] = matched
