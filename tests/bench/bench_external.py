"""`make bench`: external routers in a batch (issue 29).

- An HTTP router (the `vllm-semantic-router` preset) on a loopback service that answers after
  a fixed 50 ms (examples/routers/demo_server.py, a process of its own): `routescope batch
  --router` at concurrency 1, 4 and 8 must reach the declared concurrency — prompts/s ≈
  concurrency / latency (target: ≥ 80 % of it). Beside it
  in the same run: that ideal, a bare httpx client at the same concurrency against the same
  service (the ceiling of the client library and the machine), and the router alone
  (`route_many`, no batch). The effective concurrency is the rate × the mean latency the
  records hold.
- The cause of the drop once seen at concurrency 8, measured: the same batch against the same
  service as Python's `http.server` comes (`--close --backlog 5`: every answer closes its
  connection, and connects past the sixth are dropped and retried by the client a second
  later).
- A semantic-router file (examples/routers/support-router.yaml) routed with the shipped model:
  `route_many` must run at the embedding model's batched throughput (target: ≥ 80 %), beside
  the model's own batched embedding of the same prompts, `route()` one prompt at a time, and a
  batch with `--router support`.

Each figure is the median of `--repeats` runs; the semantic router and the model take turns
over the same 64-prompt batches in each run, and their figures are those of the run whose
share is the median.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from _figures import table, write_figures
from bench_inspect import prompts

from routescope.batch import BatchOptions, run_batch
from routescope.external import open_router

LATENCY_S = 0.05
CONCURRENCY = (1, 4, 8)
TARGET_SHARE = 0.8
"""Of the ideal prompts/s (concurrency / latency), and of the model's batched throughput."""
SECONDS_A_RUN = 4.0
"""Prompts per HTTP run: what the ideal rate routes in this long (a batch's fixed cost, about
0.15 s to plan, route the built-in stages and write, weighs 4 % of it)."""
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "routers"
_SERVER = EXAMPLES / "demo_server.py"
_PREVIEW = "/api/v1/routing/preview"

Row = tuple[str, str, str, str]


@contextlib.contextmanager
def service(*options: str, latency_s: float = LATENCY_S) -> Iterator[str]:
    """The slow routing service in a process of its own; its URL."""
    latency = f"{latency_s * 1000:g}"
    process = subprocess.Popen(
        [sys.executable, str(_SERVER), "--port", "0", "--latency-ms", latency, *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().split()[-1]
    finally:
        process.kill()
        process.wait()


def median(runs: Callable[[], float], repeats: int) -> float:
    return statistics.median(runs() for _ in range(repeats))


async def _bare(url: str, concurrency: int, texts: list[str]) -> float:
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, trust_env=False) as client:

        async def one(text: str) -> None:
            async with gate:
                body = {"model": "auto", "text": text}
                (await client.post(f"{url}{_PREVIEW}", json=body)).json()

        await asyncio.gather(*(one(text) for text in texts[:concurrency]))  # connect
        started = time.perf_counter()
        await asyncio.gather(*(one(text) for text in texts))
        return len(texts) / (time.perf_counter() - started)


def bare_client(url: str, concurrency: int, texts: list[str]) -> float:
    """Prompts/s of a bare httpx client at `concurrency` (connections opened first)."""
    return asyncio.run(_bare(url, concurrency, texts))


def declare(folder: Path, url: str, concurrency: int) -> Path:
    path = folder / f"routers-{concurrency}.toml"
    path.write_text(
        f'[routers.svc]\nkind = "http"\npreset = "vllm-semantic-router"\nurl = "{url}"\n'
        f"concurrency = {concurrency}\n"
    )
    return path


def router_alone(routers: Path, texts: list[str]) -> float:
    router = open_router(routers, "svc")
    started = time.perf_counter()
    decided = router.route_many(texts)
    rate = len(texts) / (time.perf_counter() - started)
    assert all(decision.ok for decision in decided), [d.error for d in decided if d.error]
    return rate


class BatchRun:
    """`run_batch` of a log through one router, each run into a new results file."""

    def __init__(self, folder: Path, texts: list[str]) -> None:
        self.folder = folder
        self.log = folder / f"log-{len(texts)}-{id(self)}.jsonl"
        self.log.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in texts))
        self.count = len(texts)
        self.runs = 0
        self.latencies: list[float] = []

    def __call__(self, routers: Path, name: str) -> float:
        self.runs += 1
        out = self.folder / f"out-{id(self)}-{self.runs}.jsonl"
        options = BatchOptions(routers=routers, router_names=(name,))
        started = time.perf_counter()
        summary = run_batch([str(self.log)], out, options, progress=False)
        rate = self.count / (time.perf_counter() - started)
        assert summary.prompts == self.count and not summary.router_errors, summary
        with out.open(encoding="utf-8") as results:
            self.latencies = [json.loads(line)["routers"][name]["latency_ms"] for line in results]
        return rate


def http_figures(repeats: int, folder: Path) -> tuple[dict[str, Any], list[Row]]:
    figures: dict[str, Any] = {"latency_ms": LATENCY_S * 1000, "concurrency": {}}
    rows: list[Row] = []
    with service() as url:
        for concurrency in CONCURRENCY:
            ideal = concurrency / LATENCY_S
            texts = prompts(50, int(ideal * SECONDS_A_RUN), seed=concurrency)
            routers = declare(folder, url, concurrency)
            bare = median(functools.partial(bare_client, url, concurrency, texts), repeats)
            alone = median(functools.partial(router_alone, routers, texts), repeats)
            batch = BatchRun(folder, texts)
            rate = median(functools.partial(batch, routers, "svc"), repeats)
            mean_ms = statistics.fmean(batch.latencies)
            found = {
                "prompts": len(texts),
                "ideal_per_s": ideal,
                "bare_client_per_s": round(bare, 1),
                "router_alone_per_s": round(alone, 1),
                "batch_per_s": round(rate, 1),
                "batch_share_of_ideal": round(rate / ideal, 3),
                "batch_mean_latency_ms": round(mean_ms, 1),
                "batch_max_latency_ms": round(max(batch.latencies), 1),
                "effective_concurrency": round(rate * mean_ms / 1000, 2),
            }
            figures["concurrency"][str(concurrency)] = found
            met = rate >= TARGET_SHARE * ideal
            rows += [
                (
                    f"batch via HTTP router, concurrency {concurrency}, {LATENCY_S * 1000:g} ms",
                    f"{rate:.1f} prompts/s ({rate / ideal:.0%} of {ideal:g})",
                    f"≥ {TARGET_SHARE:.0%} of c / latency",
                    "met" if met else "MISSED",
                ),
                (
                    "  bare httpx client · router alone (route_many)",
                    f"{bare:.1f} · {alone:.1f} prompts/s",
                    "",
                    "",
                ),
                (
                    "  effective concurrency · mean · max latency",
                    f"{found['effective_concurrency']:.2f} · {mean_ms:.1f} ms · "
                    f"{max(batch.latencies):.0f} ms",
                    "",
                    "",
                ),
            ]
    with service("--close", "--backlog", "5") as url:
        concurrency = CONCURRENCY[-1]
        ideal = concurrency / LATENCY_S
        texts = prompts(50, int(ideal * SECONDS_A_RUN), seed=concurrency)
        routers = declare(folder, url, concurrency)
        batch = BatchRun(folder, texts)
        rate = median(functools.partial(batch, routers, "svc"), repeats)
        figures["http10_backlog5"] = {
            "concurrency": concurrency,
            "batch_per_s": round(rate, 1),
            "batch_max_latency_ms": round(max(batch.latencies), 1),
            "slow_connects": sum(ms > 900 for ms in batch.latencies),
        }
        rows.append(
            (
                f"  cause of the old drop: the same at {concurrency}, the service as "
                "http.server comes (closing each connection, backlog 5)",
                f"{rate:.1f} prompts/s ({rate / ideal:.0%}); "
                f"{figures['http10_backlog5']['slow_connects']} answers > 0.9 s, "
                f"max {max(batch.latencies):.0f} ms",
                "",
                "",
            )
        )
    return figures, rows


def semantic_figures(repeats: int, folder: Path, count: int) -> tuple[dict[str, Any], list[Row]]:
    from routescope.toolsearch import MiniLMOnnx

    texts = prompts(50, count, seed=29)
    model = MiniLMOnnx()
    model.embed(texts[:1])  # the model loaded: what starting the router adds is its own

    def started() -> float:
        begun = time.perf_counter()
        open_router(EXAMPLES / "routers.toml", "support").close()
        return time.perf_counter() - begun

    start_s = median(started, repeats)
    router = open_router(EXAMPLES / "routers.toml", "support")
    batch_size = 64  # the router's own batches (external/_semantic.py)
    model.embed(texts[:batch_size])
    router.route_many(texts[:batch_size])

    def side_by_side() -> tuple[float, float]:
        """Prompts/s of the model's batched embedding and of `route_many`, a batch of each in
        turn over the same prompts (both meet the same load of the machine)."""
        spent = [0.0, 0.0]
        for start in range(0, len(texts), batch_size):
            part = texts[start : start + batch_size]
            for index, work in enumerate((model.embed, router.route_many)):
                begun = time.perf_counter()
                work(part)
                spent[index] += time.perf_counter() - begun
        return len(texts) / spent[0], len(texts) / spent[1]

    def one_by_one() -> float:
        some = texts[:batch_size]
        started = time.perf_counter()
        for text in some:
            router.route(text)
        return len(some) / (time.perf_counter() - started)

    runs = sorted((side_by_side() for _ in range(repeats)), key=lambda run: run[1] / run[0])
    model_rate, router_rate = runs[len(runs) // 2]  # the run of the median share
    share = router_rate / model_rate
    single_rate = median(one_by_one, repeats)
    batch = BatchRun(folder, texts)
    batch_rate = median(functools.partial(batch, EXAMPLES / "routers.toml", "support"), repeats)
    figures = {
        "prompts": len(texts),
        "embed_batched_per_s": round(model_rate, 1),
        "route_many_per_s": round(router_rate, 1),
        "route_many_share": round(share, 3),
        "route_one_by_one_per_s": round(single_rate, 1),
        "batch_per_s": round(batch_rate, 1),
        "router_start_s": round(start_s, 3),
    }
    met = share >= TARGET_SHARE
    rows: list[Row] = [
        (
            f"semantic-router kind, route_many of {len(texts)} prompts",
            f"{router_rate:.1f} prompts/s ({share:.0%} of the model's)",
            f"≥ {TARGET_SHARE:.0%} of the model",
            "met" if met else "MISSED",
        ),
        ("  the model's own batched embedding (64 a call)", f"{model_rate:.1f} prompts/s", "", ""),
        ("  route() one prompt at a time", f"{single_rate:.1f} prompts/s", "", ""),
        (
            "  batch --router support (the whole batch, the router started in it)",
            f"{batch_rate:.1f} prompts/s",
            "",
            "",
        ),
        (
            "  starting the router (the file read, its utterances embedded)",
            f"{start_s:.2f} s",
            "",
            "",
        ),
    ]
    return figures, rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--semantic-prompts", type=int, default=512)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-external-") as name:
        folder = Path(name)
        http, rows = http_figures(args.repeats, folder)
        semantic, more = semantic_figures(args.repeats, folder, args.semantic_prompts)
    rows += more
    print(f"external routers ({args.repeats} repeats, medians)")
    print(table(rows))
    if args.json:
        write_figures(
            args.json,
            {"http": http, "semantic": semantic, "target_share": TARGET_SHARE},
            rows,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
