"""Write the entity model `public-tune-entities` and switch it on in the refined packs.

    .venv/bin/python -m tests.eval.write_entity_model [--dry-run]

Every entity candidate the `refined` pack proposes for a prompt of the public set's tuning part
(all of them: `max_candidates` lifted) is a row: its features (`ENTITY_FEATURES`: which source
proposed it, length, position, place, …) and whether the prompt's labels name it (compared as the
scorer compares). A logistic model is fitted by 5-fold cross-validation inside the tuning part,
folds by prompt; the candidates each fold's model keeps (at most `max_candidates` a prompt, by
score) are scored as `routescope score` scores entities. Chosen: the penalty and the lowest
threshold (steps of 0.05) whose cross-validated precision reaches 0.8 (the target), the penalty
with the highest recall there; then the model is fitted on the whole tuning part. The held-out
part is never read. Writes `resources/labelled/models/public-tune-entities.json` and sets
`model = "public-tune-entities"` in `[entities]` of `refined.toml` and `refined-semantic.toml`.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from routescope import resources_root
from routescope.judge import LabelledCase, read_labelled
from routescope.judge._labels import normal_form
from routescope.rules import RulePack, builtin_rules_text, parse_rules
from routescope.strategy import extract
from routescope.strategy._entity_model import ENTITY_FEATURES, candidate_features

from ._logistic import Standardised, fit_logistic, folds, sigmoid

SET = resources_root() / "labelled" / "public" / "public.jsonl"
NAME = "public-tune-entities"
OUT = Path(str(resources_root() / "labelled" / "models" / f"{NAME}.json"))
PACKS = [
    Path(str(resources_root() / "rules" / f"{n}.toml")) for n in ("refined", "refined-semantic")
]
PENALTIES = (0.1, 1.0, 10.0, 100.0)
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 19))
TARGET = 0.8


@dataclass
class Rows:
    features: np.ndarray
    named: np.ndarray
    """Whether the prompt's labels name the candidate."""
    case: np.ndarray
    keys: list[str]
    wanted: list[set[str]]
    cap: int


def candidate_rows(cases: Sequence[LabelledCase], pack: RulePack) -> Rows:
    """One row per candidate `pack` proposes (without its model; every candidate kept)."""
    data = pack.model_dump()  # a new pack, not a copy: a copy shares the compiled patterns
    data["entities"].update(model=None, max_candidates=50)
    wide = RulePack.model_validate(data)
    rows: list[list[float]] = []
    named: list[bool] = []
    case_of: list[int] = []
    keys: list[str] = []
    wanted: list[set[str]] = []
    for index, case in enumerate(cases):
        want = {normal_form(e) for e in case.labels.entities or ()}
        wanted.append(want)
        found = extract(case.prompt, wide, case.today).entities
        for detail in found.details:
            rows.append(candidate_features(detail, case.prompt, found.place, len(found.details)))
            named.append(normal_form(detail.text) in want)
            case_of.append(index)
            keys.append(normal_form(detail.text))
    return Rows(
        np.array(rows),
        np.array(named),
        np.array(case_of),
        keys,
        wanted,
        pack.entities.max_candidates,
    )


def precision_recall(rows: Rows, scores: np.ndarray, threshold: float) -> tuple[float, float]:
    """Entity precision and recall when each prompt keeps its candidates scoring ≥ threshold,
    at most `cap`, best first (as the extractor ranks them)."""
    tp = fp = fn = 0
    by_case: dict[int, list[int]] = {}
    for row, case in enumerate(rows.case.tolist()):
        by_case.setdefault(case, []).append(row)
    for case, want in enumerate(rows.wanted):
        kept = [r for r in by_case.get(case, []) if scores[r] >= threshold]
        kept.sort(key=lambda r: (-scores[r], r))
        found = {rows.keys[r] for r in kept[: rows.cap]}
        tp += len(found & want)
        fp += len(found - want)
        fn += len(want - found)
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)


def cross_validated(rows: Rows, penalty: float) -> np.ndarray:
    """Each candidate's score by the model fitted on the other folds' prompts."""
    fold = folds(len(rows.wanted))[rows.case]
    scores = np.zeros(len(rows.named))
    for k in range(5):
        train, test = fold != k, fold == k
        scale = Standardised(rows.features[train])
        weights, bias = fit_logistic(scale(rows.features[train]), rows.named[train], penalty)
        scores[test] = sigmoid(scale(rows.features[test]) @ weights + bias)
    return scores


def choose(rows: Rows) -> tuple[float, float, float, float]:
    """(penalty, threshold, cross-validated precision, recall)."""
    best: tuple[float, float, float, float] | None = None
    for penalty in PENALTIES:
        scores = cross_validated(rows, penalty)
        for threshold in THRESHOLDS:
            precision, recall = precision_recall(rows, scores, threshold)
            if precision >= TARGET:
                if best is None or recall > best[3]:
                    best = (penalty, threshold, precision, recall)
                break
    if best is None:
        raise SystemExit("no threshold reaches the target precision")
    return best


def _switch_on(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    line = f'model = "{NAME}"'
    if line in text:
        return
    comment = (
        "# A learned score drops unlikely candidates (resources/labelled/models/; chosen by\n"
        "# cross-validation on the tuning part: tests/eval/write_entity_model.py).\n"
    )
    new, count = re.subn(r"^(min_score = [0-9.]+\n)", rf"\1{comment}{line}\n", text, flags=re.M)
    if count != 1:
        raise SystemExit(f"{path}: no single `min_score` line in [entities]")
    path.write_text(new, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dry-run", action="store_true", help="print the choice, write nothing")
    args = parser.parse_args(argv)
    cases = [c for c in read_labelled(SET) if c.part == "tune" and c.labels.entities is not None]
    refined = parse_rules(builtin_rules_text("refined"), "refined.toml")
    rows = candidate_rows(cases, refined)
    kinds = precision_recall(rows, np.array([1.0] * len(rows.named)), 0.5)
    print(f"{len(cases)} tuning prompts, {len(rows.named)} candidates; refined: {kinds}")
    penalty, threshold, precision, recall = choose(rows)
    print(
        f"penalty {penalty}, threshold {threshold}: cross-validated {precision:.3f} / {recall:.3f}"
    )
    scale = Standardised(rows.features)
    weights, bias = fit_logistic(scale(rows.features), rows.named, penalty)
    model = {
        "name": NAME,
        "what": "entity candidates of the refined pack, trained on the public set's tuning part",
        "written_by": "tests/eval/write_entity_model.py",
        "penalty": penalty,
        "cross_validated": {"precision": round(precision, 4), "recall": round(recall, 4)},
        "features": list(ENTITY_FEATURES),
        "mean": [round(float(x), 6) for x in scale.mean],
        "scale": [round(float(x), 6) for x in scale.scale],
        "weights": [round(float(x), 6) for x in weights],
        "bias": round(bias, 6),
        "threshold": threshold,
    }
    for name, weight in zip(ENTITY_FEATURES, model["weights"], strict=True):  # type: ignore[call-overload]
        print(f"  {name:26} {weight:+.3f}")
    if args.dry_run:
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    for pack in PACKS:
        _switch_on(pack)
    print(f"wrote {OUT}; switched on in {', '.join(p.name for p in PACKS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
