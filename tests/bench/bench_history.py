"""`make bench`: the history store (issue 19 §2) on a store of 100,000 entries.

Recording one inspected prompt (a new entry, and the same request again), with
`synchronous=NORMAL` (the default) and `FULL`: median and p95, which must stay far below 1 ms
so that keystroke-to-paint stays within 8 ms with history on. Search over the 100k entries
(words, prefixes, filters, the plain recent list): ≤ 50 ms each (p95). Opening the store and
restoring the last session: ≤ 50 ms (p95). The store is in a temporary folder on the same
disk as the working folder would be. `--entries N` for a smaller store (a smoke run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _figures import table, write_figures

import routescope
from routescope import Inspection, Request
from routescope.history import History, LastSession

TODAY = dt.date(2026, 2, 5)
TARGET_RECORD_P95_MS = 1.0
"""Far below this: the window records on the UI thread after each (debounced) inspection."""
TARGET_SEARCH_MS = 50.0
TARGET_OPEN_MS = 50.0

_SENTENCES = [
    "How do I install FastAPI on Ubuntu 24.04 with Docker?",
    "Best ramen near Denver, Colorado open tonight.",
    "What changed in the latest release of PostgreSQL this week?",
    "My GitHub Actions build failed with a strange error in the logs.",
    "Compare the iPhone and the Pixel on price and battery life.",
    "Show best lending pools",
    "Try again with 100 USDC",
    "Where can I buy a used bicycle in Austin this weekend?",
    "Summarize the history of jazz in New Orleans.",
    "config",
    "check agent.md template creation code",
    "The Kubernetes pod keeps crashing after the upgrade, how to fix it?",
    "Recommend a good book about the Roman Empire.",
    "Which coffee shops nearby have the longest hours?",
    "Explain how the TCP handshake works, step by step.",
    "why is my container crashing after the deploy?",
]
_WORDS = [
    *("alpha", "beta", "gamma", "delta", "kafka", "redis", "nginx", "postgres", "docker"),
    *("terraform", "lambda", "ramen", "pizza", "museum", "weather", "flight", "hotel"),
    *("invoice", "refund", "budget", "ticket", "sprint", "review", "release", "migration"),
    *("schema", "index", "cache", "queue", "socket", "thread", "kernel", "driver", "router"),
]


def results() -> list[tuple[Request, Inspection]]:
    """One real inspection per sentence, half of them with the sample catalog's tools: the
    summaries the entries get."""
    from routescope.toolsearch import ToolSearch, load_catalog

    catalog = routescope.CatalogRef.sample()
    engine = ToolSearch(load_catalog(catalog.path))
    pairs = []
    for number, text in enumerate(_SENTENCES):
        with_tools = number % 2 == 0
        request = Request.build(text, today=TODAY, catalog=catalog if with_tools else None)
        pairs.append((request, routescope.inspect(request, tools=engine if with_tools else None)))
    return pairs


def fill(history: History, count: int, pairs: list[tuple[Request, Inspection]]) -> float:
    """`count` distinct entries (prompts from the sentences and random words), in seconds."""
    rng = random.Random(19)
    start = time.perf_counter()
    for number in range(count):
        request, result = pairs[number % len(pairs)]
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))
        history.record(request.replace(text=f"{request.text} {words} #{number}"), result)
    return time.perf_counter() - start


def timed(fn: Callable[[], object], rounds: int) -> list[float]:
    """Milliseconds of each of `rounds` calls (after two warm-up calls)."""
    fn()
    fn()
    gc.collect()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "max_ms": ordered[-1],
        "rounds": len(ordered),
    }


def recording(
    history: History, pairs: list[tuple[Request, Inspection]], rounds: int, tag: str
) -> dict[str, dict[str, float]]:
    counter = iter(range(10**9))
    request, result = pairs[0]

    def new() -> None:
        history.record(request.replace(text=f"{tag} new entry {next(counter)}"), result)

    again = pairs[1]
    return {
        "new": summary(timed(new, rounds)),
        "again": summary(timed(lambda: history.record(*again), rounds)),
    }


def searches(history: History, rounds: int) -> dict[str, dict[str, float]]:
    cases: dict[str, Callable[[], object]] = {
        "recent list (no query)": lambda: history.search(),
        "one common word: 'docker'": lambda: history.search("docker"),
        "two words: 'jazz orleans'": lambda: history.search("jazz orleans"),
        "a prefix being typed: 'ka'": lambda: history.search("ka"),
        "one letter: 'a'": lambda: history.search("a"),
        "a rare word: 'handshake kernel'": lambda: history.search("handshake kernel"),
        "no match: 'zzzzqq'": lambda: history.search("zzzzqq"),
        "filter: strategy local": lambda: history.search(strategy="local"),
        "filter: top tool + word": lambda: history.search("docker", top_tool="docker.build"),
        "filter: top tool + one letter": lambda: history.search("a", top_tool="git.log"),
        "filter: class vague + prefix 'con'": lambda: history.search("con", lint_class="vague"),
        "pinned": lambda: history.search(pinned=True),
        "count of 'a'": lambda: history.count("a"),
        "facets": lambda: history.facets(),
    }
    return {name: summary(timed(fn, rounds)) for name, fn in cases.items()}


def opening(path: Path, rounds: int) -> dict[str, float]:
    def open_and_restore() -> None:
        history = History.open(path)
        session = history.last_session()
        assert session is not None and history.enabled
        history.close()

    return summary(timed(open_and_restore, rounds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--entries", type=int, default=100_000, help="entries in the store")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"entries": args.entries}
    rows: list[tuple[str, str, str, str]] = []
    pairs = results()
    scratch = Path(os.environ.get("BENCH_TMP", tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix="bench-history-", dir=scratch) as folder:
        path = Path(folder) / "history.sqlite3"
        history = History.open(path)
        assert history.enabled, history.note
        seconds = fill(history, args.entries, pairs)
        figures["fill_s"] = seconds
        rows.append((f"fill: {args.entries:,} records", f"{seconds:.1f} s", "", ""))
        for entry in history.search("docker", limit=20):
            history.pin(entry.id)
        history.save_last_session(
            LastSession(prompt="Best ramen near Denver", tab="Tools", catalog=None, rules=None)
        )
        figures["record"] = {"NORMAL": recording(history, pairs, 2_000, "normal")}
        history.close()
        full = History.open(path, synchronous="FULL")
        figures["record"]["FULL"] = recording(full, pairs, 300, "full")
        full.close()
        history = History.open(path)
        for mode, kinds in figures["record"].items():
            for kind, numbers in kinds.items():
                label = f"record, {'new entry' if kind == 'new' else 'same request again'}"
                target = mode == "NORMAL"
                rows.append(
                    (
                        f"{label}, synchronous={mode}",
                        f"median {numbers['median_ms'] * 1000:.0f} µs · "
                        f"p95 {numbers['p95_ms'] * 1000:.0f} µs",
                        f"p95 ≪ {TARGET_RECORD_P95_MS:g} ms" if target else "",
                        _mark(numbers["p95_ms"] < TARGET_RECORD_P95_MS) if target else "",
                    )
                )
        figures["search"] = searches(history, 40)
        for name, numbers in figures["search"].items():
            rows.append(
                (
                    f"search {args.entries // 1000}k: {name}",
                    f"median {numbers['median_ms']:.2f} ms · p95 {numbers['p95_ms']:.2f} ms",
                    f"≤ {TARGET_SEARCH_MS:g} ms",
                    _mark(numbers["p95_ms"] <= TARGET_SEARCH_MS),
                )
            )
        history.close()
        figures["open"] = opening(path, 30)
        numbers = figures["open"]
        rows.append(
            (
                "open + restore the last session",
                f"median {numbers['median_ms']:.2f} ms · p95 {numbers['p95_ms']:.2f} ms",
                f"≤ {TARGET_OPEN_MS:g} ms",
                _mark(numbers["p95_ms"] <= TARGET_OPEN_MS),
            )
        )
        figures["store_mb"] = sum(p.stat().st_size for p in Path(folder).iterdir()) / 2**20
        rows.append(("store size on disk (with WAL)", f"{figures['store_mb']:.1f} MB", "", ""))
    print(f"history store, {args.entries:,} entries (timings: median and p95)")
    print(table(rows))
    if args.json:
        write_figures(args.json, figures, rows)
    return 0


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    sys.exit(main())
