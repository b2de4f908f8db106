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
    reason: str | None = None  # why the test is undefined, if it is


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
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired test needs equal lengths, got {a.size} and {b.size}")
    if trials < 1:
        raise ValueError("trials must be at least 1")
    fa, fb = statistic(np.vstack([a, b]))
    fa_v = None if np.isnan(fa) else float(fa)
    fb_v = None if np.isnan(fb) else float(fb)
    uncommon = np.flatnonzero(a != b)
    m = uncommon.size
    if fa_v is None or fb_v is None:
        return PermutationResult(fa_v, fb_v, None, None, 0, False, m, "the statistic is undefined for a system")
    observed = abs(fa_v - fb_v)
    if m == 0:
        return PermutationResult(fa_v, fb_v, fa_v - fb_v, 1.0, 1, True, 0, None)
    # Differences within float rounding of the observed one count as reaching it.
    tol = 1e-12 * max(1.0, observed)
    fits = m < 63 and 2**m <= trials
    if exact and m > 24:
        raise ValueError(f"exact enumeration of 2^{m} swap patterns is too large")
    exact = fits if exact is None else exact
    rng = np.random.default_rng(seed)
    total = 2**m if exact else trials
    reached = 0
    evaluated = 0
    patterns = _all_patterns(m) if exact else None
    batch = max(1, min(256, _CELLS // a.size))
    for start in range(0, total, batch):
        size = min(batch, total - start)
        if patterns is not None:
            swap = patterns[start : start + size]
        else:
            swap = rng.random((size, m)) < 0.5
        pa = np.broadcast_to(a, (size, a.size)).copy()
        pb = np.broadcast_to(b, (size, b.size)).copy()
        sub_a, sub_b = a[uncommon], b[uncommon]
        pa[:, uncommon] = np.where(swap, sub_b, sub_a)
        pb[:, uncommon] = np.where(swap, sub_a, sub_b)
        diff = np.abs(statistic(pa) - statistic(pb))
        # An undefined permuted statistic cannot count as "at least as extreme".
        reached += int(np.count_nonzero(np.nan_to_num(diff, nan=-np.inf) >= observed - tol))
        evaluated += size
    p = reached / evaluated if exact else (reached + 1) / (evaluated + 1)
    return PermutationResult(fa_v, fb_v, fa_v - fb_v, float(min(p, 1.0)), evaluated, exact, m, None)


def _metric_value(m) -> float:
    return np.nan if m.value is None else m.value


def score_statistics(gold: np.ndarray, *, threshold: float = 0.5, k_ndcg: int = 10) -> dict[str, BatchStatistic]:
    """Batch statistics over score rows for every metric of :func:`metrics.binary_report`.

    Swapping item i between models swaps their scores for it; the gold labels stay put.
    """
    from scipy.stats import rankdata

    from triage.models import metrics as mt

    g = np.asarray(gold).astype(bool).ravel()
    pos, neg = int(g.sum()), int((~g).sum())

    def counts(rows: np.ndarray) -> list[mt.Confusion]:
        pred = rows >= threshold
        tp = (pred & g).sum(axis=1)
        fp = (pred & ~g).sum(axis=1)
        fn = pos - tp
        tn = neg - fp
        return [mt.Confusion(int(a), int(b), int(c), int(d)) for a, b, c, d in zip(tp, fp, fn, tn)]

    def threshold_stat(fn: Callable) -> BatchStatistic:
        return lambda rows: np.array([_metric_value(fn(c)) for c in counts(rows)])

    def auc(rows: np.ndarray) -> np.ndarray:
        if pos == 0 or neg == 0:
            return np.full(rows.shape[0], np.nan)
        ranks = rankdata(rows, axis=1)
        return (ranks[:, g].sum(axis=1) - pos * (pos + 1) / 2.0) / (pos * neg)

    stats: dict[str, BatchStatistic] = {name: threshold_stat(fn) for name, fn in mt.THRESHOLD_METRICS.items()}
    stats["roc_auc"] = auc
    stats["average_precision"] = lambda rows: mt.average_precision_rows(rows, g)
    stats[f"ndcg@{k_ndcg}"] = lambda rows: mt.ndcg_rows(rows, g, k_ndcg)
    return stats
