"""Small prompt logs for the batch tests, written into a test's temporary folder."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

import routescope

FIXTURES = Path(str(routescope.resources_root())) / "fixtures"
WORDS = [
    "best",
    "ramen",
    "near",
    "Denver",
    "how",
    "do",
    "I",
    "install",
    "FastAPI",
    "on",
    "Ubuntu",
    "latest",
    "OpenClaw",
    "news",
    "cheap",
    "flights",
    "to",
    "Paris",
    "this",
    "weekend",
    "why",
    "is",
    "my",
    "container",
    "crashing",
    "after",
    "the",
    "deploy",
    "readme",
    "telemetry",
    "session",
    "compare",
    "React",
    "vs",
    "Vue",
    "price",
    "of",
    "a",
    "used",
    "bike",
    "in",
    "Austin",
]


def suite_prompts() -> list[str]:
    """The prompts of the built-in suites: every shape the routers are tested on."""
    prompts = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        for case in YAML(typ="safe").load(path.read_text(encoding="utf-8"))["cases"]:
            if isinstance(case.get("prompt"), str) and case["prompt"].strip():
                prompts.append(case["prompt"])
    return prompts


def prompts(count: int, length: int = 50, seed: int = 1) -> list[str]:
    """`count` prompts of about `length` characters from the words above."""
    rnd = random.Random(seed)
    made = []
    for _ in range(count):
        words: list[str] = []
        while len(" ".join(words)) < length:
            words.append(rnd.choice(WORDS))
        made.append(" ".join(words)[:length].strip())
    return made


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def without_timings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "timings_us"} for row in rows]


_HOOKS = frozenset({"progress", "on_chunk", "on_progress", "cancel"})


def run_batch(inputs: list[str], out: Path, **settings: Any) -> routescope.batch.BatchSummary:
    """`routescope.batch.run_batch` with its options and hooks given as keywords alike."""
    hooks = {name: settings.pop(name) for name in list(settings) if name in _HOOKS}
    options = routescope.batch.BatchOptions(**settings)
    return routescope.batch.run_batch(inputs, out, options, **hooks)
