"""One model's scores sorted once: the tie groups every ranking metric and curve reads.

ROC-AUC, average precision, NDCG and the ROC and precision-recall curves depend only on
the groups of tied scores, highest first, and on how many positives each group holds. So
each model's scores are sorted once (:func:`rank_scores`) and every one of those figures
is read from the groups in a pass over them, without sorting again: sorting a million
scores is the costly step, and the metrics, curves and value tables of one model used to
sort the same scores a dozen times.

The functions here take validated arrays (float64 scores without NaN, bool gold labels);
:mod:`triage.stats.models.metrics` validates and states what is undefined.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Ranked:
    """Scores sorted highest first, with per tie group its score, last position and positives."""

    order: np.ndarray   # item indices, highest score first (ties in no particular order)
    values: np.ndarray  # one score per tie group, highest first
    ends: np.ndarray    # per group: position in ``order`` of its last item
    tps: np.ndarray     # per group: positives scoring at least the group's score
    n: int
    positives: int

    @cached_property
    def fps(self) -> np.ndarray:
        """Per group: negatives scoring at least the group's score."""
        return (self.ends + 1) - self.tps

    @cached_property
    def starts(self) -> np.ndarray:
        """Per group: position in ``order`` of its first item."""
        return np.r_[0, self.ends[:-1] + 1]

    @cached_property
    def sizes(self) -> np.ndarray:
        """Items per tie group."""
        return np.diff(np.r_[-1, self.ends])

    def group_ranks(self) -> np.ndarray:
        """Per group: the average ascending rank (1 = lowest score) its tied items share."""
        # Positions count from the top; ascending rank of position i is n - i.
        return self.n - (self.starts + self.ends) / 2.0

    def item_ranks(self) -> np.ndarray:
        """Per item (input order): average ascending ranks, as ``scipy.stats.rankdata``."""
        out = np.empty(self.n, dtype=np.float64)
        out[self.order] = np.repeat(self.group_ranks(), self.sizes)
        return out


def is_permutation(order: np.ndarray, n: int) -> bool:
    """Is ``order`` a permutation of 0..n-1 (each position exactly once)?"""
    if order.size != n or (n and (order.min() < 0 or order.max() >= n)):
        return False
    hit = np.zeros(n, dtype=bool)
    hit[order] = True
    return bool(hit.all())


def rank_scores(s: np.ndarray, g: np.ndarray, order: np.ndarray | None = None) -> Ranked:
    """Sort ``s`` (float64, no NaN) once, highest first, and count ``g``'s positives per tie group.

    ``order``: a permutation believed to sort ``s`` highest first; it is used if it does
    (checked in one pass), else ``s`` is sorted here."""
    s_sorted = None
    if order is not None and is_permutation(order, s.size):
        s_sorted = s[order]
        if np.any(s_sorted[1:] > s_sorted[:-1]):
            s_sorted = None
    if s_sorted is None or order is None:
        # The default sort is not stable, which is fine: every figure read from the result
        # depends on the tie groups only, never on the order inside one.
        order = np.argsort(s)[::-1]
        s_sorted = s[order]
    ends = np.r_[np.flatnonzero(s_sorted[1:] != s_sorted[:-1]), s_sorted.size - 1] \
        if s.size else np.empty(0, np.int64)
    # int32 where it fits: a running count of booleans is ten times faster in it.
    tps = (np.cumsum(g[order], dtype=np.int32 if s.size < 2**31 else np.int64)[ends]
           if s.size else np.empty(0, np.int64))
    return Ranked(order, s_sorted[ends], ends.astype(np.int64), tps, int(s.size), int(g.sum()))


def roc_auc(r: Ranked) -> float:
    """Mann-Whitney U / (P·N) with average ranks for ties; both classes must be present."""
    pos_per_group = np.diff(np.r_[0, r.tps])
    u = float(np.dot(pos_per_group, r.group_ranks())) - r.positives * (r.positives + 1) / 2.0
    return u / (r.positives * (r.n - r.positives))


def average_precision(r: Ranked) -> float:
    """Σ over distinct thresholds of ΔRecall × Precision; needs a positive."""
    tps = r.tps
    precision = tps / (r.ends + 1.0)
    recall = tps / tps[-1]
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def discounts(n: int, k: int, form: str) -> np.ndarray:
    """The NDCG discount of positions 1..min(k, n) (``sklearn`` or ``seed`` form)."""
    pos = np.arange(1, min(k, n) + 1, dtype=np.float64)
    if form == "sklearn":
        return 1.0 / np.log2(pos + 1.0)
    if form == "seed":
        return np.r_[1.0, 1.0 / np.log2(pos[1:])]
    raise ValueError(f"unknown NDCG form {form!r}")


def ndcg(r: Ranked, k: int, form: str = "sklearn") -> float:
    """NDCG@k, 1 <= k <= n, binary relevance; a tie group shares its mean gain (needs a positive)."""
    cum = np.r_[0.0, np.cumsum(discounts(r.n, k, form))]
    starts = r.starts
    top = int(np.searchsorted(starts, k))  # the groups that reach into the top k
    start, end = starts[:top], np.minimum(r.ends[:top] + 1, k)
    positives = np.diff(np.r_[0, r.tps[:top]])
    # Mean relevance of a group times the discounts of its places within the top k: the
    # expectation over the orders of the tied items.
    dcg = float(np.sum(positives / r.sizes[:top] * (cum[end] - cum[start])))
    return dcg / float(cum[min(r.positives, k)])


def tied_count(r: Ranked) -> int:
    """Items whose score equals another item's score."""
    sizes = r.sizes
    return int(sizes[sizes > 1].sum())
