"""Backtest the honesty of the recall interval: how often does it contain the true recall?

For each repeat (one labelling order and one audit draw) and each checkpoint, the ranked pass
has labelled the top ``depth`` items and the audit has drawn ``floor(labels × rate)`` items
uniformly from the whole pool. The headline estimate of :mod:`triage.stats.stopping.estimates`
is formed as the advice forms it: *combined* when at least one audit item lies below the
depth (the audit's stratified posterior, each stratum's draws rescaled by the ratio of the
calibrated scores of its unlabelled and its audited items, clipped to [0.5, 2], and the
upper end capped by the ranked-order bound), else *ranked* (from 0 to the ranked-order
bound). Its two-sided interval for recall is compared with the true recall
found / (found + missed), and its width is reported beside the coverage, per checkpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

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
    by_labels: dict[int, tuple[int, float, float]] = field(default_factory=dict)
    # labels at the checkpoint -> (runs, coverage, mean width)


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


def _audit_bounds(rows: list, truth: list, lower: np.ndarray, upper: np.ndarray,
                  method: np.ndarray, confidence: float) -> None:
    """Fill the recall bounds of ``rows`` (index, stratum counts, ranked cap) in place."""
    first = rows[0][1]
    stack = [np.concatenate([getattr(c, f) for _, c, _cap in rows])
             if getattr(first, f) is not None else None
             for f in ("unlabelled", "audit_n", "audit_k", "model_mean", "model_var",
                       "audit_model")]
    _pt, lo, hi, _u = estimate_remaining(StratumCounts(*stack),  # type: ignore[arg-type]
                                         use_model=stack[3] is not None,
                                         confidence=confidence)
    for j, (k, _c, cap) in enumerate(rows):
        found = truth[k][0]
        top = min(hi[j], cap)
        lower[k], upper[k] = recall_of(found, top), recall_of(found, min(lo[j], top))
        method[k] = "combined" if stack[3] is not None else "audit"


def recall_coverage(y_orders: np.ndarray, score_orders: np.ndarray, *, audit_rate: float,
                    start: int = 300, step: int | None = None, confidence: float = 0.95,
                    seed: int = 0, labels: Sequence[int] | None = None
                    ) -> Coverage:  # long: one replay loop, then one vectorised estimate
    """Coverage of the headline recall interval over repeats × checkpoints.

    Checkpoints: ``labels`` when given (those below the pool size), else every ``step``
    labels from ``start``. ``y_orders``/``score_orders``: repeats × pool, gold positives and
    raw scores in the order labelled (descending score).
    """
    repeats, n = y_orders.shape
    step = step or max(start, n // 8)
    marks = (np.array([m for m in labels if 0 < m < n], dtype=np.int64) if labels is not None
             else np.arange(start, n, step))
    at: list[int] = []
    rows_audit, rows_model, truth = [], [], []
    for i in range(repeats):
        y, s = y_orders[i].astype(bool), score_orders[i]
        audit = np.random.default_rng([seed + i, 11]).permutation(n) + 1
        for mark in marks:
            lab, depth, drawn = _checkpoint_rows(y, s, audit, int(mark), audit_rate)
            found = int((lab == 1).sum())
            true = recall_of(found, int(y[lab < 0].sum()))
            if np.isnan(true):
                continue
            below = int((drawn > depth).sum())
            idx = np.nonzero(lab >= 0)[0]
            cal = calibration_for(n, idx + 1, lab[idx] == 1, None, s)
            truth.append((found, true))
            at.append(int(mark))
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
    # Rows with a calibration (combined) and without one (the audit alone, as the advice
    # falls back to) are estimated apart: their stratum counts carry different fields.
    for group in ([r for r in rows_audit if r[1].model_mean is not None],
                  [r for r in rows_audit if r[1].model_mean is None]):
        if group:
            _audit_bounds(group, truth, lower, upper, method, confidence)
    for k, lab, depth in rows_model:
        lower[k], upper[k] = recall_of(truth[k][0], _ranked_cap(lab, depth, confidence)), 1.0
        method[k] = "ranked"
    true = np.array([t for _, t in truth])
    lower, upper = np.nan_to_num(lower, nan=0.0), np.nan_to_num(upper, nan=1.0)
    hit = (lower - 1e-9 <= true) & (true <= upper + 1e-9)
    by = {m: (int((method == m).sum()), float(hit[method == m].mean()))
          for m in sorted(set(method.tolist()))}
    width = upper - lower
    marks_at = np.array(at)
    by_labels = {int(m): (int((marks_at == m).sum()), float(hit[marks_at == m].mean()),
                          float(width[marks_at == m].mean()))
                 for m in sorted(set(at))}
    return Coverage(int(hit.size), float(hit.mean()) if hit.size else float("nan"), by,
                    float(np.mean(width)) if hit.size else float("nan"), by_labels)
