"""One-pattern phrase finding agrees with a phrase-by-phrase reference."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from routescope._phrases import PhraseSet, key, lowered_or_none, phrase_pattern

_TERMS = ["how", "how to", "how to fix", "to fix", "fix", "this week", "this weekend", "c++", "a a"]
_PHRASES = PhraseSet(_TERMS)


def reference(text: str, terms: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Every occurrence of every term at a word start, one regex per term."""
    found: dict[str, list[tuple[int, int]]] = {}
    for term in terms:
        pattern = re.compile(rf"(?<!\w)(?=({phrase_pattern(term)})(?!\w))", re.IGNORECASE)
        spans = [m.span(1) for m in pattern.finditer(text)]
        if spans:
            found[key(term)] = spans
    return found


def found(phrases: PhraseSet, text: str) -> dict[str, list[tuple[int, int]]]:
    return {p.text: spans for p, spans in phrases.found(text, lowered_or_none(text))}


def test_a_phrase_and_its_first_words_are_found_at_the_same_start() -> None:
    assert found(_PHRASES, "How  to FIX it") == {
        "how": [(0, 3)],
        "how to": [(0, 7)],
        "how to fix": [(0, 11)],
        "to fix": [(5, 11)],
        "fix": [(8, 11)],
    }


def test_only_whole_words_match() -> None:
    assert found(_PHRASES, "showing fixes this weekends, c++x") == {}
    assert found(_PHRASES, "this weekend in c++") == {"this weekend": [(0, 12)], "c++": [(16, 19)]}


def test_overlapping_occurrences_of_one_phrase_are_all_found() -> None:
    assert found(_PHRASES, "a a a") == {"a a": [(0, 3), (2, 5)]}


def test_text_whose_lower_case_changes_length_is_matched_in_place() -> None:
    text = "İ how to fix"
    assert lowered_or_none(text) is None
    assert found(_PHRASES, text)["how to fix"] == [(2, 12)]


def test_results_come_in_the_sets_order() -> None:
    assert [p.text for p, _ in _PHRASES.found("fix how", "fix how")] == ["how", "fix"]


def test_a_very_deep_set_still_compiles() -> None:
    terms = [" ".join(["w"] * n) for n in range(1, 300)]
    assert found(PhraseSet(terms), "w w w")["w w w"] == [(0, 5)]


_WORDS = st.sampled_from(["how", "HOW", "to", "fix", "Fix", "this", "week", "weekend", "c++", "a"])
_GAPS = st.sampled_from([" ", "  ", "\t", ", ", "-", "x", "\n"])


@given(st.lists(st.tuples(_WORDS, _GAPS), max_size=12))
def test_agrees_with_a_phrase_by_phrase_reference(parts: list[tuple[str, str]]) -> None:
    text = "".join(word + gap for word, gap in parts)
    assert found(_PHRASES, text) == reference(text, _TERMS)
