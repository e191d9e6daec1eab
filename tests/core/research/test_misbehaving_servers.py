"""Deep research end to end against misbehaving real servers on 127.0.0.1.

Real `ThreadingHTTPServer`s play SearXNG, Tavily, Brave, an OpenAI-compatible model and the
web pages the results point to (see `_loopback`). `deep_research` runs with the real adapters,
the real `OpenAIChat` and the real `WebReader`/`SafeFetcher`, wired as `run_research` wires
them (one `httpx.AsyncClient(trust_env=False, follow_redirects=False)` for the trusted
endpoints; one TLS context shared across tests, which only saves loading the CA bundle), with
short timeouts; `run_research` itself and the command line run once each, unchanged.

The fetcher trusts 127.0.0.1 for *resolved names* only (a test resolver maps `public.test` to
it) so pages can be read, while every IP literal and private name stays refused — proven by
the page server's request log and by `DialLog`, which records every address the fetcher dials
(and refuses to dial anything but 127.0.0.1).

Every case checks the same contract (`check`): a `DeepResearchResult`, never an exception; the
JSON and Markdown reports render; no key anywhere (reports, reprs, warnings, notes); every wait
kept to its bound. Deadlines are proven by what they leave behind (the attempt's timeout error,
the termination reason, the waits asked for), never by a wall clock, which flaked on shared
cores; `pytest-timeout` stops a case that hangs.
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import itertools
import json
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from routescope.llm import OpenAIChat
from routescope.research import (
    Attempt,
    DeepResearchResult,
    PageRead,
    ResearchSettings,
    report_markdown,
    research_report_data,
    run_research,
)
from routescope.research._fetch import FetchLimits, SafeFetcher
from routescope.research._loop import deep_research
from routescope.research._policy import DEFAULT_POLICY, WebPolicy
from routescope.research._provider_contract import SearchProvider
from routescope.research._providers import BraveSearch, ProviderOptions, SearxngSearch, TavilySearch
from routescope.research._reader import WebReader
from routescope.research._records import Budgets
from routescope.research._run import ResearchOptions
from tests._support import routescope_cli
from tests.core.research._loopback import (
    BRAVE_PATH,
    GOOD,
    PLAN,
    PROVIDERS,
    DialLog,
    FakeModel,
    Hit,
    LoopbackServer,
    ModelCall,
    ProviderName,
    Reply,
    Request,
    SearchCall,
    SearchService,
    chat,
    default_reply,
    html_page,
    json_reply,
    search_payload,
    tls_context,
)

GOAL = "How do I copy a PySide6 table selection to the clipboard?"
WEAK = "web research weak; relying more on model prior"

TAVILY_KEY = "tvly-SECRET-tavily-0123456789"
BRAVE_KEY = "BSA-SECRET-brave-abcdef"
SEARXNG_KEY = "searx-SECRET-proxy-token"
LLM_KEY = "sk-SECRET-model-key-42"
KEYS = (TAVILY_KEY, BRAVE_KEY, SEARXNG_KEY, LLM_KEY)
KEY_FRAGMENT = "SECRET"
"""In every key, in nothing else the tests send."""
MODEL_MAX_RETRY_AFTER_S = 0.2
RUN_TIMEOUT_S = 10.0
"""The run deadline unless a case sets its own; no case may reach it."""

# A hang guard, not a speed test: a case takes well under a second or two; 30 s leaves room for
# two busy shared cores.
pytestmark = pytest.mark.timeout(30)

NAMES: dict[str, list[str]] = {
    "public.test": ["127.0.0.1"],
    "other.test": ["127.0.0.1"],
    "internal.test": ["10.0.0.5"],
    "mixed.test": ["127.0.0.1", "10.0.0.7"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "loopback2.test": ["127.0.0.2"],
    "metadata.test": ["169.254.169.254"],
    "nat64.test": ["64:ff9b::7f00:1"],
}


async def resolve(host: str, port: int) -> Sequence[str]:
    if host not in NAMES:
        raise socket.gaierror(socket.EAI_NONAME, f"unknown test name {host}")
    return NAMES[host]


# --- the world: three servers and a dial log -------------------------------------------------


@dataclass
class World:
    search: SearchService
    search_server: LoopbackServer
    model: FakeModel
    llm_server: LoopbackServer
    pages: dict[str, Reply]
    page_server: LoopbackServer

    def page_url(self, path: str, host: str = "public.test") -> str:
        return self.page_server.url(path, host)

    def good_hits(self, count: int = 2) -> list[Hit]:
        return [Hit(self.page_url(f"/page{i}"), f"Page {i}") for i in range(1, count + 1)]


@dataclass
class Run:
    result: DeepResearchResult
    provider: SearchProvider
    chat: OpenAIChat
    dialled: list[tuple[str, str]]
    provider_sleeps: list[float]
    model_sleeps: list[float]
    max_retry_wait_s: float
    budgets: Budgets
    data: dict[str, Any] = field(default_factory=dict)
    markdown: str = ""

    def page(self, attempt: int, url: str) -> PageRead:
        (page,) = [p for p in self.result.attempts[attempt].pages if p.url == url]
        return page


SECRET_PAGE = b"<html><body><p>the instance metadata credentials</p></body></html>"


@pytest.fixture
def world() -> Iterator[World]:
    search = SearchService()
    model = FakeModel()
    pages: dict[str, Reply] = {
        "/page1": Reply(
            body=html_page("Page 1", "Copy a PySide6 table selection to the clipboard"),
            content_type="text/html",
        ),
        "/page2": Reply(
            body=html_page("Page 2", "PySide6 QClipboard: copy the table selection with setText"),
            content_type="text/html",
        ),
        "/secret": Reply(body=SECRET_PAGE, content_type="text/html"),
    }

    def page_route(request: Request) -> Reply:
        return pages.get(request.path, Reply(404, b"missing", "text/html"))

    servers = [LoopbackServer(search), LoopbackServer(model), LoopbackServer(page_route)]
    try:
        state = World(search, servers[0], model, servers[1], pages, servers[2])
        search.hits = state.good_hits()
        yield state
    finally:
        for server in servers:
            server.close()


def _recording_sleep(log: list[float]) -> Callable[[float], Any]:
    async def sleep(seconds: float) -> None:
        log.append(seconds)
        await asyncio.sleep(seconds)

    return sleep


def _provider(
    name: ProviderName, client: httpx.AsyncClient, base: str, options: ProviderOptions
) -> SearchProvider:
    if name == "searxng":
        return SearxngSearch(client, base, api_key=SEARXNG_KEY, **options)
    if name == "tavily":
        return TavilySearch(client, TAVILY_KEY, endpoint=f"{base}/search", **options)
    return BraveSearch(client, BRAVE_KEY, endpoint=f"{base}{BRAVE_PATH}", **options)


def research(
    world: World,
    provider: ProviderName = "searxng",
    *,
    max_attempts: int = 2,
    search_timeout_s: float = 2.0,
    max_retry_wait_s: float = 0.2,
    model_timeout_s: float = 3.0,
    model_retries: int = 2,
    limits: FetchLimits | None = None,
    budgets: Budgets | None = None,
    max_body_bytes: int = 1_000_000,
) -> Run:
    """`deep_research` with the real adapters, model client and reader against `world`."""
    provider_sleeps: list[float] = []
    model_sleeps: list[float] = []
    policy = WebPolicy(
        allowed_hosts=(),
        blocked_hosts=DEFAULT_POLICY.blocked_hosts,
        allowed_ports=(world.page_server.port,),
        trusted_addresses=("127.0.0.1",),
    )
    # Well-behaved pages answer at once; room for a loaded machine (a page read past 1 s under
    # load 8 was once lost). A case about a slow page sets its own limits.
    limits = limits or FetchLimits(
        max_bytes=64 * 1024, connect_timeout=3.0, read_timeout=3.0, total_timeout=5.0
    )
    dials = DialLog()
    budgets = budgets or Budgets(max_results=5, run_timeout_s=RUN_TIMEOUT_S)
    options: ProviderOptions = {
        "timeout_s": search_timeout_s,
        "max_retry_wait_s": max_retry_wait_s,
        "max_body_bytes": max_body_bytes,
        "sleep": _recording_sleep(provider_sleeps),
    }

    async def go() -> tuple[DeepResearchResult, SearchProvider, OpenAIChat]:
        async with httpx.AsyncClient(
            trust_env=False, follow_redirects=False, verify=tls_context()
        ) as client:
            search = _provider(provider, client, world.search_server.url(), options)
            model = OpenAIChat(
                world.llm_server.url("/v1"),
                "test-model",
                api_key=LLM_KEY,
                client=client,
                timeout_s=model_timeout_s,
                max_retries=model_retries,
                backoff_s=0.01,
                max_retry_after_s=MODEL_MAX_RETRY_AFTER_S,
                sleep=_recording_sleep(model_sleeps),
            )
            reader = WebReader(SafeFetcher(policy, limits, resolver=resolve, transport=dials))
            try:
                result = await deep_research(
                    GOAL,
                    search=search,
                    reader=reader,
                    llm=model,
                    options=ResearchOptions(
                        max_attempts=max_attempts,
                        stack_hint="Python GUI",
                        budgets=budgets,
                        model="test-model",
                    ),
                )
            finally:
                await dials.close()
            return result, search, model

    result, search, model = asyncio.run(go())
    run = Run(
        result,
        search,
        model,
        dials.dialled,
        provider_sleeps,
        model_sleeps,
        max_retry_wait_s,
        budgets,
    )
    check(run, world)
    return run


def check(run: Run, world: World) -> None:
    """The contract every case keeps, whatever misbehaved."""
    result = run.result
    assert isinstance(result, DeepResearchResult)
    run.data = research_report_data(result)
    text = json.dumps(run.data, ensure_ascii=False)  # renders, and is plain JSON
    run.markdown = report_markdown(result)
    assert run.markdown.startswith("# Research: ") and "## Findings" in run.markdown
    assert result.termination_reason.strip()
    assert len(run.data["attempts"]) == len(result.attempts) == result.web_calls
    assert result.pages_fetched == sum(a.fetched for a in result.attempts)
    assert (WEAK in result.warnings) == (result.quality.relevance < 0.6)
    for attempt in run.data["attempts"]:
        assert 0.0 <= attempt["score"] <= 1.0
        for page in attempt["findings"]:
            assert (page["error"] is None) == (page["chars"] > 0), page
    # No key anywhere a person or a log could see it.
    seen = " ".join(
        [
            text,
            run.markdown,
            repr(result),
            repr(run.provider),
            repr(run.chat),
            *result.warnings,
            *result.notes,
            result.termination_reason,
        ]
    )
    for key in KEYS:
        assert key not in seen
    assert KEY_FRAGMENT not in seen
    # Nothing but the trusted page server was dialled, and never its secret.
    assert {address for address, _ in run.dialled} <= {"127.0.0.1"}, run.dialled
    assert world.page_server.hits("/secret") == 0
    # Nothing waited long: each wait a client asked for kept to its bound (never a Retry-After's
    # hour), and a run ended at its deadline only when the case set a short one on purpose.
    assert all(0 <= s <= run.max_retry_wait_s for s in run.provider_sleeps), run.provider_sleeps
    assert all(0 <= s <= MODEL_MAX_RETRY_AFTER_S for s in run.model_sleeps), run.model_sleeps
    if result.termination_reason.startswith("run deadline"):
        assert run.budgets.run_timeout_s < RUN_TIMEOUT_S, result.termination_reason


# --- providers -------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_well_behaved_run_reads_the_pages_and_sends_keys_where_they_belong(
    world: World, provider: ProviderName
) -> None:
    run = research(world, provider)
    result = run.result
    assert result.termination_reason == "target reached in attempt 1"
    (attempt,) = result.attempts
    assert (attempt.provider, attempt.status, attempt.error) == (provider, 200, None)
    assert attempt.query == PLAN["query"] and attempt.query_source == "optimiser"
    assert [page.error for page in attempt.pages] == [None, None]
    assert (attempt.relevance, attempt.coverage, attempt.fetched) == (0.8, 0.7, 2)
    assert [f.url for f in result.findings] == [h.url for h in world.good_hits()]
    assert result.warnings == [] and result.next_step.outcome == "proceed"
    assert run.dialled == [("127.0.0.1", f"public.test:{world.page_server.port}")] * 2
    # Each key went to its own server, in its own header, and nowhere else.
    (call,) = world.search.calls
    headers = call.request.headers
    expected = {
        "searxng": ("authorization", f"Bearer {SEARXNG_KEY}"),
        "tavily": ("authorization", f"Bearer {TAVILY_KEY}"),
        "brave": ("x-subscription-token", BRAVE_KEY),
    }[provider]
    assert headers[expected[0]] == expected[1]
    assert {c.request.headers["authorization"] for c in world.model.calls} == {f"Bearer {LLM_KEY}"}
    assert all(KEY_FRAGMENT not in str(r.headers) for r in world.page_server.requests)


def _too_long(limit: int) -> Callable[[SearchCall], Reply | None]:
    def misbehave(call: SearchCall) -> Reply | None:
        if len(call.query) > limit:
            return json_reply({"detail": f"query longer than {limit} characters"}, 400)
        return None

    return misbehave


LONG_PLAN = {
    "query": "PySide6 QTableView copy the current multi-row selection to the system clipboard "
    "with keyboard shortcut Ctrl+C as tab separated values",
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_400_for_a_long_query_leads_to_a_shorter_next_query(
    world: World, provider: ProviderName
) -> None:
    world.search.misbehave = _too_long(60)
    world.model.scripts["optimiser"] = lambda call: chat(LONG_PLAN)

    def refiner(call: ModelCall) -> Reply:
        assert call.user["status"] == 400  # the refiner hears of the 400
        return chat({"query": "QTableView copy clipboard", "should_retry": True})

    world.model.scripts["refiner"] = refiner
    run = research(world, provider)
    first, second = run.result.attempts
    assert (first.status, first.error) == (400, "HTTP 400: query longer than 60 characters")
    assert first.results == [] and first.pages == [] and first.score == 0.0
    assert first.evaluation is None  # nothing read: the evaluator is not even asked
    assert run.result.notes == ["attempt 1: the provider refused the query (400)"]
    sent = world.search.queries
    assert len(sent) == 2 and len(sent[1]) < len(sent[0])
    assert (second.status, second.error, second.fetched) == (200, None, 2)
    assert run.result.best == 1 and run.result.termination_reason == "target reached in attempt 2"
    assert run.data["attempts"][0]["status"] == 400


def test_after_a_400_the_next_query_is_shorter_even_when_the_refiner_is_not(
    world: World,
) -> None:
    world.search.misbehave = _too_long(60)
    world.model.scripts["optimiser"] = lambda call: chat(LONG_PLAN)
    reworded = str(LONG_PLAN["query"]).replace("keyboard shortcut", "the keyboard shortcut")
    world.model.scripts["refiner"] = lambda call: chat({"query": reworded, "should_retry": True})
    run = research(world)
    sent = world.search.queries
    assert run.result.attempts[0].status == 400
    assert len(sent) == 2 and len(sent[1]) < len(sent[0]), sent


def _always(reply: Reply) -> Callable[[SearchCall], Reply | None]:
    return lambda call: reply


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("reply", "status", "error"),
    [
        (json_reply({"detail": "Forbidden"}, 403), 403, "HTTP 403: Forbidden"),
        (json_reply({"error": "invalid key"}, 401), 401, "HTTP 401: invalid key"),
        (json_reply({"detail": {"error": "plan limit"}}, 432), 432, "HTTP 432: plan limit"),
        (Reply(500, b"<h1>Internal Server Error</h1>", "text/html"), 500, "HTTP 500"),
        (Reply(502, b"", None), 502, "HTTP 502"),
    ],
    ids=["403", "401", "432", "500", "502"],
)
def test_provider_error_statuses_are_attempt_local(
    world: World, provider: ProviderName, reply: Reply, status: int, error: str
) -> None:
    world.search.misbehave = _always(reply)
    run = research(world, provider)
    refused = status in (401, 403)  # a wrong key fails every search alike: the loop stops
    searches = 1 if refused else 2
    assert len(run.result.attempts) == searches
    for attempt in run.result.attempts:
        assert attempt.status == status
        assert attempt.error is not None and attempt.error.startswith(error), attempt.error
        assert (attempt.results, attempt.pages, attempt.score) == ([], [], 0.0)
    if provider == "searxng" and status == 403:
        assert "format=json" in str(run.result.attempts[0].error)  # the hint
    assert run.result.termination_reason == (
        f"the provider refused access ({status}) in attempt 1" if refused else "2 attempts made"
    )
    assert run.result.findings == [] and WEAK in run.result.warnings
    # Nothing was read: never proceed; neither a refused key nor spent attempts call for
    # researching again.
    assert run.result.next_step.outcome == "escalate"
    assert run.result.next_step.rule == ("refused" if refused else "nothing_read")
    assert world.model.of("evaluator") == []  # nothing read, nothing graded
    assert run.dialled == []
    assert len(world.search.calls) == searches  # no retry of a non-429 status


def test_an_auth_failure_stops_the_loop(world: World) -> None:
    world.search.misbehave = _always(json_reply({"detail": "Forbidden"}, 403))
    run = research(world, "tavily", max_attempts=3)
    assert len(world.search.calls) == 1
    assert "403" in run.result.termination_reason


def _rate_limited(headers: dict[str, str], times: int = 1) -> Callable[[SearchCall], Reply | None]:
    def misbehave(call: SearchCall) -> Reply | None:
        if call.n < times:
            return json_reply({"detail": "slow down"}, 429, headers)
        return None

    return misbehave


def _http_date(seconds: float) -> str:
    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds), usegmt=True)


@pytest.mark.parametrize(
    ("provider", "headers"),
    [
        ("searxng", {"Retry-After": "30"}),
        ("tavily", {"Retry-After": "30"}),
        ("brave", {"Retry-After": "30"}),
        ("tavily", {"Retry-After": _http_date(3600)}),
        ("brave", {"X-RateLimit-Reset": "1, 1419704"}),
        ("searxng", {}),
    ],
    ids=["searxng", "tavily", "brave", "http-date", "x-ratelimit-reset", "no-header"],
)
def test_a_429_waits_a_bounded_time_then_retries_once(
    world: World, provider: ProviderName, headers: dict[str, str]
) -> None:
    world.search.misbehave = _rate_limited(headers)
    run = research(world, provider, max_retry_wait_s=0.1)
    (attempt,) = run.result.attempts
    assert (attempt.status, attempt.error, attempt.fetched) == (200, None, 2)
    assert run.provider_sleeps == [0.1]  # whatever was asked, never more than the bound
    assert len(world.search.calls) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_429_that_persists_is_recorded_after_one_retry(
    world: World, provider: ProviderName
) -> None:
    world.search.misbehave = _rate_limited({"Retry-After": "3600"}, times=10)
    run = research(world, provider, max_retry_wait_s=0.05)
    assert len(run.result.attempts) == 2
    for attempt in run.result.attempts:
        assert (attempt.status, attempt.error) == (429, "HTTP 429: slow down")
    assert len(world.search.calls) == 4  # two per search, never a third
    assert run.provider_sleeps == [0.05, 0.05]  # not the hour Retry-After asked for


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_search_answer_past_the_timeout(world: World, provider: ProviderName) -> None:
    world.search.misbehave = _always(Reply(delay_s=5))
    run = research(world, provider, search_timeout_s=0.1, max_attempts=2)
    assert len(run.result.attempts) == 2
    for attempt in run.result.attempts:
        assert attempt.status is None
        # The 0.1 s bound cut the 5 s answer: without it the answer would have come, late.
        assert attempt.error == "TimeoutError: no complete answer within 0.1 s", attempt.error
    assert len(world.search.calls) == 2 and run.provider_sleeps == []  # no retry, no wait


def test_the_run_deadline_cuts_a_hanging_provider(world: World) -> None:
    world.search.misbehave = _always(Reply(delay_s=5))
    run = research(world, search_timeout_s=30, budgets=Budgets(run_timeout_s=0.5))
    assert run.result.attempts == [] and run.result.findings == []
    assert run.result.termination_reason == "run deadline of 0.5 s reached in attempt 1"
    assert run.result.next_step.outcome == "research_again"
    assert run.data["best_attempt"] is None and "- none" in run.markdown
    assert len(world.search.calls) == 1 and run.provider_sleeps == []  # cut, not retried


def test_a_run_without_any_attempt_warns_that_research_is_weak(world: World) -> None:
    world.search.misbehave = _always(Reply(delay_s=5))
    run = research(world, search_timeout_s=30, budgets=Budgets(run_timeout_s=0.2))
    assert run.result.attempts == []
    assert WEAK in run.result.warnings


BAD_TITLES: dict[str, Any] = {"results": [{"url": 5, "title": 1}], "web": {"results": [{"url": 5}]}}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(body=b"<html>SearXNG</html>", content_type="text/html"), "the body is not JSON"),
        (Reply(body=b"{'results': []", content_type="application/json"), "the body is not JSON"),
        (Reply(body=b"[" * 100_000 + b"]" * 100_000), "the body is not JSON"),
        (json_reply([]), "unexpected JSON shape: the response is not an object"),
        (json_reply({"results": "x", "web": "x"}), "unexpected JSON shape"),
        (json_reply(BAD_TITLES), "all 1 results had missing or wrongly typed fields"),
        (Reply(body=b'{"results": []}' + b" " * 2_000), "larger than 1000 bytes"),
    ],
    ids=["html", "broken-json", "deep-nesting", "list", "wrong-types", "bad-results", "huge"],
)
def test_malformed_search_bodies_are_attempt_local(
    world: World, provider: ProviderName, reply: Reply, error: str
) -> None:
    world.search.misbehave = _always(reply)
    run = research(world, provider, max_body_bytes=1000 if len(reply.body) < 5000 else 300_000)
    for attempt in run.result.attempts:
        assert attempt.error is not None and error in attempt.error, attempt.error
        assert attempt.status == 200 and attempt.pages == []
    assert run.result.findings == [] and WEAK in run.result.warnings


@pytest.mark.parametrize("provider", PROVIDERS)
def test_json_with_the_wrong_content_type_is_still_read(
    world: World, provider: ProviderName
) -> None:
    def misbehave(call: SearchCall) -> Reply:
        payload = json.dumps(search_payload(call.provider, call.query, world.good_hits())).encode()
        return Reply(body=payload, content_type="text/plain; charset=iso-8859-1")

    world.search.misbehave = misbehave
    run = research(world, provider)
    assert run.result.attempts[0].fetched == 2


def test_searxng_with_every_engine_unresponsive_is_a_server_error(world: World) -> None:
    payload = {"results": [], "unresponsive_engines": [["duckduckgo", "CAPTCHA"]]}
    world.search.misbehave = _always(json_reply(payload))
    run = research(world, "searxng")
    assert run.result.attempts[0].error == "every engine was unresponsive: duckduckgo CAPTCHA"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_keys_echoed_by_a_provider_are_redacted(world: World, provider: ProviderName) -> None:
    """A provider that echoes the key in an error body, then in its results' URL, title and
    snippet: redacted before anything records it (`check` looks everywhere)."""

    def misbehave(call: SearchCall) -> Reply | None:
        headers = call.request.headers
        key = headers.get("x-subscription-token") or headers["authorization"].split()[-1]
        if call.n == 0:
            return json_reply({"detail": f"key {key} is over its quota"}, 500)
        hits = [Hit(world.page_url("/page1") + f"?k={key}", f"Page for {key}", f"see {key}")]
        return json_reply(search_payload(call.provider, call.query, hits))

    world.search.misbehave = misbehave
    run = research(world, provider)
    first, second = run.result.attempts
    assert str(first.error).startswith("HTTP 500: key [REDACTED] is over its quota")
    (hit,) = second.results
    assert (hit.title, hit.snippet) == ("Page for [REDACTED]", "see [REDACTED]")
    assert second.pages[0].url.endswith("?k=[REDACTED]") and second.fetched == 1


# --- the model -------------------------------------------------------------------------------


def _evaluator_says(reply: Reply) -> Callable[[ModelCall], Reply]:
    return lambda call: reply


FENCED = f"```json\n{json.dumps(GOOD)}\n```"
THINK = f"<think>The user wants {{copy}}; pages look right.</think>\n{json.dumps(GOOD)}"
PROSE = f"Here is my grading:\n{json.dumps(GOOD)}\nHope this helps!"
TRAILING_COMMA = '{"relevance": 0.8, "confidence": 0.7, "coverage": 0.7, "should_retry": false,}'


@pytest.mark.parametrize(
    "content",
    [FENCED, THINK, PROSE, TRAILING_COMMA, "<think>unclosed thought " + json.dumps(GOOD)[:10]],
    ids=["fenced", "think", "prose", "trailing-comma", "unclosed-think"],
)
def test_evaluator_replies_models_wrap_are_parsed_or_recorded(world: World, content: str) -> None:
    world.model.scripts["evaluator"] = _evaluator_says(chat(content))
    run = research(world)
    first = run.result.attempts[0]
    if content.startswith("<think>unclosed"):
        assert first.evaluation is None and first.evaluator_error == "malformed"
        return
    assert first.evaluation is not None and first.evaluator_error is None
    assert (first.relevance, first.confidence, first.coverage) == (0.8, 0.7, 0.7)
    assert run.result.termination_reason == "target reached in attempt 1"


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("relevance: high, confidence: low", "malformed"),
        (
            '{"relevance": "high", "confidence": 0.5, "coverage": 0.5, "should_retry": true}',
            "schema",
        ),
        (
            '{"relevance": 0.5, "confidence": 0.5, "coverage": 0.5, "should_retry": "maybe"}',
            "schema",
        ),
        ('{"relevance": NaN, "confidence": 0.5, "coverage": 0.5, "should_retry": true}', "schema"),
        ("[0.8, 0.7, 0.7, false]", "malformed"),
        ('{"relevance": 0.8, "confidence"', "malformed"),
        ("", "malformed"),
    ],
    ids=["prose", "string-score", "string-bool", "nan", "list", "cut-off", "empty"],
)
def test_evaluator_garbage_is_an_evaluator_error(world: World, content: str, error: str) -> None:
    world.model.scripts["evaluator"] = _evaluator_says(chat(content))
    run = research(world)
    for attempt in run.result.attempts:
        assert (attempt.evaluation, attempt.evaluator_error) == (None, error)
        assert run.data["attempts"][attempt.index]["evaluator_error"] == error
        # Issue 27 §4: the model failed to grade, the evidence's grade stands.
        evidence = attempt.evidence
        assert evidence is not None and attempt.fetched == 2
        assert (attempt.relevance, attempt.coverage) == (evidence.relevance, evidence.coverage)
        assert attempt.check.startswith(f"the model's grade failed ({error})")
    assert run.result.quality.reasons == "no evaluated attempt"
    assert any("the evidence's grade stands" in note for note in run.result.notes)
    if error == "malformed":  # a reply with no JSON tries the less constrained modes
        modes = [call.mode for call in world.model.of("evaluator")]
        assert modes[:3] == ["json_schema", "json_object", "prompted"]


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=b"<html>502 Bad Gateway</html>", content_type="text/html"),
        json_reply({"choices": []}),
        json_reply({"choices": [{"message": {"role": "assistant", "content": 5}}]}),
        json_reply({"object": "error", "message": "model not loaded"}),
        Reply(body=b"", content_type=None),
    ],
    ids=["html", "no-choices", "number-content", "not-a-completion", "empty-body"],
)
def test_responses_that_are_not_chat_completions_are_recorded(world: World, reply: Reply) -> None:
    world.model.scripts["optimiser"] = lambda call: reply
    run = research(world)
    first = run.result.attempts[0]
    assert first.query_source == "goal (optimiser failed: malformed)"
    assert first.fetched == 2 and run.result.termination_reason == "target reached in attempt 1"


def test_a_list_wrapping_the_object_is_read(world: World) -> None:
    world.model.scripts["evaluator"] = _evaluator_says(chat(f"[{json.dumps(GOOD)}]"))
    run = research(world)
    assert run.result.attempts[0].relevance == 0.8


def test_scores_outside_0_1_are_clamped(world: World) -> None:
    graded = {"relevance": 7, "confidence": -2, "coverage": 1.04, "should_retry": False}
    world.model.scripts["evaluator"] = _evaluator_says(chat(graded))
    run = research(world)
    (attempt,) = run.result.attempts
    assert (attempt.relevance, attempt.confidence, attempt.coverage) == (1.0, 0.0, 1.0)
    assert attempt.score == 0.8
    assert run.data["quality"]["relevance"] == 1.0


@pytest.mark.parametrize(
    "reply",
    [
        chat("", refusal="I can't help with that."),
        chat("partial", finish_reason="content_filter"),
    ],
    ids=["refusal", "content-filter"],
)
def test_a_refusing_evaluator_is_recorded(world: World, reply: Reply) -> None:
    world.model.scripts["evaluator"] = _evaluator_says(reply)
    run = research(world)
    assert {a.evaluator_error for a in run.result.attempts} == {"refused"}
    assert run.result.findings  # the pages were read all the same


def test_a_failing_optimiser_falls_back_to_the_goal(world: World) -> None:
    world.model.scripts["optimiser"] = lambda call: chat("", refusal="no")
    run = research(world)
    attempt = run.result.attempts[0]
    assert (attempt.query, attempt.query_source) == (GOAL, "goal (optimiser failed: refused)")
    assert world.search.queries[0] == GOAL


def test_a_failing_refiner_ends_the_loop(world: World) -> None:
    world.model.scripts["evaluator"] = _evaluator_says(
        chat({**GOOD, "relevance": 0.2, "should_retry": True})
    )
    world.model.scripts["refiner"] = lambda call: json_reply({"error": {"message": "boom"}}, 404)
    run = research(world)
    assert len(run.result.attempts) == 1
    assert run.result.termination_reason == "refiner failed (http_404): no further attempt"


def test_500_then_success_is_retried(world: World) -> None:
    world.model.scripts["optimiser"] = lambda call: (
        json_reply({"error": {"message": "overloaded"}}, 500) if call.n == 0 else chat(PLAN)
    )
    run = research(world)
    assert run.result.attempts[0].query_source == "optimiser"
    assert len(world.model.of("optimiser")) == 2
    assert run.model_sleeps == [0.01]


def test_429_with_retry_after_is_honoured_within_a_bound(world: World) -> None:
    world.model.scripts["optimiser"] = lambda call: (
        json_reply({"error": {"message": "rate"}}, 429, {"Retry-After": "2"})
        if call.n < 2
        else chat(PLAN)
    )
    run = research(world)
    assert run.result.attempts[0].query_source == "optimiser"
    assert run.model_sleeps == [0.2, 0.2]  # Retry-After asked for 2 s, within the 3 s deadline
    assert len(world.model.of("optimiser")) == 3


def test_a_model_asking_to_retry_past_its_deadline_is_not_waited_for(world: World) -> None:
    """Issue 25: a Retry-After no deadline holds (an hour, with 3 s per call) fails each call
    at once, after one request and no wait: the run goes on without the model's answers."""
    for kind in ("optimiser", "evaluator", "refiner"):
        world.model.scripts[kind] = lambda call: json_reply(
            {"error": {"message": "rate"}}, 429, {"Retry-After": "3600"}
        )
    run = research(world)
    assert run.result.attempts[0].query_source == "goal (optimiser failed: http_429)"
    assert len(world.model.of("optimiser")) == 1
    assert [call.n for call in world.model.of("evaluator")] == [0]  # one request a call
    # The pages answer the goal: the evidence's grade stands and meets the target.
    assert run.result.termination_reason == "target reached in attempt 1"
    assert run.result.attempts[0].evaluator_error == "http_429"
    assert run.model_sleeps == []


def test_a_model_that_keeps_failing_gives_up_after_the_retries(world: World) -> None:
    world.model.scripts["optimiser"] = lambda call: json_reply({"error": "down"}, 503)
    run = research(world)
    assert run.result.attempts[0].query_source == "goal (optimiser failed: http_503)"
    assert len(world.model.of("optimiser")) == 3  # 1 + max_retries


def test_a_model_slower_than_its_timeout(world: World) -> None:
    world.model.scripts["optimiser"] = lambda call: Reply(delay_s=5)
    run = research(world, model_timeout_s=0.3)
    assert run.result.attempts[0].query_source == "goal (optimiser failed: timeout)"
    assert run.result.termination_reason == "target reached in attempt 1"
    # The 0.3 s bound cut the 5 s answer once; a timeout is not retried, so nothing waited.
    assert len(world.model.of("optimiser")) == 1 and run.model_sleeps == []


def test_json_schema_rejected_with_400_degrades_and_is_remembered(world: World) -> None:
    def reject_schema(default: Callable[[ModelCall], Reply]) -> Callable[[ModelCall], Reply]:
        def script(call: ModelCall) -> Reply:
            if call.mode == "json_schema":
                message = "response_format type json_schema is not supported"
                return json_reply({"error": {"message": message}}, 400)
            return default(call)

        return script

    world.model.scripts = {
        "optimiser": reject_schema(default_reply),
        "evaluator": reject_schema(default_reply),
    }
    run = research(world)
    assert run.result.attempts[0].query_source == "optimiser"
    assert run.result.termination_reason == "target reached in attempt 1"
    assert [call.mode for call in world.model.calls] == [
        "json_schema",
        "json_object",
        "json_object",
    ]
    assert run.chat.mode == "json_object"


def test_a_key_echoed_by_the_model_is_scrubbed(world: World) -> None:
    def echo(call: ModelCall) -> Reply:
        key = call.request.headers["authorization"].removeprefix("Bearer ")
        if call.kind == "optimiser":
            return json_reply({"error": {"message": f"Incorrect API key provided: {key}"}}, 401)
        return chat({**GOOD, "reasons": f"graded with key {key}"})

    world.model.scripts = {"optimiser": echo, "evaluator": echo}
    run = research(world)
    assert run.result.attempts[0].query_source == "goal (optimiser failed: http_401)"
    assert LLM_KEY not in run.result.quality.reasons


# --- pages -----------------------------------------------------------------------------------

PRIVATE_HOSTS = [
    "127.0.0.1:{port}",
    "2130706433:{port}",
    "0x7f.1:{port}",
    "0x7f000001:{port}",
    "0177.0.0.1:{port}",
    "017700000001:{port}",
    "127.1:{port}",
    "127.0.0.1.:{port}",
    "0:{port}",
    "[::1]:{port}",
    "[::ffff:127.0.0.1]:{port}",
    "[::ffff:7f00:1]:{port}",
    "[64:ff9b::7f00:1]:{port}",
    "[2002:7f00:1::]:{port}",
    "localhost:{port}",
    "LocalHost.:{port}",
    "app.localhost:{port}",
    "169.254.169.254",
    "metadata.google.internal",
    "[fd00:ec2::254]",
    "10.0.0.5:{port}",
    "100.64.0.1:{port}",
    "192.168.1.1",
    "172.16.0.1:{port}",
    "public.test@127.0.0.1:{port}",
    "public.test:{port}@127.0.0.1:{port}",
    "127.0.0.1:{port}@public.test:{port}",
    "user:pass@public.test:{port}",
    "internal.test:{port}",
    "mixed.test:{port}",
    "mapped.test:{port}",
    "loopback2.test:{port}",
    "metadata.test:{port}",
    "nat64.test:{port}",
    "public.test:1",
]


def _wrong(expected: Callable[[PageRead], bool], pages: Sequence[PageRead]) -> list[str]:
    """The pages that do not meet `expected`, each with what happened to it."""
    return [
        f"{p.url}: allowed={p.allowed} rule={p.rule} error={p.error}"
        for p in pages
        if not expected(p)
    ]


def _blocked(page: PageRead) -> bool:
    return not page.allowed and page.text == "" and str(page.error).startswith("blocked: ")


def test_result_urls_in_private_spellings_are_never_contacted(world: World) -> None:
    port = world.page_server.port
    # A query apiece: the providers drop repeated URLs (and `user@` does not make one new).
    evil = [f"http://{h.format(port=port)}/secret?{i}" for i, h in enumerate(PRIVATE_HOSTS)]
    good = world.page_url("/page1")
    world.search.hits = [Hit(good, "Page 1"), *(Hit(url, "Secrets") for url in evil)]
    run = research(world, budgets=Budgets(max_results=len(evil) + 1))
    (attempt,) = run.result.attempts
    assert [page.url for page in attempt.pages] == [good, *evil]
    assert _wrong(_blocked, attempt.pages[1:]) == []
    assert attempt.fetched == 1 and [f.url for f in run.result.findings] == [good]
    assert world.page_server.paths == ["/page1"]  # the counter: nothing else was asked for
    assert run.dialled == [("127.0.0.1", f"public.test:{port}")]
    reported = run.data["attempts"][0]["findings"]
    assert [(f["allowed"], f["verdict"]) for f in reported[1:]] == [
        (False, page.rule) for page in attempt.pages[1:]
    ]
    rules = {page.rule for page in attempt.pages[1:]}
    assert rules == {
        "address-blocked",
        "address-literal",
        "blocked-host",
        "invalid-url",
        "port",
        "userinfo",
    }


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_s_results_go_through_the_policy(
    world: World, provider: ProviderName
) -> None:
    port = world.page_server.port
    hosts = PRIVATE_HOSTS[:20]  # Tavily and Brave return at most 20 results
    world.search.hits = [
        Hit(f"http://{h.format(port=port)}/secret?{i}", h) for i, h in enumerate(hosts)
    ]
    run = research(world, provider, budgets=Budgets(max_results=20))
    attempts = run.result.attempts
    assert [len(a.pages) for a in attempts] == [20] * len(attempts)
    assert _wrong(_blocked, [page for a in attempts for page in a.pages]) == []
    assert world.page_server.requests == [] and run.dialled == []
    assert world.model.of("evaluator") == []  # nothing read: nothing to grade
    assert run.result.findings == [] and WEAK in run.result.warnings


def _refused_redirect(page: PageRead) -> bool:
    """Blocked at the redirect's target — or, for a target httpx cannot even parse
    (`0177.0.0.1`), an unusable redirect; never read."""
    error = str(page.error)
    return page.text == "" and (
        _blocked(page) or (error.startswith("redirects: unusable Location") and page.allowed)
    )


def _redirect(location: str, status: int = 302) -> Reply:
    return Reply(status, b"", "text/html", {"Location": location})


REDIRECT_TARGETS = [
    "127.0.0.1:{port}",
    "2130706433:{port}",
    "0x7f.1:{port}",
    "0177.0.0.1:{port}",
    "127.1:{port}",
    "[::1]:{port}",
    "[::ffff:127.0.0.1]:{port}",
    "localhost:{port}",
    "169.254.169.254",
    "10.0.0.5:{port}",
    "100.64.0.1:{port}",
    "internal.test:{port}",
    "mixed.test:{port}",
    "public.test@127.0.0.1:{port}",
]


def test_redirects_to_private_addresses_are_never_followed(world: World) -> None:
    port = world.page_server.port
    starts = []
    # Every target twice, every redirect status many times (a result list holds ≤ 50).
    statuses = itertools.cycle((301, 302, 303, 307, 308))
    pairs = [(target, next(statuses)) for target in REDIRECT_TARGETS for _ in range(2)]
    for index, (target, status) in enumerate(pairs):
        world.pages[f"/start{index}"] = _redirect(
            f"http://{target.format(port=port)}/secret", status
        )
        starts.append(world.page_url(f"/start{index}"))
    world.search.hits = [Hit(url, "Start") for url in starts]
    run = research(world, max_attempts=1, budgets=Budgets(max_results=len(starts)))
    (attempt,) = run.result.attempts
    assert _wrong(_refused_redirect, attempt.pages) == []
    assert sorted(world.page_server.paths) == sorted(f"/start{i}" for i in range(len(starts)))
    assert {address for address, _ in run.dialled} == {"127.0.0.1"}
    assert {host for _, host in run.dialled} == {f"public.test:{port}"}


def test_a_redirect_to_a_public_name_is_followed(world: World) -> None:
    world.pages["/start"] = _redirect(world.page_url("/page2", "other.test"), 301)
    start = world.page_url("/start")
    world.search.hits = [Hit(start, "Start")]
    run = research(world)
    page = run.page(0, start)
    assert page.allowed and page.error is None and page.title == "Page 2"
    assert run.dialled[-1] == ("127.0.0.1", f"other.test:{world.page_server.port}")


@functools.cache
def _bomb() -> bytes:
    return gzip.compress(b"\0" * (20 * 1024 * 1024), compresslevel=9)


BIG = b"<html><body><p>" + b"x" * 200_000 + b"</p></body></html>"
HTML = "text/html"


def _bad_pages() -> dict[str, tuple[Reply, str]]:
    """Path → (the page, how its failure is recorded)."""
    gzip_header = {"Content-Encoding": "gzip"}
    return {
        "/oversize": (Reply(body=BIG, content_type=HTML), "too-large: Content-Length"),
        "/oversize-streamed": (
            Reply(body=BIG, content_type=HTML, content_length=False),
            "too-large: the body passed",
        ),
        "/gzip-bomb": (
            Reply(body=_bomb(), content_type=HTML, headers=gzip_header),
            "too-large: the body passed",
        ),
        "/png": (Reply(body=b"\x89PNG\r\n", content_type="image/png"), "content-type"),
        "/octet-stream": (
            Reply(body=b"\0\1\2", content_type="application/octet-stream"),
            "content-type",
        ),
        "/json": (Reply(body=b"{}", content_type="application/json"), "content-type"),
        "/no-content-type": (Reply(body=b"<p>x</p>", content_type=None), "content-type"),
        "/corrupt-gzip": (Reply(body=b"nope", content_type=HTML, headers=gzip_header), "decode"),
        "/brotli": (
            Reply(body=b"xx", content_type=HTML, headers={"Content-Encoding": "br"}),
            "decode",
        ),
        "/slow": (Reply(body=b"<p>late</p>", content_type=HTML, delay_s=5), "timeout"),
        "/404": (Reply(404, b"missing", HTML), "status: HTTP 404"),
        "/500": (Reply(500, b"oops", HTML), "status: HTTP 500"),
        "/redirect-loop": (_redirect("/redirect-loop"), "redirects: more than"),
        "/no-location": (Reply(302, b"", HTML), "redirects: a redirect without a Location"),
        "/empty-page": (Reply(body=b"<html><p>hi</p></html>", content_type=HTML), "no main text"),
        "/nowhere": (Reply(), "dns: "),  # on a name that does not resolve
    }


def test_bad_pages_are_recorded_and_the_good_one_is_read(world: World) -> None:
    bad = _bad_pages()
    for path, (reply, _) in bad.items():
        world.pages[path] = reply
    urls = {
        path: world.page_url(path, "nowhere.test" if path == "/nowhere" else "public.test")
        for path in bad
    }
    good = world.page_url("/page1")
    world.search.hits = [Hit(good, "Page 1"), *(Hit(url, path) for path, url in urls.items())]
    limits = FetchLimits(
        max_bytes=64 * 1024, max_redirects=2, connect_timeout=1, read_timeout=1, total_timeout=0.5
    )
    run = research(world, limits=limits, budgets=Budgets(max_results=len(urls) + 1))
    (attempt,) = run.result.attempts
    recorded = {page.url: page for page in attempt.pages}
    wrong = {
        path: recorded[url].error
        for path, url in urls.items()
        if not (
            recorded[url].text == ""
            and str(recorded[url].error).startswith(bad[path][1])
            and recorded[url].allowed
        )
    }
    assert wrong == {}
    assert attempt.fetched == 1 and run.result.termination_reason == "target reached in attempt 1"
    (finding,) = run.data["findings"]
    assert finding["url"] == good
    assert [f["error"] for f in run.data["attempts"][0]["findings"]] == [
        page.error for page in attempt.pages
    ]
    assert world.page_server.hits("/redirect-loop") == 3  # the first request and two hops
    # The 0.5 s total bound cut the page that answers in 5 s ("timeout" above), once.
    assert world.page_server.hits("/slow") == 1


def test_when_every_page_fails_nothing_is_graded(world: World) -> None:
    world.pages["/page1"] = Reply(body=b"\x89PNG", content_type="image/png")
    world.pages["/page2"] = Reply(body=BIG, content_type="text/html")
    run = research(world)
    assert all(a.fetched == 0 and a.score == 0.0 for a in run.result.attempts)
    assert world.model.of("evaluator") == []
    assert run.result.quality.reasons == "no evaluated attempt"
    assert WEAK in run.result.warnings and run.result.findings == []


# --- the public wiring ----------------------------------------------------------------------


def test_run_research_refuses_private_results_with_the_default_policy(world: World) -> None:
    """`run_research`, as the command line and the window call it: its own clients, the
    default web policy. Results pointing at the page server by private spellings are refused
    (the page server counts no request); the model's key reaches the model only."""
    port = world.page_server.port
    world.search.hits = [
        Hit(f"http://{host.format(port=port)}/secret?{i}", host)
        for i, host in enumerate(PRIVATE_HOSTS[:10])
    ]
    settings = ResearchSettings(
        search="searxng",
        searxng_url=world.search_server.url(),
        llm="openai",
        llm_url=world.llm_server.url("/v1"),
        model="test-model",
        max_attempts=1,
    )
    seen: list[Attempt] = []
    result = asyncio.run(
        run_research(GOAL, settings, keys={"OPENAI_API_KEY": LLM_KEY}, on_attempt=seen.append)
    )
    assert isinstance(result, DeepResearchResult) and seen == result.attempts
    (attempt,) = result.attempts
    assert (attempt.status, attempt.query_source, len(attempt.pages)) == (200, "optimiser", 5)
    assert _wrong(_blocked, attempt.pages) == []
    assert world.page_server.requests == []
    text = json.dumps(research_report_data(result)) + report_markdown(result) + repr(result)
    assert LLM_KEY not in text and WEAK in result.warnings
    assert {c.request.headers["authorization"] for c in world.model.calls} == {f"Bearer {LLM_KEY}"}


# --- the command line ------------------------------------------------------------------------


def test_the_cli_prints_a_report_when_the_providers_fail(world: World) -> None:
    """`routescope research --json` with SearXNG and an OpenAI-compatible model on loopback:
    the search fails, then answers with private result URLs (the default policy refuses them
    all); the model's key never shows; exit code 0."""
    port = world.page_server.port
    world.search.hits = [
        Hit(f"http://127.0.0.1:{port}/secret", "loopback"),
        Hit(f"http://2130706433:{port}/secret", "decimal"),
        Hit(f"http://localhost:{port}/secret", "localhost"),
    ]
    world.search.misbehave = lambda call: (
        json_reply({"detail": "upstream down"}, 500) if call.n == 0 else None
    )
    env = {**os.environ, "OPENAI_API_KEY": LLM_KEY}
    for variable in ("TAVILY_API_KEY", "BRAVE_API_KEY"):
        env.pop(variable, None)
    completed = routescope_cli(
        "research",
        "--json",
        "--search",
        "searxng",
        "--searxng-url",
        world.search_server.url(),
        "--llm",
        "openai",
        "--llm-url",
        world.llm_server.url("/v1"),
        "--model",
        "test-model",
        "--max-attempts",
        "2",
        GOAL,
        env=env,
    )
    assert completed.returncode == 0, completed.stderr
    assert LLM_KEY not in completed.stdout + completed.stderr
    data = json.loads(completed.stdout)
    assert set(data) >= {
        "final_query",
        "quality",
        "attempts",
        "findings",
        "warnings",
        "termination_reason",
        "next_step",
    }
    first, second = data["attempts"]
    assert (first["status"], first["error"]) == (500, "HTTP 500: upstream down")
    assert first["findings"] == [] and first["query"] == PLAN["query"]
    assert second["status"] == 200 and len(second["findings"]) == 3
    assert all(not f["allowed"] and f["error"].startswith("blocked") for f in second["findings"])
    assert data["findings"] == [] and WEAK in data["warnings"]
    assert data["termination_reason"] == "2 attempts made"
    assert world.page_server.requests == []
    assert {c.request.headers["authorization"] for c in world.model.calls} == {f"Bearer {LLM_KEY}"}


# --- the model checked by the evidence (issue 27 §4) --------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (401, {"error": {"message": "Incorrect API key provided"}}, "refused access (401)"),
        (403, {"error": {"message": "forbidden"}}, "refused access (403)"),
        (
            429,
            {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}},
            "quota is used up (429)",
        ),
    ],
    ids=["401", "403", "quota"],
)
def test_a_model_refusing_access_escalates_with_its_reason(
    world: World, status: int, body: dict[str, Any], said: str
) -> None:
    for kind in ("optimiser", "evaluator", "refiner"):
        world.model.scripts[kind] = lambda call, s=status, b=body: json_reply(b, s)
    run = research(world)
    step = run.result.next_step
    assert (step.outcome, step.rule) == ("escalate", "model_refused"), step.reason
    assert said in step.reason and "fix the model's access" in step.reason
    assert len(run.result.attempts) <= 1 and run.result.stop is not None
    assert run.result.stop.kind == "model_refused"
    assert "research again" not in step.reason


def test_an_overconfident_model_is_capped_by_the_pages_and_the_disagreement_warned(
    world: World,
) -> None:
    world.pages["/page1"] = Reply(body=html_page("Page 1", "Weather in Lisbon"), content_type=HTML)
    world.pages["/page2"] = Reply(body=html_page("Page 2", "Ferry timetables"), content_type=HTML)
    sure = {"relevance": 1.0, "confidence": 1.0, "coverage": 1.0, "should_retry": False}
    world.model.scripts["evaluator"] = _evaluator_says(chat(sure))
    run = research(world, max_attempts=1)
    (attempt,) = run.result.attempts
    evidence = attempt.evidence
    assert evidence is not None and evidence.relevance < 0.5
    assert attempt.relevance <= evidence.relevance + 0.1
    assert attempt.coverage <= evidence.coverage + 0.1
    assert attempt.check.startswith("the model's scores capped at what the pages support")
    assert any("the model and the pages disagree" in w for w in run.result.warnings)
    assert run.result.next_step.rule != "target_met"


def test_a_slow_evaluator_keeps_what_the_run_read(world: World) -> None:
    """The run's deadline passes while the model grades: the attempt, its pages and the
    evidence's grade are kept, not thrown away."""
    world.model.scripts["evaluator"] = lambda call: Reply(delay_s=5)
    run = research(world, model_timeout_s=10.0, budgets=Budgets(max_results=5, run_timeout_s=1.0))
    (attempt,) = run.result.attempts
    assert attempt.fetched == 2 and attempt.evaluation is None
    assert attempt.evaluator_error is not None and "deadline" in attempt.evaluator_error
    assert attempt.evidence is not None and attempt.relevance == attempt.evidence.relevance
    assert run.result.findings and run.result.stop is not None
