"""The shared text analysis: Tantivy's default tokens, the English analyzer `routescope_en` with
identifier splitting, and stems mapped back to words. The tool search and the offline research
index share it; neither borrows it from the other. Research's evidence reads words with the
compound-word pattern and the light stemmer kept here too."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import tantivy

from routescope import _analysis
from routescope._analysis import (
    ANALYZER,
    ASCII_TECH_WORD,
    COMPOUND_WORD,
    analyzed_terms,
    analyzer,
    light_stem,
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


# -- research's own word reading (no index) ----------------------------------------------------


def test_the_light_stemmer_folds_common_inflections() -> None:
    assert light_stem("comparing") == light_stem("compared") == light_stem("compare") == "compar"
    assert light_stem("libraries") == light_stem("library") == "library"
    assert light_stem("stopped") == light_stem("stop") == "stop"
    assert light_stem("files") == light_stem("file") == "fil"
    assert light_stem("classes") == light_stem("class") == "class"
    assert light_stem("glasses") == "glass" and light_stem("boxes") == "box"
    assert light_stem("running") == "run" and light_stem("flies") == "fly"
    assert light_stem("Python's") == "python" and light_stem("Ramen") == "ramen"


def test_the_light_stemmer_leaves_short_words_and_compounds_alone() -> None:
    # Only lower-cased (and a final dot dropped): they have no English ending to take off.
    assert light_stem("bus") == "bus" and light_stem("the") == "the"
    assert light_stem("analysis") == "analysis" and light_stem("fizz") == "fizz"
    assert light_stem("os.path") == "os.path" and light_stem("Node.js.") == "node.js"
    assert light_stem("c++") == "c++" and light_stem("2024s") == "2024s"


def test_a_compound_word_is_one_word() -> None:
    text = "Use left-pad, os.path and node.js. in C++ or C#; snake_case -- café a--b x."
    assert COMPOUND_WORD.findall(text) == [
        *("Use", "left-pad", "os.path", "and", "node.js", "in", "C++", "or", "C#"),
        *("snake_case", "café", "a", "b", "x"),
    ]


def test_an_ascii_tech_word_keeps_its_punctuation_and_ends_at_other_letters() -> None:
    text = "use ts-node, c++ and node.js. snake_case -- café a--b x."
    assert ASCII_TECH_WORD.findall(text) == (
        ["use", "ts-node", "c++", "and", "node.js.", "snake", "case", "caf", "a--b", "x."]
    )
    # Meant for lower-cased text: capitals are not part of a word.
    assert ASCII_TECH_WORD.findall("Use Vite") == ["se", "ite"]


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("optimise._goal_terms", "COMPOUND_WORD"),
        ("optimise._goal_terms", "light_stem"),
        ("research._page_evidence", "COMPOUND_WORD"),
        ("research._page_evidence", "light_stem"),
        ("optimise._query_words", "COMPOUND_WORD"),
        ("optimise._query_words", "light_stem"),
        ("optimise._stack", "ASCII_TECH_WORD"),
    ],
)
def test_researchs_word_reading_is_the_shared_one(module: str, name: str) -> None:
    found = importlib.import_module(f"routescope.{module}")
    assert getattr(found, name) is getattr(_analysis, name)
