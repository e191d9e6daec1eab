"""Research in other words (issue 27 §2–3): passages and aspects, the corpus's passage vectors
(built once, cached, checked), the hybrid offline search, the pages' semantic evidence, the
findings kept across attempts and the refiner's new words. A small deterministic embedder
stands in for the model (`_fake_embedder`); the real model is measured in `make eval`."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from routescope._embedding import model_installed
from routescope.optimise._goal_terms import goal_terms, words
from routescope.research import (
    OfflineSearch,
    ResearchSettings,
    run_research,
)
from routescope.research._evidence import assess
from routescope.research._module_docs import source_docs
from routescope.research._offline import OfflineDocument
from routescope.research._page_evidence import Source, semantic_relevance
from routescope.research._semantic import (
    PASSAGES_PER_PAGE,
    BuildStoppedError,
    PassageIndex,
    Semantics,
    aspects,
    passages,
)
from tests.core.research._fake_embedder import FakeEmbedder

SOCKET = "https://docs.python.org/3/library/socket.html"
DOCTEST = "https://docs.python.org/3/library/doctest.html"
SHELVE = "https://docs.python.org/3/library/shelve.html"
CORPUS = (
    OfflineDocument(
        SOCKET,
        "socket — Low-level networking interface",
        "This module provides socket operations.\n\n"
        "gethostname(): Return the current hostname of the machine.\n\n"
        "getaddrinfo(): Resolve a host and port into addresses.\n\n"
        "create_connection(): Connect to an address.\n\n"
        "class socket: A socket object.",
        "stdlib",
    ),
    OfflineDocument(
        DOCTEST,
        "doctest — Test interactive Python examples",
        "Find the examples in docstrings, run them and check the name of each result while "
        "running them: what it finds is printed.",
        "stdlib",
    ),
    OfflineDocument(
        SHELVE,
        "shelve — Python object persistence",
        "A shelf is a persistent dictionary: save objects to disk and reopen the shelf later "
        "like a dict.",
        "stdlib",
    ),
)


def search(tmp_path: Path, embedder: FakeEmbedder | None = None) -> OfflineSearch:
    model = embedder or FakeEmbedder()
    return OfflineSearch(tmp_path, documents=CORPUS, semantic=True, embedder=lambda: model)


# -- passages and aspects ------------------------------------------------------------------------


def test_passages_are_the_title_and_the_sentences_that_say_what_a_module_does() -> None:
    found = passages(CORPUS[0].title, CORPUS[0].body)
    assert found[0] == "socket — Low-level networking interface"
    assert "gethostname(): Return the current hostname of the machine." in found
    assert found[1] == "This module provides socket operations."
    long = passages("t", "word " * 200)
    assert len(long[1]) <= 200 and not long[1].endswith(" ")
    many = "\n\n".join(f"f{i}(): does thing {i}" for i in range(99))
    assert len(passages("t", many)) == PASSAGES_PER_PAGE


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Python save list and read data from file", ["Python save list", "read data from file"]),
        (
            "check if a directory exists and create it if necessary",
            ["check if a directory exists", "create it if necessary"],
        ),
        (
            "Find current directory and file's directory",
            ["Find current directory", "file's directory"],
        ),
        ("How to copy a file using python?", ["How to copy a file using python?"]),
        (
            "Convert an IP string to a number and vice versa",
            ["Convert an IP string to a number and vice versa"],
        ),
    ],
)
def test_aspects_are_the_clauses_a_goal_asks_for(goal: str, expected: list[str]) -> None:
    assert aspects(goal) == expected


# -- the corpus's passage vectors ----------------------------------------------------------------


def test_passage_vectors_are_built_once_cached_and_checked(tmp_path: Path) -> None:
    built: list[FakeEmbedder] = []

    def embedder() -> FakeEmbedder:
        built.append(FakeEmbedder())
        return built[-1]

    def documents() -> list[tuple[str, str, str]]:
        return [(d.url, d.title, d.body) for d in CORPUS]

    index = PassageIndex(tmp_path, "k" * 32, documents, embedder=embedder, model_id="fake-64")
    vectors = index.open()
    assert len(built) == 1 and index.path().is_file() and vectors.urls == (SOCKET, DOCTEST, SHELVE)
    assert np.allclose(np.linalg.norm(vectors.vectors, axis=1), 1.0, atol=1e-3)
    again = PassageIndex(tmp_path, "k" * 32, documents, embedder=embedder, model_id="fake-64")
    assert again.open().texts == vectors.texts and len(built) == 1  # read, not built
    index.path().write_bytes(b"not an npz file")
    broken = PassageIndex(tmp_path, "k" * 32, documents, embedder=embedder, model_id="fake-64")
    assert broken.open().texts == vectors.texts and len(built) == 2
    assert "not sound: rebuilt" in broken.note
    other = PassageIndex(tmp_path, "k" * 32, documents, embedder=embedder, model_id="other")
    other.open()
    assert len(built) == 3  # another model's vectors are never used


def test_the_embedding_model_alone_ranks_documents_by_their_best_passage(tmp_path: Path) -> None:
    found = search(tmp_path).rank_semantic("the name of the computer", 3)
    assert found[0][0] == SOCKET and "gethostname" in found[0][2]
    assert found[0][1] >= found[-1][1]


def test_the_offline_search_finds_a_page_in_other_words(tmp_path: Path) -> None:
    keyword = OfflineSearch(tmp_path / "k", documents=CORPUS, semantic=False)
    hybrid = search(tmp_path / "h")
    query = "persist mapping"
    plain = asyncio.run(keyword.search(query, max_results=1))
    fused = asyncio.run(hybrid.search(query, max_results=2, goal="save a dict to disk"))
    assert not plain.results or plain.results[0].url != SHELVE
    assert SHELVE in [hit.url for hit in fused.results]
    assert [hit.rank for hit in fused.results] == list(range(1, len(fused.results) + 1))


def test_a_goal_that_asks_for_two_things_is_searched_for_each(tmp_path: Path) -> None:
    """The passages nearest each aspect are fused beside those nearest the whole goal: a page
    that answers one of the things asked is not outranked by pages near the goal's average."""
    model = FakeEmbedder()
    hybrid = search(tmp_path, model)
    goal = "save a dict to disk and find the name of the computer"
    assert aspects(goal) == ["save a dict to disk", "find the name of the computer"]
    fused = asyncio.run(hybrid.search("dict computer", max_results=2, goal=goal))
    assert {hit.url for hit in fused.results} == {SHELVE, SOCKET}
    assert ["dict computer", goal, *aspects(goal)] in model.calls
    model.calls.clear()
    asyncio.run(hybrid.search("dict disk", max_results=2, goal="save a dict to disk"))
    assert model.calls == [["dict disk", "save a dict to disk"]]


_WORDY = (  # pages that share the query's words but not the goal's meaning
    OfflineDocument(
        SOCKET,
        "socket — Low-level networking interface",
        "gethostname(): Return a string containing the hostname of the machine where the "
        "Python interpreter is currently executing.",
        "stdlib",
    ),
    OfflineDocument(
        DOCTEST,
        "doctest — Test interactive Python examples",
        "Find the examples in docstrings and run them, checking the name of each result while "
        "running.",
        "stdlib",
    ),
    OfflineDocument(
        "https://docs.python.org/3/library/runpy.html",
        "runpy — Locating and executing Python modules",
        "Find a module by name and run it: running code under the name __main__.",
        "stdlib",
    ),
    OfflineDocument(
        "https://docs.python.org/3/library/unittest.html",
        "unittest — Unit testing framework",
        "Find test cases by name and run them; the runner reports each test running.",
        "stdlib",
    ),
)


@pytest.mark.skipif(not model_installed(), reason="the embedding model is not installed")
def test_the_goals_nearest_document_is_read_first_whatever_the_query_words_say(
    tmp_path: Path,
) -> None:
    """The embedding model leads the offline search: the document nearest the goal (the real
    model) is read first, though BM25 and the query's own words rank pages that only share
    the query's words above it."""
    from routescope.research._semantic import bundled_embedder

    model = bundled_embedder()
    assert model is not None
    offline = OfflineSearch(tmp_path, documents=_WORDY, semantic=True, embedder=lambda: model)
    goal, query = "find the name of the computer I am running on", "find name computer running"
    assert offline.rank_semantic(goal, 1)[0][0] == SOCKET
    keyword, _ = offline.search_sync(["find", "name", "computer", "running"], 4)
    assert SOCKET not in [hit.url for hit in keyword]  # no word of the query is on its page
    for k in (1, 2):
        found = asyncio.run(offline.search(query, max_results=k, goal=goal)).results
        assert [hit.url for hit in found][:1] == [SOCKET]
        assert [hit.rank for hit in found] == list(range(1, k + 1))
    # without the goal (a search that is not research), the fusion alone ranks the pages
    plain = asyncio.run(offline.search(query, max_results=1)).results
    assert [hit.url for hit in plain] != [SOCKET]


def test_without_a_model_the_search_is_keyword_only_and_says_so(tmp_path: Path) -> None:
    bare = OfflineSearch(tmp_path, documents=CORPUS, semantic=True, embedder=lambda: None)
    assert bare.passage_vectors() is None and bare.rank_semantic("host", 3) == []
    assert "no embedding model installed" in bare.semantic_note
    assert asyncio.run(bare.search("socket", max_results=1)).results[0].url == SOCKET


# -- the pages' semantic evidence ----------------------------------------------------------------


def test_pages_are_read_against_the_goal_and_its_aspects(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    vectors = search(tmp_path, embedder).passage_vectors()
    goal = "save a dict to disk and reopen it later"
    semantics = Semantics(goal, embedder, vectors)
    assert semantics.aspects == ("save a dict to disk", "reopen it later")
    calls = len(embedder.calls)
    pages = semantics.pages(
        [
            (SHELVE, CORPUS[2].title, CORPUS[2].body),  # in the index: not embedded again
            ("https://example.org/x", "Unrelated", "Nothing here about it at all."),
        ]
    )
    assert len(embedder.calls) == calls + 1 and embedder.calls[-1] == [
        "Unrelated",
        "Nothing here about it at all.",
    ]
    shelf, other = pages[SHELVE], pages["https://example.org/x"]
    assert shelf.similarity > other.similarity and "persistent dictionary" in shelf.passage
    assert len(shelf.aspects) == 2 and min(shelf.aspects) > max(other.aspects)


def test_meaning_weighs_beside_terms_and_coverage_counts_aspects_answered() -> None:
    goal = "find the name of the computer I am running on"
    terms = goal_terms(goal)
    near = Source(
        SOCKET,
        "socket",
        "gethostname(): Return the current hostname.",
        "",
        0.8,
        "gethostname(): Return the current hostname.",
        (0.8,),
    )
    words_only = Source(DOCTEST, "doctest", CORPUS[1].body, "", 0.2, "Find the examples", (0.2,))
    evidence = assess(terms, [near, words_only], aspects=[goal])
    by_url = {page.url: page for page in evidence.pages}
    assert by_url[SOCKET].about_goal and not by_url[DOCTEST].about_goal
    assert by_url[DOCTEST].term_relevance > by_url[SOCKET].term_relevance  # its words match
    assert by_url[SOCKET].relevance > by_url[DOCTEST].relevance  # its meaning answers
    assert "meaning" in by_url[SOCKET].reason and "gethostname" in by_url[SOCKET].reason
    assert by_url[SOCKET].answers == (goal,)
    assert evidence.coverage == 1.0 and "1 of 1 aspect(s)" in evidence.reasons[1].text
    assert semantic_relevance(0.0) == 0.0 and semantic_relevance(0.99) == 1.0


# -- one run: findings across attempts, new words ------------------------------------------------


def test_a_run_reads_pages_in_other_words_and_keeps_the_best_across_attempts(
    tmp_path: Path,
) -> None:
    offline = search(tmp_path)
    result = asyncio.run(
        run_research(
            "find the name of the computer I am running on",
            ResearchSettings(max_attempts=3),
            offline=lambda: offline,
        )
    )
    assert result.findings and result.findings[0].url == SOCKET
    best = result.findings[0].evidence
    assert best is not None and best.similarity is not None and best.passage
    urls = [f.url for f in result.findings]
    assert len(urls) == len(set(urls))
    read = {p.url for a in result.attempts for p in a.pages if p.has_text}
    assert set(urls) <= read


def test_possessives_and_a_blank_stack_hint_add_no_words() -> None:
    assert words("the user's home folder") == ["the", "user", "home", "folder"]
    from routescope.research._heuristic import HeuristicModel, OptimiserInput

    model = HeuristicModel()
    plain = model.plan_query(OptimiserInput("open a page in the browser", stack_hint=""))
    assert "frontend" not in plain.query.lower()
    inferred = model.plan_query(OptimiserInput("open a page in the browser"))
    assert "frontend" not in inferred.query.lower()  # a kind is never inferred into a query
    python = model.plan_query(OptimiserInput("read a file with pytest fixtures"))
    assert "Python" in python.query


def test_a_module_that_extends_its_all_is_read_whole(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text(
        '"""A module."""\n'
        '__all__ = ["a"]\n'
        '__all__.extend(["b"])\n'
        '__all__ += ["c"]\n'
        'def a():\n    """A does a."""\n'
        'def b():\n    """B does b."""\n'
        'if True:\n    def c():\n        """C does c."""\n'
        'def d():\n    """D is not exported."""\n',
        encoding="utf-8",
    )
    _, parts = source_docs(source, "")
    assert parts == ["A module.", "a(): A does a.", "b(): B does b.", "c(): C does c."]


# -- a build stopped -----------------------------------------------------------------------------


class _HeldEmbedder(FakeEmbedder):
    """Embeds once `release` is set, after saying it started (`started`)."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = threading.Event(), threading.Event()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.started.set()
        assert self.release.wait(30)
        return super().embed(texts)


def _many(count: int) -> list[OfflineDocument]:
    return [
        OfflineDocument(
            f"https://docs.python.org/3/library/m{i}.html",
            f"m{i} — module {i}",
            f"Module {i} does thing {i}.\n\nIt also does other thing {i}.",
            "stdlib",
        )
        for i in range(count)
    ]


def test_a_stopped_build_ends_after_its_batch_and_caches_nothing(tmp_path: Path) -> None:
    model = _HeldEmbedder()
    corpus = _many(40)  # 120 passages: four batches

    def documents() -> list[tuple[str, str, str]]:
        return [(d.url, d.title, d.body) for d in corpus]

    index = PassageIndex(tmp_path, "k" * 32, documents, embedder=lambda: model, model_id="held")
    failed: list[BaseException] = []

    def build() -> None:
        try:
            index.open()
        except BuildStoppedError as exc:
            failed.append(exc)

    thread = threading.Thread(target=build)
    thread.start()
    assert model.started.wait(30)
    index.stop()
    model.release.set()
    thread.join(30)
    assert not thread.is_alive() and len(model.calls) == 1
    assert [str(exc) for exc in failed] == ["the passage vectors' build was stopped"]
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(BuildStoppedError):
        index.open()


def test_closing_a_search_stops_its_background_build_and_waits_for_it(tmp_path: Path) -> None:
    model = _HeldEmbedder()
    search = OfflineSearch(
        tmp_path, documents=_many(40), key="many", semantic=True, embedder=lambda: model
    )
    search.wait_for_passages = False  # as the window has it
    assert search.passage_vectors() is None and "being built" in search.semantic_note
    assert model.started.wait(30)
    building = [t for t in threading.enumerate() if t.name == "passage-vectors"]
    assert len(building) == 1
    closing = threading.Thread(target=search.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # it waits for the batch under way
    model.release.set()
    closing.join(30)
    assert not closing.is_alive() and not building[0].is_alive()
    assert len(model.calls) == 1 and not list(tmp_path.glob("passages-*"))
    assert "stopped" in search.semantic_note
    assert search.passage_vectors() is None  # none starts after the close
    assert not any(t.name == "passage-vectors" and t.is_alive() for t in threading.enumerate())
    assert asyncio.run(search.search("module", max_results=1)).results  # terms still search


_EXIT_MID_BUILD = """
import sys, threading
from pathlib import Path
from routescope.research._offline import OfflineDocument, OfflineSearch
from routescope.research._semantic import build_threads, bundled_embedder

model, running = bundled_embedder(build_threads()), threading.Event()

class Running:  # says when onnxruntime runs the model (its GIL released)
    def __init__(self, session):
        self.session = session

    def get_inputs(self):
        return self.session.get_inputs()

    def run(self, outputs, feeds):
        running.set()
        return self.session.run(outputs, feeds)

model._session = Running(model._session)
documents = [
    OfflineDocument(f"https://docs.python.org/3/library/m{i}.html", f"m{i}",
                    f"Module {i} reads and writes files of kind {i}, " * 8, "stdlib")
    for i in range(500)
]
search = OfflineSearch(Path(sys.argv[1]), documents=documents, key="exit", semantic=True,
                       embedder=lambda: model)
search.wait_for_passages = False
search.passage_vectors()
assert running.wait(60)
print("exiting while the model runs", flush=True)
"""


@pytest.mark.skipif(not model_installed(), reason="the embedding model is not installed")
def test_the_process_exits_cleanly_in_the_middle_of_a_background_build(tmp_path: Path) -> None:
    """A build thread left inside onnxruntime while the interpreter exits aborted the process
    ("terminate called without an active exception": the bundle's self-test). At exit the
    build is stopped and waited for."""
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_MID_BUILD, str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "exiting while the model runs\n"
    assert not list((tmp_path / "cache").glob("passages-*"))
