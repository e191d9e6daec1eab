"""Small committed copies of two public tool benchmarks in `tests/eval/data/` (issue 28).

Run once, by hand, on local clones of the two repositories (nothing here downloads anything):

    python -m tests.eval.build_public_sets --seal PATH/Seal-Tools --metatool PATH/MetaTool

Each clone is read with `git show <commit>:<path>` at the pinned commit below, so the copies can
be made again byte for byte. What is kept, and nothing else (no labels are written here):

* **Seal-Tools** (fairyshine/Seal-Tools, Apache-2.0; Wu et al., "Seal-Tools: Self-Instruct Tool
  Learning Dataset for Agent Tuning and Detailed Benchmark", NLPCC 2024, arXiv 2405.08355):
  `tools.jsonl.gz`, every tool of `Seal-Tools_Dataset/tool.jsonl` (4,076: `api_name`,
  `api_description`, each parameter's description); `requests.jsonl`, every request of
  `test_in_domain.jsonl` and `test_out_domain.jsonl` whose `calling` names two or more distinct
  tools (the benchmark's "difficult" instances: one long request with several needs), as its
  `id`, its `query` and the distinct `api` names in calling order.
* **MetaTool** (HowieHwong/MetaTool, MIT; Huang et al., "MetaTool Benchmark: Deciding Whether to
  Use Tools and Which to Use", ICLR 2024, arXiv 2310.03128): `plugins.json`, the 199 tools of
  `dataset/plugin_des.json` (name → description); `multi_tool.jsonl`, the 497 queries of
  `dataset/data/multi_tool_query_golden.json` with their two tools (id: the position in the
  file); `no_tool.jsonl`, the 520 queries of `dataset/tmp_dataset/Task1.json` (the tool-usage
  awareness task) labelled `negative` by the benchmark's authors — requests an assistant answers
  without any tool, taken by them from public instruction and question sets (id: the position
  in the file); `single_tool.jsonl`, 1,000 of the 20,614 single-tool queries of
  `dataset/data/all_clean_data.csv` (those with the smallest SHA-256 of `row number:query`, an
  even spread) with their tool.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SEAL_REPO = "fairyshine/Seal-Tools"
SEAL_COMMIT = "ce753ecd60ed08dd376984035de531ab8421f1c6"
METATOOL_REPO = "HowieHwong/MetaTool"
METATOOL_COMMIT = "35e81bb7576826e980c80fed8f8c0a2b4a1e6fbb"
SINGLE_KEPT = 1_000


def _show(repo: Path, commit: str, path: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={repo}", "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
    )
    return done.stdout.decode("utf-8")


def _resolve(repo: Path, commit: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={repo}", "rev-parse", commit], check=True, capture_output=True
    )
    return done.stdout.decode().strip()


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)


def _source(folder: Path, text: str, licence: str) -> None:
    (folder / "SOURCE.md").write_text(text, encoding="utf-8")
    (folder / "LICENSE").write_text(licence, encoding="utf-8")


def build_seal(repo: Path, commit: str) -> dict[str, int]:
    folder = DATA / "seal_tools"
    folder.mkdir(parents=True, exist_ok=True)
    tools = []
    for line in _show(repo, commit, "Seal-Tools_Dataset/tool.jsonl").splitlines():
        record = json.loads(line)
        parameters = {
            str(name): str(spec.get("description", "")) if isinstance(spec, dict) else str(spec)
            for name, spec in (record.get("parameters") or {}).items()
        }
        tools.append(
            {
                "name": record["api_name"],
                "description": record["api_description"],
                "parameters": parameters,
            }
        )
    payload = _jsonl(tools).encode("utf-8")
    # mtime 0: the same bytes on every run
    with gzip.GzipFile(folder / "tools.jsonl.gz", "wb", compresslevel=9, mtime=0) as out:
        out.write(payload)
    requests = []
    for part in ("test_in_domain", "test_out_domain"):
        for line in _show(repo, commit, f"Seal-Tools_Dataset/{part}.jsonl").splitlines():
            record = json.loads(line)
            names = list(dict.fromkeys(str(call["api"]) for call in record["calling"]))
            if len(names) >= 2:
                requests.append({"id": record["id"], "text": record["query"], "tools": names})
    (folder / "requests.jsonl").write_text(_jsonl(requests), encoding="utf-8")
    _source(
        folder,
        f"# Seal-Tools, a small copy\n\nFrom https://github.com/{SEAL_REPO} at commit {commit}\n"
        "(Apache-2.0, its LICENSE beside this file). Made by `tests/eval/build_public_sets.py`,\n"
        "which says what is kept. Wu et al., Seal-Tools: Self-Instruct Tool Learning Dataset for\n"
        "Agent Tuning and Detailed Benchmark, NLPCC 2024, arXiv 2405.08355.\n",
        _show(repo, commit, "LICENSE"),
    )
    return {"tools": len(tools), "requests": len(requests)}


def build_metatool(repo: Path, commit: str) -> dict[str, int]:
    folder = DATA / "metatool"
    folder.mkdir(parents=True, exist_ok=True)
    plugins = json.loads(_show(repo, commit, "dataset/plugin_des.json"))
    (folder / "plugins.json").write_text(
        json.dumps(plugins, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    multi = json.loads(_show(repo, commit, "dataset/data/multi_tool_query_golden.json"))
    rows = [
        {"id": f"multi-{i}", "text": str(r["query"]).strip().strip('"').strip(), "tools": r["tool"]}
        for i, r in enumerate(multi)
    ]
    (folder / "multi_tool.jsonl").write_text(_jsonl(rows), encoding="utf-8")
    awareness = json.loads(_show(repo, commit, "dataset/tmp_dataset/Task1.json"))
    negatives = [
        {"id": f"task1-{i}", "text": str(r["query"])}
        for i, r in enumerate(awareness)
        if r["label"] == "negative"
    ]
    (folder / "no_tool.jsonl").write_text(_jsonl(negatives), encoding="utf-8")
    table = list(csv.reader(io.StringIO(_show(repo, commit, "dataset/data/all_clean_data.csv"))))
    singles = [
        (hashlib.sha256(f"{n}:{q}".encode()).hexdigest(), n, q, t)
        for n, (q, t) in enumerate(table[1:], start=1)
        if q.strip() and t in plugins
    ]
    kept = sorted(sorted(singles)[:SINGLE_KEPT], key=lambda row: row[1])
    (folder / "single_tool.jsonl").write_text(
        _jsonl([{"id": f"single-{n}", "text": q.strip(), "tools": [t]} for _, n, q, t in kept]),
        encoding="utf-8",
    )
    _source(
        folder,
        f"# MetaTool, a small copy\n\nFrom https://github.com/{METATOOL_REPO} at commit {commit}\n"
        "(MIT, its LICENSE beside this file). Made by `tests/eval/build_public_sets.py`, which\n"
        "says what is kept. Huang et al., MetaTool Benchmark: Deciding Whether to Use Tools and\n"
        "Which to Use, ICLR 2024, arXiv 2310.03128.\n",
        _show(repo, commit, "LICENSE"),
    )
    return {
        "plugins": len(plugins),
        "multi_tool": len(rows),
        "no_tool": len(negatives),
        "single_tool": len(kept),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--seal", type=Path, required=True, help="a clone's git directory")
    parser.add_argument("--metatool", type=Path, required=True, help="a clone's git directory")
    args = parser.parse_args()
    print("seal_tools", build_seal(args.seal, _resolve(args.seal, SEAL_COMMIT)))
    print("metatool", build_metatool(args.metatool, _resolve(args.metatool, METATOOL_COMMIT)))


if __name__ == "__main__":
    main()
