"""Ranking metrics of `make eval`: hit@k, MRR@k, recall of all needed tools @k, and the
"no tool fits" figures (false accepts and false rejects at a threshold, AUROC).

A ranking is the list of tool names a strategy returned, best first. Names are compared
ignoring case (Routescope treats names that differ only in case as one tool).

Checked by the doctests below and `self_check()` (run by `make eval` before anything else):

>>> first_rank(["a", "B", "c"], {"b"})
2
>>> ranks = [1, 2, None, 11, 3]
>>> hit_at(ranks, 1), hit_at(ranks, 3), hit_at(ranks, 10)
(0.2, 0.6, 0.6)
>>> round(mrr_at(ranks, 10), 4)  # (1 + 1/2 + 1/3) / 5; rank 11 is past the cut
0.3667
>>> recall_all_at(["x", "a", "y", "b"], ["a", "b"], 4), recall_all_at(["a"], ["a", "b"], 10)
(True, False)
>>> recall_at(["a", "z"], ["a", "b"], 10)
0.5
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "auroc",
    "false_accept",
    "first_rank",
    "hit_at",
    "median",
    "mrr_at",
    "paired_interval",
    "quantile",
    "recall_all_at",
    "recall_at",
    "self_check",
    "wilson",
]


def _folded(names: Iterable[str]) -> set[str]:
    return {name.lower() for name in names}


def first_rank(ranking: Sequence[str], expected: Collection[str]) -> int | None:
    """The 1-based rank of the first expected tool in the ranking, None when none is there."""
    wanted = _folded(expected)
    return next((rank for rank, name in enumerate(ranking, 1) if name.lower() in wanted), None)


def hit_at(ranks: Sequence[int | None], k: int) -> float:
    """The share of queries whose expected tool is in the top k."""
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def mrr_at(ranks: Sequence[int | None], k: int = 10) -> float:
    """Mean reciprocal rank, a rank past k counting 0."""
    return sum(1 / r for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def recall_at(ranking: Sequence[str], expected: Collection[str], k: int = 10) -> float:
    """The share of the needed tools found in the top k."""
    wanted = _folded(expected)
    return len(wanted & _folded(ranking[:k])) / len(wanted) if wanted else 1.0


def recall_all_at(ranking: Sequence[str], expected: Collection[str], k: int = 10) -> bool:
    """Whether every needed tool is in the top k."""
    return _folded(expected) <= _folded(ranking[:k])


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0 ≤ q ≤ 1) by linear interpolation between the sorted values."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def false_accept(scores: Sequence[float | None], threshold: float) -> float:
    """The share of queries no tool answers whose best score reaches the threshold (a
    question with no result at all is rejected)."""
    if not scores:
        return math.nan
    return sum(1 for s in scores if s is not None and s >= threshold) / len(scores)


def auroc(relevant: Sequence[float | None], irrelevant: Sequence[float | None]) -> float:
    """The chance that a relevant question's best score beats an irrelevant one's (ties count
    half; a question with no result scores below every other): 1 separates them perfectly,
    0.5 not at all.

    >>> auroc([3.0, 2.0], [1.0, 0.0]), auroc([1.0], [1.0]), auroc([None], [0.0])
    (1.0, 0.5, 0.0)
    """
    if not relevant or not irrelevant:
        return math.nan
    low = -math.inf
    pairs = sorted(
        [(s if s is not None else low, 1) for s in relevant]
        + [(s if s is not None else low, 0) for s in irrelevant]
    )
    # Mann-Whitney U with mid-ranks for ties.
    rank_sum, position = 0.0, 0
    while position < len(pairs):
        end = position
        while end < len(pairs) and pairs[end][0] == pairs[position][0]:
            end += 1
        mid = (position + 1 + end) / 2
        rank_sum += mid * sum(label for _, label in pairs[position:end])
        position = end
    n_rel, n_irr = len(relevant), len(irrelevant)
    return (rank_sum - n_rel * (n_rel + 1) / 2) / (n_rel * n_irr)


def paired_interval(
    first: Sequence[float], second: Sequence[float], z: float = 1.96
) -> tuple[float, float, float]:
    """The mean of `first[i] - second[i]` and its normal-approximation 95 % interval (the same
    queries scored two ways, e.g. hit@1 as 1.0 / 0.0).

    >>> paired_interval([1, 1, 0, 1], [0, 1, 0, 0])
    (0.5, -0.065..., 1.065...)
    """
    if len(first) != len(second) or not first:
        return math.nan, math.nan, math.nan
    differences = [a - b for a, b in zip(first, second, strict=True)]
    mean = sum(differences) / len(differences)
    if len(differences) < 2:
        return mean, math.nan, math.nan
    spread = statistics.stdev(differences) / math.sqrt(len(differences))
    return mean, mean - z * spread, mean + z * spread


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95 % by default): better than the normal
    approximation for small samples and shares near 0 or 1; (NaN, NaN) without trials.

    >>> [round(v, 3) for v in wilson(15, 20)]
    [0.531, 0.888]
    >>> wilson(0, 0)
    (nan, nan)
    """
    if trials <= 0:
        return math.nan, math.nan
    share = successes / trials
    denominator = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - spread / denominator), min(1.0, centre + spread / denominator)


def self_check() -> None:
    """Assert-based checks of every metric on hand-computed cases (and the doctests)."""
    import doctest
    import sys

    assert first_rank([], {"a"}) is None
    assert first_rank(["A"], {"a"}) == 1
    assert first_rank(["x", "y", "a", "a"], {"a", "y"}) == 2
    ranks: list[int | None] = [1, 3, 10, 11, None]
    assert hit_at(ranks, 1) == 0.2
    assert hit_at(ranks, 3) == 0.4
    assert hit_at(ranks, 10) == 0.6
    assert math.isclose(mrr_at(ranks, 10), (1 + 1 / 3 + 1 / 10) / 5)
    assert math.isclose(mrr_at(ranks, 3), (1 + 1 / 3) / 5)
    assert hit_at([], 1) == 0.0 and mrr_at([], 10) == 0.0
    assert recall_all_at(["a", "b"], ["b", "a"], 2)
    assert not recall_all_at(["a", "x", "b"], ["a", "b"], 2)
    assert recall_at(["a", "x", "b"], ["a", "b", "c", "d"], 10) == 0.5
    assert quantile([4.0, 1.0, 3.0, 2.0], 0.0) == 1.0
    assert quantile([4.0, 1.0, 3.0, 2.0], 1.0) == 4.0
    assert quantile([1.0, 2.0, 3.0], 0.25) == 1.5
    assert false_accept([0.1, 0.5, None, 0.9], 0.5) == 0.5
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.1, 0.2], [0.9, 0.8]) == 0.0
    assert auroc([0.5, 0.5], [0.5]) == 0.5
    assert math.isclose(auroc([0.3, 0.9], [0.5]), 0.5)
    assert paired_interval([1.0, 0.0], [1.0, 0.0]) == (0.0, 0.0, 0.0)
    low, high = wilson(20, 20)
    assert high == 1.0 and 0.83 < low < 0.84
    failures = doctest.testmod(sys.modules[__name__], optionflags=doctest.ELLIPSIS).failed
    assert failures == 0, f"{failures} doctest(s) of {__name__} failed"


if __name__ == "__main__":
    self_check()
    print("metrics: self-check passed")
