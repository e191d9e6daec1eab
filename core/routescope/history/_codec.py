"""A `Request` and the summary of its result as plain data, and back: what the history store
and session files keep. The rule pack's text travels on its own (once per digest)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from .._errors import HistoryError, RoutescopeError, describe, one_line
from .._request import CatalogRef, Request, RulesRef
from ..contract import RouterContext
from ..toolsearch import SearchSettings

if TYPE_CHECKING:
    from .._outcome import Outcome

__all__ = [
    "Summary",
    "context_json",
    "pack_digest",
    "parse_context_json",
    "parse_search_json",
    "rebuild_request",
    "search_json",
]


@dataclass(frozen=True, slots=True)
class Summary:
    """What a history entry shows of its result's `Outcome`, and what the history filters on
    (the store keeps these five fields as columns)."""

    strategy: str
    """The strategy router's choice: `general`, `local` or `tech`."""
    lint_class: str
    """The query linter's class: `guided`, `semi` or `vague`."""
    top_tool: str | None
    """The best-ranked tool (None without a catalog, or when none ranks)."""
    agent: str | None
    """The router contract's agent (None when the rule pack disables the contract)."""
    task_route: str
    """The task router's route: `chat`, `browse` or `research`."""

    @classmethod
    def of(cls, outcome: Outcome) -> Summary:
        return cls(
            strategy=outcome.strategy,
            lint_class=outcome.lint_class,
            top_tool=outcome.top_tool,
            agent=outcome.agent,
            task_route=str(outcome.task_route),
        )


def pack_digest(text: str) -> str:
    """The digest `RulesRef` gives a pack's text (so a stored text can be checked)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def search_json(settings: SearchSettings) -> str:
    """The search settings as JSON: every field, the boosts as a plain mapping."""
    data = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
    data["boosts"] = None if settings.boosts is None else dict(settings.boosts)
    return json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False)


def parse_search_json(text: str) -> SearchSettings:
    """`search_json` read back (ValueError when it no longer fits `SearchSettings`)."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("search settings are not a mapping")
    known = {f.name for f in dataclasses.fields(SearchSettings)}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise ValueError(f"search settings: unknown setting {unknown[0][:80]!r}")
    try:
        return SearchSettings(**data)
    except (TypeError, RoutescopeError) as exc:
        raise ValueError(f"search settings: {one_line(exc)}") from None


def context_json(context: RouterContext | None) -> str | None:
    """The router context as the JSON a context file holds (aliases, defaults left out)."""
    if context is None:
        return None
    return context.model_dump_json(by_alias=True, exclude_defaults=True)


def parse_context_json(text: str | None) -> RouterContext | None:
    if text is None:
        return None
    try:
        return RouterContext.model_validate_json(text)
    except ValidationError as exc:
        raise ValueError(f"context: {describe(exc)}") from None


def rebuild_request(
    *,
    where: str,
    text: str,
    today: str | dt.date,
    rules_source: str,
    rules_digest: str,
    rules_text: str | None,
    catalog: tuple[str, str, str] | None,
    search: str | SearchSettings,
    context: str | RouterContext | None,
) -> Request:
    """A stored request put together again. Everything is checked: the pack's text against its
    digest, the date, the context and settings against their models (HistoryError naming
    `where`). Its fingerprint is the caller's to compare: another version of Routescope may
    hash the same request differently."""
    if rules_text is None:
        raise HistoryError(one_line(f"{where}: the rule pack {rules_digest} is missing"))
    if pack_digest(rules_text) != rules_digest:
        raise HistoryError(one_line(f"{where}: the rule pack's text does not match its digest"))
    try:
        request = Request(
            text=text,
            today=today if isinstance(today, dt.date) else dt.date.fromisoformat(today),
            rules=RulesRef(rules_source, rules_text, rules_digest),
            context=context if not isinstance(context, str) else parse_context_json(context),
            catalog=None if catalog is None else CatalogRef(*catalog),
            search=search if isinstance(search, SearchSettings) else parse_search_json(search),
        )
    except (ValueError, TypeError, RecursionError) as exc:
        raise HistoryError(one_line(f"{where}: cannot rebuild the request: {exc}")) from None
    return request
