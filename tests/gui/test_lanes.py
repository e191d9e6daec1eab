"""Worker lanes: work runs off the UI thread, and only the newest job's result is delivered."""

import threading
from concurrent.futures import ThreadPoolExecutor

import routescope
from routescope_gui._lanes import Lane, take_for


def test_only_the_newest_job_is_delivered_on_the_ui_thread(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    lane, gate = Lane(), threading.Event()
    delivered: list[tuple[str, int]] = []
    workers: list[int] = []

    def job(name: str, wait: bool = False) -> str:
        workers.append(threading.get_ident())
        if wait:
            assert gate.wait(10)
        return name

    def deliver(name: str) -> None:
        delivered.append((name, threading.get_ident()))

    lane.submit(lambda: job("first", wait=True), deliver, lambda _: None)
    qtbot.waitUntil(lambda: bool(workers), timeout=10_000)  # the first runs (and waits)
    lane.submit(lambda: job("second"), deliver, lambda _: None)  # waits: replaced by the third
    lane.submit(lambda: job("third"), deliver, lambda _: None)
    assert lane.busy
    gate.set()
    qtbot.waitUntil(lambda: not lane.busy, timeout=10_000)
    assert delivered == [("third", threading.get_ident())]  # the first was stale when done
    assert len(workers) == 2 and threading.get_ident() not in workers


def test_a_lane_given_threads_of_its_own_works_in_them(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    with ThreadPoolExecutor(1, thread_name_prefix="own") as threads:
        lane = Lane(threads)
        delivered: list[str] = []
        lane.submit(lambda: threading.current_thread().name, delivered.append, lambda _: None)
        qtbot.waitUntil(lambda: bool(delivered), timeout=10_000)
    assert delivered[0].startswith("own")


def test_a_cancelled_lane_delivers_nothing_and_errors_are_messages(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    lane = Lane()
    delivered: list[object] = []
    failed: list[str] = []

    def broken() -> None:
        raise routescope.InputError("no such thing")

    lane.submit(lambda: "done", delivered.append, failed.append)
    lane.cancel()
    qtbot.waitUntil(lambda: not lane.busy, timeout=10_000)
    lane.submit(broken, delivered.append, failed.append)
    qtbot.waitUntil(lambda: not lane.busy, timeout=10_000)
    assert delivered == [] and failed == ["no such thing"]


def test_take_for_takes_at_least_one_item() -> None:
    assert take_for(iter(range(5)), 0.0) == [0]
    assert take_for(iter(range(5)), 60.0) == [0, 1, 2, 3, 4]
    assert take_for(iter(()), 1.0) == []
