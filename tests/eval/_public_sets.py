"""Two public tool benchmarks for `make eval` (issue 28), read from the small copies committed in
`tests/eval/data/` (`build_public_sets.py` made them and says what they hold; each folder has
its SOURCE.md and LICENSE). Nothing here was written by hand, labels included.

* `seal` — Seal-Tools' long multi-need requests (1,060: every test request whose answer calls
  two to six distinct tools, "I need the SLA of … Additionally, back up … Finally, update the
  shipment …") over its whole catalog (4,076 tools, with parameter descriptions, or without).
* `metatool` — MetaTool's two-need queries (497, "the latest news about Tesla and how it has
  impacted the stock market") over its 199 ChatGPT plugins (name and description only), 1,000
  of its single-tool queries, and `no_tool`: the 520 requests its authors labelled as needing no
  tool (taken by them from public instruction and question sets): the no-fit set.

Every set is split in two by the SHA-256 of each request's id before anything is tuned
(`part`: an even first byte is `tune`, an odd one `held-out`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.eval._bfcl import CatalogFiles, Query, Task

__all__ = ["DATA", "Public", "load_metatool", "load_seal", "part"]

DATA = Path(__file__).resolve().parent / "data"


def part(query_id: str) -> str:
    """`tune` or `held-out`: a fixed split by the SHA-256 of the request's id (the same rule as
    BFCL's dev / held-out halves)."""
    return "tune" if hashlib.sha256(query_id.encode()).digest()[0] % 2 == 0 else "held-out"


@dataclass(frozen=True, slots=True)
class Public:
    name: str
    catalog: CatalogFiles
    tasks: dict[str, Task]
    source: str


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _queries(rows: list[dict[str, Any]]) -> tuple[Query, ...]:
    return tuple(Query(r["id"], r["text"], tuple(r.get("tools", ()))) for r in rows)


def _write(path: Path, data: object) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)


def _catalog(root: Path, name: str, tools: list[dict[str, Any]]) -> CatalogFiles:
    """The catalog as Routescope's JSON list (no parameters) and as OpenAI `tools` (with)."""
    folder = root / "public" / name
    folder.mkdir(parents=True, exist_ok=True)
    files = CatalogFiles(
        name, len(tools), folder / f"catalog-{name}.json", folder / f"catalog-{name}.openai.json"
    )
    _write(
        files.list_path,
        [
            {"tool_name": t["name"], "description": t["description"], "routing_keywords": []}
            for t in tools
        ],
    )
    _write(
        files.openai_path,
        [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": {
                        "type": "object",
                        "properties": {
                            p: {"type": "string", "description": d}
                            for p, d in t.get("parameters", {}).items()
                        },
                    },
                },
            }
            for t in tools
        ],
    )
    return files


def _source(folder: Path) -> str:
    lines = (folder / "SOURCE.md").read_text(encoding="utf-8").splitlines()
    return next((line for line in lines if line.startswith("From ")), str(folder))


def load_seal(root: Path) -> Public:
    folder = DATA / "seal_tools"
    with gzip.open(folder / "tools.jsonl.gz", "rt", encoding="utf-8") as handle:
        tools = [json.loads(line) for line in handle if line.strip()]
    queries = _queries(_rows(folder / "requests.jsonl"))
    task = Task("seal", "seal", queries)
    return Public("seal", _catalog(root, "seal", tools), {"seal": task}, _source(folder))


def load_metatool(root: Path) -> Public:
    folder = DATA / "metatool"
    plugins = json.loads((folder / "plugins.json").read_text(encoding="utf-8"))
    tools = [{"name": name, "description": text} for name, text in plugins.items()]
    tasks = {
        name: Task(name, "metatool", _queries(_rows(folder / f"{name}.jsonl")))
        for name in ("multi_tool", "single_tool", "no_tool")
    }
    return Public("metatool", _catalog(root, "metatool", tools), tasks, _source(folder))
