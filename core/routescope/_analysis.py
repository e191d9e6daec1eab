"""How text becomes search terms, shared by the Tantivy indexes (the tool search's keyword index,
the offline research index) and by research's lexical evidence.

- `tokens`: what Tantivy's default tokenizer makes of a text (lower-cased runs of letters and
  digits, at most 40 bytes): the seed's fields and the offline index use it.
- `ANALYZER` (`routescope_en`), built by `analyzer()`: Tantivy's simple tokenizer, long tokens
  removed, lower-cased, English stop words (and `REQUEST_STOP_WORDS`), Snowball stemming.
  Identifiers are split before it (`split_identifiers`: `getCurrentWeather` →
  `get Current Weather`; snake_case, dotted and kebab names fall apart in the tokenizer).

Research's heuristic evidence reads the words of goals and pages itself, without an index:
- `COMPOUND_WORD`: a word where a compound (`left-pad`, `os.path`, `node.js`, `c++`, `c#`) stays
  one word, and `light_stem`, a hand stemmer lighter than Snowball, the same for goals and pages;
- `ASCII_TECH_WORD`: the words a stack hint is read from, in lower-cased text.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded by `analyzer()`: research's word patterns and stemmer need no index
    import tantivy

__all__ = [
    "ANALYZER",
    "ASCII_TECH_WORD",
    "COMPOUND_WORD",
    "REQUEST_STOP_WORDS",
    "WORD",
    "analyzed_terms",
    "analyzer",
    "light_stem",
    "split_identifiers",
    "stems_to_words",
    "tokens",
]

ANALYZER = "routescope_en"
"""The name the English analyzer is registered under in an index."""

WORD = re.compile(r"[^\W_]+")
"""A token of Tantivy's default tokenizer (before lower-casing)."""

COMPOUND_WORD = re.compile(r"\w[\w+#]*(?:[.\-]\w[\w+#]*)*")
"""A word of research's evidence: word characters (`_` included) with `+` and `#` after the
first (`c++`, `c#`), joined by single dots or hyphens into one compound (`left-pad`, `os.path`,
`node.js`); a trailing dot or hyphen is not part of it."""

ASCII_TECH_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*")
"""A word of a stack hint, matched in lower-cased text: ASCII letters and digits, then also
`+`, `#`, dots and hyphens in any number (`c++`, `ts-node`, `node.js`). Unlike `COMPOUND_WORD`
it keeps a trailing dot or hyphen (the caller strips it) and ends at `_` and non-ASCII letters."""

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


@functools.lru_cache(maxsize=65_536)
def light_stem(word: str) -> str:
    """A light English stemmer, the same for research's goals and pages: lower-cased, without
    plural s/es, -ing, -ed, a doubled final consonant and a final e (`comparing`, `compared`,
    `compare` → `compar`; `libraries` → `library`; `stopped` → `stop`). A word of three letters
    or fewer, or with a character that is not a letter, is only lower-cased (`os.path`, `c++`).
    Not Snowball: a goal's word and a page's word only need to meet, and these rules are what
    the research scores were tuned with."""
    word = word.lower().rstrip(".")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
    elif word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


@functools.cache
def analyzer() -> tantivy.TextAnalyzer:
    """The English analyzer, to register as `ANALYZER` in an index that uses it."""
    import tantivy

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
