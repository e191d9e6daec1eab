"""A rule pack's patterns, compiled once per pack.

Speed and safety both come from the same rule: every pattern starts with a literal or a small
character class (so the regex engine skips ahead in C), boundary checks happen in Python on the
one character before a match, and repetitions are possessive, so no input can make matching
backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._rules import RulePack

__all__ = ["CompiledRules", "KeywordFinder", "compile_rules", "is_word_char", "key"]

UPPER = "A-ZÀ-ÖØ-ÞΑ-ΩА-ЯЁ"
_CAP_WORD = rf"[{UPPER}]\w*+(?:['’\-]\w++)*+"


def key(text: str) -> str:
    """Case- and space-insensitive form of a term, as the lookup tables hold it."""
    return " ".join(text.casefold().split())


def is_word_char(char: str) -> bool:
    """What `\\w` matches."""
    return char.isalnum() or char == "_"


def _phrase(term: str) -> str:
    return r"\s++".join(re.escape(word) for word in term.split())


@dataclass(frozen=True, slots=True)
class KeywordFinder:
    """One keyword: the intents listing it, a literal to test for, and its patterns."""

    keyword: str
    intents: tuple[str, ...]
    first_word: str
    lowered: re.Pattern[str]
    """Matches the keyword in `text.lower()`; the word boundary before it is checked apart."""
    any_case: re.Pattern[str]
    """Matches in the original text, for the rare text whose lower() changes its length."""


def _finders(keywords: dict[str, list[str]]) -> tuple[KeywordFinder, ...]:
    intents: dict[str, list[str]] = {}
    spelling: dict[str, str] = {}
    for intent, terms in keywords.items():
        for term in terms:
            intents.setdefault(key(term), []).append(intent)
            spelling.setdefault(key(term), " ".join(term.lower().split()))
    return tuple(
        KeywordFinder(
            keyword=term,
            intents=tuple(names),
            first_word=spelling[term].split()[0],
            lowered=re.compile(rf"{_phrase(spelling[term])}(?!\w)"),
            any_case=re.compile(rf"(?<!\w){_phrase(term)}(?!\w)", re.IGNORECASE),
        )
        for term, names in intents.items()
    )


def _whole_words(terms: list[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    ordered = sorted({key(t) for t in terms}, key=lambda t: (-len(t), t))
    alternation = "|".join(_phrase(t) for t in ordered)
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class CompiledRules:
    rules: RulePack
    keywords: tuple[KeywordFinder, ...]
    capitalized: re.Pattern[str]
    preposition_before: re.Pattern[str]
    always_prepositions: frozenset[str]
    local_prepositions: frozenset[str]
    gazetteer: frozenset[str]
    stopwords: frozenset[str]
    connectors: frozenset[str]
    openclaw: re.Pattern[str]
    openclaw_word: re.Pattern[str]
    """A mention spelled as a word, not part of a host or path such as docs.openclaw.ai."""
    local_strip: re.Pattern[str] | None
    safety: re.Pattern[str] | None
    banned: re.Pattern[str] | None
    banned_first_words: tuple[str, ...]


def compile_rules(rules: RulePack) -> CompiledRules:
    """The compiled patterns of a rule pack, built on first use and kept on the pack."""
    return rules.derived(_compile)


def _compile(rules: RulePack) -> CompiledRules:
    connectors = "|".join(re.escape(c) for c in rules.entities.phrase_connectors) or "(?!)"
    prepositions = rules.place.always_prepositions + rules.place.gazetteer_prepositions
    preposition_alternation = "|".join(_phrase(key(p)) for p in prepositions) or "(?!)"
    return CompiledRules(
        rules=rules,
        keywords=_finders(rules.intents.keywords()),
        capitalized=re.compile(rf"{_CAP_WORD}(?:[ \t]++(?:(?:{connectors})[ \t]++)?{_CAP_WORD})*+"),
        preposition_before=re.compile(
            rf"(?<!\w)(?P<prep>{preposition_alternation})[ \t]++\Z", re.IGNORECASE
        ),
        always_prepositions=frozenset(key(p) for p in rules.place.always_prepositions),
        local_prepositions=frozenset(key(p) for p in rules.place.local_intent_prepositions),
        gazetteer=frozenset(key(p) for p in rules.place.gazetteer),
        stopwords=frozenset(key(w) for w in rules.entities.sentence_start_stopwords),
        connectors=frozenset(key(c) for c in rules.entities.phrase_connectors),
        openclaw=re.compile(re.escape(rules.openclaw.pattern), re.IGNORECASE),
        openclaw_word=re.compile(
            rf"(?<![\w./:\-]){re.escape(rules.openclaw.pattern)}(?![\w/\-]|\.\w)", re.IGNORECASE
        ),
        local_strip=_whole_words(rules.packs.local.strip_from_goal),
        safety=_whole_words(rules.packs.tech.safety_keywords),
        banned=_whole_words(rules.sanitize.banned_modifiers),
        banned_first_words=tuple({t.lower().split()[0] for t in rules.sanitize.banned_modifiers}),
    )
