"""The `python` kind: the function runs in a worker process; its answer is read like an HTTP
one; raising, crashing and hanging are per-prompt results, and the next prompt gets a new
worker. The example router of examples/routers runs as declared there."""

from __future__ import annotations

from pathlib import Path

import pytest

from routescope import RouterError
from routescope.external import load_routers, open_router

pytestmark = pytest.mark.timeout(120)

MODULE = """
import os, time

def route(prompt, today=None, context=None):
    if prompt == "raise":
        raise ValueError("no route for that")
    if prompt == "crash":
        os._exit(3)
    if prompt == "hang":
        time.sleep(60)
    if prompt == "text":
        return "just-a-route"
    if prompt == "junk":
        return [1, 2]
    return {"route": "r-" + prompt, "score": 0.5, "scores": {"r-" + prompt: 0.5, "other": 0.1},
            "signals": ["keyword:x"], "today": today, "user": (context or {}).get("user")}
"""


def _router(tmp_path: Path, function: str = "mine:route", extra: str = "") -> Path:
    (tmp_path / "mine.py").write_text(MODULE)
    declared = tmp_path / "routers.toml"
    declared.write_text(
        f'[routers.p]\nkind = "python"\nfunction = "{function}"\npath = "."\ntimeout_s = 2\n{extra}'
    )
    return declared


def test_answers_failures_and_a_new_worker_after_each(tmp_path: Path) -> None:
    router = open_router(_router(tmp_path), "p")
    try:
        ok = router.route("a")
        assert ok.ok and ok.route == "r-a" and ok.score == 0.5
        assert ok.scores == {"r-a": 0.5, "other": 0.1}
        assert [(s.kind, s.name) for s in ok.signals] == [("keyword", "x")]
        raised = router.route("raise")
        assert raised.error is not None and raised.error.kind == "raised"
        assert "ValueError: no route for that" in raised.error.detail
        crashed = router.route("crash")
        assert crashed.error is not None and crashed.error.kind == "crash"
        assert "exit code 3" in crashed.error.detail
        hung = router.route("hang")
        assert hung.error is not None and hung.error.kind == "timeout"
        assert router.route("text").route == "just-a-route"
        junk = router.route("junk")
        assert junk.error is not None and junk.error.kind == "garbage"
        assert router.route("b").route == "r-b"  # alive after all of it
    finally:
        router.close()


def test_many_prompts_in_order_across_workers(tmp_path: Path) -> None:
    router = open_router(_router(tmp_path, extra="concurrency = 2\n"), "p")
    try:
        decisions = router.route_many([f"x{i}" for i in range(8)])
    finally:
        router.close()
    assert [d.route for d in decisions] == [f"r-x{i}" for i in range(8)]


def test_a_function_that_does_not_import_is_a_declaration_error(tmp_path: Path) -> None:
    with pytest.raises(RouterError, match=r"cannot import mine:nope: AttributeError"):
        open_router(_router(tmp_path, "mine:nope"), "p")
    with pytest.raises(RouterError, match=r"ModuleNotFoundError"):
        open_router(_router(tmp_path, "absent_module:route"), "p")


def test_the_example_routers_file_declares_a_python_router_that_runs() -> None:
    examples = Path(__file__).resolve().parents[3] / "examples" / "routers" / "routers.toml"
    routers = load_routers(examples)
    router = open_router(routers, "keywords")
    try:
        decision = router.route("I was charged twice, please refund")
    finally:
        router.close()
    assert decision.route == "billing"
    assert {s.name for s in decision.signals} >= {"charged", "refund"}
