"""The `http` kind against real servers on 127.0.0.1 shaped like the real APIs (vLLM Semantic
Router's route preview and classification API, an OpenAI-compatible model router, a custom
JSON API), and against slow, failing, rate-limiting and lying ones: every failure is a
per-prompt result, the declared concurrency holds, secrets never show."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from routescope import RouterError
from routescope.external import load_routers, open_router
from tests.core.research._loopback import Reply, Request, json_reply, serving

pytestmark = pytest.mark.timeout(60)

SECRET = "sk-test-0123456789abcdef"


def _declare(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "routers.toml"
    path.write_text(body)
    return path


def vsr_preview(request: Request) -> Reply:
    """vLLM Semantic Router's `POST /api/v1/routing/preview` answer."""
    text = request.json()["text"]
    economics = "inflation" in text
    return json_reply(
        {
            "decision_result": {
                "decision_name": "economics" if economics else "general",
                "confidence": 0.91 if economics else 0.4,
            },
            "signal_confidences": {"domain:economics": 0.95, "keyword:inflation": 0.87}
            if economics
            else {},
            "matched_signals": {"domains": ["economics"], "keywords": ["inflation"]}
            if economics
            else {},
            "metrics": {"total_ms": 3},
        }
    )


def test_the_vllm_semantic_router_preset_reads_decision_and_signals(tmp_path: Path) -> None:
    with serving(vsr_preview) as server:
        path = _declare(
            tmp_path,
            '[routers.vsr]\nkind = "http"\npreset = "vllm-semantic-router"\n'
            f'url = "{server.url()}"\n',
        )
        decision = open_router(path, "vsr").route("Explain inflation vs recession")
    assert server.paths == ["/api/v1/routing/preview"]
    assert server.requests[0].json() == {"model": "auto", "text": "Explain inflation vs recession"}
    assert decision.ok and decision.route == "economics" and decision.score == 0.91
    signals = {(s.kind, s.name): s.confidence for s in decision.signals}
    assert signals == {("domain", "economics"): 0.95, ("keyword", "inflation"): 0.87}
    assert '"decision_name": "economics"' in decision.raw


def test_the_intent_preset_reads_every_category_probability(tmp_path: Path) -> None:
    def classify(request: Request) -> Reply:
        assert request.json()["options"] == {"return_probabilities": True}
        return json_reply(
            {
                "classification": {"category": "math", "confidence": 0.88, "processing_time_ms": 4},
                "probabilities": {"physics": 0.07, "math": 0.88, "other": 0.05},
                "recommended_model": "math-model",
                "routing_decision": "high_confidence_specialized",
            }
        )

    with serving(classify) as server:
        path = _declare(
            tmp_path,
            '[routers.intent]\nkind = "http"\npreset = "vllm-semantic-router-intent"\n'
            f'url = "{server.url()}"\n',
        )
        decision = open_router(path, "intent").route("derivative of x^2")
    assert server.paths == ["/api/v1/classify/intent"]
    assert decision.route == "math" and list(decision.scores) == ["math", "physics", "other"]


def test_the_openai_model_router_preset_takes_the_chosen_model_and_sends_the_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROUTER_KEY", SECRET)

    def chat(request: Request) -> Reply:
        assert request.headers["authorization"] == f"Bearer {SECRET}"
        body = request.json()
        assert body["model"] == "router-mf-0.11593" and body["max_tokens"] == 1
        return json_reply(
            {
                "id": "x",
                "object": "chat.completion",
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}],
                "echo": SECRET,  # a server that repeats the key: masked in the raw answer
            }
        )

    with serving(chat) as server:
        path = _declare(
            tmp_path,
            f'[routers.m]\nkind = "http"\npreset = "openai-model-router"\nurl = "{server.url()}"\n'
            'secret_env = "ROUTER_KEY"\nheaders = { Authorization = "Bearer {secret}" }\n',
        )
        router = open_router(path, "m")
        decision = router.route("hello")
    assert server.paths == ["/v1/chat/completions"]
    assert decision.route == "gpt-4o-mini"
    assert SECRET not in decision.model_dump_json() and SECRET not in repr(router)
    assert "***" in decision.raw


def test_a_custom_answer_map_with_body_template_and_context(tmp_path: Path) -> None:
    def api(request: Request) -> Reply:
        body = request.json()
        assert body == {
            "q": "pizza near me",
            "day": "2026-02-05",
            "who": "u1",
            "ctx": {"user_id": "u1"},
        }
        return json_reply(
            {
                "decision": {"name": "local"},
                "candidates": [{"label": "tech", "p": 0.1}, {"label": "local", "p": 0.8}],
                "tools": [{"name": "maps.search"}, {"name": "web.search"}],
                "flags": {"local": True, "tech": False},
            }
        )

    with serving(api) as server:
        path = _declare(
            tmp_path,
            f'[routers.c]\nkind = "http"\nurl = "{server.url("/route")}"\n'
            'body = { q = "{prompt}", day = "{today}", who = "{context.user_id}",'
            ' ctx = "{context}" }\n'
            '[routers.c.answer]\nroute = "decision.name"\nscores = "candidates[*]"\n'
            'scores_name = "label"\nscores_value = "p"\ntools = "tools[*].name"\nflags = "flags"\n',
        )
        import datetime as dt

        decision = open_router(path, "c").route(
            "pizza near me", today=dt.date(2026, 2, 5), context={"user_id": "u1"}
        )
    assert decision.route == "local" and decision.score == 0.8
    assert decision.scores == {"local": 0.8, "tech": 0.1}
    assert decision.tools == ["maps.search", "web.search"] and decision.flags == ["local"]


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(500, b'{"error": "boom"}'), "http"),
        (Reply(503, b"upstream"), "http"),
        (Reply(200, b"<html>not json</html>", "text/html"), "garbage"),
        (json_reply({"something": "else"}), "garbage"),
        (json_reply({"route": {"nested": 1}}), "garbage"),
        (Reply(302, b"", headers={"Location": "http://169.254.169.254/"}), "http"),
        (Reply(200, b"x" * 5000), "too_large"),
    ],
    ids=["500", "503", "html", "no-route", "object-route", "redirect", "too-large"],
)
def test_a_failing_server_is_a_per_prompt_error(tmp_path: Path, reply: Reply, kind: str) -> None:
    with serving(lambda _r: reply) as server:
        path = _declare(
            tmp_path,
            f'[routers.x]\nkind = "http"\nurl = "{server.url("/r")}"\nmax_bytes = 1024\n',
        )
        decision = open_router(path, "x").route("anything")
    assert decision.route is None and decision.error is not None
    assert decision.error.kind == kind, decision.error
    assert server.hits("/r") == 1  # a redirect is never followed, an error is not retried


def test_a_slow_server_times_out_and_a_429_is_retried_after_its_wait(tmp_path: Path) -> None:
    calls: list[int] = []

    def limited(request: Request) -> Reply:
        calls.append(1)
        if len(calls) == 1:
            return Reply(429, b"{}", headers={"Retry-After": "0"})
        if request.json()["prompt"] == "slow":
            return Reply(200, b'{"route": "late"}', delay_s=5)
        return json_reply({"route": "ok"})

    with serving(limited) as server:
        path = _declare(
            tmp_path, f'[routers.x]\nkind = "http"\nurl = "{server.url("/r")}"\ntimeout_s = 0.5\n'
        )
        router = open_router(path, "x")
        first = router.route("fast")
        slow = router.route("slow")
    assert first.route == "ok" and len(calls) >= 2  # the 429 then the retry
    assert slow.error is not None and slow.error.kind == "timeout"


def test_rate_limited_to_the_end_is_a_rate_limited_error(tmp_path: Path) -> None:
    with serving(lambda _r: Reply(429, b"{}", headers={"Retry-After": "3600"})) as server:
        path = _declare(tmp_path, f'[routers.x]\nkind = "http"\nurl = "{server.url("/r")}"\n')
        decision = open_router(path, "x").route("anything")
    assert decision.error is not None and decision.error.kind == "rate_limited"
    assert "3600" in decision.error.detail


def test_batches_reach_the_declared_concurrency_and_no_more(tmp_path: Path) -> None:
    lock = threading.Lock()
    active = [0, 0]

    def counted(request: Request) -> Reply:
        with lock:
            active[0] += 1
            active[1] = max(active[1], active[0])
        import time

        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return json_reply({"route": request.json()["prompt"]})

    with serving(counted) as server:
        path = _declare(
            tmp_path, f'[routers.x]\nkind = "http"\nurl = "{server.url("/r")}"\nconcurrency = 3\n'
        )
        prompts = [f"p{i}" for i in range(12)]
        decisions = open_router(path, "x").route_many(prompts)
    assert [d.route for d in decisions] == prompts  # in order
    assert active[1] == 3


def test_declaration_errors_name_the_file_router_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    cases = {
        '[routers.a]\nkind = "http"\nurl = "ftp://x"\n': "routers.a.url",
        '[routers.a]\nkind = "carrier-pigeon"\n': "routers.a",
        '[routers.a]\nkind = "http"\nurl = "http://127.0.0.1:1"\ntimeout_s = -1\n': "timeout_s",
        '[routers.a]\nkind = "http"\nurl = "http://127.0.0.1:1"\n'
        '[routers.a.answer]\nroute = "a..b"\n': "a..b",
        '[routers.a]\nkind = "http"\nurl = "http://u:p@127.0.0.1:1"\n': "credentials",
        "nothing = 1\n": "unknown key",
        "[routers\n": "not TOML",
    }
    for text, expected in cases.items():
        with pytest.raises(RouterError, match=None) as caught:
            load_routers(_declare(tmp_path, text))
        message = str(caught.value)
        assert str(tmp_path) in message and expected in message and "\n" not in message
    path = _declare(
        tmp_path,
        '[routers.a]\nkind = "http"\nurl = "http://127.0.0.1:1"\nsecret_env = "NO_SUCH_KEY"\n',
    )
    with pytest.raises(RouterError, match="NO_SUCH_KEY is not set"):
        open_router(path, "a")
    with pytest.raises(RouterError, match="no router 'b'"):
        open_router(path, "b")


def test_a_secret_file_must_be_private(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text(SECRET + "\n")
    key.chmod(0o644)
    path = _declare(
        tmp_path, '[routers.a]\nkind = "http"\nurl = "http://127.0.0.1:1"\nsecret_file = "key"\n'
    )
    with pytest.raises(RouterError, match="chmod 600"):
        open_router(path, "a")
    key.chmod(0o600)
    router = open_router(path, "a")
    assert SECRET not in repr(router)
