"""A rule pack's patterns, compiled once per pack.

Speed and safety both come from the same rule: every pattern starts with a literal or a small
character class (so the regex engine skips ahead in C), boundary checks happen in Python on the
one character before a match, and repetitions are possessive, so no input can make matching
backtrack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._phrases import PhraseSet, is_word_char, key, lowered_or_none, phrase_pattern
from ..rules import IntentName, RulePack
from ._places import GeoNames, geonames

__all__ = [
    "UPPER",
    "CompiledRules",
    "compile_rules",
    "is_word_char",
    "key",
    "lowered_or_none",
]

UPPER = "A-ZÀ-ÖØ-ÞΑ-ΩА-ЯЁ"
_CAP_WORD = rf"[{UPPER}]\w*+(?:['’\-]\w++)*+"
# A run must start a word: the look-behind sits after the first letter so that the regex engine
# can still skip to the next capital letter in C.
_RUN_START = rf"[{UPPER}](?<![\w'’\-].)\w*+(?:['’\-]\w++)*+"


def _keyword_intents(
    keywords: dict[IntentName, list[str]],
) -> dict[str, tuple[IntentName, ...]]:
    intents: dict[str, list[IntentName]] = {}
    for intent, terms in keywords.items():
        for term in terms:
            intents.setdefault(key(term), []).append(intent)
    return {term: tuple(names) for term, names in intents.items()}


@dataclass(frozen=True, eq=False)
class CompiledRules:
    rules: RulePack
    keywords: PhraseSet
    keyword_intents: dict[str, tuple[IntentName, ...]]
    """Intents listing each keyword (one keyword may serve several)."""
    capitalized: re.Pattern[str]
    preposition_before: re.Pattern[str]
    preposition_words: tuple[str, ...]
    always_prepositions: frozenset[str]
    local_prepositions: frozenset[str]
    gazetteer: frozenset[str]
    gazetteer_words: int
    """Words in the longest gazetteer entry."""
    stopwords: frozenset[str]
    connectors: frozenset[str]
    openclaw: re.Pattern[str]
    openclaw_word: re.Pattern[str]
    """A mention spelled as a word, not part of a host or path such as docs.openclaw.ai."""
    local_strip: PhraseSet
    safety: PhraseSet
    banned: PhraseSet
    exceptions: PhraseSet
    exception_intents: dict[str, tuple[IntentName, ...]]
    """Intents each exception phrase suspends a keyword of."""
    entity_stopwords: frozenset[str]
    known: PhraseSet
    lower_places: dict[str, str] | None
    """Lower-case place name → what it is; None unless the pack finds lower-case places."""
    lower_place_start: re.Pattern[str] | None
    """A preposition and the white space after it, where a lower-case place may start."""
    geonames: GeoNames | None


def compile_rules(rules: RulePack) -> CompiledRules:
    """The compiled patterns of a rule pack, built on first use and kept on the pack."""
    return rules.derived(_compile)


def _places(rules: RulePack, names: GeoNames | None) -> dict[str, str]:
    """The pack's gazetteer, GeoNames' places when it asks for them, less its `not_places`."""
    places = dict(names.places) if names is not None else {}
    places.update((key(place), "gazetteer") for place in rules.place.gazetteer)
    for word in rules.place.not_places:
        places.pop(key(word), None)
    return places


def _compile(rules: RulePack) -> CompiledRules:
    connectors = "|".join(re.escape(c) for c in rules.entities.phrase_connectors) or "(?!)"
    prepositions = rules.place.always_prepositions + rules.place.gazetteer_prepositions
    preposition_alternation = "|".join(phrase_pattern(key(p)) for p in prepositions) or "(?!)"
    names = geonames() if rules.place.geonames else None
    places = _places(rules, names)
    exceptions = rules.intents.exceptions
    return CompiledRules(
        rules=rules,
        keywords=PhraseSet([t for terms in rules.intents.keywords().values() for t in terms]),
        keyword_intents=_keyword_intents(rules.intents.keywords()),
        capitalized=re.compile(
            rf"{_RUN_START}(?:[ \t]++(?:(?:{connectors})[ \t]++)?{_CAP_WORD})*+"
        ),
        preposition_before=re.compile(
            rf"(?<!\w)(?P<prep>{preposition_alternation})[ \t]++\Z", re.IGNORECASE
        ),
        preposition_words=tuple(p.lower().split()[-1] for p in prepositions),
        always_prepositions=frozenset(key(p) for p in rules.place.always_prepositions),
        local_prepositions=frozenset(key(p) for p in rules.place.local_intent_prepositions),
        gazetteer=frozenset(places),
        gazetteer_words=max((len(p.split()) for p in places), default=0),
        stopwords=frozenset(key(w) for w in rules.entities.sentence_start_stopwords),
        connectors=frozenset(key(c) for c in rules.entities.phrase_connectors),
        openclaw=re.compile(re.escape(rules.openclaw.pattern), re.IGNORECASE),
        openclaw_word=re.compile(
            rf"(?<![\w./:\-]){re.escape(rules.openclaw.pattern)}(?![\w/\-]|\.\w)", re.IGNORECASE
        ),
        local_strip=PhraseSet(rules.packs.local.strip_from_goal),
        safety=PhraseSet(rules.packs.tech.safety_keywords),
        banned=PhraseSet(rules.sanitize.banned_modifiers),
        exceptions=PhraseSet([p for phrases in exceptions.values() for p in phrases]),
        exception_intents=_keyword_intents(dict(exceptions)),
        entity_stopwords=frozenset(key(w) for w in rules.entities.stopwords),
        known=PhraseSet(rules.entities.known),
        lower_places=places if rules.place.lowercase else None,
        lower_place_start=re.compile(rf"(?<!\w)(?:{preposition_alternation})[ \t]++", re.IGNORECASE)
        if rules.place.lowercase
        else None,
        geonames=names,
    )
