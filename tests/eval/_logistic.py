"""L2-regularised logistic regression by Newton's method (numpy only), and deterministic k-fold
splits: the learned models of `make eval`'s routing figures are fitted with these."""

from __future__ import annotations

import numpy as np

__all__ = ["Standardised", "fit_logistic", "folds", "sigmoid"]


def sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -60.0, 60.0)))


def folds(n: int, k: int = 5, seed: int = 0) -> np.ndarray:
    """Each row's fold (0 … k-1): a fixed permutation of the rows dealt round-robin."""
    order = np.random.default_rng(seed).permutation(n)
    fold = np.empty(n, dtype=int)
    fold[order] = np.arange(n) % k
    return fold


class Standardised:
    """Centring and scale of each feature column, from the rows a model is fitted on."""

    def __init__(self, rows: np.ndarray) -> None:
        self.mean = rows.mean(axis=0)
        spread = rows.std(axis=0)
        self.scale = np.where(spread > 1e-9, spread, 1.0)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return (rows - self.mean) / self.scale


def fit_logistic(
    rows: np.ndarray,
    truth: np.ndarray,
    penalty: float,
    iterations: int = 60,
    row_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Weights and bias minimising the log loss + penalty/2 · |weights|² (the bias is not
    penalised), by Newton's method from zero: the same rows give the same model.
    `row_weights`: how much each row's loss counts (1 each when None)."""
    n, d = rows.shape
    design = np.hstack([rows, np.ones((n, 1))])
    w = np.zeros(d + 1)
    ridge = penalty * np.eye(d + 1)
    ridge[-1, -1] = 0.0
    y = truth.astype(float)
    each = np.ones(n) if row_weights is None else np.asarray(row_weights, dtype=float)
    for _ in range(iterations):
        p = sigmoid(design @ w)
        gradient = design.T @ (each * (p - y)) + ridge @ w
        hessian = (design * (each * p * (1 - p))[:, None]).T @ design + ridge + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w[:-1], float(w[-1])
