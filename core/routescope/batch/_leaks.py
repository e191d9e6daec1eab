"""The leak checks: the seed's (000, strategy router) three promises, as named rules —
`site:` searches only for the tech strategy, the OpenClaw searches only for tech prompts that
mention OpenClaw, and "as of <date>" only on time-sensitive queries."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .._outcome import Outcome
from ._results import PromptRef, Result

__all__ = ["LEAK_RULES", "LeakFinding", "LeakRule", "Offence", "find_leaks"]

TIME_SENSITIVE = frozenset({"time_sensitive", "timeSensitive"})

_SITE = re.compile(r"(?<![\w.-])site:[^\s()\"']+", re.IGNORECASE)
_OPENCLAW_SEARCH = re.compile(r"(?<![\w.-])site:[^\s()\"']*openclaw[^\s()\"']*", re.IGNORECASE)
_AS_OF = re.compile(r"(?<!\w)as\s+of(?!\w)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LeakFinding:
    """One offending query of one prompt; `start`/`end` mark the offending part of `query`."""

    rule: str
    ref: PromptRef
    strategy: str
    query: str
    start: int
    end: int
    detail: str


Offence = tuple[str, int, int, str]
"""(query, start, end, detail): what a leak rule finds in one record."""


def _site_outside_tech(record: Outcome) -> list[Offence]:
    if record.strategy == "tech":
        return []
    found = []
    for query in record.queries:
        match = _SITE.search(query)
        if match:
            found.append((query, match.start(), match.end(), f"strategy {record.strategy}"))
    return found


def _openclaw_outside_gate(record: Outcome) -> list[Offence]:
    if record.strategy == "tech" and record.has_openclaw:
        return []
    detail = (
        f"strategy {record.strategy}"
        if record.strategy != "tech"
        else "tech, but the prompt does not mention OpenClaw"
    )
    found = []
    for query in record.queries:
        match = _OPENCLAW_SEARCH.search(query)
        if match:
            found.append((query, match.start(), match.end(), detail))
    return found


def _as_of_not_time_sensitive(record: Outcome) -> list[Offence]:
    if TIME_SENSITIVE.intersection(record.intents):
        return []
    said = len(_AS_OF.findall(record.prompt))
    flags = f"not time-sensitive (flags: {', '.join(record.intents) or 'none'})"
    found = []
    for query in record.queries:
        matches = list(_AS_OF.finditer(query))
        if len(matches) > said:  # the user's own "as of" is not a leak
            last = matches[-1]
            found.append((query, last.start(), len(query), flags))
    return found


@dataclass(frozen=True, slots=True)
class LeakRule:
    """One promise of the seed that a routed prompt can break; `check` lists its offences."""

    name: str
    title: str
    description: str
    check: Callable[[Outcome], list[Offence]]


LEAK_RULES: tuple[LeakRule, ...] = (
    LeakRule(
        "site_outside_tech",
        "site: query outside the tech strategy",
        "Only the tech strategy may search with site: operators; general and local plan two "
        "plain searches.",
        _site_outside_tech,
    ),
    LeakRule(
        "openclaw_outside_gate",
        "OpenClaw search outside tech + OpenClaw",
        "The two canonical OpenClaw searches (site:docs.openclaw.ai, site:github.com/openclaw) "
        "belong only to tech prompts that mention OpenClaw.",
        _openclaw_outside_gate,
    ),
    LeakRule(
        "as_of_not_time_sensitive",
        '"as of" on a query that is not time-sensitive',
        'The sanitizer appends "as of <today>" only when the prompt is time-sensitive; an '
        '"as of" the prompt itself says is not counted.',
        _as_of_not_time_sensitive,
    ),
)


def find_leaks(result: Result) -> list[LeakFinding]:
    """Every offence of every leak rule in one routed prompt."""
    outcome = result.outcome
    return [
        LeakFinding(rule.name, result.ref, outcome.strategy, query, start, end, detail)
        for rule in LEAK_RULES
        for query, start, end, detail in rule.check(outcome)
    ]
