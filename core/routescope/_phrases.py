"""Whole-word, case-insensitive phrase finding shared by the routers.

Every pattern starts with a literal so the regex engine skips ahead in C; the word boundary
before a match is checked in Python on one character, so no input can make matching backtrack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Phrase", "PhraseSet", "is_word_char", "key", "lowered_or_none", "phrase_pattern"]


def key(text: str) -> str:
    """Case- and space-insensitive form of a term, as the lookup tables hold it."""
    return " ".join(text.casefold().split())


def is_word_char(char: str) -> bool:
    """What `\\w` matches."""
    return char.isalnum() or char == "_"


_WORDS = re.compile(r"\w+")
_SHORT_TEXT = 400
_MANY_PHRASES = 12


def phrase_pattern(term: str) -> str:
    """A phrase as a pattern: words escaped, any run of white space between them."""
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
                lowered=re.compile(rf"{phrase_pattern(spelling)}(?!\w)"),
                any_case=re.compile(rf"(?<!\w){phrase_pattern(folded)}(?!\w)", re.IGNORECASE),
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
