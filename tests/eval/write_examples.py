"""Write the example set `public-tune` and the built-in pack `refined-semantic`.

    .venv/bin/python -m tests.eval.write_examples [--dry-run]

1. `resources/labelled/examples/public-tune.jsonl` and `.npy`: the public labelled set's tuning
   part only (prompt and its five flags), and each prompt's vector by the bundled model
   (embedded alone, as a prompt is at query time; stored as float16).
2. The vote of each flag (`k`, `on`, `off`) chosen by leave-one-out cross-validation inside the
   tuning part: every tuning prompt is voted on by its nearest *other* tuning prompts, combined
   with what the `refined` pack's rules decided for it, and the thresholds with the best F1 of
   the flag win (ties: the smaller k, the higher `on`, no `off`), among the votes that break no
   case of the built-in strategy suite (the seed's own examples; the flag's vote with the other
   flags as `refined` decides them, then the whole pack is checked). The held-out part is never
   read.
3. `resources/rules/refined-semantic.toml`: `refined` with those votes as `[intents.examples]`.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from routescope import resources_root
from routescope.judge import LabelledCase, Labels, predict_all, read_labelled
from routescope.rules import INTENTS, IntentName, RulePack, builtin_rules_text, parse_rules
from routescope.toolsearch import MiniLMOnnx

SET = resources_root() / "labelled" / "public" / "public.jsonl"
NAME = "public-tune"
OUT = Path(str(resources_root() / "labelled" / "examples"))
PACK = Path(str(resources_root() / "rules" / "refined-semantic.toml"))
SUITE = resources_root() / "fixtures" / "strategy.yaml"
KS = (1, 3, 5, 7, 9, 11, 15, 21, 25)
ONS = tuple(round(0.05 * i, 2) for i in range(1, 20))
OFFS: tuple[float | None, ...] = (None, *(t for t in ONS if t < 0.5))
HEADER = """# Routescope built-in rule pack `refined-semantic` (`--rules refined-semantic`).
# The `refined` pack (its header and comments below say how it was made) with intent flags also
# read from meaning: `[intents.examples]` at the end embeds the prompt with the bundled model
# (the `semantic` extra) and lets its nearest prompts of the example set `public-tune` (the public
# labelled set's tuning part, resources/labelled/examples/) vote on each flag. Written by
# tests/eval/write_examples.py, which chose each vote by leave-one-out cross-validation inside
# the tuning part; the held-out part was never used to choose: `make eval` reports both parts.
"""


def f1(decided: np.ndarray, truth: np.ndarray) -> float:
    tp = int((decided & truth).sum())
    wrong = int((decided ^ truth).sum())
    return 2 * tp / (2 * tp + wrong) if tp or wrong else 0.0


def shares(similarities: np.ndarray, truth: np.ndarray, k: int) -> np.ndarray:
    """Each row's similarity-weighted share of its `k` nearest examples that carry the flag."""
    order = np.argsort(-similarities, axis=1, kind="stable")[:, :k]
    weights = np.maximum(np.take_along_axis(similarities, order, axis=1), 0.0)
    carried = (truth[order] * weights).sum(axis=1)
    total = weights.sum(axis=1)
    return np.divide(carried, total, out=np.zeros_like(total), where=total > 0)


def _voted(rules: np.ndarray, share: np.ndarray, on: float, off: float | None) -> np.ndarray:
    decided = rules | (share >= on)
    if off is not None:
        decided &= ~(rules & (share < off))
    return decided


class Guard:
    """The built-in strategy suite: a flag's vote may change no case's strategy or labelled
    flag from what it should be, the other flags as `refined` decides them."""

    def __init__(self, vectors: np.ndarray, refined: RulePack, model: MiniLMOnnx) -> None:
        cases = read_labelled(str(SUITE))
        suite = np.vstack([model.embed([c.prompt]) for c in cases]).astype(np.float16)
        self.similarities = suite.astype(np.float32) @ vectors.astype(np.float32).T
        decided = predict_all(cases, refined)
        self.rules = {f: np.array([p.flags[f] for p in decided]) for f in INTENTS}
        self.expected = [c.labels.expected_strategy() for c in cases]
        self.labels = {f: [c.labels.flag(f) for c in cases] for f in INTENTS}

    def keeps(self, flag: IntentName, decided: np.ndarray) -> bool:
        flags = {f: decided if f == flag else self.rules[f] for f in INTENTS}
        for i, expected in enumerate(self.expected):
            label = self.labels[flag][i]
            if label is not None and bool(decided[i]) != label:
                return False
            chosen = {f: bool(flags[f][i]) for f in INTENTS}
            strategy = Labels(**chosen).expected_strategy()  # as the seed routes the flags
            if expected is not None and strategy != expected:
                return False
        return True


def choose(
    similarities: np.ndarray,
    truth: np.ndarray,
    rules: np.ndarray,
    flag: IntentName,
    guard: Guard,
) -> tuple[float, int, float, float | None]:
    """(cross-validated F1, k, on, off) of one flag; `similarities` has -inf on its diagonal."""
    best: tuple[tuple[float, int, float, int], tuple[float, int, float, float | None]] | None
    best = None
    for k in KS:
        share = shares(similarities, truth, k)
        suite_share = shares(guard.similarities, truth, k)
        for on in ONS:
            for off in OFFS:
                if off is not None and off >= on:
                    continue
                if not guard.keeps(flag, _voted(guard.rules[flag], suite_share, on, off)):
                    continue
                decided = _voted(rules, share, on, off)
                score = round(f1(decided, truth), 6)
                key = (score, -k, on, 0 if off is None else -1)
                if best is None or key > best[0]:
                    best = (key, (score, k, on, off))
    assert best is not None  # on = 0.95 without off changes no suite case of a flag
    return best[1]


def _pack_text(votes: dict[IntentName, tuple[float, int, float, float | None]]) -> str:
    text = builtin_rules_text("refined")
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):  # refined's own header stays, below ours
        lines.pop(0)
    body = "".join(lines)
    body = re.sub(
        r'^name = "refined"\ndescription = "[^"]*"',
        'name = "refined-semantic"\n'
        'description = "Seed 000 router, refined on public labelled prompts, with example votes"',
        body,
        count=1,
        flags=re.M,
    )
    own = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    section = [
        "",
        "[intents.examples]",
        "# The nearest labelled examples vote on each flag: the share of the k nearest that",
        "# carry it, each weighted by its cosine similarity. At `on` or above the flag is set",
        "# although no rule fired; below `off` a flag the rules set is cleared. Chosen by",
        "# leave-one-out cross-validation inside the tuning part (tests/eval/write_examples.py).",
        f'set = "{NAME}"',
    ]
    for flag, (f1, k, on, off) in votes.items():
        section += ["", f"[intents.examples.flags.{flag}]"]
        section.append(f"# cross-validated F1 on the tuning part, with refined's rules: {f1:.3f}")
        section += [f"k = {k}", f"on = {on}"]
        if off is not None:
            section.append(f"off = {off}")
    return HEADER + "#\n" + own + body.rstrip("\n") + "\n" + "\n".join(section) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true", help="print the votes, write nothing")
    args = parser.parse_args(argv)
    tune: list[LabelledCase] = [c for c in read_labelled(SET) if c.part == "tune"]
    truth = {f: np.array([bool(c.labels.flag(f)) for c in tune]) for f in INTENTS}
    model = MiniLMOnnx()
    vectors = np.vstack([model.embed([c.prompt]) for c in tune]).astype(np.float16)
    refined = parse_rules(builtin_rules_text("refined"), "refined.toml")
    decided = predict_all(tune, refined)
    rules = {f: np.array([p.flags[f] for p in decided]) for f in INTENTS}
    exact = vectors.astype(np.float32)
    similarities = exact @ exact.T
    np.fill_diagonal(similarities, -np.inf)
    guard = Guard(vectors, refined, model)
    votes = {f: choose(similarities, truth[f], rules[f], f, guard) for f in INTENTS}
    for flag, (f1, k, on, off) in votes.items():
        print(f"{flag:16} k={k:2} on={on:.2f} off={off}  cross-validated F1 {f1:.3f}")
    if args.dry_run:
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / f"{NAME}.jsonl").open("w", encoding="utf-8") as out:
        for case in tune:
            flags = {f: bool(case.labels.flag(f)) for f in INTENTS}
            record = {"id": case.id, "prompt": case.prompt, "flags": flags}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (OUT / f"{NAME}.npy").open("wb") as handle:
        np.save(handle, vectors, allow_pickle=False)
    PACK.write_text(_pack_text(votes), encoding="utf-8")
    print(f"wrote {OUT / NAME}.jsonl, .npy and {PACK}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
