"""Agreement between the first labelling pass and the independent second pass on a sample
(every 8th prompt of prompts.jsonl, line index mod 8 == 5): per field, the share of prompts
both passes labelled alike (places and entities compared in their normal form), and Cohen's
kappa for the flags.

    .venv/bin/python -m tests.eval.public_set.agreement
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parents[3] / "resources" / "labelled" / "public"
FLAGS = ("local", "time_sensitive", "tech", "troubleshooting", "purchase")


def normal(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(
        " " if unicodedata.category(c)[0] in "PSZ" and c not in "+#" else c for c in folded
    )
    return " ".join(kept.split())


def kappa(pairs: list[tuple[bool, bool]]) -> float:
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def main() -> None:
    first = {}
    for path in sorted(HERE.glob("labels-[0-9].jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            first[row["id"]] = row["labels"]
    second = [
        json.loads(line) for line in (HERE / "labels-second-pass.jsonl").read_text().splitlines()
    ]
    print(f"{len(second)} prompts labelled twice")
    for flag in FLAGS:
        pairs = [(bool(first[r["id"]][flag]), bool(r["labels"][flag])) for r in second]
        agree = sum(a == b for a, b in pairs) / len(pairs)
        print(f"  {flag:<16} agreement {agree:.3f}  kappa {kappa(pairs):.3f}")
    strategy = 0
    for r in second:
        a, b = first[r["id"]], r["labels"]
        sa = "local" if a["local"] else "tech" if a["tech"] or a["troubleshooting"] else "general"
        sb = "local" if b["local"] else "tech" if b["tech"] or b["troubleshooting"] else "general"
        strategy += sa == sb
    print(f"  {'strategy':<16} agreement {strategy / len(second):.3f}")
    place = sum(
        normal(first[r["id"]]["place_hint"] or "") == normal(r["labels"]["place_hint"] or "")
        for r in second
    )
    print(f"  {'place_hint':<16} agreement {place / len(second):.3f}")
    both = only = 0
    for r in second:
        a = {normal(e) for e in first[r["id"]]["entities"]}
        b = {normal(e) for e in r["labels"]["entities"]}
        both += len(a & b)
        only += len(a ^ b)
    print(f"  {'entities':<16} overlap (Dice) {2 * both / (2 * both + only):.3f}")


if __name__ == "__main__":
    main()
