"""Backtest the honesty of the recall interval: how often does it contain the true recall?

For each repeat (one labelling order and one audit draw) and each checkpoint, the ranked pass
has labelled the top ``depth`` items and the audit has drawn ``floor(labels × rate)`` items
uniformly from the whole pool. The headline estimate of :mod:`triage.stats.stopping.estimates`
is formed exactly as the advice forms it (combined when at least ``MIN_AUDIT_BELOW`` audit
items lie below the depth, else calibrated on the labels so far, else the bounds), and its
two-sided interval for recall is compared with the true recall found / (found + missed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.stopping.calibration import calibration_for
from triage.stats.stopping.remainder import (
    RANKED_WINDOW,
    StratumCounts,
    estimate_remaining,
    ranked_upper,
    recall_of,
    stratum_counts,
)


@dataclass(frozen=True)
class Coverage:
    """Share of (repeat, checkpoint) pairs whose interval held the true recall."""

    runs: int
    covered: float
    by_method: dict[str, tuple[int, float]]   # method -> (runs, coverage)
    mean_width: float


def _checkpoint_rows(y: np.ndarray, scores: np.ndarray, audit: np.ndarray, labels: int,
                     rate: float) -> tuple[np.ndarray, int, np.ndarray]:
    """(label array, depth, audit ranks) after ``labels`` labels of ranked pass + audit."""
    n = y.size
    m = int(np.floor(labels * rate + 1e-9))
    drawn = audit[:m]
    depth = labels - int((drawn > labels).sum())
    lab = np.full(n, -1, np.int8)
    lab[:depth] = y[:depth]
    lab[drawn - 1] = y[drawn - 1]
    return lab, depth, drawn


def _ranked_cap(lab: np.ndarray, depth: int, confidence: float) -> float:
    """Upper bound on the positives left, from the last labels of the ranked pass."""
    window = lab[max(depth - RANKED_WINDOW, 0):depth]
    window = window[window >= 0]
    return float(ranked_upper(window.size, int(window.sum()), int((lab < 0).sum()), confidence))


def recall_coverage(y_orders: np.ndarray, score_orders: np.ndarray, *, audit_rate: float,
                    start: int = 300, step: int | None = None, confidence: float = 0.95,
                    seed: int = 0) -> Coverage:
    """Coverage of the headline recall interval over repeats × checkpoints from ``start``.

    ``y_orders``/``score_orders``: repeats × pool, gold positives and raw scores in the order
    labelled (descending score).
    """
    repeats, n = y_orders.shape
    step = step or max(start, n // 8)
    marks = np.arange(start, n, step)
    rows_audit, rows_model, truth = [], [], []
    for i in range(repeats):
        y, s = y_orders[i].astype(bool), score_orders[i]
        audit = np.random.default_rng([seed + i, 11]).permutation(n) + 1
        for labels in marks:
            lab, depth, drawn = _checkpoint_rows(y, s, audit, int(labels), audit_rate)
            found = int((lab == 1).sum())
            true = recall_of(found, int(y[lab < 0].sum()))
            if np.isnan(true):
                continue
            below = int((drawn > depth).sum())
            idx = np.nonzero(lab >= 0)[0]
            cal = calibration_for(n, idx + 1, lab[idx] == 1, None, s)
            truth.append((found, true))
            if below >= 1:
                c = stratum_counts(lab, depth, drawn, y[drawn - 1],
                                   cal.p if cal is not None else None)
                cap = _ranked_cap(lab, depth, confidence)
                rows_audit.append((len(truth) - 1, c, cap))
            else:
                rows_model.append((len(truth) - 1, lab, depth))
    lower = np.zeros(len(truth))
    upper = np.ones(len(truth))
    method = np.array(["none"] * len(truth), dtype=object)
    if rows_audit:
        stack = [np.concatenate([getattr(c, f) for _, c, _cap in rows_audit])
                 if getattr(rows_audit[0][1], f) is not None else None
                 for f in ("unlabelled", "audit_n", "audit_k", "model_mean", "model_var",
                           "audit_model")]
        _pt, lo, hi, _u = estimate_remaining(StratumCounts(*stack),  # type: ignore[arg-type]
                                             use_model=stack[3] is not None,
                                             confidence=confidence)
        for j, (k, _c, cap) in enumerate(rows_audit):
            found = truth[k][0]
            top = min(hi[j], cap)
            lower[k], upper[k] = recall_of(found, top), recall_of(found, min(lo[j], top))
            method[k] = "combined"
    for k, lab, depth in rows_model:
        lower[k], upper[k] = recall_of(truth[k][0], _ranked_cap(lab, depth, confidence)), 1.0
        method[k] = "ranked"
    true = np.array([t for _, t in truth])
    lower, upper = np.nan_to_num(lower, nan=0.0), np.nan_to_num(upper, nan=1.0)
    hit = (lower - 1e-9 <= true) & (true <= upper + 1e-9)
    by = {m: (int((method == m).sum()), float(hit[method == m].mean()))
          for m in sorted(set(method.tolist()))}
    return Coverage(int(hit.size), float(hit.mean()) if hit.size else float("nan"), by,
                    float(np.mean(upper - lower)) if hit.size else float("nan"))
