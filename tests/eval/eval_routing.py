"""Routing quality of the built-in packs on the public labelled set, both parts, beside two plain
baselines (every flag off: the majority answer, strategy `general`, no place, no entity; and
the nearest examples alone: each flag by a similarity-weighted majority of the 5 nearest
prompts of the tuning part, the prompt itself left out, no rule); then each flag's F1 and the
figures per source, so that a gain on one source is not a loss hidden in another.

`refined-semantic`'s tuning figures are not cross-validated: a tuning prompt is in its example
set and finds itself nearest (its votes were chosen leaving it out: tests/eval/write_examples.py).
`refined` and `refined-semantic` score entities with the learned entity model
(`[entities] model`, tests/eval/write_entity_model.py); "refined, no entity model" is `refined`
without it, for the comparison. Then the flags read from meaning two ways in the same folds
(tests/eval/compare_flag_models.py: the vote and a learned logistic model, 5-fold
cross-validated on the tuning part), a bootstrap of the held-out figures, and the milliseconds a
prompt each pack takes.

    .venv/bin/python -m tests.eval.eval_routing [--json FILE]

Targets for `refined` on the held-out part (issue 26): macro-F1 ≥ 0.85, strategy accuracy
≥ 0.90, place-hint accuracy ≥ 0.6, entity precision ≥ 0.8.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence

import numpy as np

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

from .compare_flag_models import compare, heldout_figures, learning_curve, nested

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


def _vectors(cases: Sequence[LabelledCase]) -> np.ndarray:
    """Each prompt's vector by the bundled model, embedded alone as at query time."""
    from routescope.toolsearch import MiniLMOnnx

    model = MiniLMOnnx()
    return np.vstack([model.embed([case.prompt]) for case in cases]).astype(np.float32)


def _nearest_alone(
    cases: Sequence[LabelledCase], vectors: np.ndarray, k: int = 5
) -> list[Prediction]:
    """The plain semantic baseline: every flag by the similarity-weighted majority of the `k`
    nearest tuning prompts (the prompt itself left out), strategy from those flags."""
    from routescope._example_votes import example_set

    examples = example_set("public-tune")
    ids = {case.prompt: i for i, case in enumerate(c for c in cases if c.part == "tune")}
    out = []
    for case, vector in zip(cases, vectors, strict=True):
        similarities = examples.vectors @ vector
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
    vectors = _vectors(cases)
    packs: dict[str, dict[str, dict[str, Figures]]] = {
        "baseline (all off)": _by_part_and_source(cases, [_baseline() for _ in cases])
    }
    packs["nearest 5 alone"] = _by_part_and_source(cases, _nearest_alone(cases, vectors))
    decided: dict[str, list[Prediction]] = {}
    cost: dict[str, float] = {}
    for name, pack in _packs().items():
        predict_all(cases[:20], pack)  # load what the pack needs before the clock runs
        started = time.perf_counter()
        decided[name] = predict_all(cases, pack)
        cost[name] = (time.perf_counter() - started) * 1000 / len(cases)
        packs[name] = _by_part_and_source(cases, decided[name])
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
    extra = _flag_models(cases, vectors, packs["refined-semantic"]["all"]["heldout"])
    extra["bootstrap"] = _bootstrap(cases, decided)
    print(
        "\nms a prompt (every router, lean, as `score` runs them): "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in cost.items())
    )
    extra["ms_per_prompt"] = cost
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"packs": packs, **extra}, out, indent=1)
    return 0


def _packs() -> dict[str, RulePack]:
    packs = {n: parse_rules(builtin_rules_text(n), f"{n}.toml") for n in ("default", "refined")}
    plain = builtin_rules_text("refined").replace('model = "public-tune-entities"\n', "")
    packs = {
        "default": packs["default"],
        "refined, no entity model": parse_rules(plain, "refined.toml"),
        "refined": packs["refined"],
    }
    name = "refined-semantic"
    packs[name] = parse_rules(builtin_rules_text(name), f"{name}.toml")
    return packs


def _flag_models(
    cases: Sequence[LabelledCase], vectors: np.ndarray, shipped: Figures
) -> dict[str, object]:
    """The vote and the learned flag model beside the rules and the nearest 5, same folds (the
    vote's held-out figures: `shipped`, refined-semantic's)."""
    from routescope._example_votes import example_set

    tune = [c for c in cases if c.part == "tune"]
    heldout = [c for c in cases if c.part == "heldout"]
    held_vectors = vectors[[i for i, c in enumerate(cases) if c.part == "heldout"]]
    refined = parse_rules(builtin_rules_text("refined"), "refined.toml")
    tune_vectors = example_set("public-tune").vectors  # what the vote reads
    methods = compare(tune, heldout, (tune_vectors, held_vectors), refined)
    print("\nflags read from meaning (tune: 5-fold cross-validated, same folds / held-out)")
    print(f"{'method':<26}{'macro-F1':>16}" + "".join(f"{f[:15]:>16}" for f in INTENTS))
    out: dict[str, object] = {}
    for method in methods:
        held: Figures
        if method.heldout is None:  # the vote as refined-semantic ships it
            held = {k: v for k, v in shipped.items() if k == "macro_f1" or k.startswith("f1_")}
        else:
            held = dict(heldout_figures(heldout, method.heldout))
        held_cells = [_n(held["macro_f1"]), *(_n(held[f"f1_{f}"]) for f in INTENTS)]
        tune_cells = [_n(method.tune_macro), *(_n(method.tune_f1[f]) for f in INTENTS)]
        cells = [f"{t} / {h}" for t, h in zip(tune_cells, held_cells, strict=True)]
        print(f"{method.name:<26}" + "".join(f"{c:>16}" for c in cells))
        out[method.name] = {"tune_cv": method.tune_f1, "heldout": held, "settings": method.settings}
    for method in methods:
        print(f"  {method.name}: " + "; ".join(f"{f} {s}" for f, s in method.settings.items()))
    twice = nested(tune, tune_vectors, refined)
    print("nested 5-fold cross-validation on the tuning part (settings chosen inside each fold)")
    for name, figures in twice.items():
        macro = sum(figures.values()) / len(figures)
        print(f"{name:<26}{_n(macro):>16}" + "".join(f"{_n(figures[f]):>16}" for f in INTENTS))
    curve = learning_curve(tune, tune_vectors, refined)
    print("the vote's nested cross-validated F1 with a share of the tuning part's examples")
    for fraction, figures in curve.items():
        macro = sum(figures.values()) / len(figures)
        label = f"{fraction:.0%} ({round(0.8 * len(tune) * fraction)} examples)"
        print(f"{label:<26}{_n(macro):>16}" + "".join(f"{_n(figures[f]):>16}" for f in INTENTS))
    return {"flag_models": out, "flag_models_nested": twice, "vote_learning_curve": curve}


def _bootstrap(
    cases: Sequence[LabelledCase], decided: dict[str, list[Prediction]], resamples: int = 1000
) -> dict[str, dict[str, tuple[float, float]]]:
    """95 % intervals of the held-out figures of the refined packs (resampling prompts)."""
    rng = np.random.default_rng(0)
    held = [i for i, c in enumerate(cases) if c.part == "heldout"]
    draws = [rng.choice(held, size=len(held), replace=True) for _ in range(resamples)]
    out: dict[str, dict[str, tuple[float, float]]] = {}
    print(f"\nheld-out, 95 % bootstrap intervals ({resamples} resamples of the prompts)")
    for name in ("refined, no entity model", "refined", "refined-semantic"):
        figures: dict[str, list[float]] = {c: [] for c in COLUMNS}
        for draw in draws:
            card = _figures(score((cases[i], decided[name][i]) for i in draw))
            for column in COLUMNS:
                figures[column].append(float(card[column] or 0.0))
        out[name] = {
            c: (float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975)))
            for c, v in figures.items()
        }
        print(
            f"{name:<26}" + "  ".join(f"{c} {lo:.3f}–{hi:.3f}" for c, (lo, hi) in out[name].items())
        )
    return out


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
