"""A small labelled set, a log that holds some of its prompts, and a rule pack that fixes one of
them and breaks another: for the tests of labels in a batch, a report and a comparison."""

from __future__ import annotations

import json
from pathlib import Path

from routescope import resources_root

from ._logs import write_jsonl

DEFAULT_RULES = Path(str(resources_root() / "rules" / "default.toml"))
TODAY = "2026-02-05"

LABELLED = [
    {
        "id": "stylist",
        "prompt": "Find me a hair stylist in Fremont, CA",
        "labels": {"local": True, "place_hint": "Fremont, CA"},
    },
    {"id": "pizza", "prompt": "pizza near me", "labels": {"local": True, "place_hint": ""}},
    {"id": "ramen", "prompt": "ramen near me", "labels": {"local": True}},
    {
        "id": "fastapi",
        "prompt": "How do I install FastAPI?",
        "labels": {"tech": True, "local": False, "troubleshooting": False},
    },
    {"id": "absent", "prompt": "a labelled prompt no log holds", "labels": {"local": False}},
]
"""Under the default pack: the stylist's local flag (and so its strategy) is wrong, the rest
right; the log holds five of them (the pizza twice), not the last."""

LOG = [
    {"prompt": "pizza near me"},
    {"prompt": "How do I install FastAPI?"},
    {"prompt": "  pizza   near\tme "},  # the same prompt, spaced otherwise: joined again
    {"prompt": "Find me a hair stylist in Fremont, CA"},
    {"prompt": "an unlabelled prompt about kittens"},
    {"prompt": "ramen near me"},
]


def labelled_set(folder: Path, rows: list[dict[str, object]] | None = None) -> Path:
    return write_jsonl(folder / "labelled.jsonl", list(LABELLED if rows is None else rows))


def log(folder: Path) -> Path:
    return write_jsonl(folder / "log.jsonl", LOG)


def other_pack(folder: Path) -> Path:
    """The default pack with "stylist" local (fixes the stylist) and without "near me" (breaks
    the pizza and the ramen: their local flag and strategy)."""
    text = DEFAULT_RULES.read_text(encoding="utf-8")
    old = 'local = ["near me", "nearby",'
    assert old in text
    path = folder / "other.toml"
    path.write_text(text.replace(old, 'local = ["stylist", "nearby",'), encoding="utf-8")
    return path


def hostile_set(folder: Path, prompt: str) -> Path:
    """One labelled case whose prompt and id would be markup if not escaped."""
    row = {"id": "<b>id</b>", "prompt": prompt, "labels": {"local": True}}
    path = folder / "hostile.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path
