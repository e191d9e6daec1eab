"""The external routers model against real routers: a loopback server shaped like vLLM
Semantic Router, a slow one, failing ones, a Python function in a worker process and the
semantic-router example file with the shipped model. The latest prompt wins; a failure is that
router's result, never a stall of the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.research._loopback import Reply, Request, json_reply, serving
from tests.gui._routers import (
    EXAMPLE_ROUTERS,
    ONLY_OFFLINE,
    Gate,
    http_router,
    routers_file,
    vsr_preview,
)
from tests.gui._support import record

pytestmark = pytest.mark.timeout(120)


def _opened(qtbot, session, path: Path, unticked: list[str] | None = None) -> None:  # type: ignore[no-untyped-def]
    model = session.routers
    with qtbot.waitSignal(model.chosen_changed, timeout=10_000):
        model.open_file(path, unticked or [])
    model.set_enabled(True)


def _decided_all(qtbot, model, text: str) -> None:  # type: ignore[no-untyped-def]
    """Wait until every chosen router answered about `text` (or said why it cannot)."""

    def done() -> bool:
        return all(
            (name in model.results and model.results[name].text == text) or name in model.problems
            for name in model.chosen
        )

    qtbot.waitUntil(done, timeout=60_000)


def test_a_vllm_semantic_router_answers_with_its_route_and_signals(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path
) -> None:
    with serving(vsr_preview) as server:
        _opened(qtbot, session, routers_file(tmp_path, vsr=http_router(server.url())))
        session.set_text("Explain inflation vs recession")
        _decided_all(qtbot, session.routers, "Explain inflation vs recession")
    decision = session.routers.results["vsr"].decision
    assert server.paths == ["/api/v1/routing/preview"]
    assert decision.ok and decision.route == "economics" and decision.score == 0.91
    assert {(s.kind, s.name): s.confidence for s in decision.signals} == {
        ("domain", "economics"): 0.95,
        ("keyword", "inflation"): 0.87,
    }
    assert '"decision_name": "economics"' in decision.raw


def test_a_router_asked_while_it_answers_gets_only_the_latest_prompt(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path
) -> None:
    gate = Gate()
    model = session.routers
    with serving(gate) as server:
        _opened(qtbot, session, routers_file(tmp_path, slow=http_router(server.url())))
        decided = record(model.decided)
        asked = record(model.routing)
        session.set_text("inflation first")
        qtbot.waitUntil(lambda: len(server.requests) == 1, timeout=10_000)
        for text in ("inflation second", "inflation third"):  # while the first is answered
            session.set_text(text)
            count = len(asked)
            qtbot.waitUntil(lambda count=count: len(asked) > count, timeout=10_000)
        assert decided == []  # the router holds its answer: nothing waits for it
        gate.open()
        _decided_all(qtbot, model, "inflation third")
        qtbot.wait(50)  # (anything still on its way would come now)
    # The first answer came after newer prompts: dropped. The second never left: replaced.
    assert [routed.text for _name, routed in decided] == ["inflation third"]  # type: ignore[misc]
    assert [request.json()["text"] for request in server.requests] == [
        "inflation first",
        "inflation third",
    ]


def test_a_500_ms_router_shows_the_prompt_typed_last(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    def slow(request: Request) -> Reply:
        reply = vsr_preview(request)
        return Reply(reply.status, reply.body, delay_s=0.5)

    model = session.routers
    with serving(slow) as server:
        _opened(qtbot, session, routers_file(tmp_path, slow=http_router(server.url())))
        for text in ("price", "price of", "price of bread", "price of bread inflation"):
            session.set_text(text)
            qtbot.wait(40)  # (typing: faster than the router answers)
        _decided_all(qtbot, model, "price of bread inflation")
    assert model.results["slow"].text == "price of bread inflation"
    assert model.results["slow"].decision.route == "economics"
    assert server.requests[-1].json()["text"] == "price of bread inflation"


def test_each_failure_is_that_routers_result_and_the_others_answer(  # type: ignore[no-untyped-def]
    qtbot, session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROUTER_KEY", raising=False)

    def answer(request: Request) -> Reply:
        kind = request.path.strip("/").split("/")[0]
        if kind == "down":
            return json_reply({"error": "overloaded"}, status=503)
        if kind == "garbage":
            return Reply(200, b"<html>not json</html>", content_type="text/html")
        if kind == "limited":
            return json_reply({"error": "slow down"}, status=429, headers={"Retry-After": "60"})
        if kind == "hung":
            return Reply(200, b"{}", delay_s=5)
        return vsr_preview(request)

    with serving(answer) as server:
        path = routers_file(
            tmp_path,
            good=http_router(server.url("/good")),
            down=http_router(server.url("/down")),
            garbage=http_router(server.url("/garbage")),
            limited=http_router(server.url("/limited"), extra="retries = 0\n"),
            hung=http_router(server.url("/hung"), extra="timeout_s = 0.3\n"),
            locked=http_router(
                server.url("/good"),
                extra='secret_env = "ROUTER_KEY"\n'
                'headers = { Authorization = "Bearer {secret}" }\n',
            ),
        )
        _opened(qtbot, session, path)
        session.set_text("inflation again")
        _decided_all(qtbot, session.routers, "inflation again")
    results = session.routers.results
    assert results["good"].decision.route == "economics"
    kinds = {name: results[name].decision.shown_route for name in results if name != "good"}
    assert kinds == {
        "down": "error: http",
        "garbage": "error: garbage",
        "limited": "error: rate_limited",
        "hung": "error: timeout",
    }
    assert results["down"].decision.error.status == 503  # type: ignore[union-attr]
    assert "ROUTER_KEY is not set" in session.routers.problems["locked"]


def test_the_python_kind_and_the_semantic_router_example_decide_with_their_evidence(  # type: ignore[no-untyped-def]
    qtbot, session
) -> None:
    model = session.routers
    _opened(qtbot, session, EXAMPLE_ROUTERS, ONLY_OFFLINE)
    assert model.chosen == ["support", "keywords"]
    session.set_text("I was charged twice, refund please")
    _decided_all(qtbot, model, "I was charged twice, refund please")
    support = model.results["support"].decision
    assert support.route == "billing" and support.calibrated and support.kind == "semantic-router"
    first, *others = support.routes
    assert first.route == "billing" and first.passed and first.best
    assert all(route.why_not for route in others)
    keywords = model.results["keywords"].decision
    assert keywords.kind == "python" and keywords.route == "billing"
    assert {(s.kind, s.name) for s in keywords.signals} == {
        ("keyword", "charged"),
        ("keyword", "refund"),
    }
    session.set_text("   ")  # no prompt: nothing to route, nothing shown
    qtbot.waitUntil(lambda: not model.results, timeout=10_000)


def test_routers_ask_only_while_someone_looks(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.routers
    with serving(vsr_preview) as server:
        _opened(qtbot, session, routers_file(tmp_path, vsr=http_router(server.url())))
        model.set_enabled(False)
        session.set_text("inflation while hidden")
        qtbot.wait(300)
        assert server.requests == [] and not model.busy
        model.set_enabled(True)
        _decided_all(qtbot, model, "inflation while hidden")
        model.set_chosen([])  # unticked: not asked, nothing shown
        assert model.results == {} and model.chosen == []
    assert len(server.requests) == 1


def test_a_routers_file_that_does_not_read_says_why(qtbot, session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "routers.toml"
    bad.write_text('[routers.x]\nkind = "http"\nurl = "ftp://nowhere"\n')
    with qtbot.waitSignal(session.routers.open_failed, timeout=10_000) as failed:
        session.routers.open_file(bad)
    assert "routers.x.url" in failed.args[0] and "\n" not in failed.args[0]
    assert session.routers.declared is None
