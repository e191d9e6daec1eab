"""Routing quality of the built-in packs on the public labelled set, both parts, beside two plain
baselines (every flag off: the majority answer, strategy `general`, no place, no entity; and
the nearest examples alone: each flag by a similarity-weighted majority of the 5 nearest
prompts of the tuning part, the prompt itself left out, no rule); then each flag's F1 and the
figures per source, so that a gain on one source is not a loss hidden in another.

`refined-semantic`'s tuning figures are not cross-validated: a tuning prompt is in its example
set and finds itself nearest (its votes were chosen leaving it out: tests/eval/write_examples.py).

    .venv/bin/python -m tests.eval.eval_routing [--json FILE]

Targets for `refined` on the held-out part (issue 26): macro-F1 ≥ 0.85, strategy accuracy
≥ 0.90, place-hint accuracy ≥ 0.6, entity precision ≥ 0.8.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence

from routescope import resources_root
from routescope.judge import (
    LabelledCase,
    Labels,
    Prediction,
    Scorecard,
    predict_all,
    read_labelled,
    score,
)
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


def _nearest_alone(cases: Sequence[LabelledCase], k: int = 5) -> list[Prediction]:
    """The plain semantic baseline: every flag by the similarity-weighted majority of the `k`
    nearest tuning prompts (the prompt itself left out), strategy from those flags."""
    import numpy as np

    from routescope._example_votes import example_set
    from routescope.toolsearch import MiniLMOnnx

    examples = example_set("public-tune")
    ids = {case.prompt: i for i, case in enumerate(c for c in cases if c.part == "tune")}
    model = MiniLMOnnx()
    out = []
    for case in cases:
        similarities = examples.vectors @ model.embed([case.prompt])[0]
        if case.part == "tune":
            similarities[ids[case.prompt]] = -np.inf
        nearest = np.argsort(-similarities, kind="stable")[:k]
        weights = np.maximum(similarities[nearest], 0.0)
        flags = {
            name: bool(weights[examples.labels[name][nearest]].sum() * 2 > weights.sum())
            for name in INTENTS
        }
        strategy = Labels(**flags).expected_strategy()  # as the seed routes the flags
        out.append(dataclasses.replace(_baseline(), flags=flags, strategy=strategy))
    return out


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
    packs["nearest 5 alone"] = _by_part_and_source(cases, _nearest_alone(cases))
    for name in ("default", "refined", "refined-semantic"):
        pack: RulePack = parse_rules(builtin_rules_text(name), f"{name}.toml")
        packs[name] = _by_part_and_source(cases, predict_all(cases, pack))
    print(f"{len(cases)} labelled prompts ({SET.name}); figures: tune / held-out")
    _table("pack", {name: rows["all"] for name, rows in packs.items()}, COLUMNS)
    for name in ("refined", "refined-semantic"):
        held = packs[name]["all"]["heldout"]
        met = [
            f"{column} {_n(held[column])} {'≥' if (held[column] or 0) >= goal else '<'} {goal}"
            for column, goal in TARGETS.items()
        ]
        print(f"{name} on the held-out part against the targets: " + ", ".join(met))
    print("\nF1 per flag")
    flags = tuple(f"f1_{name}" for name in INTENTS)
    _table("pack", {name: rows["all"] for name, rows in packs.items()}, flags, INTENTS)
    sources = sorted(k for k in packs["default"] if k != "all")
    for column, title in (("strategy", "strategy accuracy"), ("macro_f1", "macro-F1")):
        print(f"\nper source: {title}")
        by_source = {
            f"{source} ({'/'.join(str(packs['default'][source][p]['cases']) for p in PARTS)})": {
                name: rows[source] for name, rows in packs.items()
            }
            for source in sources
        }
        print(f"{'source':<22}" + "".join(f"{name[:16]:>18}" for name in packs))
        for label, row in by_source.items():
            cells = [f"{_n(f['tune'][column])} / {_n(f['heldout'][column])}" for f in row.values()]
            print(f"{label:<22}" + "".join(f"{cell:>18}" for cell in cells))
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
