"""The history store's schema: its tables, indexes and full-text index, made in one go on a new
store.

Layout (schema 1; `PRAGMA application_id` marks the file as Routescope's, `user_version` is
the schema):

    rule_packs(digest PRIMARY KEY, text)           each pack's TOML text, once per digest
    entries(id, seq UNIQUE, fingerprint UNIQUE, text, today, rules_digest, rules_source,
            catalog_path, catalog_digest, catalog_model, search, context,
            strategy, lint_class, top_tool, contract_agent, task_route,
            first_seen, last_seen, count, pinned)
    entries_fts                                    FTS5 over entries.text, external content
                                                   keyed by `seq`, kept by triggers (a LIKE
                                                   scan where FTS5 is missing)
    state(key PRIMARY KEY, value)                  small JSON values: `last_session`

`seq` orders the entries by their last record (each record gives its entry the next number),
so that the newest matches of a word come straight from the full-text index in its own order,
without sorting every match (a common word among 100k entries: about 1 ms). Indexes besides the
unique ones: entries(strategy, seq), (lint_class, seq), (top_tool, seq), (rules_digest), and
(seq) WHERE pinned.
"""

from __future__ import annotations

import contextlib
import sqlite3

__all__ = [
    "APPLICATION_ID",
    "FTS_SCHEMA",
    "SCHEMA",
    "SCHEMA_VERSION",
    "fts5_available",
    "statements",
]

APPLICATION_ID = 0x52534869
"""`PRAGMA application_id` of a Routescope history ("RSHi")."""
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE rule_packs (
    digest TEXT PRIMARY KEY,
    text TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    today TEXT NOT NULL,
    rules_digest TEXT NOT NULL,
    rules_source TEXT NOT NULL,
    catalog_path TEXT,
    catalog_digest TEXT,
    catalog_model TEXT,
    search TEXT NOT NULL,
    context TEXT,
    strategy TEXT NOT NULL,
    lint_class TEXT NOT NULL,
    top_tool TEXT,
    contract_agent TEXT,
    task_route TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    count INTEGER NOT NULL DEFAULT 1,
    pinned INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX entries_strategy ON entries(strategy, seq);
CREATE INDEX entries_lint_class ON entries(lint_class, seq);
CREATE INDEX entries_top_tool ON entries(top_tool, seq);
CREATE INDEX entries_rules ON entries(rules_digest);
CREATE INDEX entries_pinned ON entries(seq) WHERE pinned;
CREATE TABLE state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""

FTS_SCHEMA = """
CREATE VIRTUAL TABLE entries_fts USING fts5(
    text, content='entries', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, text) VALUES (new.seq, new.text);
END;
CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, text) VALUES ('delete', old.seq, old.text);
END;
CREATE TRIGGER entries_fts_update AFTER UPDATE OF seq, text ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, text) VALUES ('delete', old.seq, old.text);
    INSERT INTO entries_fts(rowid, text) VALUES (new.seq, new.text);
END;
"""


def fts5_available() -> bool:
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as probe:
            probe.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.Error:
        return False
    return True


def statements(script: str) -> list[str]:
    """The statements of a schema script (trigger bodies kept whole)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    return statements
