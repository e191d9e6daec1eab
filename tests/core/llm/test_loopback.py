"""`OpenAIChat` over real HTTP: a tiny OpenAI-compatible server on 127.0.0.1 that, like many
local servers, refuses `json_schema` and thinks aloud before a fenced answer."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic import BaseModel

from routescope.llm import JsonAnswer, OpenAIChat, Score
from tests.core.research._loopback import Reply, serving

KEY = "sk-loopback-SECRET"


class Query(BaseModel):
    query: str
    reason: str
    expected_domains: list[str]
    confidence: Score


class _Handler(BaseHTTPRequestHandler):
    timeout = 5  # seconds a connection may stay idle: the fixture never hangs
    requests: list[dict[str, object]]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        self.requests.append({"path": self.path, "auth": self.headers["Authorization"], **body})
        if body.get("response_format", {}).get("type") == "json_schema":
            self._send(400, {"error": {"message": "response_format 'json_schema' unsupported"}})
            return
        answer = {
            "query": "asyncio TaskGroup tutorial",
            "reason": "official docs",
            "expected_domains": ["docs.python.org"],
            "confidence": 1.25,
        }
        content = f"<think>the user wants asyncio</think>\n```json\n{json.dumps(answer)}\n```"
        message = {"role": "assistant", "content": content}
        self._send(200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    def _send(self, status: int, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, object]]]]:
    requests: list[dict[str, object]] = []
    handler = type("Handler", (_Handler,), {"requests": requests})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_a_real_server_that_refuses_json_schema(
    server: tuple[str, list[dict[str, object]]],
) -> None:
    base, requests = server

    async def go() -> list[JsonAnswer[Query]]:
        async with OpenAIChat(base, "qwen3", api_key=KEY, timeout_s=10) as chat:
            return [
                await chat.complete_json("Optimise the query.", "asyncio", Query, name="query")
                for _ in range(2)
            ]

    first, second = asyncio.run(go())
    assert first.value == Query(
        query="asyncio TaskGroup tutorial",
        reason="official docs",
        expected_domains=["docs.python.org"],
        confidence=1.0,
    )
    assert (first.mode, first.attempts, first.status) == ("json_object", 2, 200)
    assert (second.mode, second.attempts) == ("json_object", 1)
    assert [r["path"] for r in requests] == ["/v1/chat/completions"] * 3
    assert {r["auth"] for r in requests} == {f"Bearer {KEY}"}
    assert KEY not in repr(first) + repr(second)


def test_a_real_server_asking_to_retry_after_the_deadline_gets_one_request() -> None:
    """Issue 25: a 429 whose Retry-After (999999 s) no deadline holds is not waited for, nor
    retried early: the call fails at once with one line saying so, after a single request."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    limited = Reply(429, b'{"error": {"message": "slow down"}}', headers={"Retry-After": "999999"})
    with serving(lambda request: limited) as server:

        async def go() -> JsonAnswer[Query]:
            async with OpenAIChat(server.url("/v1"), "qwen3", api_key=KEY, sleep=sleep) as chat:
                return await chat.complete_json("Optimise.", "asyncio", Query, name="query")

        answer = asyncio.run(go())
        assert server.paths == ["/v1/chat/completions"]  # exactly one request
    assert (answer.value, answer.error, answer.status, answer.attempts) == (
        None,
        "http_429",
        429,
        1,
    )
    assert answer.detail == (
        "HTTP 429: model server asked to retry after 999999 s, beyond the 60 s deadline"
    )
    assert slept == []
