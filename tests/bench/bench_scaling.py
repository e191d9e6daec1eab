"""Shape scaling: µs per character of `inspect()` at n and 2n characters for hostile shapes.

A linear path costs the same per character at both sizes (time ratio 2n/n ≈ 2); a quadratic one
shows a time ratio near 4. Each shape is one repeated unit (the strange inputs of the test
suite and of the hostile-input findings). Best of several runs, n and 2n taking turns; the
first run of each is a warm-up. A second table does the same for rule packs: refusing a pack
with one keyword of n words (and building the phrase set of such a phrase), loading
(validating and compiling) a pack of n three-word phrases, and reporting the line of an error
after a line of 16n "[". A third table times the tool search's step splitter on one megabyte
of each hostile shape of its tests (target: under a second each) with its 2n/n ratio.
Run: `python tests/bench/bench_scaling.py [--chars N] [--pack-n N] [--json PATH]`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import routescope
from routescope import RulePackError, parse_rules
from routescope._phrases import PhraseSet
from routescope.rules import default_rules_text
from routescope.toolsearch._steps import split_steps

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
    "double dots": ("", "Wait..what..", ""),
    "domain labels": ("x", ".ab.-", ""),
    "urls and hosts": ("", "see https://a.b.com/x and c.io ", ""),
    "dotted name": ("", "a.b", ""),
    "emoji": ("", "🚀 ", ""),
    "cjk": ("", "東京のラーメン", ""),
    "arabic": ("", "أفضل مطاعم ", ""),
    "keywords": ("", "install fix buy latest ", ""),
    "anchors": ("", "telemetry session sesión ", ""),
    "file anchors": ("", "readme.md ", ""),
    "path anchors": ("", "docs/readme.md ", ""),
    "phrase anchors": ("", "session append ", ""),
    "numbers": ("", "5 SOL ", ""),
    "whitespace": ("x", " \t\n", "y"),
}


# The step splitter's hostile shapes (tests/core/toolsearch/test_steps.py), timed at 1 MB.
STEP_SHAPES: dict[str, tuple[str, str, str]] = {
    "then": ("", "then ", ""),
    "and": ("", "and ", ""),
    "sentence ends": ("", ". ", ""),
    "dots": ("", ".", ""),
    "newline space": ("", "\n ", ""),
    "spaces": ("", " ", ""),
    "one long word": ("", "a", ""),
    "NUL": ("", "\x00", ""),
    "no.": ("", "no. ", ""),
    "now and then": ("", "now and then ", ""),
    "as well as": ("", "as well as ", ""),
    "list markers": ("1. a\n", "x 5. ", ""),
    "then ;": ("then", " ;", ""),
    "emoji ;": ("", ";🙂", ""),
    "., .": ("", "., . ", ""),
    "?next,": ("", "?next, ", ""),
    "1.": ("", "1.", ""),
    "prose": ("", "the quick brown fox jumps over a lazy dog ", ""),
}
STEP_CHARS = 1_000_000
STEP_TARGET_SECONDS = 1.0


def _text(shape: tuple[str, str, str], chars: int) -> str:
    prefix, unit, suffix = shape
    return prefix + unit * max(1, (chars - len(prefix) - len(suffix)) // len(unit)) + suffix


def _best_seconds(calls: Sequence[Callable[[], object]], runs: int) -> list[float]:
    """The fastest of `runs` timings of each call, the calls taking turns (n, 2n, n, 2n, …): on
    a shared, noisy machine the best run is the one least disturbed, and taking turns keeps a
    burst of load from skewing one size only. As `timeit` does, the garbage collector is off
    while a call runs (and run in between): a full collection walks the whole heap of the
    process, a cost that depends on what else is loaded, not on the input."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(runs):
        for call, spent in zip(calls, times, strict=True):
            gc.collect()
            gc.disable()
            try:
                started = time.perf_counter()
                call()
                spent.append(time.perf_counter() - started)
            finally:
                gc.enable()
    return [min(spent) for spent in times]


def _words_pack(words: int) -> str:
    """The built-in pack with one tech keyword of `words` words."""
    return default_rules_text().replace(
        'tech = ["install"', f'tech = ["{"ab " * words}", "install"'
    )


def _phrases_pack(count: int) -> str:
    """The built-in pack with `count` distinct three-word tech keywords."""
    phrases = ", ".join(f'"w{i} x{i % 97} y{i % 89}"' for i in range(count))
    return default_rules_text().replace('tech = ["install"', f'tech = [{phrases}, "install"')


def _brackets_pack(count: int) -> str:
    """The built-in pack with a line of 16 × `count` "[" (in a multi-line string) and an error
    after it, whose line the error message names."""
    return (
        default_rules_text()
        .replace(
            'description = "Seed 000 strategy router: general / local / tech"',
            'description = """\n' + "[" * (16 * count) + '\n"""',
        )
        .replace("max_candidates = 6", 'max_candidates = "x"')
    )


def _load(text: str) -> None:
    re.purge()  # compile the patterns, not fetch them from the last run
    routescope.warm_up(parse_rules(text, "bench.toml"))


def _refuse(text: str) -> None:
    try:
        parse_rules(text, "bench.toml")
    except RulePackError:
        return
    raise AssertionError("the pack should not validate")


def _phrase_set(words: int) -> str:
    return "ab " * words


def _build_phrase_set(term: str) -> None:
    re.purge()
    PhraseSet([term, "ab", "ab ab"])


PACK_SHAPES: dict[str, tuple[Callable[[int], str], Callable[[str], None]]] = {
    "keyword of n words": (_words_pack, _refuse),
    "PhraseSet, n-word phrase": (_phrase_set, _build_phrase_set),
    "n three-word phrases": (_phrases_pack, _load),
    'error line after 16n "["': (_brackets_pack, _refuse),
}
"""Name -> (pack or phrase text of size n, the work timed). A keyword longer than a pack allows
is refused while loading; the phrase set behind keywords is timed on its own with one such
phrase. Packs that load are timed with their patterns compiled (`warm_up`)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=10_000, help="n (default 10,000)")
    parser.add_argument(
        "--pack-n", type=int, default=8_000, help="n for the rule-pack shapes (default 8,000)"
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    rules = routescope.default_rules()
    routescope.warm_up(rules)
    rows: list[dict[str, Any]] = []
    print(f"{'shape':<24}{'µs/char at n':>14}{'µs/char at 2n':>15}{'time ratio':>12}")
    for name, shape in SHAPES.items():
        texts = [_text(shape, chars) for chars in (args.chars, 2 * args.chars)]
        calls = [
            functools.partial(routescope.inspect, text, today=TODAY, rules=rules) for text in texts
        ]
        for call in calls:
            call()  # warm-up
        seconds = _best_seconds(calls, args.runs)
        sizes = [(len(text), spent) for text, spent in zip(texts, seconds, strict=True)]
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
    pack_rows: list[dict[str, Any]] = []
    title = f"rule pack (n = {args.pack_n:,})"
    print(f"\n{title:<28}{'ms at n':>10}{'ms at 2n':>10}{'time ratio':>12}")
    for name, (build, work) in PACK_SHAPES.items():
        pack_calls = [functools.partial(work, build(n)) for n in (args.pack_n, 2 * args.pack_n)]
        for pack_call in pack_calls:
            pack_call()  # warm-up
        times = _best_seconds(pack_calls, args.runs)
        ratio = times[1] / times[0]
        pack_rows.append(
            {
                "shape": name,
                "n": [args.pack_n, 2 * args.pack_n],
                "seconds": times,
                "time_ratio": ratio,
            }
        )
        flag = "  SUPER-LINEAR" if ratio > SUSPECT_RATIO else ""
        print(f"{name:<28}{times[0] * 1e3:>10.1f}{times[1] * 1e3:>10.1f}{ratio:>12.2f}{flag}")
    step_rows = _step_rows(args.runs)
    worst = max([*rows, *pack_rows, *step_rows], key=lambda r: float(r["time_ratio"]))
    print(
        f"worst time ratio {worst['time_ratio']:.2f} ({worst['shape']}): linear ≈ 2, quadratic ≈ 4"
    )
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(
                {"n": args.chars, "rows": rows, "packs": pack_rows, "steps": step_rows}, indent=2
            )
        )
    return 0


def _step_rows(runs: int) -> list[dict[str, Any]]:
    """`split_steps` at half a megabyte and a megabyte of each shape, best of `runs`."""
    rows: list[dict[str, Any]] = []
    print(f"\n{'step splitting':<24}{'s at 0.5 MB':>12}{'s at 1 MB':>11}{'time ratio':>12}  target")
    for name, shape in STEP_SHAPES.items():
        texts = [_text(shape, chars) for chars in (STEP_CHARS // 2, STEP_CHARS)]
        calls = [functools.partial(split_steps, text) for text in texts]
        times = _best_seconds(calls, max(3, runs // 2))
        ratio = times[1] / times[0]
        met = times[1] <= STEP_TARGET_SECONDS
        rows.append(
            {
                "shape": name,
                "chars": [len(t) for t in texts],
                "seconds": times,
                "time_ratio": ratio,
                "target_seconds": STEP_TARGET_SECONDS,
                "met": met,
            }
        )
        verdict = "met" if met else "MISSED"
        print(f"{name:<24}{times[0]:>12.3f}{times[1]:>11.3f}{ratio:>12.2f}  ≤ 1 s {verdict}")
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
