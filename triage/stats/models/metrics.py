"""Binary classification and ranking metrics (seed 002, Ustalov "Evaluation in NLP").

Threshold metrics count an item as predicted positive when ``score >= threshold``.
Ranking metrics (ROC-AUC, AP, NDCG) follow scikit-learn's handling of tied scores, so a
tie never lets input order decide. Undefined cases return ``Metric(None, reason)`` with the
reason as a code; :mod:`triage.views.model_words` words it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from triage.stats.common import even_indices
from triage.stats.models import ranked as rk
from triage.stats.models.ranked import Ranked


@dataclass(frozen=True)
class Metric:
    """A metric value, or ``None`` with the reason (a code) it is undefined for this data."""

    value: float | None
    reason: str | None = None

    @property
    def defined(self) -> bool:
        """True when the metric has a value."""
        return self.value is not None


def _undefined(reason: str) -> Metric:
    return Metric(None, reason)


@dataclass(frozen=True)
class Confusion:
    """Counts of a binary confusion matrix."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        """Number of items counted."""
        return self.tp + self.fp + self.fn + self.tn


def as_arrays(scores: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert to (float64 scores, bool gold) of equal length."""
    s = np.asarray(scores, dtype=np.float64).ravel()
    g = np.asarray(gold).astype(bool).ravel()
    if s.shape != g.shape:
        raise ValueError(f"scores and gold differ in length: {s.size} vs {g.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores contain NaN or infinite values")
    return s, g


def confusion(scores: np.ndarray, gold: np.ndarray, threshold: float = 0.5) -> Confusion:
    """Confusion counts when ``score >= threshold`` predicts positive."""
    s, g = as_arrays(scores, gold)
    pred = s >= threshold
    tp = int(np.count_nonzero(pred & g))
    fp = int(np.count_nonzero(pred & ~g))
    fn = int(np.count_nonzero(~pred & g))
    return Confusion(tp, fp, fn, int(g.size - tp - fp - fn))


def _ratio(num: float, den: float, reason: str) -> Metric:
    return Metric(float(num / den)) if den > 0 else _undefined(reason)


def precision(c: Confusion) -> Metric:
    """TP / (TP + FP); undefined when nothing is predicted positive."""
    return _ratio(c.tp, c.tp + c.fp, "no_predicted_positive")


def recall(c: Confusion) -> Metric:
    """TP / (TP + FN); undefined when the gold labels hold no positive."""
    return _ratio(c.tp, c.tp + c.fn, "recall_no_positive")


def f1(c: Confusion) -> Metric:
    """2TP / (2TP + FP + FN); undefined when nothing is positive, predicted or gold."""
    # 2TP / (2TP + FP + FN) equals the harmonic mean when both P and R exist, and is 0
    # (not undefined) when positives exist but none is predicted, as in scikit-learn.
    return _ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, "f1_no_positive")


def mcc(c: Confusion) -> Metric:
    """Matthews correlation; undefined when any margin of the matrix is empty."""
    den = float(c.tp + c.fp) * (c.tp + c.fn) * (c.tn + c.fp) * (c.tn + c.fn)
    if den == 0:
        return _undefined("mcc_empty_margin")
    return Metric(float((c.tp * c.tn - c.fp * c.fn) / np.sqrt(den)))


def symmetric_balanced_accuracy(c: Confusion) -> Metric:
    """SBA of Gösgens et al. as defined in seed 002: mean of C_ii/a_i and C_ii/b_i over classes.

    An empty actual class (a_i = 0) contributes b_i/n instead, an empty predicted class
    (b_i = 0) contributes a_i/n, exactly as the seed prescribes.
    """
    n = c.n
    if n == 0:
        return _undefined("no_items")
    total = 0.0
    for hit, actual, predicted in ((c.tp, c.tp + c.fn, c.tp + c.fp), (c.tn, c.tn + c.fp, c.tn + c.fn)):
        total += hit / actual if actual else predicted / n
        total += hit / predicted if predicted else actual / n
    return Metric(total / 4.0)


def rank_scores(scores: np.ndarray, gold: np.ndarray, order: np.ndarray | None = None) -> Ranked:
    """Validate and sort one model's scores once, for every ranking metric and curve.

    ``order``: item indices believed to sort the scores highest first (a stored ranking);
    used when they do, checked in one pass, else the scores are sorted here."""
    s, g = as_arrays(scores, gold)
    return rk.rank_scores(s, g, order)


def _ranked(scores: np.ndarray, gold: np.ndarray, ranked: Ranked | None) -> Ranked:
    return ranked if ranked is not None else rank_scores(scores, gold)


def _classes_of(r: Ranked) -> str | None:
    if r.positives == 0:
        return "no_positive"
    if r.positives == r.n:
        return "no_negative"
    return None


def roc_auc(scores: np.ndarray, gold: np.ndarray, *, ranked: Ranked | None = None) -> Metric:
    """Area under the ROC curve; tied scores count one half (equals sklearn's trapezoids)."""
    r = _ranked(scores, gold, ranked)
    if (why := _classes_of(r)) is not None:
        return _undefined(why)
    # Mann-Whitney U from average ranks (ties share theirs), computed per tie group.
    return Metric(rk.roc_auc(r))


def average_precision(scores: np.ndarray, gold: np.ndarray, *,
                      ranked: Ranked | None = None) -> Metric:
    """AP as scikit-learn defines it: sum over distinct thresholds of ΔRecall × Precision."""
    r = _ranked(scores, gold, ranked)
    if r.positives == 0:
        return _undefined("no_positive")
    return Metric(rk.average_precision(r))


def ndcg_at_k(scores: np.ndarray, gold: np.ndarray, k: int | None = 10, *, form: str = "sklearn",
              ranked: Ranked | None = None) -> Metric:
    """NDCG@k with binary relevance; tied scores share the average gain of their positions.

    ``form="sklearn"`` discounts position i by 1/log2(i+1) (scikit-learn, Järvelin 2002 as
    usually implemented); ``form="seed"`` uses the slide's DCG = rel_1 + Σ_{i≥2} rel_i/log2 i.
    """
    r = _ranked(scores, gold, ranked)
    if r.positives == 0:
        return _undefined("ndcg_no_positive")
    k = r.n if k is None else min(int(k), r.n)
    if k < 1:
        return _undefined("k_below_1")
    return Metric(rk.ndcg(r, k, form))


_SortedRows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _sorted_rows(rows: np.ndarray, g: np.ndarray) -> _SortedRows:
    """Per row: gold sorted by descending score, and each position's tie-group start and end."""
    order = np.argsort(-rows, axis=1, kind="stable")
    s_sorted = np.take_along_axis(rows, order, axis=1)
    rel = g[order]
    n = rows.shape[1]
    pos = np.broadcast_to(np.arange(n), rows.shape)
    change = np.diff(s_sorted, axis=1) != 0
    is_end = np.concatenate([change, np.ones((rows.shape[0], 1), bool)], axis=1)
    is_start = np.concatenate([np.ones((rows.shape[0], 1), bool), change], axis=1)
    end = np.minimum.accumulate(np.where(is_end, pos, n)[:, ::-1], axis=1)[:, ::-1]
    start = np.maximum.accumulate(np.where(is_start, pos, 0), axis=1)
    return rel, start, end, pos


def average_precision_rows(rows: np.ndarray, gold: np.ndarray,
                           _sorted: _SortedRows | None = None) -> np.ndarray:
    """:func:`average_precision` of every row of ``rows`` at once (NaN when undefined).

    Each positive contributes 1/P × the precision at the end of its tie group, which is
    the same sum as ΔRecall × Precision over distinct thresholds.
    """
    g = np.asarray(gold).astype(bool)
    p = int(g.sum())
    if p == 0:
        return np.full(rows.shape[0], np.nan)
    rel, _, end, _ = _sorted if _sorted is not None else _sorted_rows(np.asarray(rows, float), g)
    tps = np.cumsum(rel, axis=1)
    prec_end = np.take_along_axis(tps, end, axis=1) / (end + 1.0)
    return np.sum(np.where(rel, prec_end, 0.0), axis=1) / p


def ndcg_rows(rows: np.ndarray, gold: np.ndarray, k: int = 10,
              _sorted: _SortedRows | None = None) -> np.ndarray:
    """:func:`ndcg_at_k` (sklearn form) of every row at once (NaN when undefined)."""
    g = np.asarray(gold).astype(bool)
    n = g.size
    if not g.any() or k < 1:
        return np.full(rows.shape[0], np.nan)
    disc = 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))
    disc[min(k, n):] = 0.0
    cum = np.r_[0.0, np.cumsum(disc)]
    rel, start, end, _ = _sorted if _sorted is not None else _sorted_rows(np.asarray(rows, float), g)
    # Each item earns the mean discount of its tie group: the expectation over tie orders.
    mean_disc = (cum[end + 1] - cum[start]) / (end - start + 1.0)
    ideal = cum[min(int(g.sum()), n)]
    return np.sum(np.where(rel, mean_disc, 0.0), axis=1) / ideal


def roc_auc_rows(rows: np.ndarray, gold: np.ndarray,
                 _sorted: _SortedRows | None = None) -> np.ndarray:
    """:func:`roc_auc` of every row at once (NaN when undefined).

    A positive scores 1 for each negative below it and 1/2 for each negative tied with it.
    """
    g = np.asarray(gold).astype(bool)
    pos, neg = int(g.sum()), int(g.size - g.sum())
    if pos == 0 or neg == 0:
        return np.full(rows.shape[0], np.nan)
    rel, start, end, _ = _sorted if _sorted is not None else _sorted_rows(np.asarray(rows, float), g)
    negs = np.concatenate([np.zeros((rel.shape[0], 1)), np.cumsum(~rel, axis=1)], axis=1)
    at_end = np.take_along_axis(negs, end + 1, axis=1)
    before = np.take_along_axis(negs, start, axis=1)
    wins = (neg - at_end) + 0.5 * (at_end - before)
    return np.sum(np.where(rel, wins, 0.0), axis=1) / (pos * neg)


def all_metrics_rows(rows: np.ndarray, gold: np.ndarray, *, threshold: float = 0.5,
                     k_ndcg: int = 10) -> dict[str, np.ndarray]:
    """Every metric of :func:`binary_report` for every row of scores (NaN when undefined).

    Each row is sorted once for all the ranking metrics.
    """
    rows = np.asarray(rows, dtype=np.float64)
    g = np.asarray(gold).astype(bool)
    pos, neg = int(g.sum()), int(g.size - g.sum())
    pred = rows >= threshold
    tp, fp = (pred & g).sum(axis=1), (pred & ~g).sum(axis=1)
    counts = [Confusion(int(a), int(b), pos - int(a), neg - int(b)) for a, b in zip(tp, fp)]
    out = {name: np.array([np.nan if (m := fn(c)).value is None else m.value for c in counts])
           for name, fn in THRESHOLD_METRICS.items()}
    if pos == 0:
        nan = np.full(rows.shape[0], np.nan)
        return {**out, "roc_auc": nan, "average_precision": nan, f"ndcg@{k_ndcg}": nan}
    srt = _sorted_rows(rows, g)
    out["roc_auc"] = roc_auc_rows(rows, g, srt)
    out["average_precision"] = average_precision_rows(rows, g, srt)
    out[f"ndcg@{k_ndcg}"] = ndcg_rows(rows, g, k_ndcg, srt)
    return out


@dataclass(frozen=True)
class Curve:
    """Points of a ROC or precision-recall curve, one per distinct threshold (highest first)."""

    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray


def roc_curve(scores: np.ndarray, gold: np.ndarray, *, ranked: Ranked | None = None) -> Curve | None:
    """ROC points (x = FPR, y = TPR) starting at (0, 0); None without both classes."""
    r = _ranked(scores, gold, ranked)
    if _classes_of(r) is not None:
        return None
    tps, fps = r.tps, r.fps
    return Curve(np.r_[0.0, fps / fps[-1]], np.r_[0.0, tps / tps[-1]], np.r_[np.inf, r.values])


def pr_curve(scores: np.ndarray, gold: np.ndarray, *, ranked: Ranked | None = None) -> Curve | None:
    """Precision-recall points (x = recall, y = precision) per distinct threshold."""
    r = _ranked(scores, gold, ranked)
    if r.positives == 0:
        return None
    tps = r.tps
    return Curve(tps / tps[-1], tps / (r.ends + 1.0), r.values)


CURVE_POINTS = 400


def model_curves(scores: np.ndarray, positive: np.ndarray, points: int = CURVE_POINTS, *,
                 ranked: Ranked | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """ROC and precision-recall curves of one model, thinned to at most ``points`` each.

    The points of :func:`roc_curve` and :func:`pr_curve` at evenly spaced thresholds,
    computed at those thresholds only (a million-point curve is never built)."""
    r = _ranked(scores, positive, ranked)

    def keep(size: int) -> np.ndarray:
        return even_indices(size, points)

    out = {}
    if _classes_of(r) is None:
        at = keep(r.tps.size + 1)  # the ROC curve starts at (0, 0), before the first group
        tps, fps = r.tps[np.maximum(at - 1, 0)], r.fps[np.maximum(at - 1, 0)]
        out["roc"] = (np.where(at > 0, fps / r.fps[-1], 0.0), np.where(at > 0, tps / r.tps[-1], 0.0))
    if r.positives:
        at = keep(r.tps.size)
        tps = r.tps[at]
        out["pr"] = (tps / r.tps[-1], tps / (r.ends[at] + 1.0))
    return out


ThresholdMetric = Callable[[Confusion], Metric]
THRESHOLD_METRICS: dict[str, ThresholdMetric] = {
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "mcc": mcc,
    "sba": symmetric_balanced_accuracy,
}


@dataclass(frozen=True)
class MetricReport:
    """All metrics of one model on one labeled set."""

    n: int
    positives: int
    threshold: float
    k_ndcg: int
    confusion: Confusion
    tied_scores: int
    metrics: dict[str, Metric]


def tied_count(scores: np.ndarray) -> int:
    """Number of items whose score equals another item's score."""
    _, counts = np.unique(np.asarray(scores, dtype=np.float64), return_counts=True)
    return int(counts[counts > 1].sum())


def binary_report(scores: np.ndarray, gold: np.ndarray, *, threshold: float = 0.5, k_ndcg: int = 10,
                  ranked: Ranked | None = None) -> MetricReport:
    """Every metric of this module for one model (``ranked``: its scores sorted already)."""
    s, g = as_arrays(scores, gold)
    r = ranked if ranked is not None else rk.rank_scores(s, g)
    c = confusion(s, g, threshold)
    values = {name: fn(c) for name, fn in THRESHOLD_METRICS.items()}
    values["roc_auc"] = roc_auc(s, g, ranked=r)
    values["average_precision"] = average_precision(s, g, ranked=r)
    values[f"ndcg@{k_ndcg}"] = ndcg_at_k(s, g, k_ndcg, ranked=r)
    return MetricReport(int(g.size), int(g.sum()), threshold, k_ndcg, c, rk.tied_count(r), values)
