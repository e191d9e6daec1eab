"""The tool-search cache is untrusted (F8, F9, F10, F25's interrupted build): a corrupt Tantivy
folder or vector file is detected and rebuilt, a folder that cannot be written falls back to a
temporary one and says so, concurrent cold builds all succeed, an interrupted vector build
continues where it stopped. Every ToolSearch here keeps its cache under the test's tmp_path."""

from __future__ import annotations

import gc
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import tantivy

from routescope import CatalogError, EmbedderError, _cache, resources_root
from routescope._index import is_panic
from routescope.toolsearch import (
    Catalog,
    SearchSettings,
    ToolSearch,
    _keyword,
    load_catalog,
)

SAMPLE = Path(str(resources_root() / "catalog"))


class HashEmbedder:
    """Deterministic 8-dimensional unit vectors from a text's hash; counts what it embeds."""

    model_id = "test-hash-8"
    dimension = 8

    def __init__(self, fail_at_call: int | None = None, interrupt: bool = False) -> None:
        self.texts = 0
        self.calls = 0
        self.fail_at_call = fail_at_call
        self.interrupt = interrupt

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_at_call:
            if self.interrupt:
                raise KeyboardInterrupt
            raise EmbedderError("test endpoint went away")
        self.texts += len(texts)
        rows = np.array(
            [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) for t in texts],
            dtype=np.float32,
        )
        rows += 1.0
        normalised: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return normalised.astype(np.float32)


@pytest.fixture(autouse=True)
def _fresh_cache_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache, "_resolved", {})


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog(SAMPLE)


def _vectors_file(folder: Path) -> Path:
    (path,) = folder.glob("vectors-*.npy")
    return path


def _tantivy_folder(folder: Path) -> Path:
    (path,) = folder.glob("tantivy-*")
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# -- the vector file (F9) ------------------------------------------------------------------
def _save(array: np.ndarray, *, pickle: bool = False) -> Callable[[Path, int], object]:
    def corrupt(path: Path, rows: int) -> None:
        path.unlink()
        with open(path, "wb") as stream:
            np.save(stream, array if len(array) else np.ones((rows, 8)), allow_pickle=pickle)

    return corrupt


def _truncate(size: int) -> Callable[[Path, int], object]:
    return lambda path, rows: os.truncate(path, size)


def _replace_with(make: Callable[[Path], object]) -> Callable[[Path, int], object]:
    def corrupt(path: Path, rows: int) -> None:
        path.unlink()
        make(path)

    return corrupt


def _npz(path: Path) -> None:
    with open(path, "wb") as stream:  # a zip archive under the .npy name
        np.savez(stream, a=np.ones(3))


VECTOR_CORRUPTIONS: dict[str, Callable[[Path, int], object]] = {
    "empty": _truncate(0),
    "truncated-header": _truncate(100),
    "truncated-data": _truncate(1_000),
    "trailing-bytes": lambda path, rows: path.write_bytes(path.read_bytes() + bytes(32)),
    "random-bytes": _replace_with(lambda p: p.write_bytes(os.urandom(4_000))),
    "pickled-objects": _save(np.array([{"a": 1}] * 41, dtype=object), pickle=True),
    "float64": _save(np.array([])),
    "wrong-width": lambda path, rows: _save(np.ones((rows, 7), np.float32))(path, rows),
    "fewer-rows": _save(np.ones((3, 8), np.float32)),
    "one-dimensional": _save(np.ones(41 * 8, np.float32)),
    "nan": lambda path, rows: _save(np.full((rows, 8), np.nan, np.float32))(path, rows),
    "inf": lambda path, rows: _save(np.full((rows, 8), np.inf, np.float32))(path, rows),
    "fortran-order": lambda path, rows: _save(np.asfortranarray(np.ones((rows, 8), np.float32)))(
        path, rows
    ),
    "npz-archive": lambda path, rows: _npz(path),
    "a-directory": _replace_with(lambda p: p.mkdir()),
    "a-fifo": _replace_with(lambda p: os.mkfifo(p)),
    "a-link-to-dev-zero": _replace_with(lambda p: p.symlink_to("/dev/zero")),
    "a-dangling-link": _replace_with(lambda p: p.symlink_to(p.with_name("nowhere"))),
}


@pytest.mark.parametrize("corruption", VECTOR_CORRUPTIONS, ids=list(VECTOR_CORRUPTIONS))
def test_a_corrupt_vector_file_is_rebuilt(tmp_path: Path, sample: Catalog, corruption: str) -> None:
    first = ToolSearch(sample, embedder=HashEmbedder(), cache=tmp_path).vector
    assert first is not None and first.built
    expected = np.array(first.matrix)
    VECTOR_CORRUPTIONS[corruption](_vectors_file(tmp_path), len(sample.tools))

    embedder = HashEmbedder()
    search = ToolSearch(sample, embedder=embedder, cache=tmp_path)
    result = search.search("what changed in my repo", SearchSettings(strategy="hybrid"))
    assert search.vector is not None and search.vector.built
    assert np.array_equal(search.vector.matrix, expected)
    assert embedder.texts == len(sample.tools) + 1  # the catalog, then the query
    assert result.semantic == "ready" and result.strategy == "hybrid"
    (note,) = [n for n in search.notes if n.startswith("vector cache")]
    assert note.endswith(": rebuilt") and "\n" not in note
    # the rebuilt file is valid: the next engine reads it
    again = ToolSearch(sample, embedder=HashEmbedder(), cache=tmp_path).vector
    assert again is not None and not again.built
    assert _leftovers(tmp_path) == []


def test_vectors_of_the_wrong_width_for_the_model_are_rebuilt(
    tmp_path: Path, sample: Catalog
) -> None:
    """A same-named cache written by a model of another width (8 here, 384 for MiniLM)."""
    ToolSearch(sample, embedder=HashEmbedder(), cache=tmp_path).ensure_vectors()

    class Wider(HashEmbedder):
        dimension = 16

        def embed(self, texts: list[str]) -> np.ndarray:
            rows = super().embed(texts)
            wide: np.ndarray = np.hstack([rows, rows]) / np.sqrt(2)
            return wide

    search = ToolSearch(sample, embedder=Wider(), cache=tmp_path)
    assert search.vector is not None and search.vector.built and search.vector.width == 16


# -- the Tantivy folder (F8) -----------------------------------------------------------------
def _truncate_kind(suffix: str) -> Callable[[Path], object]:
    def corrupt(folder: Path) -> None:
        (path,) = [p for p in folder.iterdir() if p.name.endswith(suffix)]
        os.truncate(path, 5)

    return corrupt


def _flip_byte(folder: Path) -> None:
    (path,) = folder.glob("*.store")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def _replace_folder(make: Callable[[Path], object]) -> Callable[[Path], object]:
    def corrupt(folder: Path) -> None:
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        make(folder)

    return corrupt


def _link_elsewhere(folder: Path) -> None:
    other = folder.with_name("elsewhere")
    folder.rename(other)
    folder.symlink_to(other)


TANTIVY_CORRUPTIONS: dict[str, Callable[[Path], object]] = {
    **{
        f"truncated-{suffix.strip('.')}": _truncate_kind(suffix)
        for suffix in (".fieldnorm", ".idx", ".term", ".store", ".pos", ".fast", "meta.json")
    },
    "truncated-managed": _truncate_kind(".managed.json"),
    "a-flipped-byte": _flip_byte,
    "no-manifest": lambda folder: (folder / "manifest.json").unlink(),
    "garbage-manifest": lambda folder: (folder / "manifest.json").write_text("{[", "utf-8"),
    "deep-manifest": lambda folder: (folder / "manifest.json").write_text("[" * 50_000, "utf-8"),
    "foreign-manifest": lambda folder: (folder / "manifest.json").write_text(
        json.dumps({"format": 2, "fingerprint": "x", "documents": 1, "files": {}}), "utf-8"
    ),
    "a-file": _replace_folder(lambda p: p.write_text("x", "utf-8")),
    "empty-folder": _replace_folder(lambda p: p.mkdir()),
    "a-fifo": _replace_folder(lambda p: os.mkfifo(p)),
    "a-symlink": _link_elsewhere,
}


@pytest.mark.parametrize("corruption", TANTIVY_CORRUPTIONS, ids=list(TANTIVY_CORRUPTIONS))
def test_a_corrupt_tantivy_folder_is_rebuilt(
    tmp_path: Path, sample: Catalog, corruption: str, capfd: pytest.CaptureFixture[str]
) -> None:
    first = ToolSearch(sample, cache=tmp_path, semantic=False)
    expected = [(h.tool_name, h.score) for h in first.search("git status").results]
    folder = first.keyword.folder
    del first
    gc.collect()  # no mapping of the index may outlive it: truncating a mapped file is SIGBUS
    TANTIVY_CORRUPTIONS[corruption](folder)

    search = ToolSearch(sample, cache=tmp_path, semantic=False)
    assert search.keyword.built and search.keyword.folder == folder
    assert [(h.tool_name, h.score) for h in search.search("git status").results] == expected
    (note,) = search.notes
    assert note.startswith(f"keyword index {folder}: ") and note.endswith(": rebuilt")
    assert "panicked" not in capfd.readouterr().err  # Tantivy never saw the bad files
    assert not ToolSearch(sample, cache=tmp_path, semantic=False).keyword.built
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


class PanicException(BaseException):  # what pyo3 raises for a Rust panic, by name and module
    pass


PanicException.__module__ = "pyo3_runtime"


@pytest.mark.parametrize(
    "failure", [PanicException("assertion failed"), ValueError("An IO error occurred")]
)
def test_a_failing_rebuild_is_one_catalog_error(
    tmp_path: Path, sample: Catalog, monkeypatch: pytest.MonkeyPatch, failure: BaseException
) -> None:
    def fail(self: object, folder: Path) -> None:
        raise failure

    monkeypatch.setattr(_keyword.KeywordIndex, "_write", fail)
    with pytest.raises(CatalogError, match=r"^keyword index cannot be built in ") as caught:
        ToolSearch(sample, cache=tmp_path, semantic=False)
    assert "\n" not in str(caught.value)
    assert [p.name for p in tmp_path.iterdir()] == []  # the temporary folder is gone


def test_other_base_exceptions_are_not_swallowed(
    tmp_path: Path, sample: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(self: object, folder: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_keyword.KeywordIndex, "_write", interrupt)
    with pytest.raises(KeyboardInterrupt):
        ToolSearch(sample, cache=tmp_path, semantic=False)


def test_a_real_rust_panic_in_a_search_is_one_catalog_error(
    tmp_path: Path, sample: Catalog
) -> None:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("a", stored=True)
    try:
        tantivy.Index(builder.build()).searcher().search(tantivy.Query.all_query(), 0)
    except BaseException as exc:  # the genuine pyo3_runtime.PanicException
        panic = exc
    assert is_panic(panic) and not isinstance(panic, Exception)

    search = ToolSearch(sample, cache=tmp_path, semantic=False)

    class Panicking:
        def search(self, *args: object) -> None:
            raise panic

    search.keyword.searcher = Panicking()  # type: ignore[assignment]
    with pytest.raises(CatalogError, match=r"^keyword index .* failed: ") as caught:
        search.search("git status")
    assert "\n" not in str(caught.value)


# -- a cache folder that cannot be written (F10) -----------------------------------------------
def test_a_read_only_cache_folder_falls_back_to_a_temporary_one(
    tmp_path: Path, sample: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    monkeypatch.setattr(
        _cache, "writable_problem", lambda path: "Read-only file system" if path == folder else None
    )
    search = ToolSearch(sample, embedder=HashEmbedder(), cache=folder)
    assert search.cache_status.startswith(f"cache folder {folder} cannot be written (Read-only")
    assert "using the temporary folder" in search.cache_status
    assert search.notes[0] == search.cache_status
    result = search.search("what changed in my repo")
    assert result.results and result.semantic == "ready"
    assert search.keyword.folder.parent == search.cache.write != folder
    assert not folder.exists()


def test_valid_caches_in_a_read_only_folder_are_used(
    tmp_path: Path, sample: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    ToolSearch(sample, embedder=HashEmbedder(), cache=tmp_path).ensure_vectors()
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.setattr(_cache, "_resolved", {})
    monkeypatch.setattr(
        _cache, "writable_problem", lambda path: "Permission denied" if path == tmp_path else None
    )
    embedder = HashEmbedder()
    search = ToolSearch(sample, embedder=embedder, cache=tmp_path)
    assert not search.keyword.built  # a verified copy, not a rebuild
    vector = search.vector
    assert vector is not None and not vector.built and vector.path == _vectors_file(tmp_path)
    assert embedder.texts == 0
    assert search.search("what changed in my repo").semantic == "ready"
    assert search.search("git status").results[0].signals.keyword is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_cache_path_under_a_regular_file_falls_back(tmp_path: Path, sample: Catalog) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    search = ToolSearch(sample, embedder=HashEmbedder(), cache=blocker / "cache")
    assert "cannot be written" in search.cache_status
    assert search.search("what changed in my repo").semantic == "ready"


def test_a_cache_path_that_is_a_regular_file_falls_back(tmp_path: Path, sample: Catalog) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    search = ToolSearch(sample, cache=blocker, semantic=False)
    assert "cannot be written" in search.cache_status and search.search("git").results


# -- concurrent cold builds (F10) ---------------------------------------------------------------
_BUILD = textwrap.dedent(
    """
    import hashlib, json, sys, time
    from pathlib import Path
    import numpy as np
    from routescope.toolsearch import ToolSearch, load_catalog

    class HashEmbedder:
        model_id = "test-hash-8"
        dimension = 8
        def embed(self, texts):
            rows = np.array([np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8)
                             for t in texts], dtype=np.float32) + 1.0
            return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    catalog, cache, go = load_catalog(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    while not go.exists():
        time.sleep(0.005)
    search = ToolSearch(catalog, embedder=HashEmbedder(), cache=cache)
    result = search.search("what changed in my repo")
    print(json.dumps([result.semantic, [(h.tool_name, h.score) for h in result.results]]))
    """
)


@pytest.mark.parametrize("round_number", range(3))
def test_concurrent_cold_builds_all_succeed(tmp_path: Path, round_number: int) -> None:
    cache, go = tmp_path / "cache", tmp_path / "go"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILD, str(SAMPLE), str(cache), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    go.touch()
    outputs = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            for other in processes:
                other.kill()
            raise
        assert process.returncode == 0, err
        outputs.append(json.loads(out))
    assert outputs[0][0] == "ready" and outputs[0][1]
    assert outputs == [outputs[0]] * 3
    names = sorted(p.name for p in cache.iterdir())
    assert len(names) == 2 and names[0].startswith("tantivy-") and names[1].startswith("vectors-")


# -- the first vector build: lazy, with progress, resumable (F25) -----------------------------
@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    path = tmp_path_factory.mktemp("catalog") / "big.json"
    records = [{"tool_name": f"t{i}.run", "description": f"tool {i} alpha"} for i in range(300)]
    path.write_text(json.dumps(records), encoding="utf-8")
    return load_catalog(path)


def test_an_exact_search_never_embeds_the_catalog(tmp_path: Path, big: Catalog) -> None:
    embedder = HashEmbedder()
    search = ToolSearch(big, embedder=embedder, cache=tmp_path)
    exact = search.search("alpha 17", SearchSettings(strategy="exact", k=3))
    named = search.search("run t17.run now")  # auto picks exact: the prompt names a tool
    assert exact.results and named.strategy == "exact"
    assert embedder.calls == 0 and search.vectors_pending
    assert exact.semantic == "ready" and not list(tmp_path.glob("vectors-*"))
    hybrid = search.search("alpha 17")
    assert hybrid.strategy == "hybrid" and embedder.texts == len(big.tools) + 1
    assert not search.vectors_pending


def test_the_first_build_reports_progress(tmp_path: Path, big: Catalog) -> None:
    seen: list[tuple[int, int]] = []
    search = ToolSearch(
        big, embedder=HashEmbedder(), cache=tmp_path, progress=lambda d, t: seen.append((d, t))
    )
    assert seen == []  # nothing happens before a search needs the vectors
    search.ensure_vectors()
    assert seen == [(0, 300), (64, 300), (128, 300), (192, 300), (256, 300), (300, 300)]


@pytest.mark.parametrize("interrupt", [False, True], ids=["endpoint-fails", "ctrl-c"])
def test_an_interrupted_build_continues_where_it_stopped(
    tmp_path: Path, big: Catalog, interrupt: bool
) -> None:
    failing = HashEmbedder(fail_at_call=4, interrupt=interrupt)
    search = ToolSearch(big, embedder=failing, cache=tmp_path)
    if interrupt:
        with pytest.raises(KeyboardInterrupt):
            search.ensure_vectors()
    else:
        assert search.ensure_vectors() is None
        assert search.semantic_status == "unavailable: test endpoint went away"
        assert search.search("alpha 17").strategy == "exact"
    assert failing.texts == 192 and not list(tmp_path.glob("vectors-*.npy"))

    seen: list[tuple[int, int]] = []
    resumed = HashEmbedder()
    vector = ToolSearch(
        big, embedder=resumed, cache=tmp_path, progress=lambda d, t: seen.append((d, t))
    ).vector
    assert vector is not None and vector.built and vector.resumed == 192
    assert resumed.texts == 300 - 192 and seen[0] == (192, 300)
    fresh = ToolSearch(big, embedder=HashEmbedder(), cache=tmp_path / "fresh").vector
    assert fresh is not None and np.array_equal(vector.matrix, fresh.matrix)
    assert _leftovers(tmp_path) == []  # the checkpoint is gone once the build is published


def test_a_corrupt_checkpoint_is_ignored(tmp_path: Path, big: Catalog) -> None:
    ToolSearch(big, embedder=HashEmbedder(fail_at_call=3), cache=tmp_path).ensure_vectors()
    (partial,) = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    partial.write_bytes(b"RSVPART1" + (8).to_bytes(4, "little") + bytes(4) + b"\xff" * 4096)
    embedder = HashEmbedder()
    vector = ToolSearch(big, embedder=embedder, cache=tmp_path).vector
    assert vector is not None and vector.resumed == 0 and embedder.texts == 300
    assert np.isfinite(vector.matrix).all()


# -- batching and query-time BLAS (issue 11 §7) ----------------------------------------------
class _BatchRecorder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed(texts)


def test_batches_hold_texts_of_similar_length_and_rows_keep_catalog_order(
    tmp_path: Path,
) -> None:
    from routescope.toolsearch import Tool
    from routescope.toolsearch._embed import embedding_text

    tools = [Tool(f"t{i}.run", "word " * ((i * 37) % 150), (), (), f"c{i % 5}") for i in range(300)]
    catalog = Catalog(tools=tools, source="lengths")
    embedder = _BatchRecorder()
    search = ToolSearch(catalog, embedder=embedder, cache=tmp_path)
    search.search("run")  # the vectors build on first use
    lengths = [[len(text) for text in batch] for batch in embedder.batches[:-1]]  # not the query
    flat = [n for batch in lengths for n in batch]
    assert len(embedder.batches) > 1 and flat == sorted(flat)
    assert search.vector is not None
    for tool, row in zip(tools, search.vector.matrix, strict=True):
        assert row == pytest.approx(HashEmbedder().embed([embedding_text(tool)])[0])


def test_query_time_products_run_on_one_blas_thread() -> None:
    from threadpoolctl import threadpool_info

    from routescope.toolsearch._vectors import one_blas_thread

    blas = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    assert blas, "numpy's BLAS is found"
    before = [lib["num_threads"] for lib in blas]
    with one_blas_thread():
        assert all(
            lib["num_threads"] == 1 for lib in threadpool_info() if lib["user_api"] == "blas"
        )
    assert [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"] == before
