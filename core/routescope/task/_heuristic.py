"""The heuristic task classifier: an offline, deterministic stand-in for the `task_classifier`
prompt, labelled "heuristic" in its reason."""

from __future__ import annotations

import re

from .._errors import one_line
from ..rules import default_rules
from ..strategy import QueryContext, extract
from ._spec import TaskSpec

__all__ = ["heuristic_route", "heuristic_task_spec"]

_LABEL = "heuristic: "
_GOAL_CHARS = 300
_WORD_CHARS = 60
"""At most this much of each matched keyword quoted in the reason."""
_RESEARCH = re.compile(
    r"\b(?:best[ -]practices?|compare[sd]?|comparing|comparison|vs\.?|versus|"
    r"trade[ -]?offs?|pros (?:and|&) cons)\b",
    re.IGNORECASE,
)
_RESEARCH_NEEDLES = ("best", "compar", "vs", "versus", "trade", "pros")
"""Where a match of `_RESEARCH` can begin in a lower-cased ASCII text: every alternative starts
with one of these (the pattern alone would try every position of a long prompt)."""


def _research_words(message: str) -> re.Match[str] | None:
    """`_RESEARCH.search(message)`, started where the first word it can match begins."""
    if not message.isascii():  # (non-ASCII letters can match case-insensitively: `ſ` is `s`)
        return _RESEARCH.search(message)
    lowered = message.lower()
    found = [at for needle in _RESEARCH_NEEDLES if (at := lowered.find(needle)) >= 0]
    # Every alternative begins with a needle, and `\b` still sees the character before `pos`.
    return _RESEARCH.search(message, min(found)) if found else None


def heuristic_task_spec(message: str, context: QueryContext | None = None) -> TaskSpec:
    """Route a message with the strategy router's intent flags: local, time-sensitive or
    purchase → browse; comparisons and best practices → research (before purchase, whose
    keywords include "best" and "vs"); anything else → chat. `context`: the message already
    extracted (by `inspect`), else it is extracted with the built-in pack."""
    context = context or extract(message, default_rules())
    route, why = _route(message, context)
    evidence = [m.text for m in context.intent_matches if m.intent != "tech"][:4]
    if evidence and route == "browse":
        why += f" ({_quoted(evidence)})"
    goal = (context.user_goal or " ".join(message.split())).strip()
    goal = goal[:_GOAL_CHARS].strip() or "no goal given"
    return TaskSpec.model_validate({"route": route, "user_goal": goal, "reason": _LABEL + why})


def heuristic_route(message: str, context: QueryContext) -> str:
    """The heuristic's route alone (`heuristic_task_spec(message, context).route`), for a
    caller that keeps no goal or reason: a batch of millions of prompts."""
    return _route(message, context)[0]


def _route(message: str, context: QueryContext) -> tuple[str, str]:
    flags = context.intent
    if flags.local:
        return "browse", "local intent: one current search"
    research = _research_words(message)
    if research:
        return "research", f"'{research.group()}' asks for several sources compared"
    if flags.time_sensitive:
        return "browse", "time-sensitive: facts that change need a current search"
    if flags.purchase:
        return "browse", "purchase intent: prices and reviews need a current search"
    return "chat", "no local, time-sensitive, purchase or comparison intent"


def _quoted(words: list[str], limit: int = 6) -> str:
    # (a match can be as long as the prompt: a place "in Denver Denver …" of a 10k prompt)
    shown = ", ".join(f"'{one_line(word, _WORD_CHARS)}'" for word in words[:limit])
    return shown + (f" and {len(words) - limit} more" if len(words) > limit else "")
