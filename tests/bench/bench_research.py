"""Research benchmarks (issue 10): medians, printed as a table and written as JSON.

1. Offline research end to end: the on-machine index (warm: its passage vectors built, which
   takes minutes the first time — `--cache` keeps them between runs, default the user's cache
   folder), the embedding model reading the goal and the pages, and the heuristic model, for a
   few goals (target ≤ 150 ms so it can run as the analyst types).
2. Loop overhead per attempt excluding network: a scripted model, a provider and a reader that
   answer at once (target ≤ 5 ms).
3. 3 attempts × 5 pages against a loopback server that answers each page in 100 ms, fetched
   through the safe fetcher (target < 1.5 s).
Run: `python tests/bench/bench_research.py [--json PATH]`.
"""

from __future__ import annotations

import argparse
import asyncio
import http.server
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from routescope.llm import JsonAnswer
from routescope.llm._scripted import ScriptedChat
from routescope.research import OfflineSearch, PageRead
from routescope.research._fetch import FetchLimits, SafeFetcher
from routescope.research._heuristic_chat import HeuristicChat
from routescope.research._loop import deep_research
from routescope.research._models import SearchHit, SearchResponse
from routescope.research._offline import OfflineReader
from routescope.research._policy import WebPolicy
from routescope.research._quality import Thresholds
from routescope.research._reader import WebReader
from routescope.research._run import ResearchOptions
from routescope.research._semantic import Semantics

M = TypeVar("M", bound=BaseModel)
_UNREACHABLE = Thresholds(good_relevance=1.1)

GOALS = [
    "How do I run an asyncio event loop in a thread?",
    "parse command line arguments with argparse subcommands",
    "best ramen near Denver, Colorado",
    "compare json and pickle for saving data",
]


class _Search:
    name = "bench"

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls

    async def search(self, query: str, *, max_results: int = 5) -> SearchResponse:
        hits = tuple(
            SearchHit(url=url, title=f"page {i}", snippet="", rank=i, provider="bench")
            for i, url in enumerate(self.urls[:max_results], start=1)
        )
        return SearchResponse(
            provider="bench",
            query=query,
            original_query=query,
            query_action="sent",
            status=200,
            url="https://bench.invalid",
            results=hits,
            duration_ms=0.0,
        )


class _Reader:
    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        return [
            PageRead(u, True, "any-host", 200, None, "t", "asyncio event loop " * 50) for u in urls
        ]


def _three_attempts() -> ScriptedChat:
    state = {"refined": 0}

    def reply(name: str, system: str, user: str) -> str:
        if name == "search_query_optimizer":
            return '{"query": "asyncio loop", "reason": "r"}'
        if name == "research_query_refiner":
            state["refined"] += 1
            return json.dumps({"query": f"asyncio loop {state['refined']}", "should_retry": True})
        relevance = 0.3 + 0.1 * state["refined"]
        return json.dumps(
            {
                "relevance": relevance,
                "confidence": 0.5,
                "coverage": 0.4,
                "should_retry": True,
                "reasons": "r",
            }
        )

    return ScriptedChat(reply)


class _HeuristicThreeAttempts:
    """The heuristic model doing all its work, with its stop decisions overridden so that every
    run makes exactly 3 attempts (it would often stop after 1: the cost of a full run)."""

    def __init__(self) -> None:
        self._inner = HeuristicChat()
        self._graded = 0

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]:
        answer = await self._inner.complete_json(system, user, schema, name=name)
        value = answer.value
        if value is None:
            return answer
        if name == "research_relevance_evaluator":
            self._graded += 1
            rising = 0.2 * self._graded  # every grade, so the score rises: no early stop
            update = {
                "relevance": rising,
                "coverage": rising,
                "confidence": rising,
                "should_retry": True,
            }
        elif name == "research_query_refiner":
            words = str(getattr(value, "query", "")).split() or ["python"]
            words = words if len(words) > 1 else [*words, "python"]
            turn = self._graded % len(words)  # another order: a new query, the same work
            update = {"should_retry": True, "query": " ".join(words[turn:] + words[:turn])}
        else:
            return answer
        return replace(answer, value=value.model_copy(update=update))


def _median_ms(runs: int, make: object) -> tuple[float, list[float]]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        asyncio.run(make())  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), times


class _Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        time.sleep(0.1)
        body = (
            b"<html><head><title>t</title></head><body><main><p>"
            + b"asyncio loop text " * 40
            + b"</p></main></body></html>"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--cache", type=Path, help="the offline index's cache folder (default: the user's)"
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        index = OfflineSearch(cache=args.cache or None, semantic=True)
        del scratch
        started = time.perf_counter()
        stats = index.open()
        vectors = index.passage_vectors()
        embedder = index.query_embedder()
        build_s = time.perf_counter() - started
        reader = OfflineReader(index)

        def semantics(goal: str) -> Semantics | None:
            if vectors is None or embedder is None:
                return None
            return Semantics(goal, embedder, vectors)

        attempts: list[int] = []
        per_goal: list[float] = []
        per_goal_three: list[float] = []
        for goal in GOALS:

            async def offline(goal: str = goal) -> None:
                result = await deep_research(
                    goal,
                    search=index,
                    reader=reader,
                    llm=HeuristicChat(),
                    options=ResearchOptions(semantics=semantics(goal), model="heuristic"),
                )
                attempts.append(len(result.attempts))

            async def three(goal: str = goal) -> None:
                result = await deep_research(
                    goal,
                    search=index,
                    reader=reader,
                    llm=_HeuristicThreeAttempts(),
                    options=ResearchOptions(
                        thresholds=_UNREACHABLE,
                        max_attempts=3,
                        semantics=semantics(goal),
                        model="heuristic",
                    ),
                )
                assert len(result.attempts) == 3, result.termination_reason

            asyncio.run(offline())  # warm
            median, _ = _median_ms(args.runs, offline)
            per_goal.append(median)
            median, _ = _median_ms(args.runs, three)
            per_goal_three.append(median)
        rows.append(
            (
                "offline research end to end, 3 attempts (median over goals)",
                statistics.median(per_goal_three),
                150.0,
                f"{stats.documents} docs, "
                + (
                    f"{vectors.count} passage vectors, index and vectors ready in {build_s:.1f} s"
                    if vectors is not None
                    else f"no embedding model, index build {build_s:.2f} s"
                ),
            )
        )
        rows.append(
            (
                "offline research as the heuristic stops it",
                statistics.median(per_goal),
                150.0,
                f"attempts {min(attempts)}–{max(attempts)}",
            )
        )

    async def overhead() -> None:
        await deep_research(
            "asyncio loop",
            search=_Search([f"https://e.invalid/{i}" for i in range(5)]),
            reader=_Reader(),
            llm=_three_attempts(),
            options=ResearchOptions(max_attempts=3),
        )

    median, _ = _median_ms(args.runs, overhead)
    rows.append(
        (
            "loop overhead per attempt, no network",
            median / 3,
            5.0,
            "3 attempts × 5 pages, scripted model",
        )
    )

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    port = httpd.server_address[1]

    async def resolve(host: str, port_: int) -> Sequence[str]:
        return ["127.0.0.1"]

    policy = WebPolicy(allowed_hosts=(), allowed_ports=(port,), trusted_addresses=("127.0.0.1",))
    fetcher = SafeFetcher(policy, FetchLimits(total_timeout=10), resolver=resolve)
    urls = [f"http://docs{i}.test:{port}/page" for i in range(5)]

    async def loopback() -> None:
        await deep_research(
            "asyncio loop",
            search=_Search(urls),
            reader=WebReader(fetcher, concurrency=5),
            llm=_three_attempts(),
            options=ResearchOptions(max_attempts=3),
        )

    median, _ = _median_ms(max(3, args.runs // 3), loopback)
    httpd.shutdown()
    httpd.server_close()
    rows.append(
        ("3 attempts × 5 pages, loopback 100 ms/page", median, 1500.0, "safe fetcher, 5 at a time")
    )

    print(f"{'figure':<52}{'median':>12}{'target':>10}  verdict  note")
    for name, value, target, note in rows:
        verdict = "meets" if value <= target else "MISSES"
        print(f"{name:<52}{value:>9.1f} ms{target:>7.0f} ms  {verdict:<7}  {note}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(
                [
                    {"figure": n, "median_ms": v, "target_ms": t, "note": note}
                    for n, v, t, note in rows
                ],
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
