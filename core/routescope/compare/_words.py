"""Words of a text with their spans, a word-level diff of two texts, and a text without one
of its words."""

from __future__ import annotations

import difflib
import re

from ._models import TextSpan

__all__ = ["EDGE_PUNCTUATION", "cut_range", "similarity", "without_word", "word_diff", "words"]

_TOKEN = re.compile(r"\S+")
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
"""What `str.splitlines` splits at."""
EDGE_PUNCTUATION = ".,;:!?\"'“”‘’()[]{}<>«»…*•—–"
"""Stripped from both ends of a token to make a word: `Denver,` → `Denver`, `(install` →
`install`; inside a word it stays (`readme.md`, `docs/`, `don't`)."""


def words(text: str) -> list[TextSpan]:
    """The words of `text` in order: runs of non-space characters without their edge
    punctuation, holding a letter or digit (`—` or `...` alone is no word)."""
    found: list[TextSpan] = []
    for token in _TOKEN.finditer(text):
        start, end = token.span()
        while start < end and text[start] in EDGE_PUNCTUATION:
            start += 1
        while end > start and text[end - 1] in EDGE_PUNCTUATION:
            end -= 1
        value = text[start:end]
        if any(char.isalnum() for char in value):
            found.append(TextSpan(start, end, value))
    return found


def cut_range(text: str, word: TextSpan) -> tuple[int, int]:
    """What to remove to take `word` out: the word and the white space on one side of it —
    before it within a line, else after it (at the start of the text or of a line, so lines
    and sentence starts stay as they were). The punctuation around the word stays: without
    "Denver", "near Denver, Colorado" reads "near, Colorado"."""
    before = word.start
    while before > 0 and text[before - 1].isspace():
        before -= 1
    after = word.end
    while after < len(text) and text[after].isspace():
        after += 1
    line_break = not _LINE_BREAKS.isdisjoint(text[before : word.start])
    if 0 < before < word.start and not line_break:
        return before, word.end
    if after > word.end:
        return word.start, after
    return before, word.end


def without_word(text: str, cut: tuple[int, int]) -> str:
    """`text` with `text[cut[0]:cut[1]]` taken out (a `WordEffect`'s cut range)."""
    return text[: cut[0]] + text[cut[1] :]


def word_diff(a: str, b: str) -> tuple[tuple[TextSpan, ...], tuple[TextSpan, ...]]:
    """The words of `a` not in `b` and the words of `b` not in `a`, as spans, by the longest
    matching runs of whole tokens (difflib), compared exactly."""
    tokens_a = [TextSpan(*m.span(), m.group()) for m in _TOKEN.finditer(a)]
    tokens_b = [TextSpan(*m.span(), m.group()) for m in _TOKEN.finditer(b)]
    matcher = difflib.SequenceMatcher(
        None, [t.value for t in tokens_a], [t.value for t in tokens_b], autojunk=False
    )
    removed: list[TextSpan] = []
    added: list[TextSpan] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += tokens_a[a0:a1]
        if tag in ("replace", "insert"):
            added += tokens_b[b0:b1]
    return tuple(removed), tuple(added)


def similarity(a: str, b: str) -> float:
    """How alike two texts are word for word, 0–1 (difflib's ratio over tokens)."""
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()
