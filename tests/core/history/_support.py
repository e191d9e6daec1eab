"""What the history tests share: requests with every kind of input, and their results."""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path

import routescope
from routescope import CatalogRef, Inspection, Request, RulesRef
from routescope.contract import parse_context
from routescope.toolsearch import SearchSettings

TODAY = dt.date(2026, 2, 5)


@functools.cache
def result_of(text: str) -> Inspection:
    """The result of a plain request (no catalog), computed once per text."""
    return routescope.inspect(Request.build(text, today=TODAY))


def plain(text: str = "History of jazz music") -> tuple[Request, Inspection]:
    request = Request.build(text, today=TODAY)
    return request, result_of(text)


def custom_pack(folder: Path) -> RulesRef:
    """A rule pack file: the built-in text with another description."""
    text = RulesRef.builtin().text
    changed = text.replace("description = ", 'description = "custom pack" # ', 1)
    assert changed != text
    path = folder / "custom.toml"
    path.write_text(changed, encoding="utf-8")
    return RulesRef.from_path(path)


def rich(folder: Path, text: str = "Try again with 100 USDC") -> Request:
    """A request with every input set: a rule pack file, a context (with an aliased field), a
    catalog reference and search settings that are not the defaults."""
    context = parse_context(
        {
            "last_action": {
                "tool": "lend_execute",
                "args": {"amount": 100, "token": "USDC"},
                "status": "cancelled",
            },
            "preferences": {"stablecoinOnly": True},
        }
    )
    return Request(
        text=text,
        today=dt.date(2026, 3, 1),
        rules=custom_pack(folder),
        context=context,
        catalog=CatalogRef(str(folder / "catalog"), "0123456789abcdef", "some-model@v1"),
        search=SearchSettings(k=7, boosts={"tool_name": 2.0, "description": 1.5}, explain=False),
    )


@functools.cache
def _engine() -> object:
    from routescope.toolsearch import ToolSearch, load_catalog

    return ToolSearch(load_catalog(CatalogRef.sample().path), semantic=False)


def with_tools(text: str) -> tuple[Request, Inspection]:
    """A request over the sample catalog, ranked keyword-only (no embedding model)."""
    request = Request.build(text, today=TODAY, catalog=CatalogRef.sample())
    return request, routescope.inspect(request, tools=_engine())  # type: ignore[arg-type]
