"""`open_index`, the one routine behind the Tantivy caches: a valid folder is opened, anything
else is rebuilt, builds are published by rename (another builder's complete folder wins), a
folder that cannot be written falls back to a temporary one, and failures are one line. Every
index lives under the test's tmp_path."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tantivy

from routescope import _cache, _index
from routescope._cache import CacheDir
from routescope._index import IndexSpec, OpenIndex, is_panic, open_index

NAME = "words-1"
WORDS = ("alpha", "beta", "gamma")


class BuildError(Exception):
    """The test index's own error type."""


class Counter:
    def __init__(self) -> None:
        self.writes = 0


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("word", stored=True)
    return builder.build()


def make_spec(
    counter: Counter | None = None,
    *,
    key: str = "k1",
    words: tuple[str, ...] = WORDS,
    write: Callable[[tantivy.IndexWriter], int] | None = None,
    check: Callable[[tantivy.Searcher], str | None] | None = None,
) -> IndexSpec:
    def add(writer: tantivy.IndexWriter) -> int:
        if counter is not None:
            counter.writes += 1
        for word in words:
            writer.add_document(tantivy.Document(word=word))
        return len(words)

    return IndexSpec(
        label="test index",
        schema=_schema(),
        identity={"format": 1, "key": key},
        write=write or add,
        error=BuildError,
        check=check,
    )


def here(folder: Path) -> CacheDir:
    return CacheDir(folder, folder)


def stored_words(opened: OpenIndex) -> list[str]:
    hits = opened.searcher.search(tantivy.Query.all_query(), 10).hits
    return sorted(opened.searcher.doc(address)["word"][0] for _, address in hits)


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture(autouse=True)
def _fresh_cache_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache, "_resolved", {})


# -- open when valid, rebuild otherwise ------------------------------------------------------
def test_a_valid_index_is_opened_not_rebuilt(tmp_path: Path) -> None:
    counter = Counter()
    first = open_index(make_spec(counter), here(tmp_path), NAME)
    assert first.built and first.folder == tmp_path / NAME and first.documents == 3
    assert first.notes == [] and first.build_seconds >= 0
    manifest = json.loads((tmp_path / NAME / "manifest.json").read_text("utf-8"))
    assert manifest["format"] == 1 and manifest["key"] == "k1" and manifest["documents"] == 3

    second = open_index(make_spec(counter), here(tmp_path), NAME)
    assert not second.built and second.folder == first.folder and counter.writes == 1
    assert second.build_seconds == manifest["build_seconds"] and second.notes == []
    assert stored_words(second) == sorted(WORDS)


CORRUPTIONS: dict[str, Callable[[Path], object]] = {
    "garbage-manifest": lambda f: (f / "manifest.json").write_text("{[", "utf-8"),
    "deep-manifest": lambda f: (f / "manifest.json").write_text("[" * 50_000, "utf-8"),
    "no-manifest": lambda f: (f / "manifest.json").unlink(),
    "a-list-manifest": lambda f: (f / "manifest.json").write_text("[]", "utf-8"),
    "negative-count": lambda f: _edit_manifest(f, documents=-1),
    "no-files": lambda f: _edit_manifest(f, files={}),
    "another-key": lambda f: _edit_manifest(f, key="k0"),
    "an-altered-file": lambda f: (f / "meta.json").write_bytes(b"{}"),
}


def _edit_manifest(folder: Path, **changes: object) -> None:
    path = folder / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text("utf-8")), **changes}), "utf-8")


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=list(CORRUPTIONS))
def test_a_corrupt_index_is_rebuilt_with_a_note(tmp_path: Path, corruption: str) -> None:
    folder = open_index(make_spec(), here(tmp_path), NAME).folder
    CORRUPTIONS[corruption](folder)
    counter = Counter()
    rebuilt = open_index(make_spec(counter), here(tmp_path), NAME)
    assert rebuilt.built and counter.writes == 1 and rebuilt.folder == folder
    (note,) = rebuilt.notes
    assert note.startswith(f"test index {folder}: ") and note.endswith(": rebuilt")
    assert "\n" not in note and stored_words(rebuilt) == sorted(WORDS)
    assert not open_index(make_spec(), here(tmp_path), NAME).built
    assert hidden(tmp_path) == []


def test_a_file_in_place_of_the_folder_is_replaced(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text("not an index", "utf-8")
    rebuilt = open_index(make_spec(), here(tmp_path), NAME)
    assert rebuilt.built and rebuilt.notes == [
        f"test index {tmp_path / NAME}: not a folder: rebuilt"
    ]


def test_a_failed_check_rebuilds(tmp_path: Path) -> None:
    open_index(make_spec(words=("x",)), here(tmp_path), NAME)  # same identity, other words

    def only_alpha(searcher: tantivy.Searcher) -> str | None:
        hits = searcher.search(tantivy.Query.all_query(), 10).hits
        words = {searcher.doc(address)["word"][0] for _, address in hits}
        return None if "alpha" in words else "not the words wanted"

    rebuilt = open_index(make_spec(check=only_alpha), here(tmp_path), NAME)
    assert rebuilt.built and rebuilt.notes[0].endswith(": not the words wanted: rebuilt")


def test_an_index_that_fails_its_check_after_a_build_is_an_error(tmp_path: Path) -> None:
    spec = make_spec(check=lambda searcher: "never right")
    with pytest.raises(BuildError, match=r"^test index .* cannot be used after a build: never"):
        open_index(spec, here(tmp_path), NAME)


# -- publishing by rename ------------------------------------------------------------------
def test_a_build_is_written_beside_its_name_and_renamed_into_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    renames: list[tuple[Path, Path, bool]] = []
    publish = _cache.publish_folder

    def recorded(temporary: Path, final: Path) -> bool:
        complete = (temporary / "manifest.json").is_file()
        renames.append((temporary, final, complete))
        return publish(temporary, final)

    monkeypatch.setattr(_index, "publish_folder", recorded)
    opened = open_index(make_spec(), here(tmp_path), NAME)
    ((temporary, final, complete),) = renames
    assert final == opened.folder == tmp_path / NAME and complete  # the manifest came first
    assert temporary.parent == tmp_path and temporary.name.startswith(f".tmp-{NAME}-")
    assert not temporary.exists() and hidden(tmp_path) == []


def test_when_another_builder_publishes_first_its_index_is_used(tmp_path: Path) -> None:
    other = Counter()

    def write_while_another_publishes(writer: tantivy.IndexWriter) -> int:
        open_index(make_spec(other), here(tmp_path), NAME)  # wins the race
        writer.add_document(tantivy.Document(word="ours"))
        return 1

    opened = open_index(make_spec(write=write_while_another_publishes), here(tmp_path), NAME)
    assert other.writes == 1 and opened.folder == tmp_path / NAME
    assert stored_words(opened) == sorted(WORDS) and opened.built
    assert hidden(tmp_path) == []


def test_something_invalid_in_the_way_is_replaced_by_ours(tmp_path: Path) -> None:
    def write_after_a_file_appears(writer: tantivy.IndexWriter) -> int:
        (tmp_path / NAME).write_text("in the way", "utf-8")
        writer.add_document(tantivy.Document(word="ours"))
        return 1

    opened = open_index(make_spec(write=write_after_a_file_appears), here(tmp_path), NAME)
    assert opened.folder == tmp_path / NAME and stored_words(opened) == ["ours"]
    assert hidden(tmp_path) == []


def test_parallel_cold_builds_all_succeed(tmp_path: Path) -> None:
    barrier = threading.Barrier(4)

    def build(_: int) -> OpenIndex:
        barrier.wait()  # so that they really race
        return open_index(make_spec(), here(tmp_path), NAME)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(build, range(4)))
    assert {opened.folder for opened in results} == {tmp_path / NAME}
    assert all(stored_words(opened) == sorted(WORDS) for opened in results)
    assert [p.name for p in tmp_path.iterdir()] == [NAME]


# -- a cache folder that cannot be written -------------------------------------------------
def test_an_unwritable_cache_folder_falls_back_to_a_temporary_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    monkeypatch.setattr(
        _cache, "writable_problem", lambda path: "Read-only file system" if path == folder else None
    )
    places = _cache.cache_dir(folder)
    assert places.note is not None and "cannot be written" in places.note
    opened = open_index(make_spec(), places, NAME)
    assert opened.built and opened.folder == places.write / NAME != folder / NAME
    assert not folder.exists()


def test_a_valid_index_in_a_read_only_folder_is_copied_in(tmp_path: Path) -> None:
    readonly, temporary = tmp_path / "ro", tmp_path / "tmp"
    open_index(make_spec(), here(readonly), NAME)
    before = sorted(p.name for p in (readonly / NAME).iterdir())
    counter = Counter()
    opened = open_index(make_spec(counter), CacheDir(readonly, temporary, "read-only"), NAME)
    assert not opened.built and counter.writes == 0 and opened.notes == []
    assert opened.folder == temporary / NAME and stored_words(opened) == sorted(WORDS)
    assert sorted(p.name for p in (readonly / NAME).iterdir()) == before


def test_a_corrupt_index_in_a_read_only_folder_is_rebuilt_in_the_written_one(
    tmp_path: Path,
) -> None:
    readonly, temporary = tmp_path / "ro", tmp_path / "tmp"
    source = open_index(make_spec(), here(readonly), NAME).folder
    (source / "manifest.json").write_text("{[", "utf-8")
    opened = open_index(make_spec(), CacheDir(readonly, temporary, "read-only"), NAME)
    assert opened.built and opened.folder == temporary / NAME
    assert opened.notes == [f"test index {source}: its manifest is not valid JSON: rebuilt"]
    assert (source / "manifest.json").read_text("utf-8") == "{["  # left alone


# -- failures --------------------------------------------------------------------------------
class PanicException(BaseException):  # what pyo3 raises for a Rust panic, by name and module
    pass


PanicException.__module__ = "pyo3_runtime"


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (ValueError("An IO error\noccurred"), ": An IO error occurred"),
        (OSError(28, "No space left on device"), "No space left on device"),
        (PanicException("assertion failed"), ": Tantivy failed: assertion failed"),
    ],
)
def test_a_failed_build_is_one_line_and_leaves_nothing(
    tmp_path: Path, failure: BaseException, said: str
) -> None:
    def fail(writer: tantivy.IndexWriter) -> int:
        raise failure

    with pytest.raises(BuildError) as caught:
        open_index(make_spec(write=fail), here(tmp_path), NAME)
    message = str(caught.value)
    assert message.startswith(f"test index cannot be built in {tmp_path}: ")
    assert said in message and "\n" not in message
    assert list(tmp_path.iterdir()) == []


def test_a_lock_file_tantivy_creates_late_does_not_keep_a_failed_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's reader reloads once on a thread of its own, creating `.tantivy-meta.lock` by
    the folder's path: under load, while a failed build's folder was being removed, which then
    stayed behind (a stray `.tmp-words-1-…` seen by a fresh-clone run). Here that file is created
    at the worst moment, just before the folder itself goes: it finds no folder at that path.
    The writer's threads are joined before anything is removed."""
    building: list[Path] = []
    sibling = _index.temporary_sibling

    def recorded(final: Path, *, folder: bool) -> Path:
        building.append(sibling(final, folder=folder))
        return building[-1]

    writers: list[tantivy.IndexWriter] = []

    def fail(writer: tantivy.IndexWriter) -> int:
        writers.append(writer)
        raise OSError(28, "No space left on device")

    rmdir = os.rmdir

    def late_lock_then_rmdir(path: str, *args: object, **kwargs: object) -> None:
        with contextlib.suppress(FileNotFoundError):
            (building[0] / ".tantivy-meta.lock").touch()
        rmdir(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_index, "temporary_sibling", recorded)
    monkeypatch.setattr(os, "rmdir", late_lock_then_rmdir)
    with pytest.raises(BuildError, match="No space left on device"):
        open_index(make_spec(write=fail), here(tmp_path), NAME)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError, match="consumed"):  # stopped, not left to the collector
        writers[0].commit()


def test_other_base_exceptions_are_not_swallowed(tmp_path: Path) -> None:
    def interrupt(writer: tantivy.IndexWriter) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        open_index(make_spec(write=interrupt), here(tmp_path), NAME)
    assert list(tmp_path.iterdir()) == []


def test_a_real_rust_panic_is_recognised() -> None:
    try:
        tantivy.Index(_schema()).searcher().search(tantivy.Query.all_query(), 0)
    except BaseException as exc:  # the genuine pyo3_runtime.PanicException
        panic = exc
    assert is_panic(panic) and not isinstance(panic, Exception)
    assert not is_panic(BaseException("x")) and is_panic(PanicException("x"))
    assert not is_panic(ValueError("x"))
