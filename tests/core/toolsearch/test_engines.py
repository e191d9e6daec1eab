"""`Engines`: one tool-search engine per catalog, kept by digest, checked on load."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from routescope import CatalogRef
from routescope.toolsearch import CatalogError, Engines, ToolSearch, _search, load_catalog


def _catalog(folder: Path, name: str, *tools: str) -> Path:
    """A small JSON catalog of `tools` (names), written to `folder / name`."""
    path = folder / name
    records = [{"tool_name": tool, "description": f"does {tool}"} for tool in tools]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.fixture
def engines(tmp_path: Path) -> Engines:
    return Engines(2, cache=tmp_path / "cache")


def test_the_same_catalog_gets_the_same_engine(tmp_path: Path, engines: Engines) -> None:
    ref = CatalogRef.from_path(_catalog(tmp_path, "tools.json", "git.status", "git.log"))
    assert engines.cached(ref) is None  # never loads
    engine = engines.get(ref)
    assert isinstance(engine, ToolSearch)
    assert engine.catalog.fingerprint == ref.digest and engine.catalog.source == ref.path
    assert engines.get(ref) is engine
    assert engines.get(CatalogRef.from_path(ref.path)) is engine  # an equal reference
    assert engines.cached(ref) is engine
    assert engine.cache.folder == tmp_path / "cache"


def test_a_loaded_catalog_shares_the_engine_of_its_reference(
    tmp_path: Path, engines: Engines
) -> None:
    path = _catalog(tmp_path, "tools.json", "git.status", "git.log")
    catalog = load_catalog(path.resolve())
    engine = engines.of(catalog)
    assert engine.catalog is catalog  # built on the catalog given: not read again
    assert engines.of(load_catalog(path.resolve())) is engine
    assert engines.get(CatalogRef.of(catalog)) is engine


def test_another_digest_gets_another_engine(tmp_path: Path, engines: Engines) -> None:
    first = CatalogRef.from_path(_catalog(tmp_path, "a.json", "git.status"))
    second = CatalogRef.from_path(_catalog(tmp_path, "b.json", "files.find"))
    assert first.digest != second.digest
    engine = engines.get(first)
    other = engines.get(second)
    assert other is not engine
    assert [t.tool_name for t in other.catalog.tools] == ["files.find"]
    # The same tools in another file: an engine of its own, whose catalog names that file
    # (what the window shows of it: its name, format and skipped entries).
    copy = CatalogRef.from_path(_catalog(tmp_path, "copy.json", "git.status"))
    assert copy.digest == first.digest
    assert engines.get(copy).catalog.source == copy.path != first.path


def test_a_catalog_changed_since_its_reference_is_a_clear_error(
    tmp_path: Path, engines: Engines
) -> None:
    path = _catalog(tmp_path, "tools.json", "git.status")
    ref = CatalogRef.from_path(path)
    _catalog(tmp_path, "tools.json", "git.status", "git.push")  # edited after the reference
    with pytest.raises(CatalogError) as raised:
        engines.get(ref)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{ref.path}: the catalog changed since it was opened")
    assert ref.digest in message and message.endswith("open it again")
    assert len(engines) == 0 and engines.cached(ref) is None
    again = CatalogRef.from_path(path)  # opened again: the new tools
    assert [t.tool_name for t in engines.get(again).catalog.tools] == ["git.status", "git.push"]


def test_a_catalog_gone_is_a_catalog_error(tmp_path: Path, engines: Engines) -> None:
    path = _catalog(tmp_path, "tools.json", "git.status")
    ref = CatalogRef.from_path(path)
    path.unlink()
    with pytest.raises(CatalogError, match="no such catalog"):
        engines.get(ref)


def test_the_least_recently_used_engine_goes_first(tmp_path: Path, engines: Engines) -> None:
    refs = [
        CatalogRef.from_path(_catalog(tmp_path, f"{name}.json", f"{name}.tool"))
        for name in ("a", "b", "c")
    ]
    a, b, c = refs
    engine_a = engines.get(a)
    engines.get(b)
    assert engines.get(a) is engine_a  # a is now the most recently used
    engines.get(c)  # a cache of two: b goes
    assert len(engines) == 2
    assert engines.cached(b) is None
    assert engines.cached(a) is engine_a and engines.cached(c) is not None
    assert engines.get(b) is not None and engines.cached(a) is None  # a goes next
    engines.clear()
    assert len(engines) == 0


def test_a_cache_keeps_at_least_one_engine() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Engines(0)


def test_threads_asking_at_once_share_one_build(
    tmp_path: Path, engines: Engines, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []

    class Slow(ToolSearch):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            built.append(threading.current_thread().name)
            time.sleep(0.2)  # long enough for every thread to ask while it builds
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_search, "ToolSearch", Slow)
    ref = CatalogRef.from_path(_catalog(tmp_path, "tools.json", "git.status"))
    other = CatalogRef.from_path(_catalog(tmp_path, "other.json", "files.find"))
    start = threading.Barrier(6)
    found: list[ToolSearch] = []
    lock = threading.Lock()

    def ask(wanted: CatalogRef) -> None:
        start.wait()
        engine = engines.get(wanted)
        with lock:
            found.append(engine)

    threads = [threading.Thread(target=ask, args=(ref,)) for _ in range(5)]
    threads.append(threading.Thread(target=ask, args=(other,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(found) == 6 and len(built) == 2  # one build per catalog
    assert len({id(engine) for engine in found}) == 2
    assert engines.cached(ref) in found and engines.cached(other) in found


def test_the_shared_instance_is_one_per_process() -> None:
    assert Engines.shared() is Engines.shared()
    assert Engines.shared().cache is None  # the user's cache folder
