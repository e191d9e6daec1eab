"""The vector search (`routescope.toolsearch._vectors`): the int8 scan with an exact rescore finds
exactly the shortlist of the float32 search, reads any tool's cosine exactly, and steps aside
(exact float32) for small catalogs, without NumKong, or when its kernel misbehaves."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routescope import _cache
from routescope.toolsearch import (
    Catalog,
    Fusion,
    SearchSettings,
    Tool,
    ToolSearch,
    _int8_scan,
    why_not,
)
from routescope.toolsearch._int8_scan import _Int8Scan
from routescope.toolsearch._vector_scores import cosine_scores
from routescope.toolsearch._vectors import QUANTISED_FROM, VectorIndex, VectorScores
from tests.core.toolsearch.test_cache import VECTOR_CORRUPTIONS, HashEmbedder

pytest.importorskip("numkong")


class _Named:
    model_id = "test-vectors"

    def embed(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the vectors are given")


def _unit(rows: np.ndarray) -> np.ndarray:
    normalised: np.ndarray = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return normalised.astype(np.float32)


def _int8(matrix: np.ndarray) -> VectorIndex:
    index = VectorIndex.from_matrix(matrix, _Named(), quantised_from=0)
    assert index.quantised, index.notes
    return index


def _exact(matrix: np.ndarray) -> VectorIndex:
    index = VectorIndex.from_matrix(matrix, _Named(), quantised_from=None)
    assert not index.quantised
    return index


def _reference(index: VectorIndex, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """The `limit` best of every cosine computed as the int8 search rescores (row by row):
    what it must return, to the bit."""
    values = cosine_scores(index.matrix, query.astype(np.float32))
    order = sorted(range(len(values)), key=lambda i: (-float(values[i]), i))[:limit]
    return [(i, float(values[i])) for i in order]


def _clustered(rng: np.random.Generator, count: int, width: int) -> np.ndarray:
    """Vectors around a few directions, with a shared component, as sentence embeddings are."""
    centres = rng.standard_normal((8, width))
    rows = centres[rng.integers(0, 8, count)] + 0.4 * rng.standard_normal((count, width))
    return _unit(rows + 1.5 * rng.standard_normal(width))


DATA: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "random-384": lambda rng: _unit(rng.standard_normal((3_000, 384))),
    "clustered-384": lambda rng: _clustered(rng, 3_000, 384),
    "clustered-8": lambda rng: _clustered(rng, 2_000, 8),
    "duplicates": lambda rng: np.repeat(_unit(rng.standard_normal((300, 64))), 7, axis=0),
    "one-hot": lambda rng: np.eye(200, 200, dtype=np.float32)[rng.integers(0, 200, 1_500)],
}


# -- the shortlist is the exact one -----------------------------------------------------------
@pytest.mark.parametrize("data", DATA, ids=list(DATA))
@pytest.mark.parametrize("limit", [1, 20, 50, 400])
def test_the_int8_search_returns_the_exact_shortlist(data: str, limit: int) -> None:
    rng = np.random.default_rng(17)
    matrix = DATA[data](rng)
    int8, exact = _int8(matrix), _exact(matrix)
    queries = [*_unit(rng.standard_normal((12, matrix.shape[1]))), matrix[5], -matrix[9]]
    for query in queries:
        found = int8.query(query, limit)
        assert found.hits == _reference(int8, query, limit)
        assert not found.exact and found.rescored >= limit
        expected = exact.query(query, limit).hits  # BLAS adds in another order: last bits
        assert np.allclose([v for _, v in found.hits], [v for _, v in expected], atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 400),
    width=st.integers(1, 48),
    limit=st.integers(1, 60),
    spread=st.sampled_from([1e-3, 1.0, 30.0]),
    zero_rows=st.booleans(),
)
def test_the_bound_holds_for_any_vectors(
    seed: int, count: int, width: int, limit: int, spread: float, zero_rows: bool
) -> None:
    """Unnormalised rows and queries of any scale, rows of zeros: every estimate is within
    `bound` of the exact cosine, and the shortlist is the exact one."""
    rng = np.random.default_rng(seed)
    matrix = (rng.standard_normal((count, width)) * spread).astype(np.float32)
    if zero_rows:
        matrix[rng.integers(0, count, max(1, count // 4))] = 0.0
    index = VectorIndex.__new__(VectorIndex)  # the rows as they are: no normalisation
    index.embedder, index.built, index.resumed = _Named(), False, 0
    index.notes, index.path = [], None
    index.quantised_from = 0
    index.matrix = matrix
    assert index.quantised
    query = (rng.standard_normal(width) * rng.choice([1e-3, 1.0, 30.0])).astype(np.float32)
    scan = index._scan
    assert scan is not None
    estimated = scan.estimate(query)
    assert estimated is not None
    values, bound = estimated
    exact = cosine_scores(index.matrix, query)
    assert np.all(np.abs(values.astype(np.float64) - exact) <= bound)
    assert index.query(query, limit).hits == _reference(index, query, limit)


# -- any tool's cosine, exactly --------------------------------------------------------------
def test_every_cosine_read_is_exact_and_kept() -> None:
    rng = np.random.default_rng(3)
    matrix = _clustered(rng, 2_500, 96)
    int8 = _int8(matrix)
    query = _unit(rng.standard_normal(96))
    exact = cosine_scores(int8.matrix, query)
    scores = int8.query(query, 20)
    assert len(scores) == 2_500 and 0 < scores.bound < 0.05
    before = scores.rescored
    assert scores[1_234] == float(exact[1_234]) and scores.rescored == before + 1
    assert scores[-1] == float(exact[-1])
    picked = [7, 1_234, 2_000, 7]
    assert np.array_equal(scores[picked], exact[picked])
    assert np.array_equal(scores[np.array(picked)], exact[picked])
    with pytest.raises(IndexError):
        scores[2_500]
    # `>` compares with the estimates beyond the rescored tools: a rank counted with it is
    # exact among them, close beyond; `rank` is exact for every tool
    for index, _ in scores.hits:
        assert int(np.count_nonzero(scores > scores[index])) == np.count_nonzero(
            exact > exact[index]
        )
    for index in range(0, 2_500, 97):
        counted = int(np.count_nonzero(scores > scores[index]))
        assert abs(counted - int(np.count_nonzero(exact > exact[index]))) <= 50
        assert scores.rank(index) == int(np.count_nonzero(exact > exact[index])) + 1
    assert np.array_equal(np.asarray(scores), exact) and scores.exact and scores.bound == 0.0
    assert np.array_equal(scores > 0.1, exact > 0.1)
    assert scores.rank(5) == int(np.count_nonzero(exact > exact[5])) + 1


def test_similarities_give_each_tool_the_cosine_the_search_gives() -> None:
    rng = np.random.default_rng(4)
    int8 = _int8(_clustered(rng, 1_000, 32))
    query = _unit(rng.standard_normal(32))
    everything = int8.similarities(query)
    for index, cosine in int8.query(query, 30).hits:
        assert everything[index] == np.float32(cosine)
    assert int8.search(query, 30) == int8.query(query, 30).hits


# -- small catalogs, no NumKong, a broken kernel: the exact float32 search -------------------
def test_small_catalogs_keep_the_exact_float32_search() -> None:
    rng = np.random.default_rng(5)
    matrix = _unit(rng.standard_normal((QUANTISED_FROM - 1, 24)))
    index = VectorIndex.from_matrix(matrix, _Named())
    assert not index.quantised and index.matrix.flags.f_contiguous and index.notes == []
    query = _unit(rng.standard_normal(24))
    scores = index.query(query, 20)
    products = index.matrix @ query
    assert scores.exact and scores.rescored == len(matrix) and scores.bound == 0.0
    assert np.array_equal(np.asarray(scores), products)
    top = np.argsort(-products, kind="stable")[:20]
    assert scores.hits == [(int(i), float(products[i])) for i in top]
    assert index.search(query, 20, products) == scores.hits
    big = VectorIndex.from_matrix(_unit(rng.standard_normal((QUANTISED_FROM, 24))), _Named())
    assert big.quantised and big.matrix.flags.c_contiguous
    assert big.nbytes >= big.matrix.nbytes + QUANTISED_FROM * (24 + 4)


def test_without_numkong_the_search_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numkong", None)  # `import numkong` raises ImportError
    rng = np.random.default_rng(6)
    matrix = _unit(rng.standard_normal((500, 16)))
    index = VectorIndex.from_matrix(matrix, _Named(), quantised_from=0)
    assert not index.quantised
    assert index.notes == ["exact vector search over 500 tools: NumKong is not installed"]
    query = _unit(rng.standard_normal(16))
    assert index.query(query, 10).hits == _exact(matrix).query(query, 10).hits


class _Kernels:
    """NumKong with its products replaced."""

    def __init__(self, products: Callable[..., object]) -> None:
        import numkong

        self._real = numkong
        self.dots_packed = products

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


def test_a_kernel_that_fails_its_self_test_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import numkong

    def wrong(a: np.ndarray, b: numkong.PackedMatrix) -> np.ndarray:
        products: np.ndarray = np.asarray(numkong.dots_packed(a, b)).copy()
        products[0, -1] += 1
        return products

    monkeypatch.setitem(sys.modules, "numkong", _Kernels(wrong))
    rows = np.eye(40, 8, dtype=np.float32) + 0.1
    index = VectorIndex.from_matrix(rows, _Named(), quantised_from=0)
    assert not index.quantised
    assert index.notes == [
        "exact vector search over 40 tools: NumKong's int8 products differ from numpy's on "
        "this processor"
    ]


def test_a_kernel_failing_at_query_time_leaves_the_exact_search() -> None:
    rng = np.random.default_rng(7)
    matrix = _unit(rng.standard_normal((800, 32)))
    index = _int8(matrix)
    scan = index._scan
    assert scan is not None

    def broken(a: object, b: object) -> np.ndarray:
        raise RuntimeError("kernel\nexploded")

    scan._kernels = _Kernels(broken)
    query = _unit(rng.standard_normal(32))
    scores = index.query(query, 15)
    assert scores.exact and scores.hits == _exact(matrix).query(query, 15).hits
    assert not index.quantised and index.matrix.flags.f_contiguous
    assert index.notes == [
        "exact vector search from now on: NumKong failed: RuntimeError: kernel exploded"
    ]


def test_a_query_of_zeros_is_searched_exactly() -> None:
    index = _int8(_unit(np.random.default_rng(8).standard_normal((300, 12))))
    scores = index.query(np.zeros(12, dtype=np.float32), 5)
    assert scores.exact and [v for _, v in scores.hits] == [0.0] * 5
    assert index.quantised  # one query that cannot be scaled leaves the scan in place


def test_limits_of_zero_and_beyond_the_catalog() -> None:
    rng = np.random.default_rng(9)
    index = _int8(_unit(rng.standard_normal((60, 10))))
    query = _unit(rng.standard_normal(10))
    assert index.query(query, 0).hits == []
    assert index.query(query, 500).hits == _reference(index, query, 60)


def test_the_scan_is_built_from_rows_in_blocks() -> None:
    rng = np.random.default_rng(10)
    matrix = _unit(rng.standard_normal((2 * _int8_scan._QUANTISE_BLOCK + 5, 6)))
    scan = _Int8Scan.build(matrix)
    assert isinstance(scan, _Int8Scan)
    query = _unit(rng.standard_normal(6))
    estimated = scan.estimate(query)
    assert estimated is not None
    values, bound = estimated
    assert np.all(np.abs(values - matrix @ query) <= bound) and bound < 0.05


# -- the engine ------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _fresh_cache_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_cache, "_resolved", {})


def _catalog(count: int) -> Catalog:
    words = ["git", "docker", "mail", "files", "weather", "notes", "deploy", "logs", "maps"]
    tools = [
        Tool(
            f"{words[i % 9]}{i}.run",
            f"{words[i % 9]} {words[(i * 7) % 9]} tool number {i}",
            (words[(i * 5) % 9],),
            (f"use {words[(i * 3) % 9]}",),
            words[i % 9],
        )
        for i in range(count)
    ]
    return Catalog(tools=tools, source=f"vectors-{count}")


@pytest.mark.parametrize("fusion", ["weighted", "canonical"])
def test_a_search_over_int8_codes_ranks_as_over_float32(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fusion: Fusion
) -> None:
    catalog = _catalog(700)
    found: dict[int | None, list[list[tuple[str, float, float | None]]]] = {}
    for threshold in (None, 0):
        monkeypatch.setattr(VectorIndex, "quantised_from", threshold)
        search = ToolSearch(catalog, embedder=HashEmbedder(), cache=tmp_path / str(threshold))
        assert search.vector is not None and search.vector.quantised is (threshold == 0)
        results = []
        for query in ("deploy the docker logs", "weather maps", "git notes number 12"):
            result = search.search(query, SearchSettings(fusion=fusion, k=15))
            assert result.strategy == "hybrid"
            results.append(
                [
                    (
                        hit.tool_name,
                        hit.score,
                        None if hit.signals.vector is None else hit.signals.vector.similarity,
                    )
                    for hit in result.results
                ]
            )
        found[threshold] = results
    for int8, exact in zip(found[0], found[None], strict=True):
        assert [name for name, _, _ in int8] == [name for name, _, _ in exact]
        assert np.allclose([score for _, score, _ in int8], [score for _, score, _ in exact])
        cosines = [(a, b) for (_, _, a), (_, _, b) in zip(int8, exact, strict=True)]
        assert all((a is None) == (b is None) for a, b in cosines)
        assert np.allclose(
            [a for a, _ in cosines if a is not None], [b for _, b in cosines if b is not None]
        )


@pytest.mark.parametrize("corruption", VECTOR_CORRUPTIONS, ids=list(VECTOR_CORRUPTIONS))
def test_the_int8_codes_come_from_the_validated_vector_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corruption: str
) -> None:
    """No second file: the codes are made from the float32 vectors once they are validated,
    so a corrupt vector file is rebuilt as before and the int8 search is right after it."""
    monkeypatch.setattr(VectorIndex, "quantised_from", 0)
    catalog = _catalog(150)
    first = ToolSearch(catalog, embedder=HashEmbedder(), cache=tmp_path).vector
    assert first is not None and first.quantised
    expected = first.query(first.matrix[3], 10).hits
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["tantivy", "vectors"]
    (path,) = tmp_path.glob("vectors-*.npy")
    VECTOR_CORRUPTIONS[corruption](path, len(catalog.tools))

    search = ToolSearch(catalog, embedder=HashEmbedder(), cache=tmp_path)
    vector = search.vector
    assert vector is not None and vector.built and vector.quantised
    assert vector.query(vector.matrix[3], 10).hits == expected
    (note,) = [n for n in search.notes if n.startswith("vector cache")]
    assert note.endswith(": rebuilt")
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["tantivy", "vectors"]


def test_vector_scores_are_public() -> None:
    scores = VectorScores(np.array([0.5, 0.25], dtype=np.float32), [(0, 0.5)])
    assert scores.exact and scores[1] == 0.25 and scores.rank(1) == 2 and scores.hits == [(0, 0.5)]


def test_why_not_reads_the_cosines_the_search_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(VectorIndex, "quantised_from", 0)
    search = ToolSearch(_catalog(700), embedder=HashEmbedder(), cache=tmp_path)
    query = "deploy the docker logs"
    vector = search.embed_query(query)
    assert vector is not None and search.vector is not None and search.vector.quantised
    result = search.search(query, SearchSettings(k=5), query_vector=vector)
    exact = search.vector.similarities(vector)
    for hit in result.results:
        report = why_not(search, query, hit.tool_name, SearchSettings(k=5), vector)
        assert hit.signals.vector is not None and report.similarity == hit.signals.vector.similarity
        index = search.index_of(hit.tool_name)
        assert index is not None and report.similarity == float(exact[index])
        assert report.vector_rank == int(np.count_nonzero(exact > exact[index])) + 1
        assert report.final_rank == hit.rank
