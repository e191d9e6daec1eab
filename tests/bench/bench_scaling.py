"""Shape scaling: µs per character of `inspect()` at n and 2n characters for hostile shapes.

A linear path costs the same per character at both sizes (time ratio 2n/n ≈ 2); a quadratic one
shows a time ratio near 4. Each shape is one repeated unit (the strange inputs of the test
suite and of the hostile-input findings). Medians of several runs; the first run of each shape
is a warm-up. Run: `python tests/bench/bench_scaling.py [--chars N] [--json PATH]`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import routescope

TODAY = dt.date(2026, 1, 1)
SUSPECT_RATIO = 2.5
"""Above this time ratio between 2n and n, the shape is reported as super-linear."""

# name -> (prefix, repeated unit, suffix)
SHAPES: dict[str, tuple[str, str, str]] = {
    "plain words": ("", "Latest FastAPI install error near me in Denver ", ""),
    "one long word": ("", "a", ""),
    "dots": ("", "a.", "!"),
    "capitals": ("", "A", " end"),
    "capitalized words": ("", "Aa ", ""),
    "hyphenated capitals": ("A ", "B-", ""),
    "url": ("https://", "x", ""),
    "parentheses": ("", "(((((((", ")))"),
    "gazetteer run": ("in ", "Austin ", ""),
    "capitalized place run": ("near ", "Denver ", ""),
    "local phrase": ("", "near me ", ""),
    "domain-like": ("x", ".ab.", ""),
    "dotted name": ("", "a.b", ""),
    "emoji": ("", "🚀 ", ""),
    "cjk": ("", "東京のラーメン", ""),
    "arabic": ("", "أفضل مطاعم ", ""),
    "keywords": ("", "install fix buy latest ", ""),
    "anchors": ("", "telemetry session sesión ", ""),
    "numbers": ("", "5 SOL ", ""),
    "whitespace": ("x", " \t\n", "y"),
}


def _text(shape: tuple[str, str, str], chars: int) -> str:
    prefix, unit, suffix = shape
    return prefix + unit * max(1, (chars - len(prefix) - len(suffix)) // len(unit)) + suffix


def _median_seconds(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=10_000, help="n (default 10,000)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    rules = routescope.default_rules()
    routescope.warm_up(rules)
    rows = []
    print(f"{'shape':<24}{'µs/char at n':>14}{'µs/char at 2n':>15}{'time ratio':>12}")
    for name, shape in SHAPES.items():
        sizes = []
        for chars in (args.chars, 2 * args.chars):
            text = _text(shape, chars)
            routescope.inspect(text, today=TODAY, rules=rules)  # warm-up
            seconds = _median_seconds(
                lambda text=text: routescope.inspect(text, today=TODAY, rules=rules), args.runs
            )
            sizes.append((len(text), seconds))
        (n, t_n), (n2, t_2n) = sizes
        ratio = t_2n / t_n
        rows.append(
            {
                "shape": name,
                "chars": [n, n2],
                "seconds": [t_n, t_2n],
                "us_per_char": [t_n / n * 1e6, t_2n / n2 * 1e6],
                "time_ratio": ratio,
            }
        )
        flag = "  SUPER-LINEAR" if ratio > SUSPECT_RATIO else ""
        print(f"{name:<24}{t_n / n * 1e6:>14.3f}{t_2n / n2 * 1e6:>15.3f}{ratio:>12.2f}{flag}")
    worst = max(rows, key=lambda r: r["time_ratio"])
    print(
        f"worst time ratio {worst['time_ratio']:.2f} ({worst['shape']}): linear ≈ 2, quadratic ≈ 4"
    )
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"n": args.chars, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
