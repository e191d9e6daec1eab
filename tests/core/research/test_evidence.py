"""The evidence of an attempt: the goal's terms and their weights, what each page supports
(where, with an excerpt), and the relevance, coverage and confidence that follow."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from routescope.optimise._goal_terms import (
    COMMON_WEIGHT,
    CorpusFrequencies,
    GoalTerm,
    goal_terms,
    is_common,
    lookup_words,
)
from routescope.research import OfflineSearch
from routescope.research._corpus import OfflineDocument
from routescope.research._evidence import assess
from routescope.research._page_evidence import Source
from routescope.research._termstats import corpus_frequencies, corpus_frequencies_sync

RAMEN = "Best ramen near Denver, Colorado open tonight"


def frequencies(counts: dict[str, int], documents: int = 300) -> CorpusFrequencies:
    return CorpusFrequencies(documents, counts)


def terms_of(goal: str, counts: dict[str, int] | None = None) -> dict[str, GoalTerm]:
    found = goal_terms(goal, frequencies(counts) if counts is not None else None)
    return {term.text: term for term in found}


# -- words and terms ---------------------------------------------------------------------------


def test_goal_terms_are_content_words_entities_and_phrases() -> None:
    terms = terms_of("How do I use left-pad with os.path in a Java Spring Boot app?")
    assert {"left-pad", "os.path"} <= set(terms)
    assert terms["left-pad"].kind == "phrase" and terms["left-pad"].stems == ("left", "pad")
    assert "How" not in terms and "do" not in terms  # filler
    ramen = terms_of(RAMEN)
    assert ramen["Denver"].kind == "entity" and not ramen["Denver"].common
    assert ramen["Best"].common and ramen["tonight"].common and ramen["open"].common
    assert is_common("near") and not is_common("ramen")


def test_rare_terms_weigh_more_and_common_words_never_much() -> None:
    counts = {"best": 20, "ramen": 0, "near": 2, "denver": 0, "colorado": 0, "open": 60}
    terms = terms_of(RAMEN, counts)
    assert terms["ramen"].weight == 1.0 and terms["ramen"].document_frequency == 0
    assert terms["near"].weight <= COMMON_WEIGHT  # rare in the corpus, common in English
    assert terms["open"].weight < terms["Best"].weight <= COMMON_WEIGHT
    csv = terms_of("read a CSV file", {"read": 80, "csv": 4, "file": 150})
    assert csv["CSV"].weight > csv["read"].weight > csv["file"].weight
    assert not terms_of(RAMEN)["ramen"].document_frequency  # unknown without frequencies


def test_lookup_words_spell_each_term_as_an_index_does() -> None:
    words = lookup_words("comparing sequences with left-pad")
    assert {"comparing", "compar", "sequences", "sequence", "left", "pad"} <= set(words)


def test_a_term_round_trips_through_a_prompts_inputs() -> None:
    for term in goal_terms("copy a PySide6 table with left-pad", frequencies({"table": 3})):
        data = term.to_data()
        again = GoalTerm.make(
            str(data["text"]),
            term.kind,
            float(str(data["weight"])),
            term.document_frequency,
            named=bool(data["named"]),
        )
        assert again == term


# -- pages -------------------------------------------------------------------------------------

ANSWER = Source(
    "https://docs.python.org/3/library/csv.html",
    "csv — CSV parsing and writing.",
    "This module reads and writes CSV files. Use reader() to read a CSV file row by row. " * 5,
    "…reads and writes CSV files…",
)
INCIDENTAL = Source(
    "https://docs.python.org/3/library/wave.html",
    "wave — Stuff to parse WAVE files.",
    "Open the file and read the best frames. " * 20,
)


def test_a_page_records_what_it_supports_where_and_an_excerpt() -> None:
    terms = goal_terms("How do I read a CSV file?")
    evidence = assess(terms, [ANSWER])
    (page,) = evidence.pages
    assert page.supports == ("read", "CSV", "file")
    assert page.missing == ()
    where = {match.term: match.where for match in page.matches}
    assert where == {"read": "snippet", "CSV": "title", "file": "snippet"}
    assert page.about_goal and page.relevance == 1.0
    assert page.reason.startswith("heuristic: ")
    (csv,) = [m for m in page.matches if m.term == "CSV"]
    assert csv.excerpt == ANSWER.title


def test_body_matches_carry_an_excerpt_around_the_word() -> None:
    source = Source("https://a.example", "", "x " * 200 + "the tokio runtime " + "y " * 200)
    (page,) = assess(goal_terms("tokio runtime"), [source]).pages
    tokio = page.matches[0]
    assert tokio.where == "body" and "tokio runtime" in tokio.excerpt
    assert tokio.excerpt.startswith("…") and tokio.excerpt.endswith("…")
    assert len(tokio.excerpt) < 200


def test_a_page_matching_only_incidental_words_does_not_lift_coverage() -> None:
    counts = {"best": 20, "near": 2, "open": 60}
    terms = goal_terms(RAMEN, frequencies(counts))
    evidence = assess(terms, [INCIDENTAL, INCIDENTAL])
    page = evidence.pages[0]
    assert set(page.supports) == {"Best", "open"}
    assert not page.about_goal and page.relevance < 0.2
    assert "only common words" in page.reason
    assert evidence.coverage == 0.0 and evidence.confidence == 0.0
    assert evidence.relevance <= 0.1
    assert set(evidence.unfindable) == {"ramen", "Denver", "Colorado", "tonight"}
    assert not evidence.should_retry  # what is missing is in no document of the corpus
    assert "in no document of the index" in evidence.reasons[-1].text


def test_one_key_term_of_several_is_not_about_the_goal() -> None:
    terms = goal_terms("History of jazz music", frequencies({"history": 9, "jazz": 2, "music": 1}))
    page = Source("https://platformdirs.example", "platformdirs", "user music dir " * 10)
    evidence = assess(terms, [page])
    assert evidence.pages[0].supports == ("music",)
    assert not evidence.pages[0].about_goal
    assert "only 1 of the goal's key terms" in evidence.pages[0].reason


def test_confidence_grows_with_independent_pages_that_agree() -> None:
    terms = goal_terms("How do I read a CSV file?")
    other = Source("https://stackoverflow.com/q/1", "Read a CSV file", ANSWER.text)
    one = assess(terms, [ANSWER])
    two = assess(terms, [ANSWER, other])
    assert one.confidence <= 0.4 and "single source" in one.reasons[2].text
    assert two.confidence > one.confidence
    assert two.pages_about_goal == 2


def test_reasons_are_data_for_each_metric() -> None:
    evidence = assess(goal_terms("How do I read a CSV file?"), [ANSWER])
    assert [r.metric for r in evidence.reasons] == ["relevance", "coverage", "confidence", "retry"]
    assert evidence.reasons[0].value == evidence.relevance
    assert evidence.summary().startswith("heuristic: relevance")


def test_nothing_read_grades_zero_and_asks_for_a_retry() -> None:
    evidence = assess(goal_terms("read a CSV file"), [])
    assert (evidence.relevance, evidence.coverage, evidence.confidence) == (0.0, 0.0, 0.0)
    assert evidence.should_retry and evidence.pages == ()


_text = st.text(max_size=200)
_sources = st.lists(st.builds(Source, st.text(max_size=30), _text, _text, _text), max_size=4)


@given(goal=_text, sources=_sources, counts=st.dictionaries(st.text(max_size=8), st.integers(0, 9)))
def test_evidence_is_bounded_and_consistent(
    goal: str, sources: Sequence[Source], counts: dict[str, int]
) -> None:
    terms = goal_terms(goal, frequencies(counts, 10))
    evidence = assess(terms, sources)
    for value in (evidence.relevance, evidence.coverage, evidence.confidence):
        assert 0.0 <= value <= 1.0 and round(value, 1) == value
    for page in evidence.pages:
        assert 0.0 <= page.relevance <= 1.0
        assert set(page.supports) | set(page.missing) == {t.text for t in terms}
        assert not set(page.supports) & set(page.missing)
    covered = set(evidence.covered)
    assert covered <= {t for p in evidence.pages if p.about_goal for t in p.supports}
    if not any(p.about_goal for p in evidence.pages):
        assert evidence.coverage == 0.0 and evidence.confidence == 0.0
    assert assess(terms, sources) == evidence


# -- document frequencies ----------------------------------------------------------------------


class _Counting:
    def document_frequencies(self, words: Sequence[str]) -> CorpusFrequencies:
        return CorpusFrequencies(10, {word: len(word) for word in words})


def test_a_search_that_counts_gives_the_frequencies() -> None:
    found = corpus_frequencies_sync(_Counting(), ["csv", "file"])
    assert found == CorpusFrequencies(10, {"csv": 3, "file": 4})
    assert corpus_frequencies_sync(object(), ["csv"]) is None


def test_the_offline_index_tells_its_frequencies(tmp_path: object) -> None:
    documents = [
        OfflineDocument("https://docs.example/csv", "csv — CSV files", "read and write csv"),
        OfflineDocument("https://docs.example/json", "json", "read and write json"),
    ]
    search = OfflineSearch(tmp_path, documents=documents)  # type: ignore[arg-type]
    found = asyncio.run(corpus_frequencies(search, ["csv", "read", "tokio"]))
    assert found is not None and found.documents == 2
    assert dict(found.frequencies) == {"csv": 1, "read": 2, "tokio": 0}


def test_a_named_thing_only_mentioned_in_passing_caps_the_grade() -> None:
    """A goal about a library the index does not document, whose name a few READMEs mention
    ("Creating a list from a Scipy matrix", CoNaLa): the pages that mention it are no answer."""
    goal = "Creating a list from a Scipy matrix"
    counts = {"creating": 100, "list": 200, "scipy": 4, "matrix": 12}
    terms = goal_terms(goal, frequencies(counts, documents=400))
    readme = Source(
        "https://pypi.org/project/fonttools/",
        "fonttools — font tools",
        "Creating a list of glyphs needs scipy for the matrix maths. " * 10,
    )
    capped = assess(terms, [readme, readme])
    assert capped.relevance <= 0.5 and capped.coverage <= 0.5
    assert "the goal names 'Scipy', which no page read is about" in capped.reasons[0].text
    documented = Source(
        "https://docs.scipy.org/", "Scipy — sparse matrices", "Creating a list from a matrix."
    )
    assert "no page read is about" not in assess(terms, [documented, readme]).reasons[0].text
    widely = goal_terms(goal, frequencies({**counts, "scipy": 40}, documents=400))
    assert "no page read is about" not in assess(widely, [readme, readme]).reasons[0].text
    acronym = goal_terms("How can I do DNS lookups", frequencies({"dns": 4, "lookups": 3}))
    assert "no page read is about" not in assess(acronym, [readme]).reasons[0].text
