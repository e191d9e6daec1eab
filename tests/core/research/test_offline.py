"""The offline search backend: a Tantivy index over documentation already on the machine.

Every index lives under ``tmp_path``. A small fixed corpus covers ranking, snippets, the cache
and failures; one test builds the real machine index (the standard library, pydoc topics and
the installed distributions) and searches it.
"""

from __future__ import annotations

import asyncio
import gc
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from routescope import _cache
from routescope.research import _corpus
from routescope.research._corpus import (
    MAX_BODY_CHARS,
    PROJECT_DISTRIBUTIONS,
    OfflineDocument,
    _distributions,
    _project_url,
    machine_key,
    normalised_name,
    package_documents,
)
from routescope.research._models import SearchResponse
from routescope.research._offline import OfflineReader, OfflineSearch, snippet
from routescope.research._provider_contract import SearchProvider

FILLER = " ".join(f"filler{i}" for i in range(400))

CORPUS = (
    OfflineDocument(
        url="https://docs.example.org/widgets.html",
        title="widgets — Building widgets",
        body="How to assemble things. " + FILLER,
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.example.org/gadgets.html",
        title="gadgets — Gadget handling",
        body=f"{FILLER} A gadget may hold a widget, and a widget may hold a gadget. {FILLER}",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.example.org/search.html?q=loops",
        title="loops — The for statement",
        body="The for statement iterates over the items of any sequence.",
        kind="topic",
    ),
    OfflineDocument(
        url="https://pypi.org/project/ramenkit/",
        title="ramenkit 1.0 — Noodle recipes",
        body="Recipes for noodle soup: broth, tare and toppings.",
        kind="package",
    ),
)


def run(search: OfflineSearch, query: str, max_results: int = 5) -> SearchResponse:
    return asyncio.run(search.search(query, max_results=max_results))


@pytest.fixture
def corpus_search(tmp_path: Path) -> OfflineSearch:
    return OfflineSearch(tmp_path / "cache", documents=CORPUS)


def test_is_a_search_provider(corpus_search: OfflineSearch) -> None:
    assert isinstance(corpus_search, SearchProvider)
    assert corpus_search.name == "offline"


def test_construction_is_cheap_and_builds_on_first_use(tmp_path: Path) -> None:
    OfflineSearch(tmp_path / "cache", documents=CORPUS)
    assert not (tmp_path / "cache").exists()


def test_hits_carry_urls_titles_snippets_ranks(corpus_search: OfflineSearch) -> None:
    response = run(corpus_search, "widget  widgets")
    assert response.ok and response.provider == "offline" and response.status == 200
    assert response.query == "widget widgets" and response.query_action == "sent"
    assert response.requests == 0
    assert [hit.rank for hit in response.results] == list(range(1, len(response.results) + 1))
    assert {hit.url for hit in response.results} == {
        "https://docs.example.org/widgets.html",
        "https://docs.example.org/gadgets.html",
    }
    for hit in response.results:
        assert hit.provider == "offline"
        assert hit.score is not None and hit.score > 0
        assert hit.title and hit.snippet


def test_title_boost_ranks_a_title_match_first(corpus_search: OfflineSearch) -> None:
    # "widgets" is in one title; the other document says "widget" twice in a long body (the
    # default tokenizer does not stem: "widget" alone finds only the second).
    assert [h.url for h in run(corpus_search, "widget").results] == [
        "https://docs.example.org/gadgets.html"
    ]
    hits = run(corpus_search, "widgets widget").results
    assert hits[0].url == "https://docs.example.org/widgets.html"
    hits = run(corpus_search, "gadget").results
    assert hits[0].url == "https://docs.example.org/gadgets.html"


def test_snippet_is_a_window_around_the_first_matched_term(corpus_search: OfflineSearch) -> None:
    hit = run(corpus_search, "gadget").results[0]
    assert "gadget" in hit.snippet.lower()
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 245


def test_snippet_function() -> None:
    assert snippet("short text", ["text"]) == "short text"
    body = "alpha " * 100 + "needle in the middle " + "omega " * 100
    window = snippet(body, ["needle"])
    assert "needle" in window and window.startswith("…") and window.endswith("…")
    assert "alpha" in window and "omega" in window  # the term is not at the very edge
    assert snippet(body, ["absent"]).startswith("alpha")


@pytest.mark.parametrize("query", ["", "   ", "?!-", "___"])
def test_empty_query_is_refused_as_empty(corpus_search: OfflineSearch, query: str) -> None:
    response = run(corpus_search, query)
    assert response.error is not None and response.error.kind == "empty"
    assert response.query_action == "refused" and response.results == ()


def test_no_hits_is_empty(corpus_search: OfflineSearch) -> None:
    response = run(corpus_search, "xylophone quasar")
    assert response.error is not None and response.error.kind == "empty"
    assert response.status == 200 and response.results == ()


def test_max_results_is_respected(tmp_path: Path) -> None:
    documents = [
        OfflineDocument(f"https://example.org/{i}", f"page {i}", f"common words {i}")
        for i in range(12)
    ]
    search = OfflineSearch(tmp_path, documents=documents)
    assert len(run(search, "common", max_results=3).results) == 3
    assert len(run(search, "common", max_results=0).results) == 1
    assert len(run(search, "common", max_results=100).results) == 12


def test_long_queries_are_shortened(corpus_search: OfflineSearch) -> None:
    response = run(corpus_search, "widget " + "x" * 3000)
    assert response.query_action == "shortened" and response.query == "widget"
    assert response.ok
    many = " ".join(f"w{i}" for i in range(100)) + " gadget"
    assert run(corpus_search, many).query_action == "shortened"


def test_repeated_urls_are_one_hit_and_one_document(tmp_path: Path) -> None:
    url = "https://example.org/shared"
    documents = [
        OfflineDocument(url, "first", "shared topic one"),
        OfflineDocument(url, "second", "shared topic two"),
    ]
    search = OfflineSearch(tmp_path, documents=documents)
    response = run(search, "shared")
    assert len(response.results) == 1 and response.duplicates == 1
    text = search.document(url)
    assert text is not None and "one" in text and "two" in text


def test_document_gives_the_page_text_offline(corpus_search: OfflineSearch) -> None:
    text = corpus_search.document("https://pypi.org/project/ramenkit/")
    assert text is not None
    assert text.startswith("ramenkit 1.0 — Noodle recipes") and "broth" in text
    assert corpus_search.document("https://pypi.org/project/other/") is None


def test_the_offline_reader_reads_pages_from_the_index(corpus_search: OfflineSearch) -> None:
    known, unknown = "https://pypi.org/project/ramenkit/", "https://example.org/nowhere"
    pages = asyncio.run(OfflineReader(corpus_search).read([known, unknown]))
    assert [page.url for page in pages] == [known, unknown]
    assert pages[0].has_text and pages[0].status == 200 and pages[0].error is None
    assert pages[0].title == "ramenkit 1.0 — Noodle recipes" and "broth" in pages[0].text
    assert pages[0].allowed and pages[0].rule == "offline-index"
    assert not pages[1].has_text and pages[1].error == "not in the offline index"


def test_bodies_and_document_count_are_capped(tmp_path: Path) -> None:
    big = OfflineDocument("https://example.org/big", "big", "word " * MAX_BODY_CHARS)
    search = OfflineSearch(tmp_path / "a", documents=[big])
    text = search.document("https://example.org/big")
    assert text is not None and len(text) <= MAX_BODY_CHARS + len("big\n\n")
    many = [OfflineDocument(f"https://example.org/{i}", f"t{i}", "b") for i in range(10)]
    assert OfflineSearch(tmp_path / "b", documents=many, max_documents=3).open().documents == 3


def test_documents_without_an_http_url_are_skipped(tmp_path: Path) -> None:
    documents = [
        OfflineDocument("file:///etc/passwd", "local", "secret"),
        OfflineDocument("https://example.org/ok", "ok", "secret"),
    ]
    stats = OfflineSearch(tmp_path, documents=documents).open()
    assert stats.documents == 1


def test_second_construction_opens_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = OfflineSearch(tmp_path, documents=CORPUS).open()
    assert first.built and first.documents == len(CORPUS) and first.size_bytes > 0
    assert first.build_seconds >= 0

    def no_rebuild(self: OfflineSearch, folder: Path) -> None:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(OfflineSearch, "_write", no_rebuild)
    again = OfflineSearch(tmp_path, documents=CORPUS)
    second = again.open()
    assert not second.built and second.folder == first.folder and second.notes == ()
    assert second.build_seconds == first.build_seconds
    assert run(again, "noodle").results[0].url == "https://pypi.org/project/ramenkit/"


def test_other_documents_get_another_index(tmp_path: Path) -> None:
    first = OfflineSearch(tmp_path, documents=CORPUS).open()
    second = OfflineSearch(tmp_path, documents=CORPUS[:2]).open()
    assert second.built and second.folder != first.folder


def _segment_file(folder: Path) -> Path:
    return max(
        (p for p in folder.iterdir() if p.name.endswith((".idx", ".store", ".term"))),
        key=lambda p: p.stat().st_size,
    )


@pytest.mark.parametrize("damage", ["truncate", "manifest", "missing", "file"])
def test_a_corrupt_cache_is_rebuilt(tmp_path: Path, damage: str) -> None:
    folder = OfflineSearch(tmp_path, documents=CORPUS).open().folder
    gc.collect()  # no mapping of the index may outlive it: truncating a mapped file is SIGBUS
    if damage == "truncate":
        target = _segment_file(folder)
        target.write_bytes(target.read_bytes()[:10])
    elif damage == "manifest":
        (folder / "manifest.json").write_text("{not json", encoding="utf-8")
    elif damage == "missing":
        (folder / "manifest.json").unlink()
    else:
        import shutil

        shutil.rmtree(folder)
        folder.write_text("not a folder", encoding="utf-8")
    search = OfflineSearch(tmp_path, documents=CORPUS)
    stats = search.open()
    assert stats.built and stats.folder == folder
    assert any("rebuilt" in note for note in stats.notes)
    assert run(search, "noodle").ok
    assert not OfflineSearch(tmp_path, documents=CORPUS).open().built


def test_concurrent_builds_all_succeed(tmp_path: Path) -> None:
    barrier = threading.Barrier(4)
    results: list[tuple[Path, int]] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            barrier.wait()
            stats = OfflineSearch(tmp_path, documents=CORPUS).open()
            results.append((stats.folder, stats.documents))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len({folder for folder, _ in results}) == 1
    assert {count for _, count in results} == {len(CORPUS)}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith((".tmp-", ".trash-"))]


def test_one_instance_is_thread_safe(corpus_search: OfflineSearch) -> None:
    async def many() -> list[SearchResponse]:
        return await asyncio.gather(*(corpus_search.search("widget widgets") for _ in range(8)))

    responses = asyncio.run(many())
    assert all(r.ok and len(r.results) == 2 for r in responses)


def test_an_unwritable_cache_falls_back_to_a_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cache, "_resolved", {})
    monkeypatch.setattr(_cache, "writable_problem", lambda folder: "Read-only file system")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    stats = OfflineSearch(tmp_path / "ro", documents=CORPUS).open()
    assert stats.folder.is_relative_to(tmp_path / "tmp")
    assert any("cannot be written" in note for note in stats.notes)


def test_failures_are_values_never_exceptions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    search = OfflineSearch(tmp_path, documents=CORPUS)

    def broken(self: OfflineSearch) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(OfflineSearch, "_open_or_build", broken)
    response = run(search, "widget")
    assert response.error is not None and response.error.kind == "server_error"
    assert "No space left" in response.error.message and response.results == ()
    assert search.document("https://docs.example.org/widgets.html") is None


def test_package_urls_prefer_documentation_then_homepage_then_source() -> None:
    meta = {
        "project_url": ["Source, https://src.example", "Documentation, https://docs.example"],
        "home_page": "https://home.example",
    }
    assert _project_url(meta, "x") == "https://docs.example"
    assert _project_url({**meta, "project_url": ["Source, https://src.example"]}, "x") == (
        "https://home.example"
    )
    assert _project_url({"project_url": ["Repository, https://src.example"]}, "x") == (
        "https://src.example"
    )
    assert _project_url({"project_url": ["Docs, javascript:alert(1)"]}, "my pkg") == (
        "https://pypi.org/project/my%20pkg/"
    )


def test_machine_key_is_stable() -> None:
    assert machine_key() == machine_key()


class _Distribution:
    """Just what the corpus reads of an installed distribution."""

    def __init__(self, name: str) -> None:
        self.metadata = {"Name": name}
        self.version = "1.0"


def test_this_projects_distributions_are_not_documentation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    installed = {normalised_name(d.metadata["Name"]) for d in importlib.metadata.distributions()}
    assert "routescope" in installed  # so the real corpus below is a real check
    titles = [d.title.split()[0].lower() for d in package_documents()]
    assert titles and not set(titles) & PROJECT_DISTRIBUTIONS
    assert not [d for d in package_documents() if "routescope" in d.url.lower()]

    names = ["Routescope", "routescope_gui", "ROUTESCOPE.GUI", "routescopes", "ramenkit"]
    fakes = [_Distribution(name) for name in names]
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: iter(fakes))
    assert [name for name, _, _ in _distributions()] == ["ramenkit", "routescopes"]


def test_caches_that_hold_this_project_are_not_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    current = machine_key()
    monkeypatch.setattr(_corpus, "CORPUS_FORMAT", 1)
    monkeypatch.setattr(_corpus, "PROJECT_DISTRIBUTIONS", frozenset())
    assert machine_key() != current  # the key (so the folder) of the corpus that held it
    monkeypatch.setattr(_corpus, "CORPUS_FORMAT", 2)
    assert machine_key() != current  # leaving the project out changes the key by itself


def test_the_stdlib_is_read_without_importing_it() -> None:
    code = (
        "import sys\n"
        "from routescope.research._corpus import stdlib_documents\n"
        "docs = list(stdlib_documents())\n"
        "assert any(d.url.endswith('/library/asyncio.html') for d in docs)\n"
        "names = ('tkinter', 'idlelib', 'antigravity', 'this', 'turtle', 'webbrowser')\n"
        "print(sorted(n for n in names if n in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.strip() == "[]"


def test_the_machine_index_finds_asyncio_and_little_about_ramen(tmp_path: Path) -> None:
    search = OfflineSearch(tmp_path)
    stats = search.open()
    print(
        f"machine index: {stats.documents} documents, {stats.size_bytes / 1e6:.1f} MB, "
        f"built in {stats.build_seconds:.2f} s"
    )
    assert stats.built and stats.documents > 100

    asyncio_hits = run(search, "asyncio event loop").results
    urls = [hit.url for hit in asyncio_hits[:3]]
    assert "https://docs.python.org/3/library/asyncio.html" in urls
    page = search.document("https://docs.python.org/3/library/asyncio.html")
    assert page is not None and "event loop" in page
    assert asyncio_hits[0].score is not None

    ramen = run(search, "best ramen near Denver")
    best = asyncio_hits[0].score
    # Only a page that literally mentions ramen or Denver may score well; the standard library
    # has nothing to say about either, and this project's README (which quotes the phrase) is
    # not in the index.
    assert not [h for h in ramen.results if h.url == "https://pypi.org/project/routescope/"]
    for hit in ramen.results:
        assert hit.score is not None
        text = (search.document(hit.url) or "").lower()
        if "ramen" not in text and "denver" not in text:
            assert hit.score < best / 3
        if hit.url.startswith("https://docs.python.org/"):
            assert "ramen" not in text and "denver" not in text
    about = [h for h in ramen.results if "ramen" in (search.document(h.url) or "").lower()]
    assert len(about) <= 2
