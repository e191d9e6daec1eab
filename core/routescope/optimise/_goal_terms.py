"""The goal's terms: the aspects of a research goal a page may support, each weighed by how
rare it is. Heuristic (lexical matching, no model).

The goal is split into aspects (`GoalTerm`): content words, compounds (`left-pad`, `os.path`)
and the strategy router's multi-word entities. Each weighs by how rare it is: from its document
frequency in the searched corpus when the search can tell (`CorpusFrequencies`, the offline
index), and never more than `COMMON_WEIGHT` for a common English word (`best`, `near`, `open`,
`tonight`), so a page matching only incidental words is not about the goal. Pure and
deterministic."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .._analysis import COMPOUND_WORD, light_stem
from ..rules import default_rules
from ..strategy import extract

__all__ = [
    "COMMON_WEIGHT",
    "COMMON_WORDS",
    "POSSESSIVE",
    "STOPWORDS",
    "CorpusFrequencies",
    "GoalTerm",
    "TermKind",
    "compound_parts",
    "goal_terms",
    "is_common",
    "lookup_words",
    "words",
]

TermKind = Literal["word", "entity", "phrase"]
"""`word`: a content word of the goal; `entity`: a word the strategy router marks as a name
(`PySide6`, `Denver`); `phrase`: several words that only count together (`left-pad`,
`os.path`, a multi-word entity)."""
MAX_PHRASE_WEIGHT = 2.0
COMMON_WEIGHT = 0.3
"""The most a common English word weighs, however rare it is in the corpus."""
MIN_WEIGHT = 0.1

_PARTS = re.compile(r"[._\-]")

_STOPWORD_TEXT = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own
    same she should so some such than that the their theirs them then there these they this
    those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself
    please pls help hi hello hey thanks thank want wanted need needs trying try tried know
    tell show explain give let lets like way ways something anything thing things really
    actually maybe possible possibly someone somebody question questions ok okay
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English stopwords and request filler ("how do I", "please", "can you help me")."""

_COMMON_TEXT = """
    best better good great nice top new newest old latest recent current near nearby close
    open opening tonight today tomorrow yesterday now soon week weekend weekly month monthly
    year years day days daily night morning evening afternoon time times history
    easy easiest easily simple simplest simply quick quickly fast faster fastest slow free
    cheap cheapest small smaller large larger big bigger little long longer short high low
    first last next previous another different many much few several every whole main major
    minor general common usual typical basic advanced modern proper correct correctly properly
    important useful well right wrong real true full complete recommended
    afterwards afterward beforehand already almost anyway away back else enough everything
    everywhere instead later least less nearly perhaps quite rather since somewhere together
    whether yet etc also still even ever never always often sometimes usually without within
    across along among around
    work works working worked make makes making made get gets getting got go going goes gone
    use uses using used find finding found see seeing look looking keep keeping take taking
    put putting give giving say says said come coming call calling able begin bring change
    choose happen hold include learn leave live love meet mean move pay play reach remain seem
    stand stay talk think turn understand wait walk watch win
    one two three four five ten hundred thousand million second third
    people person man woman men women child children kid kids family friend friends home house
    world country city town place places area local nearest price prices cost costs
    buy buying sell selling deal deals review reviews rating ratings guide tutorial
    tips tip example examples beginner beginners step steps idea ideas stuff
    kind kinds part parts lot lots bit level levels case cases point
    today's tonight's near-me
"""
COMMON_WORDS = frozenset(_COMMON_TEXT.split())
"""Common English words: whatever they match says little about a page being on the goal."""


# ---------------------------------------------------------------------------------------------
# Words


POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
"""The `'s` of a possessive ("the user's files"): not a word of its own."""


def words(text: str) -> list[str]:
    """The words of `text`; a compound (`left-pad`, `os.path`, `node.js`) is one word, and a
    possessive's `'s` is dropped."""
    return COMPOUND_WORD.findall(POSSESSIVE.sub("", text))


def compound_parts(word: str) -> list[str]:
    """The parts of a compound; the word itself when it has none (`_`)."""
    return [part for part in _PARTS.split(word) if part] or [word]


def is_common(word: str) -> bool:
    """A stopword, a common English word, or a bare number or letter."""
    lower = word.lower()
    return (
        lower in STOPWORDS
        or lower in COMMON_WORDS
        or light_stem(lower) in _COMMON_STEMS
        or lower.isdigit()
        or len(lower) == 1
    )


_COMMON_STEMS = frozenset(light_stem(word) for word in COMMON_WORDS)


# ---------------------------------------------------------------------------------------------
# The goal's terms


@dataclass(frozen=True, slots=True)
class CorpusFrequencies:
    """How many documents of the searched corpus contain each word (lower-cased, as the index
    tokenises it), out of `documents`."""

    documents: int
    frequencies: Mapping[str, int] = field(default_factory=dict)

    def of(self, forms: Iterable[str]) -> int:
        """The most documents any of `forms` (spellings of one word) occurs in."""
        return max((self.frequencies.get(form, 0) for form in forms), default=0)


@dataclass(frozen=True, slots=True)
class GoalTerm:
    """One aspect of the goal that a page may support."""

    text: str
    """As the goal writes it (`Denver`, `event`, `left-pad`)."""
    kind: TermKind
    weight: float
    """How much it counts: rare terms weigh more, up to 1 for a word (a phrase weighs its
    words' sum, up to `MAX_PHRASE_WEIGHT`); common words at most `COMMON_WEIGHT`."""
    document_frequency: int | None = None
    """Documents of the searched corpus that contain it (for a phrase: the fewest of its
    words); None when the search cannot tell (web providers)."""
    common: bool = False
    """A common English word: never what makes a page about the goal."""
    stems: tuple[str, ...] = ()
    """What is matched: the stem of a word; the lower-cased words of a phrase, in order."""
    named: bool = False
    """The goal names a thing with it — a library, a product, a place: an entity, a word
    capitalised inside the goal (`BeautifulSoup`, `Flask`), or the word after "using",
    "with", "in", "from", "via" (`using selenium`). A named thing no document mentions means
    no page of the corpus can answer the goal."""

    @property
    def findable(self) -> bool:
        """Some document of the corpus contains it (True when that is unknown)."""
        return self.document_frequency != 0

    @property
    def key(self) -> bool:
        """Not a common word: a page supporting it may be about the goal."""
        return not self.common

    @classmethod
    def make(
        cls,
        text: str,
        kind: TermKind,
        weight: float,
        document_frequency: int | None = None,
        *,
        named: bool = False,
    ) -> GoalTerm:
        """A term from what a prompt's inputs carry (`to_data`): what is matched and whether
        it is common follow from the text."""
        parts = text.split() if " " in text else compound_parts(text)
        top = 1.0
        if kind == "phrase" and len(parts) > 1:
            stems = tuple(part.lower() for part in parts)
            common = all(is_common(part) for part in parts)
            top = MAX_PHRASE_WEIGHT
        else:
            kind = "word" if kind == "phrase" else kind
            stems, common = (light_stem(text),), is_common(text)
        if common:
            top = COMMON_WEIGHT
        weight = round(min(top, max(MIN_WEIGHT, weight)), 3)
        return cls(text, kind, weight, document_frequency, common, stems, named and not common)

    def to_data(self) -> dict[str, object]:
        """The term as a prompt's inputs carry it (`goal_terms`)."""
        return {
            "text": self.text,
            "kind": self.kind,
            "weight": self.weight,
            "document_frequency": self.document_frequency,
            "named": self.named,
        }


def _forms(word: str) -> list[str]:
    """Spellings of a word as an index tokenises it: as written, its stem, stem + s / e."""
    lower = word.lower()
    base = light_stem(lower)
    return list(dict.fromkeys([lower, base, base + "s", base + "e", base + "es"]))


def _candidates(goal: str, entities: Sequence[str]) -> list[tuple[str, TermKind]]:
    """The goal's terms in order: multi-word entities as phrases (their words then not again),
    compounds as phrases, other content words (entity or not), without repeats."""
    entity_words = {light_stem(w) for entity in entities for w in words(entity)}
    terms: list[tuple[str, TermKind]] = []
    seen: set[str] = set()
    phrase_words: set[str] = set()
    for entity in entities:
        parts = [w for w in words(entity) if w.lower() not in STOPWORDS]
        if len(parts) > 1:
            key = " ".join(light_stem(w) for w in parts)
            if key not in seen:
                seen.add(key)
                terms.append((" ".join(parts), "phrase"))
                phrase_words.update(light_stem(w) for w in parts)
    for word in words(goal):
        lower = word.lower()
        if lower in STOPWORDS:
            continue
        parts = compound_parts(word)
        if len(parts) > 1 and not lower.replace(".", "").isdigit():
            key = " ".join(light_stem(p) for p in parts)
            if key not in seen:
                seen.add(key)
                terms.append((word, "phrase"))
            continue
        key = light_stem(word)
        if key in seen or key in phrase_words:
            continue
        seen.add(key)
        terms.append((word, "entity" if key in entity_words else "word"))
    return terms


@functools.lru_cache(maxsize=128)
def _goal_parts(goal: str) -> tuple[str, tuple[str, ...]]:
    """The strategy router's reading of the goal: its goal text and its entities (those made
    only of stopwords left out)."""
    context = extract(goal, default_rules())
    entities = tuple(
        entity
        for entity in context.entities.candidates
        if any(word.lower() not in STOPWORDS for word in words(entity))
    )
    return (context.user_goal or goal), entities


def lookup_words(goal: str) -> list[str]:
    """The words whose document frequencies `goal_terms` uses, as an index tokenises them."""
    text, entities = _goal_parts(goal)
    found: list[str] = []
    for term, _ in _candidates(text, entities):
        for part in term.split() if " " in term else compound_parts(term):
            found.extend(_forms(part))
    return list(dict.fromkeys(found))


def _rarity(frequency: int, documents: int) -> float:
    """An inverse document frequency scaled to (0, 1]: 1 for a word no document has."""
    documents = max(documents, 1)
    top = math.log((documents + 1) / 0.5)
    return math.log((documents + 1) / (frequency + 0.5)) / top


def goal_terms(goal: str, frequencies: CorpusFrequencies | None = None) -> tuple[GoalTerm, ...]:
    """The goal's aspects with their weights: the strategy router's goal text and entities
    (multi-word ones become phrases), weighed by `frequencies`, the corpus's document
    frequencies, when the search can tell them (`lookup_words` says which words)."""
    goal_text, entities = _goal_parts(goal)
    known = frequencies is not None and frequencies.documents > 0
    terms: list[GoalTerm] = []
    for text, kind in _candidates(goal_text, entities):
        parts = text.split() if " " in text else compound_parts(text)
        frequency: int | None = None
        rarities = [1.0] * len(parts)
        if frequencies is not None and known:
            found = [frequencies.of(_forms(part)) for part in parts]
            frequency = min(found)
            rarities = [_rarity(f, frequencies.documents) for f in found]
        rarities = [
            min(COMMON_WEIGHT, r) if is_common(part) else r
            for part, r in zip(parts, rarities, strict=True)
        ]
        # A phrase says as much as its words together.
        weight = sum(rarities) if kind == "phrase" else rarities[0] if rarities else 1.0
        named = _names_a_thing(goal_text, text, kind)
        terms.append(GoalTerm.make(text, kind, weight, frequency, named=named))
    return tuple(terms)


_AFTER_TOOL_WORD = r"\b(?:using|with|via|in|from|through)\s+(?:an?\s+|the\s+)?"


def _names_a_thing(goal: str, text: str, kind: TermKind) -> bool:
    """Whether the goal uses `text` as a name (see `GoalTerm.named`)."""
    if kind != "word":
        return True
    at = goal.find(text)
    inner_capital = any(c.isupper() for c in text[1:])
    if inner_capital or (text[:1].isupper() and at > 0):
        return True
    return re.search(_AFTER_TOOL_WORD + re.escape(text) + r"\b", goal, re.IGNORECASE) is not None
