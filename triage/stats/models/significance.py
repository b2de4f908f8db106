"""Paired approximate-randomisation (permutation) test, seed 002 (after Yeh 2000, Padó 2006).

Two models are scored on the same items. Under the null hypothesis the two systems are
exchangeable, so each item's pair of values (A_i, B_i) may be swapped with probability 1/2.
The p-value is the share of swaps whose |f(A') - f(B')| reaches the observed difference.

Only items where A_i != B_i are swapped (the seed's "uncommon" set: swapping equal values
changes nothing). When 2^m swap patterns (m uncommon items) fit within ``trials`` they are
all enumerated and the p-value is exact (s / 2^m, the identity pattern included); otherwise
patterns are drawn at random and p = (s + 1) / (N + 1), which never reports an impossible 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# A statistic maps a 2-D array (rows = permuted versions of one system's values) to one
# number per row. ``rowwise`` lifts an ordinary 1-D statistic into that form.
BatchStatistic = Callable[[np.ndarray], np.ndarray]

_CELLS = 2_000_000  # values per batch of permuted rows: bounds memory for large pools


def rowwise(statistic: Callable[[np.ndarray], float | None]) -> BatchStatistic:
    """Turn ``f(values_1d) -> float | None`` into a batch statistic (None becomes NaN)."""

    def batch(values: np.ndarray) -> np.ndarray:
        out = [statistic(row) for row in values]
        return np.array([np.nan if v is None else v for v in out], dtype=np.float64)

    return batch


def batch_mean(values: np.ndarray) -> np.ndarray:
    """Mean of each row: the seed's f = mean, vectorised."""
    return values.mean(axis=1)


@dataclass(frozen=True)
class PermutationResult:
    """Outcome of a paired permutation test."""

    statistic_a: float | None
    statistic_b: float | None
    difference: float | None  # f(A) - f(B)
    p_value: float | None
    trials: int  # swap patterns evaluated
    exact: bool  # True when every pattern was enumerated
    uncommon: int  # items where the two systems differ
    reason: str | None = None  # why the test is undefined (a code), if it is


def _all_patterns(m: int) -> np.ndarray:
    """All 2^m swap masks as a boolean array (row 0 is the identity)."""
    codes = np.arange(2**m, dtype=np.int64)[:, None]
    return ((codes >> np.arange(m, dtype=np.int64)) & 1).astype(bool)


def permutation_test(
    a: np.ndarray,
    b: np.ndarray,
    statistic: BatchStatistic = batch_mean,
    *,
    trials: int = 10_000,
    seed: int = 0,
    exact: bool | None = None,
) -> PermutationResult:
    """Two-sided paired approximate-randomisation test of f(A) vs f(B).

    ``a`` and ``b`` hold per-item values of the two systems (outcomes, or scores when the
    statistic closes over the gold labels). ``statistic`` takes a 2-D array and returns one
    value per row; NaN marks "undefined" for that permuted version. ``exact=None`` enumerates
    all patterns when 2^m <= trials; ``False`` always samples; ``True`` insists on enumerating.
    """
    return permutation_tests(a, b, lambda rows: {"f": statistic(rows)}, trials=trials, seed=seed,
                             exact=exact)["f"]


MultiStatistic = Callable[[np.ndarray], dict[str, np.ndarray]]


# Given swap patterns (one row per pattern, one column per item where the systems differ),
# {statistic: its values on the permuted A rows, then on the permuted B rows}.
SwapEvaluator = Callable[[np.ndarray], dict[str, np.ndarray]]


def _row_evaluator(a: np.ndarray, b: np.ndarray, uncommon: np.ndarray,
                   statistics: MultiStatistic) -> SwapEvaluator:
    """Build the permuted rows of both systems and apply ``statistics`` to them."""
    sub_a, sub_b = a[uncommon], b[uncommon]

    def evaluate(swap: np.ndarray) -> dict[str, np.ndarray]:
        size = swap.shape[0]
        rows = np.empty((2 * size, a.size))
        rows[:size], rows[size:] = a, b
        rows[:size, uncommon] = np.where(swap, sub_b, sub_a)
        rows[size:, uncommon] = np.where(swap, sub_a, sub_b)
        return statistics(rows)

    return evaluate


def _reach_counts(evaluate: SwapEvaluator, m: int, observed: dict[str, float], total: int,
                  patterns: np.ndarray | None, rng: np.random.Generator,
                  batch: int) -> dict[str, int]:
    """Per statistic, how many of ``total`` swap patterns reach its observed difference.

    The patterns are ``patterns`` (exact enumeration) or drawn from ``rng``, in batches;
    the draws are the same whatever the batch size (one row after another).
    """
    reached = dict.fromkeys(observed, 0)
    for start in range(0, total, batch):
        size = min(batch, total - start)
        swap = patterns[start : start + size] if patterns is not None else rng.random((size, m)) < 0.5
        values = evaluate(swap)
        for name, obs in observed.items():
            v = values[name]
            diff = np.abs(v[:size] - v[size:])
            # Within float rounding of the observed difference counts as reaching it; an
            # undefined permuted statistic cannot count as "at least as extreme".
            tol = 1e-12 * max(1.0, obs)
            reached[name] += int(np.count_nonzero(np.nan_to_num(diff, nan=-np.inf) >= obs - tol))
    return reached


def permutation_tests(
    a: np.ndarray,
    b: np.ndarray,
    statistics: MultiStatistic,
    *,
    trials: int = 10_000,
    seed: int = 0,
    exact: bool | None = None,
) -> dict[str, PermutationResult]:
    """:func:`permutation_test` for several statistics over the same swap patterns.

    ``statistics(rows)`` returns {name: one value per row}; computing them together lets
    ranking metrics share one sort of each permuted row.
    """
    a, b = _pair(a, b)
    uncommon = np.flatnonzero(a != b)
    return swap_tests(statistics(np.vstack([a, b])), uncommon.size,
                      _row_evaluator(a, b, uncommon, statistics), trials=trials, seed=seed,
                      exact=exact, batch=max(1, min(256, _CELLS // max(a.size, 1))))


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired test needs equal lengths, got {a.size} and {b.size}")
    return a, b


def swap_tests(both: dict[str, np.ndarray], m: int, evaluate: SwapEvaluator, *,
               trials: int = 10_000, seed: int = 0, exact: bool | None = None,
               batch: int = 256) -> dict[str, PermutationResult]:
    """The test itself, from the observed statistics and an evaluator of swap patterns.

    ``both[name]`` = (f(A), f(B)); ``m`` items differ; ``evaluate`` scores swap patterns
    over them (see :data:`SwapEvaluator`)."""
    if trials < 1:
        raise ValueError("trials must be at least 1")
    results: dict[str, PermutationResult] = {}
    observed: dict[str, float] = {}
    for name, (fa, fb) in both.items():
        fa_v = None if np.isnan(fa) else float(fa)
        fb_v = None if np.isnan(fb) else float(fb)
        if fa_v is None or fb_v is None:
            results[name] = PermutationResult(fa_v, fb_v, None, None, 0, False, m,
                                              "statistic_undefined")
        elif m == 0:
            results[name] = PermutationResult(fa_v, fb_v, fa_v - fb_v, 1.0, 1, True, 0, None)
        else:
            observed[name] = abs(fa_v - fb_v)
    if not observed:
        return results
    fits = m < 63 and 2**m <= trials
    if exact and m > 24:
        raise ValueError(f"exact enumeration of 2^{m} swap patterns is too large")
    exact = fits if exact is None else exact
    rng = np.random.default_rng(seed)
    total = 2**m if exact else trials
    patterns = _all_patterns(m) if exact else None
    reached = _reach_counts(evaluate, m, observed, total, patterns, rng, batch)
    for name in observed:
        fa, fb = both[name]
        p = reached[name] / total if exact else (reached[name] + 1) / (total + 1)
        results[name] = PermutationResult(float(fa), float(fb), float(fa - fb), float(min(p, 1.0)),
                                          total, exact, m, None)
    return {name: results[name] for name in both}


def score_statistics(gold: np.ndarray, *, threshold: float = 0.5, k_ndcg: int = 10) -> dict[str, BatchStatistic]:
    """One batch statistic per metric of :func:`metrics.binary_report`, over score rows.

    Swapping item i between models swaps their scores for it; the gold labels stay put.
    (To test all metrics at once, pass :func:`metrics.all_metrics_rows` to
    :func:`permutation_tests`, which sorts each row once.)
    """
    from triage.stats.models import metrics as mt

    g = np.asarray(gold).astype(bool).ravel()
    names = [*mt.THRESHOLD_METRICS, "roc_auc", "average_precision", f"ndcg@{k_ndcg}"]

    def one(name: str) -> BatchStatistic:
        if name == "roc_auc":
            return lambda rows: mt.roc_auc_rows(rows, g)
        if name == "average_precision":
            return lambda rows: mt.average_precision_rows(rows, g)
        if name.startswith("ndcg@"):
            return lambda rows: mt.ndcg_rows(rows, g, k_ndcg)
        return lambda rows: mt.all_metrics_rows(rows, g, threshold=threshold, k_ndcg=k_ndcg)[name]

    return {name: one(name) for name in names}
