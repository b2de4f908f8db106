"""Model value with a reject option (seed 001: Sayin et al., "Rethinking and Recomputing the
Value of Machine Learning Models").

A binary model reports p = P(positive). It predicts positive when p >= 0.5 and its
confidence is c = max(p, 1 - p). Predictions with c >= τ are accepted (used without
review); the rest are rejected (reviewed by people, value 0). With ρ the rejected share,
α the accuracy of accepted predictions and k the cost of an error relative to the benefit
of a correct prediction (§3.2, Eq. 4):

    V = (1 - ρ)(α - k(1 - α)) = (correct accepted - k · wrong accepted) / N

The threshold that makes accepting worthwhile for a calibrated model is τ = k/(k+1)
(§3.3, Eq. 6); otherwise τ is tuned to maximise V on a validation set (§3.3, §4.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from triage.stats.models.metrics import as_arrays

REJECT_ALL = math.inf  # a threshold no confidence reaches: everything goes to review


@dataclass(frozen=True)
class ValuePoint:
    """Value of one model at one threshold on one labeled set."""

    k: float
    threshold: float  # accept predictions whose confidence >= threshold (inf: reject all)
    value: float
    rejected_share: float
    accepted_accuracy: float | None  # None when nothing is accepted
    accepted: int
    n: int


def confidence(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(predicted positive, confidence of that prediction) for probabilities p."""
    p = np.asarray(p, dtype=np.float64)
    return p >= 0.5, np.maximum(p, 1.0 - p)


def calibrated_threshold(k: float) -> float:
    """τ = k/(k+1): accepting a calibrated prediction pays when its confidence exceeds τ (Eq. 6)."""
    if k < 0:
        raise ValueError("k must be non-negative")
    return k / (k + 1.0)


def value_at(p: np.ndarray, gold: np.ndarray, k: float, threshold: float) -> ValuePoint:
    """V, ρ and α when predictions with confidence >= ``threshold`` are accepted."""
    s, g = as_arrays(p, gold)
    pred, conf = confidence(s)
    accepted = conf >= threshold
    n_acc = int(accepted.sum())
    n_correct = int(np.count_nonzero(accepted & (pred == g)))
    n = s.size
    value = (n_correct - k * (n_acc - n_correct)) / n if n else 0.0
    alpha = n_correct / n_acc if n_acc else None
    rho = 1.0 - n_acc / n if n else 1.0
    return ValuePoint(float(k), float(threshold), float(value), float(rho), alpha, n_acc, n)


def best_threshold(p: np.ndarray, gold: np.ndarray, k: float) -> ValuePoint:
    """The τ maximising V on this labeled set (§3.3: "directly maximizing Eq. (5)").

    Candidates are the distinct confidences (accept everything at least that confident)
    and "reject all" (V = 0). Among equal maxima the highest τ wins: the same value for
    less automation risk. The paper picks at random among ties; we prefer determinism.
    """
    s, g = as_arrays(p, gold)
    n = s.size
    if n == 0:
        return ValuePoint(float(k), REJECT_ALL, 0.0, 1.0, None, 0, 0)
    pred, conf = confidence(s)
    order = np.argsort(-conf, kind="stable")
    conf_sorted = conf[order]
    correct = (pred == g)[order]
    last = np.r_[np.flatnonzero(np.diff(conf_sorted)), n - 1]  # end of each tie group
    n_acc = last + 1
    n_cor = np.cumsum(correct)[last]
    values = (n_cor - k * (n_acc - n_cor)) / n
    best = int(np.argmax(values))  # first maximum = highest threshold among ties
    if values[best] <= 0.0:
        return ValuePoint(float(k), REJECT_ALL, 0.0, 1.0, None, 0, n)
    acc = int(n_acc[best])
    return ValuePoint(float(k), float(conf_sorted[last[best]]), float(values[best]),
                      1.0 - acc / n, float(n_cor[best] / acc), acc, n)


@dataclass(frozen=True)
class CostSensitivePoint:
    """Cost-sensitive value (§3.4) with class thresholds τp (Eq. 7) and τn (Eq. 8)."""

    ktp: float
    kfp: float
    kfn: float
    tau_p: float  # accept a positive prediction when p >= tau_p
    tau_n: float  # accept a negative prediction when 1 - p >= tau_n
    value: float
    rejected_share: float
    accepted_accuracy: float | None
    tp: int
    tn: int
    fp: int
    fn: int


def cost_sensitive_thresholds(ktp: float, kfp: float, kfn: float) -> tuple[float, float]:
    """τp = kfp/(ktp + kfp) (Eq. 7) and τn = kfn/(1 + kfn) (Eq. 8), seed 001 §3.4.

    A true negative is worth 1 (the unit of value), a true positive ktp, a false positive
    -kfp and a false negative -kfn.
    """
    if min(ktp, kfp, kfn) < 0 or ktp + kfp <= 0:
        raise ValueError("costs must be non-negative and ktp + kfp positive")
    return kfp / (ktp + kfp), kfn / (1.0 + kfn)


def cost_sensitive_value(p: np.ndarray, gold: np.ndarray, ktp: float, kfp: float, kfn: float) -> CostSensitivePoint:
    """V = (ktp·TP + TN - kfp·FP - kfn·FN) / N over accepted predictions.

    Seed 001 writes (1 - ρ)(ktp·Ntp + Ntn - kfp·Nfp - kfn·Nfn); we read the N's as shares of
    the accepted items, which makes it this per-item average and reduces to Eq. 4 when
    ktp = 1 and kfp = kfn = k.
    """
    s, g = as_arrays(p, gold)
    tau_p, tau_n = cost_sensitive_thresholds(ktp, kfp, kfn)
    pred, _ = confidence(s)
    accepted = np.where(pred, s >= tau_p, 1.0 - s >= tau_n)
    tp = int(np.count_nonzero(accepted & pred & g))
    fp = int(np.count_nonzero(accepted & pred & ~g))
    tn = int(np.count_nonzero(accepted & ~pred & ~g))
    fn = int(np.count_nonzero(accepted & ~pred & g))
    n = s.size
    n_acc = tp + fp + tn + fn
    value = (ktp * tp + tn - kfp * fp - kfn * fn) / n if n else 0.0
    alpha = (tp + tn) / n_acc if n_acc else None
    return CostSensitivePoint(float(ktp), float(kfp), float(kfn), tau_p, tau_n, float(value),
                              1.0 - n_acc / n if n else 1.0, alpha, tp, tn, fp, fn)


def split(n: int, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random (validation, held-out) index split; share 0 means no validation set."""
    if not 0.0 <= share < 1.0:
        raise ValueError("validation share must be in [0, 1)")
    perm = np.random.default_rng(seed).permutation(n)
    n_val = int(round(share * n))
    return np.sort(perm[:n_val]), np.sort(perm[n_val:])
