"""Whole-word, case-insensitive phrase finding shared by the routers.

A set's phrases are compiled into one pattern shaped as a trie (so at each word start the regex
engine follows one branch per character, in C) inside a look-ahead (so overlapping phrases that
start at different words are all found). Python then only sees actual occurrences.
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


def phrase_pattern(term: str) -> str:
    """A phrase as a pattern: words escaped, any run of white space between them."""
    return r"\s++".join(re.escape(word) for word in term.split())


@dataclass(frozen=True, slots=True, eq=False)
class Phrase:
    """One keyword or phrase of a set."""

    text: str
    """The phrase's key (case-folded, single-spaced): what the lookup tables use."""
    index: int
    """Its position in the set, which orders results the same way on every run."""
    shorter: tuple[tuple[Phrase, re.Pattern[str]], ...]
    """Phrases of the set that are its first words ("how" for "how to fix"): an occurrence of
    this phrase is one of each of them too, at the same start."""


_Trie = dict[str, "_Trie"]


def _trie_pattern(spellings: list[str]) -> str:
    """One pattern matching the longest of `spellings` at a position, shaped as a trie."""
    trie: _Trie = {}
    for spelling in spellings:
        node = trie
        for char in spelling:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: _Trie) -> str:
        branches = [
            (r"\s++" if char == " " else re.escape(char)) + build(node[char])
            for char in sorted(node)
            if char
        ]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


def _compile(spellings: list[str], flags: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(occurrences, first candidate). The first pattern finds a phrase at every word start
    without consuming it, so a phrase that begins inside an earlier one ("new york" in "visit
    new york") is still found. The second has no look-around, so the regex engine can skip in C
    to where a phrase might start; the first then runs from there, or not at all."""
    try:
        return _patterns(_trie_pattern(spellings), flags)
    except (RecursionError, re.error):  # a trie too deep for the regex compiler
        longest_first = sorted(spellings, key=len, reverse=True)
        return _patterns(f"(?:{'|'.join(phrase_pattern(s) for s in longest_first)})", flags)


def _patterns(alternation: str, flags: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(rf"(?<!\w)(?=({alternation})(?!\w))", flags), re.compile(alternation, flags)


class PhraseSet:
    """Finds whole-word, case-insensitive occurrences of a list of phrases, fast."""

    def __init__(self, terms: list[str]) -> None:
        keys: dict[str, tuple[str, int]] = {}
        """Lower-cased, single-spaced spelling -> (key, position in the set)."""
        folded_seen: set[str] = set()
        for term in terms:
            folded = key(term)
            if folded and folded not in folded_seen:
                folded_seen.add(folded)
                keys[" ".join(term.lower().split())] = (folded, len(keys))
        self._by_spelling: dict[str, Phrase] = {}
        patterns: dict[str, re.Pattern[str]] = {}
        # Fewest words first, so a phrase's shorter phrases exist when it is built.
        for spelling, (folded, index) in sorted(keys.items(), key=lambda kv: kv[0].count(" ")):
            words = spelling.split()
            prefixes = (" ".join(words[:count]) for count in range(len(words) - 1, 0, -1))
            shorter = tuple(
                (self._by_spelling[prefix], patterns[prefix])
                for prefix in prefixes
                if prefix in keys
            )
            self._by_spelling[spelling] = Phrase(folded, index, shorter)
            patterns[spelling] = re.compile(phrase_pattern(spelling), re.IGNORECASE)
        self._by_key = {phrase.text: phrase for phrase in self._by_spelling.values()}
        self._has_shorter = any(phrase.shorter for phrase in self._by_spelling.values())
        self._lowered = _compile(list(keys), 0) if keys else None
        self._any_case = _compile(list(keys), re.IGNORECASE) if keys else None

    def __bool__(self) -> bool:
        return bool(self._by_spelling)

    def _occurrences(self, text: str, lowered: str | None) -> Iterator[tuple[Phrase, int, int]]:
        if lowered is not None and self._lowered is not None:
            occurrences, candidate = self._lowered
            first = candidate.search(lowered)
            if first is None:
                return
            by_spelling = self._by_spelling
            for match in occurrences.finditer(lowered, first.start()):
                found = match.group(1)
                phrase = by_spelling.get(found) or by_spelling.get(" ".join(found.split()))
                if phrase is not None:
                    yield phrase, match.start(1), match.end(1)
        elif self._any_case is not None:
            by_key = self._by_key
            for match in self._any_case[0].finditer(text):
                phrase = by_key.get(key(match.group(1)))
                if phrase is not None:
                    yield phrase, match.start(1), match.end(1)

    def found(
        self, text: str, lowered: str | None
    ) -> Iterator[tuple[Phrase, list[tuple[int, int]]]]:
        """Each phrase that occurs, with the spans of its occurrences in text order, phrases in
        the set's order. `lowered` is `text.lower()` when it has the same length as `text`,
        else None."""
        spans: dict[Phrase, list[tuple[int, int]]] = {}
        searched = lowered if lowered is not None else text
        for phrase, start, end in self._occurrences(text, lowered):
            spans.setdefault(phrase, []).append((start, end))
            for prefix, pattern in phrase.shorter:
                short = pattern.match(searched, start, end)
                if short is not None:
                    spans.setdefault(prefix, []).append((start, short.end()))
        if not spans:
            return
        if self._has_shorter:
            for phrase_spans in spans.values():
                phrase_spans.sort()
        yield from sorted(spans.items(), key=lambda item: item[0].index)

    def spans(self, text: str, lowered: str | None) -> list[tuple[int, int, Phrase]]:
        """Every occurrence as (start, end, phrase), in text order (longest first at a start)."""
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
