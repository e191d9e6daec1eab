"""`OpenAIChat` against scripted servers (`httpx.MockTransport`): the output-mode ladder, robust
parsing, retries, deadlines, caps — every failure an answer, never an exception — and the key."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from routescope.llm import ChatClient, JsonAnswer, OpenAIChat, Score
from routescope.llm._client import ChatOptions, ChatSettings
from routescope.llm._schema import strict_json_schema

T = TypeVar("T")
KEY = "sk-test-SECRET-0123456789"
BASE = "http://llm.test/v1"


class Grade(BaseModel):
    relevance: Score
    confidence: Score
    coverage: Score
    should_retry: bool
    reasons: str


GOOD = {
    "relevance": 0.8,
    "confidence": 0.6,
    "coverage": 0.7,
    "should_retry": False,
    "reasons": "docs found",
}
GOOD_TEXT = json.dumps(GOOD)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def completion(content: object, **message: object) -> httpx.Response:
    body = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }
        ],
    }
    return httpx.Response(200, json=body)


Handler = Callable[[httpx.Request], httpx.Response]


class Script:
    """A mock server: answers with `handler`, keeps every request body and header."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.bodies: list[dict[str, Any]] = []
        self.auth: list[str | None] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        self.auth.append(request.headers.get("authorization"))
        return self.handler(request)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    def chat(self, **options: Any) -> OpenAIChat:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        return OpenAIChat(BASE, "m", client=client, sleep=self.sleep, **options)

    def ask(self, chat: OpenAIChat | None = None, calls: int = 1) -> list[JsonAnswer[Grade]]:
        async def go() -> list[JsonAnswer[Grade]]:
            client = chat or self.chat()
            try:
                return [
                    await client.complete_json("Grade it.", "goal", Grade, name="grade")
                    for _ in range(calls)
                ]
            finally:
                await client.aclose()

        return run(go())


def modes(script: Script) -> list[str]:
    return [body.get("response_format", {}).get("type", "prompted") for body in script.bodies]


def test_json_schema_is_asked_first_and_accepted() -> None:
    script = Script(lambda request: completion(GOOD_TEXT))
    [answer] = script.ask()
    assert answer.value == Grade.model_validate(GOOD)
    assert (answer.error, answer.mode, answer.attempts, answer.status) == (
        None,
        "json_schema",
        1,
        200,
    )
    assert answer.raw == GOOD_TEXT
    body = script.bodies[0]
    assert body["model"] == "m"
    assert body["messages"][0] == {"role": "system", "content": "Grade it."}
    assert body["messages"][1] == {"role": "user", "content": "goal"}
    form = body["response_format"]["json_schema"]
    assert (form["name"], form["strict"]) == ("grade", True)
    assert form["schema"]["additionalProperties"] is False
    assert form["schema"]["required"] == list(GOOD)


def test_a_rejected_format_degrades_to_json_object_then_prompted_and_is_remembered() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        kind = json.loads(request.content).get("response_format", {}).get("type")
        if kind == "json_schema":
            return httpx.Response(400, json={"error": {"message": "json_schema not supported"}})
        if kind == "json_object":
            return httpx.Response(422, text="unknown field: response_format")
        return completion(GOOD_TEXT)

    script = Script(handler)
    chat = script.chat()
    first, second = script.ask(chat, calls=2)
    assert first.value == second.value == Grade.model_validate(GOOD)
    assert (first.mode, first.attempts) == ("prompted", 3)
    assert (second.mode, second.attempts) == ("prompted", 1)
    assert chat.mode == "prompted"
    assert modes(script) == ["json_schema", "json_object", "prompted", "prompted"]
    systems = [body["messages"][0]["content"] for body in script.bodies]
    assert systems[0] == "Grade it."
    for system in systems[1:]:  # the lower modes describe the schema and ask for JSON
        assert system.startswith("Grade it.\n\n")
        assert "JSON Schema" in system
        assert '"should_retry"' in system


def test_a_400_about_something_else_is_not_a_format_problem() -> None:
    script = Script(lambda r: httpx.Response(400, json={"error": {"message": "context too long"}}))
    [answer] = script.ask()
    assert (answer.error, answer.attempts, answer.status) == ("http_400", 1, 400)
    assert answer.detail == "HTTP 400: context too long"


def test_a_reply_without_json_degrades_and_the_working_mode_is_remembered() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["response_format"]["type"] == "json_schema":
            return completion("Sure! The docs look relevant.")
        return completion(GOOD_TEXT)

    script = Script(handler)
    chat = script.chat()
    script.ask(chat, calls=2)
    assert modes(script) == ["json_schema", "json_object", "json_object"]
    assert chat.mode == "json_object"


def test_no_json_in_any_mode_is_malformed() -> None:
    script = Script(lambda r: completion("I cannot grade this."))
    [answer] = script.ask()
    assert (answer.error, answer.mode, answer.attempts) == ("malformed", "prompted", 3)
    assert answer.raw == "I cannot grade this."


@pytest.mark.parametrize(
    "content",
    [
        f"```json\n{GOOD_TEXT}\n```",
        f'<think>Grading. Maybe {{"relevance": 0.1}}?</think>\n\n{GOOD_TEXT}',
        f"thinking without an opening tag</think>{GOOD_TEXT}",
        f"Here is my assessment of the research attempt: {GOOD_TEXT} Let me know.",
    ],
)
def test_fences_thoughts_and_prose_are_looked_past(content: str) -> None:
    script = Script(lambda r: completion(content))
    [answer] = script.ask()
    assert answer.value == Grade.model_validate(GOOD)
    assert answer.attempts == 1


def test_content_parts_are_joined() -> None:
    parts = [{"type": "text", "text": GOOD_TEXT[:10]}, {"type": "text", "text": GOOD_TEXT[10:]}]
    script = Script(lambda r: completion(parts))
    assert script.ask()[0].value == Grade.model_validate(GOOD)


def test_wrong_types_are_a_schema_error_without_degrading() -> None:
    script = Script(lambda r: completion(json.dumps({**GOOD, "should_retry": "perhaps"})))
    [answer] = script.ask()
    assert (answer.error, answer.attempts, answer.mode) == ("schema", 1, "json_schema")
    assert answer.detail.startswith("should_retry:")


def test_scores_are_clamped_and_nan_is_a_schema_error() -> None:
    script = Script(lambda r: completion(json.dumps({**GOOD, "relevance": 1.5, "coverage": -3})))
    [answer] = script.ask()
    assert answer.value is not None
    assert (answer.value.relevance, answer.value.coverage) == (1.0, 0.0)
    nan = Script(lambda r: completion(GOOD_TEXT.replace("0.8", "NaN")))
    assert nan.ask()[0].error == "schema"


@pytest.mark.parametrize(("header", "waited"), [("3", 3.0), ("45", 30.0), ("soon", 0.5)])
def test_429_waits_retry_after_bounded(header: str, waited: float) -> None:
    """A wait the 60 s deadline can hold is waited, at most `max_retry_after_s` (30 s)."""
    answers = iter([httpx.Response(429, headers={"Retry-After": header}), completion(GOOD_TEXT)])
    script = Script(lambda r: next(answers))
    [answer] = script.ask()
    assert answer.ok
    assert answer.attempts == 2
    assert script.sleeps == [waited]  # an unreadable Retry-After: the backoff


@pytest.mark.parametrize(
    ("headers", "asked"),
    [
        ({"Retry-After": "999999"}, "999999"),
        ({"Retry-After": "9999"}, "9999"),
        ({"Retry-After": "60"}, "60"),
        ({"retry-after-ms": "90000"}, "90"),
        ({"Retry-After": "Fri, 01 Jan 9999 00:00:00 GMT"}, ""),
    ],
)
def test_a_retry_after_past_the_deadline_fails_at_once(headers: dict[str, str], asked: str) -> None:
    """Issue 25: a wait the deadline cannot hold is not shortened into a retry the server
    asked not to get: one request, no wait, and the answer says why."""
    script = Script(lambda r: httpx.Response(429, headers=headers))
    [answer] = script.ask()
    assert (answer.error, answer.status, answer.attempts) == ("http_429", 429, 1)
    assert len(script.bodies) == 1 and script.sleeps == []
    assert answer.detail.startswith("HTTP 429: model server asked to retry after ")
    assert answer.detail.endswith(" s, beyond the 60 s deadline")
    if asked:
        assert answer.detail == (
            f"HTTP 429: model server asked to retry after {asked} s, beyond the 60 s deadline"
        )


def test_a_retry_after_past_what_is_left_of_the_deadline_says_so() -> None:
    chat = Script(lambda r: completion(GOOD_TEXT)).chat()
    assert chat._past_deadline(45) == (
        "model server asked to retry after 45 s, beyond what is left of the 60 s deadline"
    )
    assert chat._past_deadline(2.5) == (
        "model server asked to retry after 2.5 s, beyond what is left of the 60 s deadline"
    )
    run(chat.aclose())


def test_a_503_whose_retry_after_is_past_the_deadline_is_not_retried_either() -> None:
    script = Script(lambda r: httpx.Response(503, headers={"Retry-After": "3600"}))
    [answer] = script.ask(script.chat(timeout_s=5))
    assert (answer.error, answer.attempts, script.sleeps) == ("http_503", 1, [])
    assert answer.detail == (
        "HTTP 503: model server asked to retry after 3600 s, beyond the 5 s deadline"
    )


def test_retry_after_ms_and_http_dates() -> None:
    answers = iter(
        [
            httpx.Response(429, headers={"retry-after-ms": "1500"}),
            httpx.Response(503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
            completion(GOOD_TEXT),
        ]
    )
    script = Script(lambda r: next(answers))
    assert script.ask()[0].ok
    assert script.sleeps == [1.5, 0.0]  # a date in the past: no wait


def test_a_wait_past_the_deadline_is_not_made() -> None:
    script = Script(lambda r: httpx.Response(429, headers={"Retry-After": "20"}))
    [answer] = script.ask(script.chat(timeout_s=5))
    assert (answer.error, answer.attempts) == ("http_429", 1)
    assert script.sleeps == []


def test_insufficient_quota_is_not_retried() -> None:
    error = {"error": {"message": "You exceeded your quota", "code": "insufficient_quota"}}
    script = Script(lambda r: httpx.Response(429, json=error))
    [answer] = script.ask()
    assert (answer.error, answer.attempts, answer.detail) == (
        "http_429",
        1,
        "HTTP 429: You exceeded your quota",
    )


def test_500_then_success_is_retried_with_backoff() -> None:
    answers = iter([httpx.Response(500), httpx.Response(502), completion(GOOD_TEXT)])
    script = Script(lambda r: next(answers))
    [answer] = script.ask()
    assert answer.ok
    assert answer.attempts == 3
    assert script.sleeps == [0.5, 1.0]


def test_retries_are_bounded() -> None:
    script = Script(lambda r: httpx.Response(503, text="overloaded"))
    [answer] = script.ask(script.chat(max_retries=1))
    assert (answer.error, answer.attempts, answer.status) == ("http_503", 2, 503)
    assert answer.raw == "overloaded"


def test_timeouts_and_network_errors_are_retried_then_reported() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    [answer] = Script(timeout).ask()
    assert (answer.error, answer.attempts, answer.value) == ("timeout", 3, None)
    [answer] = Script(refused).ask()
    assert (answer.error, answer.attempts) == ("network", 3)
    assert answer.detail == "ConnectError: connection refused"


def test_the_total_deadline_ends_a_hanging_call() -> None:
    async def hang(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return completion(GOOD_TEXT)

    async def go() -> JsonAnswer[Grade]:
        client = httpx.AsyncClient(transport=httpx.MockTransport(hang))
        async with OpenAIChat(BASE, "m", client=client, timeout_s=0.05) as chat:
            return await chat.complete_json("s", "u", Grade, name="grade")

    answer = run(go())
    assert (answer.error, answer.value, answer.attempts) == ("timeout", None, 0)
    assert answer.detail == "no answer within 0.05 s"


class Endless(httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(1000):
            yield b" " * 10_000


def test_huge_bodies_are_cut_off() -> None:
    declared = Script(lambda r: httpx.Response(200, content=b" " * 3_000_000))
    assert declared.ask()[0].error == "too_large"
    streamed = Script(lambda r: httpx.Response(200, stream=Endless()))
    [answer] = streamed.ask(streamed.chat(max_body_bytes=50_000))
    assert (answer.error, answer.attempts) == ("too_large", 1)


@pytest.mark.parametrize(
    ("response", "detail"),
    [
        (httpx.Response(200, text="<html>proxy</html>"), "the response is not JSON"),
        (httpx.Response(200, json={"object": "list"}), "not a chat completion (no choices)"),
        (completion(None), "the answer has no text content"),
    ],
)
def test_bodies_that_are_not_chat_completions_are_malformed(
    response: httpx.Response, detail: str
) -> None:
    [answer] = Script(lambda r: response).ask()
    assert answer.error == "malformed"
    assert detail in answer.detail


def test_refusals() -> None:
    [answer] = Script(lambda r: completion(None, refusal="I can't help with that.")).ask()
    assert (answer.error, answer.detail) == ("refused", "I can't help with that.")


def test_redirects_are_not_followed() -> None:
    script = Script(lambda r: httpx.Response(307, headers={"Location": "http://127.0.0.1/"}))
    [answer] = script.ask()
    assert (answer.error, answer.attempts) == ("http_307", 1)


def test_the_key_is_sent_and_never_shown() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        if len(script.bodies) == 1:
            return httpx.Response(401, json={"error": {"message": f"Incorrect API key: {KEY}"}})
        raise httpx.ConnectError(f"proxy said {KEY}", request=request)

    script = Script(echo)
    chat = script.chat(api_key=KEY, max_retries=1)
    first, second = script.ask(chat, calls=2)
    assert script.auth[0] == f"Bearer {KEY}"
    assert first.error == "http_401"
    assert second.error == "network"
    texts = [repr(first), repr(second), str(first), repr(chat), str(vars(chat)), first.raw]
    texts += [first.detail, second.detail, second.raw]
    for text in texts:
        assert KEY not in text
    assert "***" in first.detail
    assert "***" in second.detail
    leak = Script(lambda r: completion(f"my key is {KEY}"))
    assert KEY not in leak.ask(leak.chat(api_key=KEY))[0].raw


def test_bad_configuration_raises_without_the_key() -> None:
    bad = "sk-with a space"
    with pytest.raises(ValueError) as raised:
        OpenAIChat(BASE, "m", api_key=bad)
    assert bad not in str(raised.value)
    with pytest.raises(ValueError, match="base_url"):
        OpenAIChat("ftp://x/v1", "m")
    with pytest.raises(ValueError, match="model"):
        OpenAIChat(BASE, " ")


def test_settings_come_as_one_value_or_as_keywords_over_it() -> None:
    assert set(ChatOptions.__annotations__) == {f.name for f in dataclasses.fields(ChatSettings)}
    base = ChatSettings(timeout_s=5, max_retries=0, raw_chars=10)
    chat = OpenAIChat(BASE, "m", settings=base, max_retries=3)
    assert chat.settings == ChatSettings(timeout_s=5, max_retries=3, raw_chars=10)
    plain = OpenAIChat(BASE, "m")
    assert plain.settings == ChatSettings()
    with pytest.raises(ValueError, match="timeout_s"):
        ChatSettings(timeout_s=math.inf)
    with pytest.raises(ValueError, match="max_retries"):
        OpenAIChat(BASE, "m", settings=base, max_retries=11)
    with pytest.raises(ValueError, match="base_url"):  # the address is checked first
        OpenAIChat("ftp://x/v1", "m", timeout_s=-1)
    for made in (chat, plain):
        run(made.aclose())


def test_the_url_and_the_protocol() -> None:
    chat: ChatClient = OpenAIChat("http://user:pw@llm.test/v1/", "m")
    assert repr(chat) == "OpenAIChat('http://llm.test/v1', 'm', api_key=none, mode=json_schema)"
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return completion(GOOD_TEXT)

    Script(handler).ask()
    assert seen == ["http://llm.test/v1/chat/completions"]


def test_a_created_client_ignores_proxy_settings() -> None:
    chat = OpenAIChat(BASE, "m")
    assert chat._client.trust_env is False  # the client it made itself
    run(chat.aclose())


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300) | st.sampled_from(["```json\n{", "<think>{}", '{"relevance": 1e999}']))
def test_any_content_gives_an_answer(content: str) -> None:
    script = Script(lambda r: completion(content))
    [answer] = script.ask()
    assert isinstance(answer, JsonAnswer)
    assert (answer.value is None) != (answer.error is None)
    assert answer.error in (None, "malformed", "schema")
    assert 1 <= answer.attempts <= 3


def test_the_key_is_scrubbed_before_anything_is_cut_short() -> None:
    script = Script(lambda r: httpx.Response(401, text=f"{'x' * 10}{KEY}{'y' * 400}"))
    [answer] = script.ask(script.chat(api_key=KEY, raw_chars=15))
    assert answer.raw == "x" * 10 + "***yy"
    assert KEY[:5] not in answer.detail


def test_a_cut_off_reply_says_so() -> None:
    body = {"choices": [{"message": {"content": '{"relevance": 0.'}, "finish_reason": "length"}]}
    [answer] = Script(lambda r: httpx.Response(200, json=body)).ask()
    assert answer.error == "malformed"
    assert answer.detail == "no JSON object in the reply (cut off: finish_reason length)"


class Page(BaseModel):
    url: str
    properties: list[str] = []  # a field named like a schema keyword


class Pages(BaseModel):
    pages: list[Page]
    best: Page | None = None
    note: str = "none"


def test_the_strict_schema_closes_every_object() -> None:
    schema = strict_json_schema(Pages)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["pages", "best", "note"]
    assert "default" not in schema["properties"]["note"]
    page = schema["$defs"]["Page"]
    assert (page["additionalProperties"], page["required"]) == (False, ["url", "properties"])
    assert page["properties"]["properties"] == {
        "items": {"type": "string"},
        "title": "Properties",
        "type": "array",
    }
    assert strict_json_schema(Pages) is schema  # cached
    assert "additionalProperties" not in Pages.model_json_schema()  # the original is untouched


JSON = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(
    JSON
    | st.fixed_dictionaries({"choices": st.lists(JSON, max_size=2)})
    | st.builds(lambda m: {"choices": [{"message": m}]}, JSON)
)
def test_any_response_body_gives_an_answer(body: object) -> None:
    script = Script(lambda r: httpx.Response(200, content=json.dumps(body).encode()))
    [answer] = script.ask()
    assert isinstance(answer, JsonAnswer)
    assert answer.error in ("malformed", "schema", "refused")
