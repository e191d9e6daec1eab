"""`RouterPool`: the routers of one routers file started once each and shared between threads
(the examples' `keywords`, a Python function in a worker process), one that cannot start
saying why each time it is asked, and nothing started after `close`."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from routescope import RouterError
from routescope.external import ExternalRouter, RouterPool, load_routers

pytestmark = pytest.mark.timeout(60)

EXAMPLE_ROUTERS = Path(__file__).resolve().parents[3] / "examples" / "routers" / "routers.toml"


def test_a_router_asked_from_many_threads_starts_once_and_is_shared() -> None:
    pool = RouterPool(load_routers(EXAMPLE_ROUTERS))
    got: list[ExternalRouter] = []
    lock = threading.Lock()

    def ask() -> None:
        router = pool.get("keywords")
        with lock:
            got.append(router)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(got) == 6 and all(router is got[0] for router in got)
        assert got[0].route("I was charged twice, refund please").route == "billing"
    finally:
        pool.close()


def test_a_router_that_cannot_start_says_why_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROUTELLM_API_KEY", raising=False)
    pool = RouterPool(load_routers(EXAMPLE_ROUTERS))
    with pytest.raises(RouterError, match="ROUTELLM_API_KEY") as first:
        pool.get("routellm")
    monkeypatch.setenv("ROUTELLM_API_KEY", "sk-now-set")  # not tried again until reopened
    with pytest.raises(RouterError) as again:
        pool.get("routellm")
    assert str(again.value) == str(first.value)
    with pytest.raises(RouterError, match="keywords"):  # names what the file declares
        pool.get("nobody")
    pool.close()


def test_nothing_starts_once_the_pool_is_closed() -> None:
    pool = RouterPool(load_routers(EXAMPLE_ROUTERS))
    pool.close()
    with pytest.raises(RouterError, match="closed"):
        pool.get("keywords")
