"""Whole-word, case-insensitive phrase finding shared by the routers.

A set's phrases are compiled into one pattern shaped as a trie (so at each word start the regex
engine follows one branch per character, in C) inside a look-ahead (so overlapping phrases that
start at different words are all found). Python then only sees actual occurrences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
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


def _chunk(text: str) -> str:
    """Literal characters as a pattern, any run of white space where a space is."""
    return r"\s++".join(re.escape(part) for part in text.split(" "))


def _common_prefix(first: str, last: str, start: int) -> int:
    """Length of the common prefix of two strings known to agree before `start`."""
    end = min(len(first), len(last))
    while start < end and first[start] == last[start]:
        start += 1
    return start


def _trie_pattern(spellings: list[str]) -> str:
    """One pattern matching the longest of `spellings` at a position, shaped as a trie: at each
    branching point one alternative per next character, an optional group where a spelling ends.

    Built from the sorted spellings, one level per branching point (a run of characters that no
    spelling branches from is one literal chunk), so a long keyword costs its length once."""
    ordered = sorted(set(spellings))

    def build(lo: int, hi: int, depth: int) -> str:
        """The pattern after the first `depth` characters, which ordered[lo:hi] share."""
        terminal = len(ordered[lo]) == depth  # the shortest sorts first
        index = lo + 1 if terminal else lo
        branches = []
        while index < hi:
            char = ordered[index][depth]
            end = index + 1
            while end < hi and ordered[end][depth] == char:
                end += 1
            shared = (
                len(ordered[index])
                if end == index + 1
                else _common_prefix(ordered[index], ordered[end - 1], depth + 1)
            )
            branches.append(_chunk(ordered[index][depth:shared]) + build(index, end, shared))
            index = end
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if terminal else body

    return build(0, len(ordered), 0) if ordered else ""


_FULL_CANDIDATE_CHARS = 20_000
"""Up to this many characters of spellings, the candidate pattern holds them whole; a bigger set
(a user's pack of thousands of phrases) gets one of their first `_CANDIDATE_PREFIX` characters,
so the regex compiler reads the big trie once, not twice."""
_CANDIDATE_PREFIX = 4


def _compile(spellings: list[str], flags: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(occurrences, first candidate). The first pattern finds a phrase at every word start
    without consuming it, so a phrase that begins inside an earlier one ("new york" in "visit
    new york") is still found. The second has no look-around, so the regex engine can skip in C
    to where a phrase might start; the first then runs from there, or not at all. Only the
    candidate's first match is used, so it may as well match a phrase's first characters."""
    occurrences = _occurrences(spellings, flags)
    if sum(map(len, spellings)) > _FULL_CANDIDATE_CHARS:
        spellings = sorted({spelling[:_CANDIDATE_PREFIX] for spelling in spellings})
    return occurrences, _alternation(spellings, flags, lambda alternation: alternation)


def _occurrences(spellings: list[str], flags: int) -> re.Pattern[str]:
    return _alternation(spellings, flags, lambda alternation: rf"(?<!\w)(?=({alternation})(?!\w))")


def _alternation(spellings: list[str], flags: int, wrap: Callable[[str], str]) -> re.Pattern[str]:
    """`wrap(one pattern matching the longest spelling)`, compiled: a trie when the regex
    compiler can take it, else (a trie too deep for it) a flat alternation, longest first."""
    try:
        return re.compile(wrap(_trie_pattern(spellings)), flags)
    except (RecursionError, re.error):
        longest_first = sorted(spellings, key=len, reverse=True)
        return re.compile(wrap(f"(?:{'|'.join(phrase_pattern(s) for s in longest_first)})"), flags)


class _WordNode:
    """A node of the word trie of a set's spellings: a spelling's prefixes that are phrases of
    the set are found in one walk along its words."""

    __slots__ = ("children", "spelling")

    def __init__(self) -> None:
        self.children: dict[str, _WordNode] = {}
        self.spelling: str | None = None


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
        root = _WordNode()
        for spelling in keys:
            node = root
            for word in spelling.split(" "):
                node = node.children.setdefault(word, _WordNode())
            node.spelling = spelling
        self._by_spelling: dict[str, Phrase] = {}
        patterns: dict[str, re.Pattern[str]] = {}
        # Fewest words first, so a phrase's shorter phrases exist when it is built.
        for spelling, (folded, index) in sorted(keys.items(), key=lambda kv: kv[0].count(" ")):
            prefixes: list[str] = []
            node = root
            for word in spelling.split(" ")[:-1]:
                node = node.children[word]
                if node.spelling is not None:
                    prefixes.append(node.spelling)
            shorter = []
            for prefix in reversed(prefixes):  # longest first
                pattern = patterns.get(prefix)
                if pattern is None:
                    pattern = re.compile(phrase_pattern(prefix), re.IGNORECASE)
                    patterns[prefix] = pattern
                shorter.append((self._by_spelling[prefix], pattern))
            self._by_spelling[spelling] = Phrase(folded, index, tuple(shorter))
        self._by_key = {phrase.text: phrase for phrase in self._by_spelling.values()}
        self._has_shorter = any(phrase.shorter for phrase in self._by_spelling.values())
        self._spellings = list(keys)
        self._lowered = _compile(self._spellings, 0) if keys else None
        self._any_case_pattern: re.Pattern[str] | None = None

    @property
    def _any_case(self) -> re.Pattern[str] | None:
        """The pattern for text whose lowering changes its length (rare): built on first use."""
        if self._any_case_pattern is None and self._spellings:
            self._any_case_pattern = _occurrences(self._spellings, re.IGNORECASE)
        return self._any_case_pattern

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
        elif (any_case := self._any_case) is not None:
            by_key = self._by_key
            for match in any_case.finditer(text):
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
