"""The desktop bundle beside the virtualenv: start-up to the first painted window, the whole
self-test, and the bundle's size on disk and as a `.tar.gz`. Median of N fresh processes each.

Both run `routescope-gui --self-test` (offscreen, every router on one prompt, a temporary home),
which prints `window: painted` at the first paint: the time to that line is the start-up
`make run` makes the user wait. The page cache is warm (one run first, not counted): a cold
disk cache needs root to drop. Run `make package` first; without dist/routescope this says so
and exits 0.

    python tests/bench/bench_bundle.py [--runs N] [--bundle DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # (run as a script: `tests` is a package of the checkout)
    sys.path.insert(0, str(ROOT))

from tests.bench._figures import Row, table, write_figures  # noqa: E402

PAINTED = "window: painted"
MIB = 1024 * 1024


def _self_test(command: list[str]) -> tuple[float, float]:
    """Seconds to the first paint and to the end of one self-test in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="routescope-bench-") as home:
        env = {**os.environ, "HOME": home}
        for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            env[name] = os.path.join(home, name.lower())
        started = time.perf_counter()
        process = subprocess.Popen(
            [*command, "--self-test"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None
        painted = None
        for line in process.stdout:
            if painted is None and line.startswith(PAINTED):
                painted = time.perf_counter() - started
        _, err = process.communicate()
        done = time.perf_counter() - started
    if process.returncode != 0 or painted is None:
        raise SystemExit(f"{command[0]} --self-test: exit {process.returncode}: {err.strip()}")
    return painted, done


def _size(path: Path) -> int:
    """Bytes on disk (allocated blocks, as `du`), symlinks not followed."""
    return sum(p.lstat().st_blocks * 512 for p in path.rglob("*") if not p.is_symlink())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bundle", type=Path, default=ROOT / "dist" / "routescope")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    args = parser.parse_args()
    executable = args.bundle / "routescope-gui"
    if not executable.is_file():
        print(f"bench_bundle: skipped: no bundle at {args.bundle} (build it: make package)")
        return 0
    venv = Path(sys.executable).with_name("routescope-gui")
    commands = {"bundle": [str(executable)], "venv": [str(venv)]}
    figures: dict[str, object] = {"runs": args.runs}
    rows: list[Row] = []
    for name, command in commands.items():
        _self_test(command)  # the page cache, as a second start finds it
        runs = [_self_test(command) for _ in range(args.runs)]
        painted = statistics.median(r[0] for r in runs)
        whole = statistics.median(r[1] for r in runs)
        figures[name] = {"first_paint_s": painted, "self_test_s": whole, "runs": runs}
        rows.append((f"{name}: start to first paint", f"{painted:.2f} s", "", ""))
        rows.append((f"{name}: whole self-test", f"{whole:.2f} s", "", ""))
    bundle_mib = _size(args.bundle) / MIB
    archives = sorted(args.bundle.parent.glob("routescope-*-linux-*.tar.gz"))
    figures["bundle_mib"] = bundle_mib
    rows.append(("bundle on disk", f"{bundle_mib:.0f} MiB", "", ""))
    if archives:
        archive_mib = archives[-1].stat().st_size / MIB
        figures["archive_mib"] = archive_mib
        rows.append((archives[-1].name, f"{archive_mib:.1f} MiB", "", ""))
    print(table(rows))
    if args.json:
        write_figures(args.json, figures, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
