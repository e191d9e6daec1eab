"""Make the `refined` rule pack with the suggestion loop, on the tuning part only.

Rounds of `routescope.judge.suggest` over the public set's tuning part (the held-out part is
never seen here): each round applies the best edits that fix at least twice the cases they
break (or gain 0.02 and fix more than they break) and break no guard (the built-in strategy
suite, the seed's own examples), until no edit gains. Prints each edit with its measured
effect, for the pack's comments, and the final pack's figures on both parts.

    .venv/bin/python -m tests.eval.refine_pack [--rounds N] [--per-round K] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from routescope import resources_root
from routescope.judge import LabelledCase, PackEdit, Suggestion, read_labelled, score_set, suggest
from routescope.rules import RulePack, default_rules

SET = resources_root() / "labelled" / "public" / "public.jsonl"
GUARDS = resources_root() / "fixtures" / "strategy.yaml"


_YEARS = frozenset({"year_window", "dated_year_window"})


def _independent(chosen: list[PackEdit], edit: PackEdit) -> bool:
    """Two edits of one keyword (drop it, suspend it), one phrase or the years are measured
    apart only."""
    words = set(edit.value.split())
    return not any(
        c.intent == edit.intent and (words & set(c.value.split()) or {c.kind, edit.kind} <= _YEARS)
        for c in chosen
    )


def refine(
    tune: Sequence[LabelledCase],
    guards: Sequence[LabelledCase],
    rounds: int,
    per_round: int,
    support: int,
) -> tuple[RulePack, list[Suggestion]]:
    pack = default_rules()
    applied: list[Suggestion] = []
    for number in range(1, rounds + 1):
        found = suggest(tune, pack, guards=guards, limit=per_round * 3, support=support)
        chosen: list[Suggestion] = []
        for item in found:
            fixes, breaks = len(item.tune.fixed), len(item.tune.broken)
            # Fixing twice what it breaks, or a large gain that still fixes more than it breaks.
            sound = fixes >= 2 * breaks or (item.tune.gain >= 0.02 and fixes > breaks)
            if item.guards_broken or not sound or item.tune.gain <= 0.001:
                continue
            if _independent([c.edit for c in chosen], item.edit):
                chosen.append(item)
            if len(chosen) == per_round:
                break
        if not chosen:
            break
        for item in chosen:
            pack = item.edit.apply(pack)
            print(
                f"round {number}: {item.edit.describe()}: tune {item.tune.gain:+.4f} "
                f"(fixes {len(item.tune.fixed)}, breaks {len(item.tune.broken)})",
                flush=True,
            )
        applied.extend(chosen)
    return pack, applied


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--per-round", type=int, default=8)
    parser.add_argument("--support", type=int, default=3, help="false negatives a phrase needs")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    cases = read_labelled(str(SET))
    tune = [c for c in cases if c.part == "tune"]
    guards = read_labelled(str(GUARDS))
    pack, applied = refine(tune, guards, args.rounds, args.per_round, args.support)
    result = score_set(cases, pack)
    for name, card in result.parts.items():
        print(
            f"{name}: macro-F1 {card.macro_f1:.3f} strategy {card.strategy.accuracy:.3f} "
            f"place {card.place.accuracy:.3f} entity precision {card.entities.precision:.3f}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump([s.to_json() for s in applied], out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
