"""The fusions behind one interface (`routescope.toolsearch._fusion`): the weighted fusion's
keyword evidence — a word counted by how much it can say, incidental words barely — its shares
and the words that moved them, and each fusion's formula in words."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from routescope import resources_root
from routescope.toolsearch import Catalog, SearchSettings, Tool, ToolSearch, _evidence, load_catalog
from routescope.toolsearch._evidence import (
    INCIDENTAL,
    KEYWORD_WORDS,
    KeywordEvidence,
    query_terms,
)
from routescope.toolsearch._fusion import FUSERS, formula

SAMPLE = Path(str(resources_root() / "catalog"))
KEYWORD_ONLY = SearchSettings(strategy="exact")


def engine(tmp_path: Path, *tools: Tool) -> ToolSearch:
    return ToolSearch(Catalog(tools=list(tools), source=str(tmp_path)), cache=tmp_path)


def keyword_share(result_hits: list, name: str) -> float:  # type: ignore[type-arg]
    hit = next(h for h in result_hits if h.tool_name == name)
    return float(hit.signals.shares.get("keyword", 0.0))


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def test_query_terms_say_which_words_are_incidental() -> None:
    terms = {t.word: t for t in query_terms("Help me summarize /root/pdf/report.pdf in 3 lines")}
    assert terms["summarize"].factor == 1.0 and terms["summarize"].note == ""
    assert terms["pdf"].note == "in a URL or path" and terms["pdf"].factor == INCIDENTAL
    assert terms["report"].note == "in a URL or path"
    assert terms["help"].note == "a request phrase"
    assert terms["3"].note == "a number"
    assert terms["lines"].term == "line"  # the query's word, and the stem that is searched
    url = {t.word: t.note for t in query_terms("read https://example.com/post, then post it")}
    assert url["post"] == ""  # also outside the URL: a full word
    assert {t.word for t in query_terms("I need to book a flight") if t.note} == {"need"}
    dates = {t.word: t.note for t in query_terms("log it as YYYY-MM-DD HH:MM, dd/mm/yyyy")}
    assert dates["yyyy"] == dates["hh"] == "a date or time format"  # issue 28: incidental
    assert dates["log"] == "" and query_terms("my mom")[0].note == ""


def test_a_word_only_in_a_path_barely_moves_a_tool_named_after_it(tmp_path: Path) -> None:
    search = engine(
        tmp_path,
        Tool("convert_to_pdf", "Convert a Word document to PDF", (), (), "docs"),
        Tool("summarize_text", "Summarize the text of a document in a few lines", (), (), "docs"),
        Tool("send_mail", "Send an email", (), (), "mail"),
    )
    hits = search.search("summarize /root/pdf/report.pdf", KEYWORD_ONLY).results
    assert hits[0].tool_name == "summarize_text"
    pdf = next(h for h in hits if h.tool_name == "convert_to_pdf").signals.keyword
    assert pdf is not None and [(t.word, t.note) for t in pdf.terms] == [
        ("pdf", "in a URL or path")
    ]
    assert keyword_share(hits, "convert_to_pdf") < keyword_share(hits, "summarize_text") / 3


def test_a_number_or_a_request_phrase_is_not_evidence_for_a_tool_named_after_it(
    tmp_path: Path,
) -> None:
    search = engine(
        tmp_path,
        Tool("sha2_hash", "Hash a text", (), (), "crypto"),
        Tool("help", "Show how to use this assistant", (), (), "meta"),
        Tool("list_emails", "List the latest emails in the inbox", (), (), "mail"),
        Tool("book_flight", "Book a flight", (), (), "travel"),
    )
    emails = search.search("show me the 2 latest emails", KEYWORD_ONLY).results
    assert emails[0].tool_name == "list_emails"
    assert keyword_share(emails, "sha2_hash") < keyword_share(emails, "list_emails") / 4
    flight = search.search("help me book a flight to Rome", KEYWORD_ONLY).results
    assert flight[0].tool_name == "book_flight"
    assert keyword_share(flight, "help") < keyword_share(flight, "book_flight") / 4


def test_one_stemmed_fragment_counts_less_than_the_words_of_the_request(tmp_path: Path) -> None:
    search = engine(
        tmp_path,
        Tool("calculate_interest", "Compound interest on a loan", (), (), "finance"),
        Tool("moon_facts", "Facts about the moon", (), (), "space"),
    )
    hits = search.search("tell me some interesting facts about the moon", KEYWORD_ONLY).results
    assert [h.tool_name for h in hits] == ["moon_facts", "calculate_interest"]
    interest = hits[1].signals.keyword
    assert interest is not None and [t.word for t in interest.terms] == ["interesting"]
    assert interest.evidence is not None and interest.evidence < 0.5


def test_a_rare_word_in_a_name_says_more_than_a_common_one(tmp_path: Path) -> None:
    tools = [Tool(f"get_{w}", f"Get the {w}", (), (), "misc") for w in "abcdefgh"]
    tools.append(Tool("get_weather", "Get the weather of a city", (), (), "weather"))
    search = engine(tmp_path, *tools)
    hit = search.search("get the weather in Paris", KEYWORD_ONLY).results[0]
    assert hit.tool_name == "get_weather" and hit.signals.keyword is not None
    by_word = {t.word: t for t in hit.signals.keyword.terms}
    assert by_word["weather"].weight > 3 * by_word["get"].weight  # IDF: 1 tool against 9
    assert by_word["weather"].match == 1.0 and by_word["weather"].tools == 1
    assert by_word["weather"].share > 3 * by_word["get"].share


def test_shares_add_up_exactly_and_the_words_add_up_to_the_keyword_share(
    sample: ToolSearch,
) -> None:
    result = sample.search("why is my container crashing after the deploy?")
    assert result.fusion == "weighted" and result.strategy == "hybrid"
    settings = SearchSettings()
    for hit in result.results:
        shares = hit.signals.shares
        assert round(sum(shares.values()), 12) == hit.score
        keyword = hit.signals.keyword
        if keyword is None:
            assert shares["keyword"] == 0.0
            continue
        assert sum(t.share for t in keyword.terms) == shares["keyword"]  # the same floats
        assert 0 < shares["keyword"] <= settings.keyword_weight + 1e-12
        assert keyword.evidence == pytest.approx(shares["keyword"] / settings.keyword_weight)
        assert all(0 < t.match <= 1 and t.weight > 0 for t in keyword.terms)
    crashing = next(h for h in result.results if h.signals.keyword is not None)
    assert {t.word for t in crashing.signals.keyword.terms} <= set(  # type: ignore[union-attr]
        ["why", "is", "my", "container", "crashing", "after", "the", "deploy"]
    )


def test_the_evidence_is_capped_at_one(tmp_path: Path) -> None:
    words = "alpha bravo charlie delta echo foxtrot golf hotel"
    search = engine(
        tmp_path,
        Tool("everything", words, (), (), "misc"),
        Tool("other", "nothing in common", (), (), "misc"),
    )
    assert len(words.split()) > KEYWORD_WORDS
    hit = search.search(words, KEYWORD_ONLY).results[0]
    assert hit.signals.keyword is not None and hit.signals.keyword.evidence == 1.0
    assert hit.signals.shares["keyword"] == pytest.approx(1.0)
    assert len(hit.signals.keyword.terms) == len(words.split())


def test_every_candidate_is_scored_on_its_keyword_evidence(sample: ToolSearch) -> None:
    # three keyword candidates: the vector list's candidates still get their words' evidence
    query = "why is my container crashing after the deploy?"
    narrow = sample.search(query, SearchSettings(candidates=3))
    wide = {h.tool_name: h for h in sample.search(query, SearchSettings(candidates=50)).results}
    for hit in narrow.results:
        if hit.tool_name in wide:
            assert hit.signals.shares["keyword"] == wide[hit.tool_name].signals.shares["keyword"]
    beyond = [h for h in narrow.results if h.signals.keyword and h.signals.keyword.rank > 3]
    assert beyond and all(h.signals.shares["keyword"] > 0 for h in beyond)


def test_each_fusion_says_its_formula_with_the_settings_numbers() -> None:
    weighted = SearchSettings(vector_weight=0.6, keyword_weight=0.4)
    text = formula(weighted)
    assert text.startswith("final = 0.6 · cosine + 0.4 · keyword evidence + boosts")
    assert f"its {KEYWORD_WORDS} rarest words" in text and f"{INCIDENTAL:g}" in text
    assert weighted.formula() == text
    canonical = SearchSettings(fusion="canonical", rrf_k=30)
    assert formula(canonical).startswith("final = Σ 1/(30 + rank)")
    assert set(FUSERS) == {"weighted", "canonical"}


def test_a_search_result_carries_its_formula(sample: ToolSearch) -> None:
    settings = SearchSettings(fusion="canonical", rrf_k=42)
    assert sample.search("git status", settings).formula == formula(settings)


def test_no_word_of_the_query_is_held_by_any_tool(sample: ToolSearch) -> None:
    result = sample.search("zzqx wvvy", KEYWORD_ONLY)
    assert result.results == [] and not result.fits
    hybrid = sample.search("zzqx wvvy")
    assert all(h.signals.keyword is None for h in hybrid.results)
    assert all(not math.isnan(h.score) for h in hybrid.results)


def _travel(tmp_path: Path) -> ToolSearch:
    return engine(
        tmp_path,
        Tool("book_flight", "Book a flight to a city", (), (), "travel"),
        Tool("find_hotel", "Find a hotel near a place", (), (), "travel"),
        Tool("compare_insurance", "Compare insurance options", (), (), "finance"),
        Tool("weather_report", "Check the weather for a place", (), (), "weather"),
        Tool("venue_hotel_weather", "Venue weather near the hotel", (), (), "misc"),
        *(Tool(f"tool_{i}", f"Unrelated helper number {i}", (), (), "misc") for i in range(8)),
    )


def test_a_request_of_several_needs_is_measured_against_its_heaviest_step(
    tmp_path: Path,
) -> None:
    """Issue 28: each need's tool is measured against the rarest words of one step (the
    heaviest), not of the whole request, so it is not diluted by the other needs' words."""
    search = _travel(tmp_path)
    query = (
        "book a flight to Lisbon, then find a hotel near the venue; compare the insurance "
        "options and check the weather there"
    )
    flat = query.replace(", then", "").replace(";", "").replace(" and ", " ")  # one step
    boosts = search.default_boosts()
    split = KeywordEvidence.of(search._fusion, query, boosts)
    whole = KeywordEvidence.of(search._fusion, flat, boosts)
    assert (split.steps, whole.steps) == (4, 1)
    assert {t.term for t in split.terms} == {t.term for t in whole.terms}
    flight = search.index_of("book_flight")
    assert flight is not None and split.mass < whole.mass
    assert split.totals[flight] == pytest.approx(whole.totals[flight] * whole.mass / split.mass)
    settings = SearchSettings(strategy="exact", split_steps=False)
    hits = search.search(query, settings).results
    found = next(h for h in hits if h.tool_name == "book_flight").signals.keyword
    assert found is not None and found.evidence == pytest.approx(min(1.0, split.totals[flight]))
    assert {t.word for t in found.terms} == {"book", "flight"}


def test_a_fit_needs_two_matched_words_or_a_vector_share(tmp_path: Path) -> None:
    """Issue 28: one matched word in a tool's name ("passport") is no fit; two are."""
    search = engine(
        tmp_path,
        Tool("read_passport_data", "Read the data of a passport scan", (), (), "ids"),
        Tool("list_emails", "List the latest emails in the inbox", (), (), "mail"),
        *(Tool(f"tool_{i}", f"Unrelated helper number {i}", (), (), "misc") for i in range(8)),
    )
    settings = SearchSettings(strategy="exact", fit_threshold=0.05)
    one = search.search("renew my passport at the embassy", settings)
    assert one.results[0].tool_name == "read_passport_data"
    assert not one.fits and one.fit_corroboration.startswith("1 matched word: passport")
    assert "not corroborated" in one.fit_reason
    two = search.search("scan my passport", settings)
    assert two.fits and two.fit_corroboration.startswith("2 matched words")
    assert "corroborated by 2 matched words" in two.fit_reason
    off = search.search("renew my passport", SearchSettings(strategy="exact", fit_threshold=0))
    assert off.fits and off.fit_corroboration == ""
    canonical = SearchSettings(strategy="exact", fusion="canonical", fit_threshold=0.001)
    assert search.search("renew my passport", canonical).fits  # the seed's verdict: score alone


def test_siblings_are_told_apart_by_the_word_they_do_not_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: with sibling rarity on, a word every tool of a server holds ("commit") counts
    less for them than the action that tells them apart ("log", "list"), the server's own name
    never; each term says what it counted. Off by default (measured: `SIBLING_RARITY`)."""
    assert _evidence.SIBLING_RARITY == 0.0
    monkeypatch.setattr(_evidence, "SIBLING_RARITY", 0.5)
    search = engine(
        tmp_path,
        Tool("git.commit", "Record a new commit of the staged changes", (), (), "git"),
        Tool("git.log", "List the log of recent commits of a repository", (), (), "git"),
        Tool("git.status", "Status of the files to commit in the working tree", (), (), "git"),
        Tool("git.diff", "Changes between a commit and the working tree", (), (), "git"),
        *(Tool(f"misc.t{i}", f"Unrelated helper number {i}", (), (), "misc") for i in range(6)),
    )
    hits = search.search("list the recent git commits", KEYWORD_ONLY).results
    assert hits[0].tool_name == "git.log"
    terms = {t.word: t for t in hits[0].signals.keyword.terms}  # type: ignore[union-attr]
    assert terms["commits"].siblings < 0.8 and terms["list"].siblings == 1.0
    assert terms["git"].siblings == 1.0  # the server's own name tells it from the others
    lone = engine(tmp_path / "lone", Tool("commit", "Record a commit", (), (), "git"))
    only = lone.search("commit it", KEYWORD_ONLY).results[0].signals.keyword
    assert only is not None and only.terms[0].siblings == 1.0  # no server: no siblings
