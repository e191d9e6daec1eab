"""Words with spans, removing one word, and the word-level diff."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from routescope.compare import TextSpan
from routescope.compare._words import cut_range, without_word, word_diff, words

from ._prompts import texts


def test_words_drop_edge_punctuation_only() -> None:
    text = "Best ramen near Denver, Colorado (see docs/ and readme.md) — don't!"
    assert [w.value for w in words(text)] == [
        "Best",
        "ramen",
        "near",
        "Denver",
        "Colorado",
        "see",
        "docs/",
        "and",
        "readme.md",
        "don't",
    ]
    assert all(text[w.start : w.end] == w.value for w in words(text))


def test_removing_a_word_keeps_its_punctuation() -> None:
    text = "Best ramen near Denver, Colorado open tonight"
    denver = next(w for w in words(text) if w.value == "Denver")
    assert without_word(text, cut_range(text, denver)) == "Best ramen near, Colorado open tonight"
    first = words(text)[0]
    assert without_word(text, cut_range(text, first)) == "ramen near Denver, Colorado open tonight"
    last = words(text)[-1]
    assert without_word(text, cut_range(text, last)) == "Best ramen near Denver, Colorado open"
    lines = "Fix this\nInstall it now"
    install = next(w for w in words(lines) if w.value == "Install")
    assert without_word(lines, cut_range(lines, install)) == "Fix this\nit now"
    bracket = "(install it)"
    install = words(bracket)[0]
    assert without_word(bracket, cut_range(bracket, install)) == "(it)"


@given(texts)
def test_cut_range_holds_the_word_and_only_white_space_besides(text: str) -> None:
    found = words(text)
    for index, word in enumerate(found):
        start, end = cut_range(text, word)
        assert 0 <= start <= word.start < word.end <= end <= len(text)
        assert not text[start : word.start].strip() and not text[word.end : end].strip()
        variant = without_word(text, (start, end))
        assert len(variant) == len(text) - (end - start)
        # That word is gone and nothing else: no neighbours run together.
        left = [w.value for w in found[:index] + found[index + 1 :]]
        assert [w.value for w in words(variant)] == left


def test_word_diff_spans_the_changed_words() -> None:
    a = "Best ramen near Denver as of February 5, 2026"
    b = "Best ramen in Denver open tonight as of February 5, 2026"
    removed, added = word_diff(a, b)
    assert [s.value for s in removed] == ["near"]
    assert [s.value for s in added] == ["in", "open", "tonight"]
    assert all(a[s.start : s.end] == s.value for s in removed)
    assert all(b[s.start : s.end] == s.value for s in added)


@given(texts, texts)
def test_word_diff_properties(a: str, b: str) -> None:
    assert word_diff(a, a) == ((), ())
    removed, added = word_diff(a, b)
    assert all(a[s.start : s.end] == s.value and s.value.strip() for s in removed)
    assert all(b[s.start : s.end] == s.value and s.value.strip() for s in added)
    # What is left of each side once its changed words are out is the same word sequence.
    assert _kept(a, removed) == _kept(b, added)


@given(st.text(max_size=30))
def test_word_diff_against_nothing_is_every_word(text: str) -> None:
    removed, added = word_diff(text, "")
    assert added == () and [s.value for s in removed] == text.split()


def _kept(text: str, spans: tuple[TextSpan, ...]) -> list[str]:
    out = text
    for span in sorted(spans, key=lambda s: -s.start):
        out = out[: span.start] + " " + out[span.end :]
    return out.split()
