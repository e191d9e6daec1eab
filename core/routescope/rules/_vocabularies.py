"""Vocabularies: named word lists shipped with Routescope (`resources/vocabularies/*.txt`) that
a pack edit can add to a pack's lists in one step — a programming-language list to
`intents.tech`, month names to `entities.stopwords` — each file saying what its words are, how
they were chosen and which lists of a pack they are for.

A file is UTF-8 text, one word or phrase a line; lines starting with `#` are comments, and the
comment `# for: intents.tech, entities.known` names the lists it is for.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .._errors import RulePackError
from .._resources import resources_root
from ._base import clean_phrases

__all__ = ["VOCABULARY_TARGETS", "Vocabulary", "vocabularies", "vocabulary"]

VOCABULARY_TARGETS = (
    "intents.tech",
    "intents.local",
    "intents.purchase",
    "intents.troubleshooting",
    "intents.time_sensitive",
    "entities.known",
    "entities.stopwords",
    "entities.sentence_start_stopwords",
)
"""The lists of a pack a vocabulary may be for."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    name: str
    targets: tuple[str, ...]
    """The lists of a pack it is for (`intents.tech`, `entities.known`, …)."""
    words: tuple[str, ...]
    what: str
    """What its words are (the file's `# What:` comment)."""


def _parse(name: str, text: str) -> Vocabulary:
    targets: tuple[str, ...] = ()
    what: list[str] = []
    words: list[str] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("#"):
            if line:
                words.append(line)
            continue
        comment = line.lstrip("#").strip()
        field, colon, value = comment.partition(":")
        if colon and " " not in field:  # a new field: "for:", "What:", "Principle:"
            section = field.lower()
            if section == "for":
                targets = tuple(part.strip() for part in value.split(",") if part.strip())
            comment = value.strip()
        if section == "what":
            what.append(comment)
    unknown = [t for t in targets if t not in VOCABULARY_TARGETS]
    if not targets or unknown:
        raise RulePackError(
            f"vocabulary {name!r}: '# for:' must name lists among {', '.join(VOCABULARY_TARGETS)}"
        )
    return Vocabulary(name, targets, tuple(clean_phrases(words)), " ".join(what))


@functools.cache
def vocabularies() -> tuple[Vocabulary, ...]:
    """Every vocabulary shipped, by name."""
    folder = resources_root() / "vocabularies"
    found = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".txt")),
        key=lambda e: e.name,
    )
    return tuple(_parse(e.name[: -len(".txt")], e.read_text(encoding="utf-8")) for e in found)


def vocabulary(name: str) -> Vocabulary:
    """The vocabulary called `name` (RulePackError naming the ones there are, for another)."""
    for item in vocabularies():
        if item.name == name:
            return item
    known = ", ".join(v.name for v in vocabularies())
    raise RulePackError(f"no vocabulary {name!r} (shipped: {known})")
