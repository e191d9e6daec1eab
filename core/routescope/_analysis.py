"""How text becomes search terms, shared by the Tantivy indexes (the tool search's keyword index,
the offline research index).

- `tokens`: what Tantivy's default tokenizer makes of a text (lower-cased runs of letters and
  digits, at most 40 bytes): the seed's fields and the offline index use it.
- `ANALYZER` (`routescope_en`), built by `analyzer()`: Tantivy's simple tokenizer, long tokens
  removed, lower-cased, English stop words (and `REQUEST_STOP_WORDS`), Snowball stemming.
  Identifiers are split before it (`split_identifiers`: `getCurrentWeather` →
  `get Current Weather`; snake_case, dotted and kebab names fall apart in the tokenizer).
"""

from __future__ import annotations

import functools
import re

import tantivy

__all__ = [
    "ANALYZER",
    "REQUEST_STOP_WORDS",
    "WORD",
    "analyzed_terms",
    "analyzer",
    "split_identifiers",
    "stems_to_words",
    "tokens",
]

ANALYZER = "routescope_en"
"""The name the English analyzer is registered under in an index."""

WORD = re.compile(r"[^\W_]+")
"""A token of Tantivy's default tokenizer (before lower-casing)."""

_MAX_TOKEN_BYTES = 40
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])")

REQUEST_STOP_WORDS = (
    *("i", "me", "my", "myself", "we", "us", "our", "you", "your", "yours"),
    *("he", "him", "his", "she", "her", "its", "them", "please", "kindly", "can", "could"),
    *("would", "hey", "hi"),
)
"""Words of how people ask, not of what they ask for, dropped on top of Tantivy's English
list (which keeps pronouns: "give me the gist" matched a `remind me` intent)."""


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens, as Tantivy's default tokenizer makes them (at most 40 bytes)."""
    return [t for t in WORD.findall(text.lower()) if len(t.encode()) <= _MAX_TOKEN_BYTES]


def split_identifiers(text: str) -> str:
    """camelCase and PascalCase words split apart (`getHTTPResponse2` → `get HTTP Response 2`)."""
    return _CAMEL.sub(" ", text)


@functools.cache
def analyzer() -> tantivy.TextAnalyzer:
    """The English analyzer, to register as `ANALYZER` in an index that uses it."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_MAX_TOKEN_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.custom_stopword(list(REQUEST_STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def analyzed_terms(text: str) -> list[str]:
    """The terms Tantivy's English analyzer makes of `text`, identifiers split first."""
    return list(analyzer().analyze(split_identifiers(text)))


def stems_to_words(text: str) -> dict[str, str]:
    """Each analyzed term of `text` → the word of `text` it came from (lower case, the first
    one), so an explanation can say "crashing", not "crash"."""
    words: dict[str, str] = {}
    for word in WORD.findall(split_identifiers(text)):
        for stem in analyzer().analyze(word):
            words.setdefault(stem, word.lower())
    return words
