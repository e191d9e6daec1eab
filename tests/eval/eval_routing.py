"""Routing quality of the built-in packs on the public labelled set, both parts, beside a plain
baseline (every flag off: the majority answer, strategy `general`, no place, no entity).

    .venv/bin/python -m tests.eval.eval_routing [--json FILE]

Targets for `refined` on the held-out part (issue 26): macro-F1 ≥ 0.85, strategy accuracy
≥ 0.90, place-hint accuracy ≥ 0.6, entity precision ≥ 0.8.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from routescope import resources_root
from routescope.judge import Prediction, Scorecard, read_labelled, score, score_set
from routescope.rules import INTENTS, RulePack, builtin_rules_text, parse_rules

SET = resources_root() / "labelled" / "public" / "public.jsonl"
COLUMNS = ("macro_f1", "strategy", "place", "entity_p", "entity_r")


def _figures(card: Scorecard) -> dict[str, float | None]:
    return {
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    cases = read_labelled(str(SET))
    rows: dict[str, dict[str, dict[str, float | None]]] = {}
    for part in ("tune", "heldout"):
        chosen = [c for c in cases if c.part == part]
        rows.setdefault("baseline (all off)", {})[part] = _figures(
            score((c, _baseline()) for c in chosen)
        )
    for name in ("default", "refined"):
        pack: RulePack = parse_rules(builtin_rules_text(name), f"{name}.toml")
        result = score_set(cases, pack)
        rows[name] = {part: _figures(card) for part, card in result.parts.items()}
    print(f"{len(cases)} labelled prompts ({SET.name}); figures: tune / held-out")
    print(f"{'pack':<20}" + "".join(f"{c:>18}" for c in COLUMNS))
    for name, parts in rows.items():
        cells = []
        for column in COLUMNS:
            tune, held = parts["tune"][column], parts["heldout"][column]
            cells.append(f"{_n(tune)} / {_n(held)}")
        print(f"{name:<20}" + "".join(f"{cell:>18}" for cell in cells))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=1)
    return 0


def _n(value: float | None) -> str:
    return "  —  " if value is None else f"{value:.3f}"


if __name__ == "__main__":
    raise SystemExit(main())
