"""Vocabularies shipped with Routescope: each file says what its words are for, parses into
clean words, and an unknown name is one clear error."""

from __future__ import annotations

import pytest

from routescope import RulePackError
from routescope.rules._vocabularies import VOCABULARY_TARGETS, _parse, vocabularies, vocabulary


def test_every_shipped_vocabulary_names_its_lists_and_says_what_it_holds() -> None:
    found = vocabularies()
    assert {v.name for v in found} >= {
        "software-names",
        "computing-terms",
        "failure-phrases",
        "shopping-phrases",
        "local-needs",
        "time-words",
        "not-entities",
        "sentence-openers",
    }
    for item in found:
        assert item.targets and set(item.targets) <= set(VOCABULARY_TARGETS)
        assert item.what and len(item.words) >= 50
        folded = [" ".join(word.casefold().split()) for word in item.words]
        assert len(folded) == len(set(folded)), item.name  # no word twice
        assert all(not word.startswith("#") for word in item.words)


def test_a_vocabulary_is_read_by_name_and_an_unknown_name_says_which_there_are() -> None:
    assert "python" in vocabulary("software-names").words
    assert vocabulary("software-names").targets == ("intents.tech", "entities.known")
    with pytest.raises(RulePackError, match=r"no vocabulary 'nope' .*software-names"):
        vocabulary("nope")


def test_a_file_reads_its_header_fields_and_words() -> None:
    parsed = _parse(
        "demo",
        "# vocabulary: demo\n# for: intents.tech\n# What: words of a demo,\n# two lines.\n"
        "# Principle: none.\n# a section\nfoo\n  bar  baz \n\nFOO\n",
    )
    assert parsed.targets == ("intents.tech",)
    assert parsed.what == "words of a demo, two lines."
    assert parsed.words == ("foo", "bar baz")  # trimmed, inner spaces squashed, no duplicate
    with pytest.raises(RulePackError, match="'# for:' must name lists"):
        _parse("bad", "# for: intents.nothing\nfoo\n")
    with pytest.raises(RulePackError, match="'# for:' must name lists"):
        _parse("bad", "foo\n")
