"""Flags read from meaning, two ways, in the same folds: the nearest-examples vote that
`refined-semantic` ships (`[intents.examples]`) and a learned per-flag logistic model over the
prompt's MiniLM vector and the `refined` rules' decisions and keyword counts; beside the rules
alone and the nearest 5 alone.

Tuning figures are 5-fold cross-validated inside the tuning part (the same folds for every
method; each method's settings — the vote's `k`, `on` and `off`, the model's penalty and
threshold — chosen on the pooled out-of-fold decisions, so each figure is as optimistic as its
search is wide: the vote searches 1,710 settings a flag, the model 95). Held-out figures: the
vote as `refined-semantic` ships it (chosen by leave-one-out on the tuning part), the model
fitted on the whole tuning part with its cross-validated settings. The held-out part chooses
nothing. Printed by `tests/eval/eval_routing.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from routescope.judge import LabelledCase, Labels
from routescope.rules import INTENTS, IntentName, RulePack
from routescope.strategy import extract

from ._logistic import Standardised, fit_logistic, folds, sigmoid
from .write_examples import f1, shares

PENALTIES = (10.0, 30.0, 100.0, 300.0, 1000.0)
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))
KS = (1, 3, 5, 7, 9, 11, 15, 21, 25)
OFFS: tuple[float | None, ...] = (None, *(t for t in THRESHOLDS if t < 0.5))


def rule_features(cases: Sequence[LabelledCase], pack: RulePack) -> np.ndarray:
    """Per prompt: each flag as the pack's rules decide it, and log(1 + its keyword count)."""
    rows = []
    for case in cases:
        found = extract(case.prompt, pack, case.today)
        counts = found.intent_match_counts
        rows.append(
            [float(getattr(found.intent, f)) for f in INTENTS]
            + [math.log1p(counts.get(f, 0)) for f in INTENTS]
        )
    return np.array(rows)


@dataclass
class Method:
    name: str
    tune_f1: dict[IntentName, float]
    heldout: dict[IntentName, np.ndarray] | None
    """Each held-out prompt's decided flags, when the method has held-out figures here."""
    settings: dict[IntentName, str]

    @property
    def tune_macro(self) -> float:
        return sum(self.tune_f1.values()) / len(self.tune_f1)


Vote = tuple[int, float, float | None]
"""A vote's k, on and off."""


def _vote(
    similarities: np.ndarray, rules: np.ndarray, truth: np.ndarray, fold: np.ndarray
) -> tuple[float, Vote]:
    """(cross-validated F1, the vote's settings); `similarities` between the rows."""
    best: tuple[float, Vote] | None = None
    for k in KS:
        share = np.zeros(len(truth))
        for f in range(fold.max() + 1):
            train, test = fold != f, fold == f
            share[test] = shares(similarities[np.ix_(test, train)], truth[train], k)
        for on in THRESHOLDS:
            for off in OFFS:
                if off is not None and off >= on:
                    continue
                score = f1(_voted(rules, share, on, off), truth)
                if best is None or score > best[0]:
                    best = (score, (k, on, off))
    assert best is not None
    return best


def _voted(rules: np.ndarray, share: np.ndarray, on: float, off: float | None) -> np.ndarray:
    decided = rules | (share >= on)
    if off is not None:
        decided &= ~(rules & (share < off))
    return decided


def _model_cv(rows: np.ndarray, truth: np.ndarray, fold: np.ndarray) -> tuple[float, float, float]:
    """(cross-validated F1, penalty, threshold)."""
    best: tuple[float, float, float] | None = None
    for penalty in PENALTIES:
        p = np.zeros(len(truth))
        for f in range(fold.max() + 1):
            train, test = fold != f, fold == f
            scale = Standardised(rows[train])
            weights, bias = fit_logistic(scale(rows[train]), truth[train], penalty)
            p[test] = sigmoid(scale(rows[test]) @ weights + bias)
        for threshold in THRESHOLDS:
            score = f1(p >= threshold, truth)
            if best is None or score > best[0]:
                best = (score, penalty, threshold)
    assert best is not None
    return best


def compare(
    tune: Sequence[LabelledCase],
    heldout: Sequence[LabelledCase],
    vectors: tuple[np.ndarray, np.ndarray],
    refined: RulePack,
) -> list[Method]:
    """The methods' figures; `vectors` are the tuning and held-out prompts' unit vectors."""
    tune_vectors, held_vectors = vectors
    truth = {f: np.array([bool(c.labels.flag(f)) for c in tune]) for f in INTENTS}
    rules_tune = rule_features(tune, refined)
    rules_held = rule_features(heldout, refined)
    fold = folds(len(tune))
    similarities = tune_vectors @ tune_vectors.T
    alone = similarities.copy()
    np.fill_diagonal(alone, -np.inf)
    held_similarities = held_vectors @ tune_vectors.T
    methods = [
        Method(
            "rules (refined)",
            {f: f1(rules_tune[:, i] > 0, truth[f]) for i, f in enumerate(INTENTS)},
            {f: rules_held[:, i] > 0 for i, f in enumerate(INTENTS)},
            dict.fromkeys(INTENTS, "-"),
        ),
        Method(
            "nearest 5 alone",
            {f: f1(shares(alone, truth[f], 5) > 0.5, truth[f]) for f in INTENTS},
            {f: shares(held_similarities, truth[f], 5) > 0.5 for f in INTENTS},
            dict.fromkeys(INTENTS, "leave-one-out"),
        ),
    ]
    vote = [
        _vote(similarities, rules_tune[:, i] > 0, truth[f], fold) for i, f in enumerate(INTENTS)
    ]
    methods.append(
        Method(
            "vote + rules",
            {f: v[0] for f, v in zip(INTENTS, vote, strict=True)},
            None,
            {f: "k {}, on {}, off {}".format(*v[1]) for f, v in zip(INTENTS, vote, strict=True)},
        )
    )
    rows_tune = np.hstack([rules_tune, tune_vectors])
    rows_held = np.hstack([rules_held, held_vectors])
    tune_f1: dict[IntentName, float] = {}
    decided: dict[IntentName, np.ndarray] = {}
    settings: dict[IntentName, str] = {}
    for flag in INTENTS:
        score, penalty, threshold = _model_cv(rows_tune, truth[flag], fold)
        scale = Standardised(rows_tune)
        weights, bias = fit_logistic(scale(rows_tune), truth[flag], penalty)
        decided[flag] = sigmoid(scale(rows_held) @ weights + bias) >= threshold
        tune_f1[flag], settings[flag] = score, f"penalty {penalty:g}, threshold {threshold}"
    methods.append(Method("logistic: vector + rules", tune_f1, decided, settings))
    return methods


def heldout_figures(
    heldout: Sequence[LabelledCase], decided: dict[IntentName, np.ndarray]
) -> dict[str, float]:
    """Macro-F1, each flag's F1 and strategy accuracy of held-out decisions."""
    truth = {f: np.array([bool(c.labels.flag(f)) for c in heldout]) for f in INTENTS}
    figures = {f"f1_{f}": f1(decided[f], truth[f]) for f in INTENTS}
    figures["macro_f1"] = sum(figures.values()) / len(INTENTS)
    right = 0
    for i, case in enumerate(heldout):
        flags = {f: bool(decided[f][i]) for f in INTENTS}
        right += Labels(**flags).expected_strategy() == case.labels.expected_strategy()
    figures["strategy"] = right / len(heldout)
    return figures


def nested(
    tune: Sequence[LabelledCase], vectors: np.ndarray, refined: RulePack
) -> dict[str, dict[IntentName, float]]:
    """Each flag's F1 of the vote and of the logistic model by nested cross-validation: in each
    of 5 outer folds, the settings are chosen by 5-fold cross-validation inside the other four
    and the fold is decided with them, so no figure is chosen on the prompts it scores (the
    vote's wider search gains nothing from it here)."""
    rules = rule_features(tune, refined)
    rows = np.hstack([rules, vectors])
    similarities = vectors @ vectors.T
    outer = folds(len(tune), seed=1)
    out: dict[str, dict[IntentName, float]] = {"vote + rules": {}, "logistic: vector + rules": {}}
    for index, flag in enumerate(INTENTS):
        truth = np.array([bool(c.labels.flag(flag)) for c in tune])
        ruled = rules[:, index] > 0
        by_model = np.zeros(len(tune), dtype=bool)
        for f in range(5):
            train, test = np.flatnonzero(outer != f), np.flatnonzero(outer == f)
            inner = folds(len(train), seed=2)
            _, penalty, threshold = _model_cv(rows[train], truth[train], inner)
            scale = Standardised(rows[train])
            weights, bias = fit_logistic(scale(rows[train]), truth[train], penalty)
            by_model[test] = sigmoid(scale(rows[test]) @ weights + bias) >= threshold
        by_vote = _nested_vote(similarities, ruled, truth, outer, lambda train: train)
        out["vote + rules"][flag] = f1(by_vote, truth)
        out["logistic: vector + rules"][flag] = f1(by_model, truth)
    return out


def _nested_vote(
    similarities: np.ndarray,
    ruled: np.ndarray,
    truth: np.ndarray,
    outer: np.ndarray,
    examples: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Each prompt's flag as the vote decides it in nested cross-validation, each outer fold
    voted on by `examples(the other folds' rows)` with settings chosen inside those rows."""
    decided = np.zeros(len(truth), dtype=bool)
    for f in range(outer.max() + 1):
        train, test = examples(np.flatnonzero(outer != f)), np.flatnonzero(outer == f)
        inner = folds(len(train), seed=2)
        _, (k, on, off) = _vote(
            similarities[np.ix_(train, train)], ruled[train], truth[train], inner
        )
        share = shares(similarities[np.ix_(test, train)], truth[train], k)
        decided[test] = _voted(ruled[test], share, on, off)
    return decided


def _draw(rows: np.ndarray, *, rng: np.random.Generator, fraction: float) -> np.ndarray:
    return np.sort(rng.permutation(rows)[: round(len(rows) * fraction)])


def learning_curve(
    tune: Sequence[LabelledCase],
    vectors: np.ndarray,
    refined: RulePack,
    fractions: Sequence[float] = (0.25, 0.5, 0.75, 1.0),
    draws: int = 3,
) -> dict[float, dict[IntentName, float]]:
    """How the vote's nested cross-validated F1 grows with the labelled examples: each outer
    fold voted on by a random `fraction` of the other four folds (settings chosen inside it),
    each flag's F1 the mean of `draws` random draws (one at the whole). What more labelled
    prompts like these would buy, without reading the held-out part."""
    rules = rule_features(tune, refined)
    similarities = vectors @ vectors.T
    outer = folds(len(tune), seed=1)
    curve: dict[float, dict[IntentName, float]] = {}
    for fraction in fractions:
        rng = np.random.default_rng(7)
        times = 1 if fraction >= 1.0 else draws
        curve[fraction] = {}
        for index, flag in enumerate(INTENTS):
            truth = np.array([bool(c.labels.flag(flag)) for c in tune])
            scores = []
            drawn = partial(_draw, rng=rng, fraction=fraction)
            for _ in range(times):
                decided = _nested_vote(similarities, rules[:, index] > 0, truth, outer, drawn)
                scores.append(f1(decided, truth))
            curve[fraction][flag] = float(np.mean(scores))
    return curve
