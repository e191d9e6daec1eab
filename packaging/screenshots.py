"""Render every panel of the window, and presenter mode, to the PNGs the README and docs/ show
(`make screenshot`). Each is a fresh `routescope-gui --screenshot` with its own settings and
history (nothing of the analyst's), on a fixed date so the plans are the same every time; the
Batch view shows the report of a batch over `examples/prompts.jsonl`, run first into a
temporary folder; the External tab shows the routers of `examples/routers/routers.toml`, its
vLLM Semantic Router the stand-in of that folder (`demo_server.py`) on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEMO = ROOT / "examples" / "demo.txt"
LOG = "examples/prompts.jsonl"
RESULTS = "prompts.results.jsonl"
"""The results of the batch over `LOG` (with the sample catalog's tools ranked), in the
temporary folder the window starts in."""
LOCAL = "Best ramen near Denver, Colorado open tonight — or how do I install OpenClaw?"
ROUTERS = ROOT / "examples" / "routers"
VSR_PORT = 8801
"""Where routers.toml's `vsr` router asks: the demo server runs there while the shots are
made."""
PUBLIC = ROOT / "resources" / "labelled" / "public" / "public.jsonl"
"""The public labelled set the Quality view scores the `refined` pack on."""
SHOTS: tuple[tuple[str, list[str]], ...] = (
    ("screenshot.png", ["--tab", "Plan", LOCAL]),
    ("screenshot-linter.png", ["--tab", "Linter", "config"]),
    ("screenshot-contract.png", ["--tab", "Contract", "Lend 100 USDC on Kamino"]),
    ("screenshot-tools.png", ["--tab", "Tools", "why is my container crashing after the deploy?"]),
    ("screenshot-research.png", ["--tab", "Research", "asyncio event loop in a thread"]),
    # Issue 27: an answerable goal, an unanswerable one that needs grounding, a general one.
    (
        "screenshot-research-answerable.png",
        ["--tab", "Research", "How to copy a file using python?"],
    ),
    (
        "screenshot-research-grounding.png",
        ["--tab", "Research", "cheapest ferry from Helsinki to Tallinn next week"],
    ),
    (
        "screenshot-research-general.png",
        ["--theme", "dark", "--tab", "Research", "who wrote he ain't heavy he's my brother lyrics"],
    ),
    ("screenshot-json.png", ["--tab", "Raw JSON", "OpenClaw news this week"]),
    (
        "screenshot-compare.png",
        [
            "--tab",
            "Compare",
            "--compare-b",
            "OpenClaw news this week",
            "How do I install OpenClaw on my server?",
        ],
    ),
    ("screenshot-history.png", ["--tab", "History", LOCAL]),
    (
        "screenshot-external.png",
        [
            "--tab",
            "External",
            "--routers",
            str(ROUTERS / "routers.toml"),
            "Why did the price of my plan go up? I was charged twice",
        ],
    ),
    (
        "screenshot-quality.png",
        ["--tab", "Quality", "--rules", "refined", "--labels", str(PUBLIC), LOCAL],
    ),
    ("screenshot-batch.png", ["--tab", "Batch", "--batch-results", RESULTS]),
    ("screenshot-rules-editor.png", ["--rules-editor", LOCAL]),
    ("screenshot-dark.png", ["--theme", "dark", "--tab", "Plan", LOCAL]),
    (
        "screenshot-presenter.png",
        ["--presenter", "--size", "1024x768", "--demo", str(DEMO), "--tab", "Plan"],
    ),
    (
        "screenshot-presenter-dark.png",
        ["--presenter", "--theme", "dark", "--size", "1024x768", "--tab", "Plan", LOCAL],
    ),
)
TODAY = "2026-11-22"


@contextlib.contextmanager
def vsr_demo() -> Iterator[None]:
    """The examples' stand-in for vLLM Semantic Router on 127.0.0.1:`VSR_PORT`, while the
    shots are made."""
    server = subprocess.Popen(
        [sys.executable, str(ROUTERS / "demo_server.py"), "--port", str(VSR_PORT)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", VSR_PORT)):
                break
            time.sleep(0.05)
        yield
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> int:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("ROUTELLM_API_KEY", None)  # routers.toml's model router: no key here, it says so
    with tempfile.TemporaryDirectory(prefix="routescope-screenshots-") as folder, vsr_demo():
        batch = [sys.executable, "-m", "routescope", "batch", LOG, "--today", TODAY]
        batch += ["--catalog", "resources/catalog", "--out", str(Path(folder) / RESULTS)]
        if subprocess.run(batch, cwd=ROOT, env=env, check=False).returncode != 0:
            print(f"screenshots: the batch over {LOG} failed", file=sys.stderr)
            return 1
        for name, args in SHOTS:
            command = [sys.executable, "-m", "routescope_gui", "--screenshot", str(HERE / name)]
            command += ["--today", TODAY, *args]
            done = subprocess.run(command, cwd=folder, env=env, check=False)
            if done.returncode != 0:
                print(f"screenshots: {name} failed (exit {done.returncode})", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
