"""Join the labellers' files (labels-0/1/2.jsonl, one per third of prompts.jsonl) with the
prompts into the labelled set `public.jsonl` (the form `routescope score` reads).

    .venv/bin/python -m tests.eval.public_set.assemble   # rewrites public.jsonl
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[3] / "resources" / "labelled" / "public"
TODAY = "2026-11-27"
"""The date the labels were made for (time-sensitive prompts are judged as of it)."""
LICENCES = {
    "nq-open": "CC-BY-SA-3.0",
    "clinc150": "CC-BY-3.0",
    "bfcl-live": "Apache-2.0",
    "hwu64": "CC-BY-4.0",
    "staqc-sql": "CC-BY-4.0",
    "arena-hard": "Apache-2.0",
    "snips": "CC0-1.0",
    "codesearchnet": "MIT",
}


def main() -> None:
    labels: dict[str, dict[str, object]] = {}
    for chunk in sorted(HERE.glob("labels-[0-9].jsonl")):
        for line in chunk.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labels[row["id"]] = {k: v for k, v in row["labels"].items() if v is not None}
    out = []
    for line in (HERE / "prompts.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        case = {
            "id": row["id"],
            "prompt": row["prompt"],
            "today": TODAY,
            "labels": labels[row["id"]],
            "source": row["source"],
            "licence": LICENCES[row["source"]],
            "part": row["part"],
        }
        out.append(json.dumps(case, ensure_ascii=False))
    (HERE / "public.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"{len(out)} labelled cases")


if __name__ == "__main__":
    main()
