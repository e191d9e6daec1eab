"""`make bench`: the cost of "why this decision" and of compare (issue 19 §3, §5).

- counterfactuals of a 30-word prompt without tool search: every word removed in turn and
  every deterministic router run again (target ≤ 40 ms), beside the naive way (a full
  `inspect()` per word) timed in the same run;
- the same with the sample catalog's keyword search (no target: one search per word);
- `compare()` of two prompts, `trace()` and `close_calls()` of an inspection;
- `compare_suite()` of the built-in strategy suite under a second rule pack.

Each figure is the median (and p95) over several prompts and repeats; prompts are synthetic,
realistic English cut to 30 words.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import routescope
from routescope import Request
from routescope.compare import close_calls, compare, compare_suite, counterfactuals, trace
from routescope.compare._words import cut_range, without_word, words

TARGET_COUNTERFACTUALS_MS = 40.0
WORDS = 30
_TODAY = dt.date(2026, 2, 5)
_SENTENCES = [
    "How do I install FastAPI on Ubuntu with Docker and keep the logs?",
    "Best ramen near Denver, Colorado open tonight with good reviews.",
    "What changed in the latest release of PostgreSQL this week?",
    "My GitHub Actions build failed with a strange error in the logs.",
    "Compare the iPhone and the Pixel on price and battery life.",
    "Is OpenClaw safe to run with sandbox permissions on my server?",
    "Where can I buy a used bicycle in Austin this weekend?",
    "Show the best lend pools and stake 5 SOL on Kamino.",
    "Update the readme.md and the telemetry config in docs/ today.",
    "The Kubernetes pod keeps crashing after the upgrade, how to fix it?",
]


def prompts(count: int, seed: int = 19) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts: list[str] = []
        while sum(len(p.split()) for p in parts) < WORDS:
            parts.append(rng.choice(_SENTENCES))
        out.append(" ".join(" ".join(parts).split()[:WORDS]))
    return out


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    """Milliseconds per call, `repeats` calls."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        fn()
        runs.append((time.perf_counter_ns() - start) / 1e6)
    return runs


def summary(runs: list[float]) -> dict[str, float]:
    ordered = sorted(runs)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
    }


def naive(request: Request) -> None:
    """What counterfactuals would cost as a full `inspect()` of every variant."""
    text = request.text
    routescope.inspect(request)
    for word in words(text):
        routescope.inspect(request.replace(text=without_word(text, cut_range(text, word))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--prompts", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    requests = [Request.build(text, today=_TODAY) for text in prompts(args.prompts)]
    assert all(len(words(r.text)) == WORDS for r in requests)
    for request in requests[:3]:  # compile the pack's patterns, build the models
        counterfactuals(request)
    gc.collect()
    figures: dict[str, Any] = {"words": WORDS, "prompts": args.prompts, "repeats": args.repeats}
    rows: list[tuple[str, str, str, str]] = []

    def measure(name: str, fn: Callable[[Request], object], repeats: int) -> dict[str, float]:
        runs = [ms for request in requests for ms in timed(lambda r=request: fn(r), repeats)]
        figures[name] = summary(runs)
        return figures[name]

    found = measure("counterfactuals", counterfactuals, args.repeats)
    ok = found["p95_ms"] <= TARGET_COUNTERFACTUALS_MS
    rows.append(
        (
            f"counterfactuals, {WORDS} words, no tools",
            _ms(found),
            f"≤ {TARGET_COUNTERFACTUALS_MS:g} ms",
            "met" if ok else "MISSED",
        )
    )
    slow = measure("naive_full_inspect_per_word", naive, max(1, args.repeats // 2))
    rows.append((f"  naive: {WORDS + 1} full inspect() calls", _ms(slow), "", ""))
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as folder:
        from routescope.toolsearch import ToolSearch, load_catalog

        engine = ToolSearch(
            load_catalog(routescope.resources_root() / "catalog"),
            cache=Path(folder),
            semantic=False,
        )
        tools = measure("counterfactuals_keyword_tools", lambda r: counterfactuals(r, engine), 2)
        rows.append((f"counterfactuals, {WORDS} words, keyword tool search", _ms(tools), "", ""))
    pairs = list(zip(requests, requests[1:] + requests[:1], strict=True))
    runs = [ms for a, b in pairs for ms in timed(lambda a=a, b=b: compare(a, b), args.repeats)]
    figures["compare_two_prompts"] = summary(runs)
    rows.append(
        ("compare() of two prompts (two inspections and the diff)", _ms(summary(runs)), "", "")
    )
    inspections = [routescope.inspect(r) for r in requests]
    runs = [
        ms
        for found_inspection in inspections
        for ms in timed(
            lambda i=found_inspection: (
                close_calls(i),
                [trace(i, c) for c in i.context.entities.details],
            ),
            args.repeats,
        )
    ]
    figures["trace_and_close_calls"] = summary(runs)
    rows.append(("trace() of every entity + close_calls()", _ms(summary(runs)), "", ""))
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as folder:
        text = (routescope.resources_root() / "rules" / "default.toml").read_text("utf-8")
        other = Path(folder) / "other.toml"
        other.write_text(text.replace('"near", "around"]', '"around"]'), encoding="utf-8")
        suite = routescope.resources_root() / "fixtures" / "strategy.yaml"
        runs = timed(lambda: compare_suite(Path(str(suite)), rules_b=other), 3)
    figures["compare_suite_strategy"] = summary(runs)
    rows.append(("compare_suite(strategy.yaml, 65 cases, two packs)", _ms(summary(runs)), "", ""))
    print(f"compare and counterfactuals ({args.prompts} prompts × {args.repeats} repeats)")
    print(_table(rows))
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        figures["meta"] = {
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "date": str(dt.date.today()),
            "load_average": os.getloadavg(),
        }
        figures["target_counterfactuals_ms"] = TARGET_COUNTERFACTUALS_MS
        figures["counterfactuals_met"] = ok
        names = ("figure", "value", "target", "verdict")
        figures["table"] = [dict(zip(names, row, strict=True)) for row in rows]
        out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"written: {out}")
    return 0


def _ms(numbers: dict[str, float]) -> str:
    return f"median {numbers['median_ms']:.2f} ms · p95 {numbers['p95_ms']:.2f} ms"


def _table(rows: list[tuple[str, str, str, str]]) -> str:
    head = ("figure", "value", "target", "")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(4)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    )


if __name__ == "__main__":
    raise SystemExit(main())
