"""Keyword search: a Tantivy index over the canonical fields, with per-field explanations."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from ._canonical import canonical
from ._catalog import Catalog

__all__ = ["KeywordHit", "KeywordIndex", "canonical", "tokens"]  # canonical: for _embed

_TOKEN = re.compile(r"[^\W_]+")  # what Tantivy's default tokenizer keeps, lower-cased


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
    """A Tantivy index of a catalog, persisted in `folder`, rebuilt when the catalog changes."""

    def __init__(self, catalog: Catalog, folder: Path) -> None:
        spec = canonical()["keyword"]["fields"]
        self.fields = [f for f in spec if f["in_query_parser"]]
        self.catalog = catalog
        self.folder = folder / f"tantivy-{catalog.fingerprint}"
        self.built = False
        self.index = self._open_or_build(spec)
        self.searcher = self.index.searcher()
        self.schema = self.index.schema
        self._ordinals = self._map_ordinals()

    def _schema(self, spec: list[dict[str, Any]]) -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("ordinal", stored=True, indexed=True)
        for field_spec in spec:
            builder.add_text_field(field_spec["name"], stored=True)
        return builder.build()

    def _open_or_build(self, spec: list[dict[str, Any]]) -> tantivy.Index:
        schema = self._schema(spec)
        marker = self.folder / "complete"
        if marker.exists():
            try:
                index = tantivy.Index(schema, path=str(self.folder), reuse=True)
                if index.searcher().num_docs == len(self.catalog.tools):
                    return index
            except ValueError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(schema, path=str(self.folder), reuse=False)
        writer = index.writer(heap_size=15_000_000, num_threads=1)
        for ordinal, tool in enumerate(self.catalog.tools):
            values: dict[str, Any] = {f["name"]: _field_values(tool, f) for f in spec}
            writer.add_document(tantivy.Document(ordinal=ordinal, **values))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        marker.write_text("ok\n")
        self.built = True
        return index

    def _query(
        self, terms: list[str], boosts: dict[str, float], fields: list[str]
    ) -> tantivy.Query:
        clauses = []
        for name in fields:
            for term in dict.fromkeys(terms):
                query = tantivy.Query.term_query(self.schema, name, term)
                boost = boosts.get(name, 1.0)
                if boost != 1.0:
                    query = tantivy.Query.boost_query(query, boost)
                clauses.append((tantivy.Occur.Should, query))
        return tantivy.Query.boolean_query(clauses)

    def search(self, text: str, boosts: dict[str, float], limit: int) -> list[KeywordHit]:
        """BM25 over the parsed fields with the given boosts (hits not yet explained)."""
        terms = tokens(text)
        if not terms:
            return []
        names = [f["name"] for f in self.fields]
        result = self.searcher.search(self._query(terms, boosts, names), limit)
        return [
            KeywordHit(self._ordinals[(a.segment_ord, a.doc)], float(score), rank, {}, {}, a)
            for rank, (score, a) in enumerate(result.hits, start=1)
        ]

    def explain(self, hit: KeywordHit, text: str, boosts: dict[str, float]) -> None:
        """Fill a hit's per-field contributions from Tantivy's explanation, and its matched
        terms per field. Done for the hits a view shows, not for every candidate."""
        terms = list(dict.fromkeys(tokens(text)))
        document = self.searcher.doc(hit.address)
        for spec in self.fields:
            name = spec["name"]
            present = set(tokens(" ".join(document[name])))
            matched = [t for t in terms if t in present]
            if not matched:
                continue
            explanation = self._query(matched, boosts, [name]).explain(self.searcher, hit.address)
            hit.fields[name] = float(json.loads(explanation.to_json())["value"])
            hit.matched_terms[name] = matched

    def _map_ordinals(self) -> dict[tuple[int, int], int]:
        everything = self.searcher.search(
            tantivy.Query.all_query(), max(1, len(self.catalog.tools))
        )
        return {
            (a.segment_ord, a.doc): int(self.searcher.doc(a)["ordinal"][0])
            for _, a in everything.hits
        }
