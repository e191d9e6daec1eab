"""Helpers the tests share (imported, unlike fixtures, which live in the conftest files)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import routescope
from routescope import Inspection

TODAY = dt.date(2026, 2, 5)
AS_OF = "as of February 5, 2026"

DEMO_SUITE = """\
# a comment that must survive --update
suite: demo
router: strategy
today: 2026-02-05
cases:
  - id: right
    prompt: pizza near me   # trailing comment
    expect:
      strategy: local
  - id: wrong
    prompt: How do I install FastAPI?
    expect:
      strategy: general          # a wrong golden
      actions[*].query: {not_contains: "site:"}   # tolerant, also wrong
      context.entities.candidates[0]: FastAPI
"""
"""A small strategy suite with comments, one passing and one failing case (a wrong golden and
a wrong tolerant matcher)."""


def run(text: str, **kwargs: object) -> Inspection:
    """inspect() with a fixed `today`, as every core test needs."""
    kwargs.setdefault("today", TODAY)
    return routescope.inspect(text, **kwargs)  # type: ignore[arg-type]


def queries(text: str, **kwargs: object) -> list[str]:
    return [a.query for a in run(text, **kwargs).actions]


def routescope_cli(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m routescope ARGS` as a user runs it, output as text. The process inherits the
    test session's temporary cache and config folders (see tests/conftest.py)."""
    return subprocess.run(
        [sys.executable, "-m", "routescope", *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


PARAMETER_QUERIES = [
    ("catalogs/openai-tools.json", "cabin class", "search_flights"),
    ("catalogs/openai-functions.json", "postcode", "update_shipping_address"),
    ("catalogs/mcp-tools-list.json", "glob excludePatterns", "search_files"),
    ("catalogs/anthropic-tools.json", "squash rebase", "merge_pull_request"),
    ("catalogs/routescope.json", "timeout seconds", "db.query"),
]
"""One example catalog per format (under examples/) and a query that names one of its tools'
parameters, with that tool."""
