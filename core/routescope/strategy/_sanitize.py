"""`sanitize_query` and the final action list: every change to a query is recorded."""

from __future__ import annotations

import datetime as dt
import operator
import re

from ..rules import RulePack
from ._compiled import CompiledRules, compile_rules
from ._models import Action, QueryContext, SanitizeEdit, SanitizeRule
from ._plan import Plan, PlannedQuery

__all__ = ["format_as_of", "sanitize_plan", "sanitize_query"]

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SITE = re.compile(r"(?<!\S)site:\S*", re.IGNORECASE)
_AS_OF = re.compile(r"(?<!\w)as\s+of(?!\w)", re.IGNORECASE)
_ABBREVIATE = 80
# Room for what the rules may remove before the final cut to the query limit.
_SLACK = 200


def format_as_of(today: dt.date, rules: RulePack) -> str:
    """The recency hint for `today`, independent of the machine's locale."""
    return rules.sanitize.as_of.format(
        month=_MONTHS[today.month - 1], day=today.day, year=today.year
    )


def _short(text: str) -> str:
    return text if len(text) <= _ABBREVIATE * 2 else f"{text[:_ABBREVIATE]}… ({len(text):,} chars)"


def _edit(rule: SanitizeRule, before: str, after: str, detail: str) -> SanitizeEdit:
    return SanitizeEdit(rule, _short(before), _short(after), detail)


def _squash(text: str) -> str:
    return " ".join((text if text.isprintable() else _CONTROL.sub(" ", text)).split())


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters, cut at the last word boundary when there is one."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    boundary = head.rfind(" ")
    return (head[:boundary] if boundary > 0 else text[:limit]).rstrip()


def sanitize_query(
    query: str,
    context: QueryContext,
    today: dt.date,
    rules: RulePack,
    *,
    allow_site: bool = True,
) -> tuple[str, list[SanitizeEdit]]:
    """Sanitize one planned query; return the final query and the edits that made it.
    With `allow_site=False` (general and local strategies) `site:` operators are removed."""
    as_of = format_as_of(today, rules)
    return _sanitize(query, context, as_of, compile_rules(rules), allow_site)


def _sanitize(
    query: str, context: QueryContext, as_of: str, compiled: CompiledRules, allow_site: bool
) -> tuple[str, list[SanitizeEdit]]:
    limit = compiled.rules.sanitize.max_query_chars
    huge = len(query) > limit + _SLACK
    edits: list[SanitizeEdit] = []
    # Bound the work on long input before any pattern runs; the final cut is recorded below.
    current = _squash(_cut(query, limit + _SLACK) if huge else query)
    if current != query and not huge:
        edits.append(_edit("whitespace", query, current, "trimmed and squashed whitespace"))
    if not allow_site and "site:" in current.lower():
        after = _squash(_SITE.sub(" ", current))
        removed = ", ".join(f'"{m.group()}"' for m in _SITE.finditer(current))
        edits.append(
            _edit(
                "site_operator",
                current,
                after,
                f"removed {removed}: no site: searches outside the tech strategy",
            )
        )
        current = after
    lowered = current.lower()
    current = _remove_banned(current, compiled, edits)
    current = _say_once(current, edits)
    if context.has_openclaw:
        after = compiled.openclaw_word.sub(compiled.rules.openclaw.canonical, current)
        if after != current:
            detail = f"spelled {compiled.rules.openclaw.canonical}"
            edits.append(_edit("canonical_openclaw", current, after, detail))
            current = after
    suffix = ""
    if context.intent.time_sensitive and "site:" not in lowered and not _has_as_of(current):
        suffix = as_of
    body_limit = limit - len(suffix) - 1 if suffix else limit
    if huge or len(current) > body_limit:
        after = _cut(current, body_limit)
        detail = f"cut {len(query):,} → {len(after):,} chars at a word boundary (limit {limit})"
        edits.append(_edit("truncate", query if huge else current, after, detail))
        current = after
    if suffix and current:
        after = f"{current} {suffix}"
        edits.append(_edit("as_of", current, after, f'appended "{suffix}" (time-sensitive)'))
        current = after
    if not current:
        edits.append(_edit("empty", query, "", "nothing left after sanitizing: dropped"))
    return current, edits


def _remove_banned(current: str, compiled: CompiledRules, edits: list[SanitizeEdit]) -> str:
    if not compiled.banned:
        return current
    after, removed = compiled.banned.remove(current)
    if not removed:
        return current
    after = _squash(after)
    detail = "removed " + ", ".join(f'"{r}"' for r in removed)
    edits.append(_edit("banned_modifier", current, after, detail))
    return after


def _say_once(current: str, edits: list[SanitizeEdit]) -> str:
    """Collapse a phrase of two to four words said twice or more in a row ("near me near me")."""
    words = current.split(" ")
    repeated: list[str] = []
    folded = current.lower().split(" ")
    while _may_repeat(folded):
        words, found = _collapse(words, folded)
        if not found:
            break
        repeated += found
        folded = [w.lower() for w in words]
    if not repeated:
        return current
    after = " ".join(words)
    detail = "said once: " + ", ".join(f'"{r}"' for r in repeated)
    edits.append(_edit("repeated_phrase", current, after, detail))
    return after


def _may_repeat(folded: list[str]) -> bool:
    """Cheap test: a repeated phrase needs two adjacent words that come back 2-4 words later."""
    for size in (2, 3, 4):
        same = list(map(operator.eq, folded, folded[size:]))
        if any(map(operator.and_, same, same[1:])):
            return True
    return False


def _collapse(words: list[str], folded: list[str]) -> tuple[list[str], list[str]]:
    kept: list[str] = []
    repeated: list[str] = []
    index = 0
    while index < len(words):
        for size in (2, 3, 4):  # shortest first: "a b a b a b" is "a b" said three times
            phrase = folded[index : index + size]
            if len(phrase) == size and folded[index + size : index + 2 * size] == phrase:
                repeated.append(" ".join(words[index : index + size]))
                while folded[index + size : index + 2 * size] == phrase:
                    index += size
                break
        kept.append(words[index])
        index += 1
    return kept, repeated


def _has_as_of(query: str) -> bool:
    return "as of" in query.lower() and _AS_OF.search(query) is not None


def _action(planned: PlannedQuery, query: str, edits: list[SanitizeEdit]) -> Action:
    return Action(query, planned.query, planned.priority, planned.source, edits)


def sanitize_plan(
    plan: Plan, context: QueryContext, today: dt.date, rules: RulePack
) -> list[Action]:
    """Sanitize every planned query in order; never return an empty list."""
    compiled, as_of = compile_rules(rules), format_as_of(today, rules)
    allow_site = plan.strategy == "tech"
    actions = []
    for planned in plan.queries:
        query, edits = _sanitize(planned.query, context, as_of, compiled, allow_site)
        if query:
            actions.append(_action(planned, query, edits))
    if actions:
        return actions
    # The pack produced nothing usable: fall back to one search for the goal itself.
    fallback = PlannedQuery(context.user_goal, 1, "fallback")
    query, edits = _sanitize(fallback.query, context, as_of, compiled, allow_site)
    if not query:
        query = _cut(_squash(context.raw_text), rules.sanitize.max_query_chars)
        edits = [*edits, _edit("empty", "", query, "fallback: the prompt itself, unsanitized")]
    return [_action(fallback, query, edits)]
