"""The history's queries: the SQL of a search (full-text, or a LIKE scan without FTS5, and the
filters) and the counts its filters offer."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from ._rows import Facets

__all__ = ["facet_counts", "search_source"]


def search_source(
    fts: bool,
    query: str,
    strategy: str | None,
    lint_class: str | None,
    top_tool: str | None,
    pinned: bool | None,
    rules: str | None = None,
) -> tuple[str, tuple[Any, ...], str]:
    """The FROM and WHERE of a search, its parameters and its order (newest first). With
    words, the full-text index leads: it gives its matches newest first (by `seq`)."""
    clauses: list[str] = []
    params: list[Any] = []
    # A NUL would end the full-text query early; any other character is only text.
    words = [w for w in query.replace("\0", " ").split() if any(c.isalnum() for c in w)]
    if words and fts:
        source = "FROM entries_fts JOIN entries e ON e.seq = entries_fts.rowid"
        order = "entries_fts.rowid DESC"
        clauses.append("entries_fts MATCH ?")
        params.append(" ".join('"' + word.replace('"', '""') + '"*' for word in words))
    else:
        source = "FROM entries e"
        order = "e.seq DESC"
        for word in words:
            clauses.append("e.text LIKE ? ESCAPE '\\'")
            params.append("%" + re.sub(r"([\\%_])", r"\\\1", word) + "%")
    for column, value in (("strategy", strategy), ("lint_class", lint_class)):
        if value is not None:
            clauses.append(f"e.{column} = ?")
            params.append(value)
    if top_tool == "":
        clauses.append("e.top_tool IS NULL")
    elif top_tool is not None:
        clauses.append("e.top_tool = ?")
        params.append(top_tool)
    if rules is not None:
        clauses.append("(e.rules_digest = ? OR e.rules_source = ?)")
        params += [rules, rules]
    if pinned is not None:
        clauses.append("e.pinned" if pinned else "NOT e.pinned")
    where = " WHERE " + " AND ".join(clauses) if clauses else ""
    return source + where, tuple(params), order


def facet_counts(db: sqlite3.Connection, limit: int) -> Facets:
    """The strategies, linter classes and top tools in the history, most common first."""

    def values(column: str) -> list[tuple[str, int]]:
        rows = db.execute(
            f"SELECT {column}, count(*) AS n FROM entries WHERE {column} IS NOT NULL "
            f"GROUP BY {column} ORDER BY n DESC, {column} LIMIT ?",
            (limit,),
        ).fetchall()
        return [(value, number) for value, number in rows]

    return Facets(values("strategy"), values("lint_class"), values("top_tool"))
