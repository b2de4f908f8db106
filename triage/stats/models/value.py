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
from functools import cached_property

import numpy as np

from triage.stats.models.metrics import as_arrays
from triage.stats.models.ranked import is_permutation

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


@dataclass(frozen=True)
class ConfidenceTable:
    """Predictions sorted once by confidence, highest first, with running counts.

    Every figure of this module at any threshold or k is then a binary search or one pass
    over the distinct confidences, not a new sort: the value tables ask for 21 values of k.
    """

    neg_conf: np.ndarray   # minus the confidences, ascending (for binary searches)
    ends: np.ndarray       # last position of each distinct confidence
    correct: np.ndarray    # running count of correct predictions
    tp: np.ndarray         # running counts of predicted positive & gold positive, ...
    fp: np.ndarray         # ... predicted positive & gold negative,
    tn: np.ndarray         # ... predicted negative & gold negative,
    fn: np.ndarray         # ... predicted negative & gold positive
    n: int

    @cached_property
    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The confidence groups that can maximise V: last positions, correct, wrong.

        Per distinct confidence that can be the first maximum of V for some k >= 0: its
        last position, and the correct and wrong predictions at least that confident.
        Going down the confidences, a group that adds no correct prediction never beats
        the one before it, and one followed by a group that adds only correct ones is
        beaten by that group at every k; so neither is ever the first maximum."""
        ends = self.ends
        correct = self.correct[ends].astype(np.int64)
        wrong = (ends + 1) - correct
        gains = np.diff(np.r_[0, correct]) > 0
        gains[0] = True
        next_wrong = np.r_[np.diff(wrong) > 0, True]
        keep = np.flatnonzero(gains & next_wrong)
        return ends[keep], correct[keep], wrong[keep]

    def accepted(self, threshold: float) -> int:
        """How many predictions have confidence >= ``threshold``."""
        return int(np.searchsorted(self.neg_conf, -threshold, side="right"))

    def count(self, running: np.ndarray, accepted: int) -> int:
        """A running count over the ``accepted`` most confident predictions."""
        return int(running[accepted - 1]) if accepted else 0


def confidence_order(s: np.ndarray, by_score: np.ndarray) -> np.ndarray:
    """Positions of ``s`` by descending confidence max(s, 1 - s).

    ``by_score``: positions sorting ``s`` highest first. The positive predictions in that
    order and the negative ones in reverse are two runs of falling confidence, which a
    stable sort merges in a pass. Correct for any permutation ``by_score``; fast when it
    sorts ``s``.
    """
    pred = s[by_score] >= 0.5
    runs = np.concatenate([by_score[pred], by_score[~pred][::-1]])
    return runs[np.argsort(-np.maximum(s[runs], 1.0 - s[runs]), kind="stable")]


def confidence_table(p: np.ndarray, gold: np.ndarray,
                     by_score: np.ndarray | None = None) -> ConfidenceTable:
    """Sort the predictions of probabilities ``p`` by confidence and count what :func:`value_at` needs.

    ``by_score``: a permutation believed to sort ``p`` highest first (see
    :func:`confidence_order`); the table is the same with or without it."""
    s, g = as_arrays(p, gold)
    pred, conf = confidence(s)
    # Any order by falling confidence: only the counts at the end of each group of equal
    # confidence are read, and those do not depend on the order inside the group.
    if by_score is not None and is_permutation(by_score, s.size):
        order = confidence_order(s, by_score)
    else:
        order = np.argsort(conf)[::-1]
    neg_conf = -conf[order]
    pred, g = pred[order], g[order]
    ends = np.r_[np.flatnonzero(neg_conf[1:] != neg_conf[:-1]), s.size - 1] if s.size else \
        np.empty(0, np.int64)

    def running(mask: np.ndarray) -> np.ndarray:
        # int32 where it fits: a running count of booleans is ten times faster in it.
        return np.cumsum(mask, dtype=np.int32 if mask.size < 2**31 else np.int64)

    return ConfidenceTable(neg_conf, ends, running(pred == g), running(pred & g),
                           running(pred & ~g), running(~pred & ~g), running(~pred & g), int(s.size))


def _table(p: np.ndarray | ConfidenceTable, gold: np.ndarray | None) -> ConfidenceTable:
    if isinstance(p, ConfidenceTable):
        return p
    assert gold is not None  # a table carries its own labels; raw scores need them
    return confidence_table(p, gold)


def value_at(p: np.ndarray | ConfidenceTable, gold: np.ndarray | None, k: float,
             threshold: float) -> ValuePoint:
    """V, ρ and α when predictions with confidence >= ``threshold`` are accepted.

    ``p``: probabilities, or their :func:`confidence_table` (then ``gold`` is not read)."""
    table = _table(p, gold)
    n = table.n
    n_acc = table.accepted(threshold)
    n_correct = table.count(table.correct, n_acc)
    value = (n_correct - k * (n_acc - n_correct)) / n if n else 0.0
    alpha = n_correct / n_acc if n_acc else None
    rho = 1.0 - n_acc / n if n else 1.0
    return ValuePoint(float(k), float(threshold), float(value), float(rho), alpha, n_acc, n)


def best_threshold(p: np.ndarray | ConfidenceTable, gold: np.ndarray | None, k: float) -> ValuePoint:
    """The τ maximising V on this labeled set (§3.3: "directly maximizing Eq. (5)").

    Candidates are the distinct confidences (accept everything at least that confident)
    and "reject all" (V = 0). Among equal maxima the highest τ wins: the same value for
    less automation risk. The paper picks at random among ties; we prefer determinism.
    """
    table = _table(p, gold)
    n = table.n
    if n == 0:
        return ValuePoint(float(k), REJECT_ALL, 0.0, 1.0, None, 0, 0)
    ends, n_cor, n_wrong = table.groups
    values = (n_cor - k * n_wrong) / n  # per group end: accept everything up to it
    best = int(np.argmax(values))  # first maximum = highest threshold among ties
    if values[best] <= 0.0:
        return ValuePoint(float(k), REJECT_ALL, 0.0, 1.0, None, 0, n)
    acc = int(ends[best]) + 1
    return ValuePoint(float(k), float(-table.neg_conf[ends[best]]), float(values[best]),
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


def cost_sensitive_value(p: np.ndarray | ConfidenceTable, gold: np.ndarray | None, ktp: float,
                         kfp: float, kfn: float) -> CostSensitivePoint:
    """V = (ktp·TP + TN - kfp·FP - kfn·FN) / N over accepted predictions.

    Seed 001 writes (1 - ρ)(ktp·Ntp + Ntn - kfp·Nfp - kfn·Nfn); we read the N's as shares of
    the accepted items, which makes it this per-item average and reduces to Eq. 4 when
    ktp = 1 and kfp = kfn = k.
    """
    table = _table(p, gold)
    tau_p, tau_n = cost_sensitive_thresholds(ktp, kfp, kfn)
    # A positive prediction (p >= 0.5) has confidence p, a negative one 1 - p (computed
    # the same way), so "p >= τp" and "1 - p >= τn" are thresholds on the confidence.
    at_p, at_n = table.accepted(tau_p), table.accepted(tau_n)
    tp, fp = table.count(table.tp, at_p), table.count(table.fp, at_p)
    tn, fn = table.count(table.tn, at_n), table.count(table.fn, at_n)
    n = table.n
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
    # The sorted halves of the permutation, by marking instead of sorting.
    validation = np.zeros(n, dtype=bool)
    validation[perm[:n_val]] = True
    return np.flatnonzero(validation), np.flatnonzero(~validation)
