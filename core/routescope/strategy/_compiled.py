"""A rule pack's patterns, compiled once per pack.

Speed and safety both come from the same rule: every pattern starts with a literal or a small
character class (so the regex engine skips ahead in C), boundary checks happen in Python on the
one character before a match, and repetitions are possessive, so no input can make matching
backtrack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .._rules import RulePack

__all__ = [
    "CompiledRules",
    "Phrase",
    "PhraseSet",
    "compile_rules",
    "is_word_char",
    "key",
    "lowered_or_none",
    "prepare",
]

UPPER = "A-ZÀ-ÖØ-ÞΑ-ΩА-ЯЁ"
_CAP_WORD = rf"[{UPPER}]\w*+(?:['’\-]\w++)*+"
# A run must start a word: the look-behind sits after the first letter so that the regex engine
# can still skip to the next capital letter in C.
_RUN_START = rf"[{UPPER}](?<![\w'’\-].)\w*+(?:['’\-]\w++)*+"


def key(text: str) -> str:
    """Case- and space-insensitive form of a term, as the lookup tables hold it."""
    return " ".join(text.casefold().split())


def is_word_char(char: str) -> bool:
    """What `\\w` matches."""
    return char.isalnum() or char == "_"


_WORDS = re.compile(r"\w+")
_SHORT_TEXT = 400
_MANY_PHRASES = 12


def _phrase(term: str) -> str:
    return r"\s++".join(re.escape(word) for word in term.split())


@dataclass(frozen=True, slots=True)
class Phrase:
    """One keyword or phrase: a literal to test for, and patterns that start with it."""

    text: str
    first_word: str
    plain_word: bool
    """The first word is all word characters, so a set of the text's words can rule it out."""
    lowered: re.Pattern[str]
    """Matches in `text.lower()`. It starts with the literal, which lets the regex engine jump
    ahead in C; the word boundary before a match is checked apart (see `PhraseSet.spans`)."""
    any_case: re.Pattern[str]
    """Matches in the original text, for the rare text whose lower() changes its length."""


class PhraseSet:
    """Finds whole-word, case-insensitive occurrences of a list of phrases, fast."""

    def __init__(self, terms: list[str]) -> None:
        spellings: dict[str, str] = {}
        for term in terms:
            spellings.setdefault(key(term), " ".join(term.lower().split()))
        self.phrases = tuple(
            Phrase(
                text=folded,
                first_word=spelling.split()[0],
                plain_word=_WORDS.fullmatch(spelling.split()[0]) is not None,
                lowered=re.compile(rf"{_phrase(spelling)}(?!\w)"),
                any_case=re.compile(rf"(?<!\w){_phrase(folded)}(?!\w)", re.IGNORECASE),
            )
            for folded, spelling in spellings.items()
        )

    def __bool__(self) -> bool:
        return bool(self.phrases)

    def found(
        self, text: str, lowered: str | None
    ) -> Iterator[tuple[Phrase, list[tuple[int, int]]]]:
        """Each phrase that occurs, with the spans of its occurrences in text order.
        `lowered` is `text.lower()` when it has the same length as `text`, else None."""
        phrases = self.phrases
        if lowered is not None and len(lowered) < _SHORT_TEXT and len(phrases) > _MANY_PHRASES:
            # Short text: one set intersection beats a substring test per phrase.
            words = set(_WORDS.findall(lowered))
            phrases = tuple(p for p in phrases if p.first_word in words or not p.plain_word)
        for phrase in phrases:
            if lowered is None:
                spans = [m.span() for m in phrase.any_case.finditer(text)]
            elif phrase.first_word in lowered:
                spans = [
                    m.span()
                    for m in phrase.lowered.finditer(lowered)
                    if not (m.start() and is_word_char(lowered[m.start() - 1]))
                ]
            else:
                continue
            if spans:
                yield phrase, spans

    def spans(self, text: str, lowered: str | None) -> list[tuple[int, int, Phrase]]:
        """Every occurrence as (start, end, phrase), in text order."""
        return sorted(
            (
                (start, end, phrase)
                for phrase, spans in self.found(text, lowered)
                for start, end in spans
            ),
            key=lambda item: (item[0], -item[1]),
        )

    def remove(self, text: str) -> tuple[str, list[str]]:
        """`text` without the phrases (each cut leaves a space) and what was removed."""
        spans = self.spans(text, lowered_or_none(text))
        if not spans:
            return text, []
        kept, removed, position = [], [], 0
        for start, end, _ in spans:
            if start < position:
                continue  # inside a longer phrase removed already
            kept.append(text[position:start])
            removed.append(text[start:end])
            position = end
        kept.append(text[position:])
        return " ".join(kept), removed


def lowered_or_none(text: str) -> str | None:
    """`text.lower()`, or None when lowering changes the length and would shift offsets."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def _keyword_intents(keywords: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    intents: dict[str, list[str]] = {}
    for intent, terms in keywords.items():
        for term in terms:
            intents.setdefault(key(term), []).append(intent)
    return {term: tuple(names) for term, names in intents.items()}


@dataclass(frozen=True, eq=False)
class CompiledRules:
    rules: RulePack
    keywords: PhraseSet
    keyword_intents: dict[str, tuple[str, ...]]
    """Intents listing each keyword (one keyword may serve several)."""
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
    local_strip: PhraseSet
    safety: PhraseSet
    banned: PhraseSet


def prepare(rules: RulePack) -> None:
    """Compile a pack's patterns now rather than on the first prompt (a few milliseconds)."""
    compile_rules(rules)


def compile_rules(rules: RulePack) -> CompiledRules:
    """The compiled patterns of a rule pack, built on first use and kept on the pack."""
    return rules.derived(_compile)


def _compile(rules: RulePack) -> CompiledRules:
    connectors = "|".join(re.escape(c) for c in rules.entities.phrase_connectors) or "(?!)"
    prepositions = rules.place.always_prepositions + rules.place.gazetteer_prepositions
    preposition_alternation = "|".join(_phrase(key(p)) for p in prepositions) or "(?!)"
    return CompiledRules(
        rules=rules,
        keywords=PhraseSet([t for terms in rules.intents.keywords().values() for t in terms]),
        keyword_intents=_keyword_intents(rules.intents.keywords()),
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
        local_strip=PhraseSet(rules.packs.local.strip_from_goal),
        safety=PhraseSet(rules.packs.tech.safety_keywords),
        banned=PhraseSet(rules.sanitize.banned_modifiers),
    )
