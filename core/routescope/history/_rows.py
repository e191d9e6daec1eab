"""The history's rows as Python: the columns an entry is read from, the statement that records
one, `Entry` and `Facets` (what the list and its filters show) and `LastSession` (the window's
state kept beside them)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._request import CatalogRef
from ._codec import Summary

__all__ = ["ENTRY_COLUMNS", "E_COLUMNS", "RECORD", "Entry", "Facets", "LastSession", "entry_of"]

ENTRY_COLUMNS = (
    "id, fingerprint, text, today, rules_digest, rules_source, catalog_path, catalog_digest, "
    "catalog_model, strategy, lint_class, top_tool, contract_agent, task_route, first_seen, "
    "last_seen, count, pinned"
)
E_COLUMNS = ", ".join(f"e.{name.strip()}" for name in ENTRY_COLUMNS.split(","))

RECORD = f"""
INSERT INTO entries (seq, fingerprint, text, today, rules_digest, rules_source, catalog_path,
    catalog_digest, catalog_model, search, context, strategy, lint_class, top_tool,
    contract_agent, task_route, first_seen, last_seen)
VALUES ((SELECT ifnull(max(seq), 0) + 1 FROM entries),
    ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (fingerprint) DO UPDATE SET
    seq = excluded.seq, last_seen = excluded.last_seen, count = entries.count + 1,
    rules_source = excluded.rules_source, catalog_path = excluded.catalog_path,
    strategy = excluded.strategy, lint_class = excluded.lint_class,
    top_tool = excluded.top_tool, contract_agent = excluded.contract_agent,
    task_route = excluded.task_route
RETURNING {ENTRY_COLUMNS}
"""


@dataclass(frozen=True, slots=True)
class Entry:
    """One prompt of the history (a row of the list): the request's identity and the summary
    of its result. `History.reopen(entry.id)` gives back the whole `Request`."""

    id: int
    fingerprint: str
    text: str
    today: dt.date
    rules_source: str
    rules_digest: str
    catalog: CatalogRef | None
    summary: Summary
    first_seen: dt.datetime
    """When the request was first inspected (UTC)."""
    last_seen: dt.datetime
    """When it was last inspected (UTC): the list's order, newest first."""
    count: int
    """How many times it was inspected."""
    pinned: bool


@dataclass(frozen=True, slots=True)
class Facets:
    """The values the history's filters offer, each with how many entries have it (most first)."""

    strategies: list[tuple[str, int]]
    lint_classes: list[tuple[str, int]]
    top_tools: list[tuple[str, int]]


class LastSession(BaseModel):
    """What the window showed when it closed: restored when it opens."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    prompt: str = ""
    tab: str | None = None
    catalog: str | None = None
    """The catalog's path (None: no catalog, or the sample)."""
    rules: str | None = None
    """The rule pack's path (None: the built-in pack)."""
    today: dt.date | None = None
    """A date the window was pinned to (None: the local date)."""


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def entry_of(row: Sequence[Any]) -> Entry:
    (
        entry_id,
        fingerprint,
        text,
        today,
        rules_digest,
        rules_source,
        catalog_path,
        catalog_digest,
        catalog_model,
        strategy,
        lint_class,
        top_tool,
        contract_agent,
        task_route,
        first_seen,
        last_seen,
        count,
        pinned,
    ) = row
    catalog = (
        CatalogRef(catalog_path, catalog_digest, catalog_model)
        if catalog_path is not None
        else None
    )
    return Entry(
        id=entry_id,
        fingerprint=fingerprint,
        text=text,
        today=dt.date.fromisoformat(today),
        rules_source=rules_source,
        rules_digest=rules_digest,
        catalog=catalog,
        summary=Summary(strategy, lint_class, top_tool, contract_agent, task_route),
        first_seen=_utc(first_seen),
        last_seen=_utc(last_seen),
        count=count,
        pinned=bool(pinned),
    )
