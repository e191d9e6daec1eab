"""Start-up time of the command line: start to exit of a fresh process, median of N runs.

Beside each command, in the same run: `python -c pass` (the interpreter's own floor) and
`python -c "import routescope"`. Targets (issue 8): `decide` and `inspect` in text mode
≤ 150 ms. Run: `python tests/bench/bench_startup.py [--runs N] [--json PATH]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 150.0
PROMPT = "Best ramen near Denver, Colorado open tonight"
CASES: list[tuple[str, list[str], float | None]] = [
    ("python -c pass", ["-c", "pass"], None),
    ("import routescope", ["-c", "import routescope"], None),
    ("routescope --version", ["-m", "routescope", "--version"], None),
    ("routescope decide", ["-m", "routescope", "decide", "stake 5 SOL on Marinade"], TARGET_MS),
    ("routescope inspect (text)", ["-m", "routescope", "inspect", PROMPT], TARGET_MS),
    ("routescope inspect --json", ["-m", "routescope", "inspect", "--json", PROMPT], None),
]


def _run_once(args: list[str]) -> tuple[float, float]:
    """Wall-clock milliseconds and peak RSS (MB) of one fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, err = process.communicate()
    elapsed = (time.perf_counter() - started) * 1000
    if process.returncode != 0:
        raise SystemExit(f"{args}: exit {process.returncode}: {err.decode()[:300]}")
    return elapsed, 0.0


def _peak_rss_mb(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run([sys.executable, *args], capture_output=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    os.environ.setdefault("NO_COLOR", "1")
    rows = []
    for name, argv, target in CASES:
        _run_once(argv)  # warm the file cache (and the tool-search disk cache)
        times = [_run_once(argv)[0] for _ in range(args.runs)]
        rows.append(
            {
                "command": name,
                "median_ms": statistics.median(times),
                "min_ms": min(times),
                "max_ms": max(times),
                "peak_rss_mb": _peak_rss_mb(argv),
                "target_ms": target,
            }
        )
    print(f"{'command':<28}{'median':>10}{'min':>9}{'max':>9}{'peak RSS':>10}{'target':>9}")
    for row in rows:
        target = row["target_ms"]
        verdict = "" if target is None else ("  ok" if row["median_ms"] <= target else "  MISS")
        print(
            f"{row['command']:<28}{row['median_ms']:>8.0f}ms{row['min_ms']:>7.0f}ms"
            f"{row['max_ms']:>7.0f}ms{row['peak_rss_mb']:>8.0f}MB"
            f"{'' if target is None else f'{target:>7.0f}ms'}{verdict}"
        )
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"runs": args.runs, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
