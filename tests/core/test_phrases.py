"""One-pattern phrase finding agrees with a phrase-by-phrase reference."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from routescope._phrases import (
    _FULL_CANDIDATE_CHARS,
    PhraseSet,
    _trie_pattern,
    key,
    lowered_or_none,
    phrase_pattern,
)

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


# --- F4: building a set is linear in its text ------------------------------------------------


def char_trie_pattern(spellings: list[str]) -> str:
    """The former builder: one dict per character, recursion per character."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for spelling in spellings:
        node = trie
        for char in spelling:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict) -> str:  # type: ignore[type-arg]
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


_SPELLING = st.lists(st.sampled_from(["a", "b", "é", ".", "+", "(", " "]), min_size=1, max_size=9)


@given(st.lists(_SPELLING.map("".join).map(lambda s: " ".join(s.split())), max_size=12))
def test_the_trie_pattern_is_the_character_trie(spellings: list[str]) -> None:
    spellings = [s for s in spellings if s]
    assert _trie_pattern(spellings) == char_trie_pattern(spellings)


def test_one_very_long_keyword_is_one_literal_chunk() -> None:
    """100,000 words took 82 s to load (every word prefix was built); the bench times it now.
    (Rule packs refuse keywords this long: each is looked for at every word start.)"""
    term = " ".join(f"w{i}" for i in range(30_000))  # 13 s at 50,000 words before
    phrases = PhraseSet([term, "w0", "w0 w1"])
    assert _trie_pattern([term]) == re.escape(term).replace(r"\ ", r"\s++")
    spans = found(phrases, f"x {term.upper()} y")
    assert spans == {key(term): [(2, 2 + len(term))], "w0": [(2, 4)], "w0 w1": [(2, 7)]}


def test_a_phrase_knows_the_phrases_it_starts_with() -> None:
    phrases = PhraseSet(["a b c d", "a", "a b c", "b c", "a b x"])
    longest = phrases._by_key["a b c d"]
    assert [shorter.text for shorter, _ in longest.shorter] == ["a b c", "a"]


def test_a_large_set_agrees_with_a_phrase_by_phrase_reference() -> None:
    """More than `_FULL_CANDIDATE_CHARS` of phrases: the candidate pattern holds only their
    first characters, which must not change what is found."""
    terms = [f"w{i} x{i % 97} y{i % 89}" for i in range(2_000)]
    assert sum(map(len, terms)) > _FULL_CANDIDATE_CHARS
    phrases = PhraseSet(terms)
    for text in ["nothing here", "w12 x12 y12 and W1999 X59 Y41", "w1 x2 w1 x1 y1", "w13 x1"]:
        expected = reference(text, [t for t in terms if t.split()[0] in text.lower().split()])
        assert found(phrases, text) == expected
