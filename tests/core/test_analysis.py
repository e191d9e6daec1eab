"""The shared text analysis: Tantivy's default tokens, the English analyzer `routescope_en` with
identifier splitting, and stems mapped back to words. The tool search and the offline research
index share it; neither borrows it from the other."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tantivy

from routescope import _analysis
from routescope._analysis import (
    ANALYZER,
    analyzed_terms,
    analyzer,
    split_identifiers,
    stems_to_words,
    tokens,
)


def test_tokens_are_the_default_tokenizers() -> None:
    assert tokens("Run git.status, please!") == ["run", "git", "status", "please"]
    assert tokens("list_open_files fs.read-file") == ["list", "open", "files", "fs", "read", "file"]
    assert tokens("Ünïcode café 42") == ["ünïcode", "café", "42"]
    assert tokens("a" * 40 + " " + "b" * 41) == ["a" * 40]  # longer than 40 bytes: dropped
    assert tokens("é" * 21) == []  # 42 bytes in UTF-8
    assert tokens("?!-  ___") == []


def test_tokens_match_tantivys_default_tokenizer() -> None:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", stored=True)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    text = "getCurrentWeather in São Paulo, snake_case and dotted.names-2024"
    writer.add_document(tantivy.Document(text=text))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    for term in tokens(text):
        query = tantivy.Query.term_query(index.schema, "text", term)
        assert searcher.search(query, 1).hits, term


def test_identifiers_are_split() -> None:
    assert split_identifiers("getHTTPResponse2") == "get HTTP Response 2"
    assert split_identifiers("PascalCase camelCase") == "Pascal Case camel Case"
    assert split_identifiers("snake_case dotted.name") == "snake_case dotted.name"


def test_the_english_analyzer() -> None:
    assert analyzed_terms("getCurrentWeather") == ["get", "current", "weather"]
    assert analyzed_terms("list_open_files fs.read-file") == [
        "list", "open", "file", "fs", "read", "file",
    ]  # fmt: skip
    assert analyzed_terms("the files of THE repositories") == ["file", "repositori"]
    assert analyzed_terms("getHTTPResponse2") == ["get", "http", "respons", "2"]
    assert analyzed_terms("can you please remind me") == ["remind"]  # request stop words
    assert analyzed_terms("x" * 41 + " crashing") == ["crash"]


def test_stems_map_back_to_the_first_word() -> None:
    words = stems_to_words("Why is my container crashing? Crashes, containers")
    assert words["crash"] == "crashing" and words["contain"] == "container"
    assert "my" not in words and "is" not in words
    assert stems_to_words("getCurrentWeather")["current"] == "current"


def test_the_analyzer_is_built_once_and_registers_in_an_index() -> None:
    assert analyzer() is analyzer()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", stored=True, tokenizer_name=ANALYZER)
    index = tantivy.Index(builder.build())
    index.register_tokenizer(ANALYZER, analyzer())
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    writer.add_document(tantivy.Document(text=split_identifiers("listOpenFiles")))
    writer.commit()
    index.reload()
    query = tantivy.Query.term_query(index.schema, "text", "file")
    assert index.searcher().search(query, 1).hits


@pytest.mark.parametrize("name", ["tokens", "analyzed_terms", "split_identifiers", "ANALYZER"])
def test_the_tool_searchs_names_are_the_shared_ones(name: str) -> None:
    from routescope import toolsearch
    from routescope.toolsearch import _keyword

    assert getattr(_keyword, name) is getattr(_analysis, name)
    if name == "tokens":
        assert toolsearch.tokens is tokens


def test_the_research_index_does_not_load_the_tool_search() -> None:
    code = (
        "import sys\n"
        "import routescope.research._offline\n"
        "print(sorted(m for m in sys.modules if m.startswith('routescope.toolsearch')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
