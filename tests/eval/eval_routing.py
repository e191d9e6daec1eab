"""Routing quality of the built-in packs on the public labelled set, both parts, beside a plain
baseline (every flag off: the majority answer, strategy `general`, no place, no entity); then
each flag's F1 and the figures per source, so that a gain on one source is not a loss hidden in
another.

    .venv/bin/python -m tests.eval.eval_routing [--json FILE]

Targets for `refined` on the held-out part (issue 26): macro-F1 ≥ 0.85, strategy accuracy
≥ 0.90, place-hint accuracy ≥ 0.6, entity precision ≥ 0.8.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from routescope import resources_root
from routescope.judge import LabelledCase, Prediction, Scorecard, predict_all, read_labelled, score
from routescope.rules import INTENTS, RulePack, builtin_rules_text, parse_rules

SET = resources_root() / "labelled" / "public" / "public.jsonl"
PARTS = ("tune", "heldout")
COLUMNS = ("macro_f1", "strategy", "place", "entity_p", "entity_r")
TARGETS = {"macro_f1": 0.85, "strategy": 0.90, "place": 0.6, "entity_p": 0.8}
Figures = dict[str, float | None]


def _figures(card: Scorecard) -> Figures:
    return {
        "cases": card.cases,
        "macro_f1": card.macro_f1,
        "strategy": card.strategy.accuracy,
        "place": card.place.accuracy,
        "entity_p": card.entities.precision,
        "entity_r": card.entities.recall,
        **{f"f1_{name}": card.flags[name].f1 for name in INTENTS},
    }


def _baseline() -> Prediction:
    return Prediction(
        flags=dict.fromkeys(INTENTS, False),
        strategy="general",
        strategy_rule="baseline",
        place_hint=None,
        entities=(),
        linter_class="",
        agent=None,
        mode=None,
        top_tool=None,
        ranked_tools=False,
        strategy_only=True,
        evidence={},
    )


def _source(case: LabelledCase) -> str:
    return str(case.extra.get("source", "?"))


def _by_part_and_source(
    cases: Sequence[LabelledCase], decided: Sequence[Prediction]
) -> dict[str, dict[str, Figures]]:
    """Figures by part ("tune", "heldout") and, under "<part>/<source>", per source."""
    pairs = list(zip(cases, decided, strict=True))
    rows: dict[str, dict[str, Figures]] = {}
    for part in PARTS:
        chosen = [pair for pair in pairs if pair[0].part == part]
        rows.setdefault("all", {})[part] = _figures(score(chosen))
        for source in sorted({_source(case) for case, _ in chosen}):
            mine = [pair for pair in chosen if _source(pair[0]) == source]
            rows.setdefault(source, {})[part] = _figures(score(mine))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    cases = read_labelled(str(SET))
    packs: dict[str, dict[str, dict[str, Figures]]] = {
        "baseline (all off)": _by_part_and_source(cases, [_baseline() for _ in cases])
    }
    for name in ("default", "refined"):
        pack: RulePack = parse_rules(builtin_rules_text(name), f"{name}.toml")
        packs[name] = _by_part_and_source(cases, predict_all(cases, pack))
    print(f"{len(cases)} labelled prompts ({SET.name}); figures: tune / held-out")
    _table("pack", {name: rows["all"] for name, rows in packs.items()}, COLUMNS)
    refined = packs["refined"]["all"]["heldout"]
    met = [
        f"{column} {_n(refined[column])} {'≥' if (refined[column] or 0) >= goal else '<'} {goal}"
        for column, goal in TARGETS.items()
    ]
    print("refined on the held-out part against the targets: " + ", ".join(met))
    print("\nF1 per flag")
    flags = tuple(f"f1_{name}" for name in INTENTS)
    _table("pack", {name: rows["all"] for name, rows in packs.items()}, flags, INTENTS)
    print("\nper source: strategy accuracy and macro-F1, default → refined")
    sources = sorted(k for k in packs["default"] if k != "all")
    print(f"{'source':<16}{'prompts':>10}{'strategy':>32}{'macro-F1':>32}")
    for source in sources:
        default, mine = packs["default"][source], packs["refined"][source]
        counts = "/".join(str(default[part]["cases"]) for part in PARTS)
        strategy = " | ".join(
            f"{_n(default[p]['strategy'])}→{_n(mine[p]['strategy'])}" for p in PARTS
        )
        macro = " | ".join(f"{_n(default[p]['macro_f1'])}→{_n(mine[p]['macro_f1'])}" for p in PARTS)
        print(f"{source:<16}{counts:>10}{strategy:>32}{macro:>32}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(packs, out, indent=1)
    return 0


def _table(
    label: str,
    rows: dict[str, dict[str, Figures]],
    columns: Sequence[str],
    titles: Sequence[str] = (),
) -> None:
    print(f"{label:<20}" + "".join(f"{c[:16]:>18}" for c in titles or columns))
    for name, parts in rows.items():
        cells = [f"{_n(parts['tune'][c])} / {_n(parts['heldout'][c])}" for c in columns]
        print(f"{name:<20}" + "".join(f"{cell:>18}" for cell in cells))


def _n(value: float | None) -> str:
    return "  —  " if value is None else f"{value:.3f}"


if __name__ == "__main__":
    raise SystemExit(main())
