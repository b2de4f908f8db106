"""Positives left in the unlabelled remainder, and the recall they imply.

Positives already found are known exactly; only the unlabelled remainder is estimated.
Estimated recall = found / (found + estimated remaining positives). Three estimates:

- **audit**: the random audit items below the depth of the ranked pass, stratified by the
  frozen score decile of the active ranking (adjacent deciles merged until each stratum has
  20 audit items). In each stratum the audit items below the depth are a uniform sample of
  that part of it, so its unlabelled items hold about ``unlabelled × k / n`` positives; the
  interval's lower end draws each stratum's rate from Beta(k, n − k + 1), its upper end from
  Beta(k + 1, n − k) (the Clopper–Pearson pair), and binomial counts from those rates.
- **calibrated**: the sum of calibrated probabilities over the unlabelled items, with a
  Poisson-binomial plus parameter (delta-method) interval. It extrapolates wherever the
  unlabelled items lie below the deepest label the calibration was fitted on.
- **combined**: the audit's stratified posterior, each stratum's rate draws rescaled by the
  ratio of the calibrated scores of its unlabelled items to those of its audited items
  (clipped to [0.5, 2]); its point shrinks each stratum's audit rate towards the calibrated
  rate (``PRIOR_ITEMS``). :mod:`~triage.stats.stopping.estimates` caps its upper end by the
  ranked-order bound. The headline whenever an audit item lies below the depth.

Every function broadcasts over rows (runs of a backtest) so the backtest and the advice use
the very same arithmetic. Intervals come from a fixed-seed Monte Carlo of the posterior, so
the same inputs always give the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from triage.stats.common import DECILES, decile_sizes

DRAWS = 2000
SEED = 20211
NAN = float("nan")


@dataclass(frozen=True)
class Remainder:
    """Positives among the unlabelled (point and interval) and how they were estimated."""

    method: str          # exact | audit | calibrated | combined | none
    positives: float     # point estimate; NaN when nothing can be said
    lower: float
    upper: float
    unlabelled: int
    found: int
    numbers: dict[str, Any] = field(default_factory=dict)  # what it rests on (views word it)
    extrapolates: bool = False

    @property
    def recall(self) -> float:
        """found / (found + positives); NaN when neither any was found nor any expected."""
        return recall_of(self.found, self.positives)

    @property
    def recall_lower(self) -> float:
        """Recall at the upper end of the remaining positives."""
        return recall_of(self.found, self.upper)

    @property
    def recall_upper(self) -> float:
        """Recall at the lower end of the remaining positives."""
        return recall_of(self.found, self.lower)


def recall_of(found: ArrayLike, remaining: ArrayLike) -> Any:
    """found / (found + remaining), NaN where both are zero (or remaining is unknown)."""
    f = np.asarray(found, dtype=float)
    r = np.asarray(remaining, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(f + r > 0, f / (f + r), np.nan)
    return float(out) if out.ndim == 0 else out


def decile_of_rank(pool: int) -> np.ndarray:
    """0-based score decile of every rank (index r − 1): ceil(10 r / N) − 1."""
    # The deciles are runs of known sizes, laid out without evaluating the formula a
    # million times.
    return np.repeat(np.arange(DECILES), decile_sizes(pool, DECILES))


@dataclass(frozen=True)
class StratumCounts:
    """Per run × decile: unlabelled items, audit items and audit positives below the depth,
    and the calibrated sum (mean, variance) over the unlabelled items."""

    unlabelled: np.ndarray
    audit_n: np.ndarray
    audit_k: np.ndarray
    model_mean: np.ndarray | None = None
    model_var: np.ndarray | None = None
    audit_model: np.ndarray | None = None  # calibrated sum over the audit items below


def stratum_counts(label: np.ndarray, depth: int, audit_ranks: np.ndarray,
                   audit_positive: np.ndarray, p: np.ndarray | None = None,
                   param_var: np.ndarray | None = None) -> StratumCounts:
    """Counts for one project state: ``label`` per rank (−1 unlabelled, 0, 1)."""
    pool = label.size
    dec = decile_of_rank(pool)
    unl = label < 0
    dec_unl = dec[unl]
    u = np.bincount(dec_unl, minlength=DECILES)[None, :]
    below = audit_ranks > depth
    ad = dec[audit_ranks[below] - 1]
    n = np.bincount(ad, minlength=DECILES)[None, :]
    k = np.bincount(ad[audit_positive[below]], minlength=DECILES)[None, :]
    if p is None:
        return StratumCounts(u, n, k)
    p_unl = p[unl]
    mean = np.bincount(dec_unl, weights=p_unl, minlength=DECILES)[None, :]
    var = np.bincount(dec_unl, weights=p_unl * (1 - p_unl), minlength=DECILES)[None, :]
    if param_var is not None:
        var = var + param_var.reshape(1, -1)
    am = np.bincount(ad, weights=p[audit_ranks[below] - 1], minlength=DECILES)[None, :]
    return StratumCounts(u, n, k, mean, var, am)


MIN_AUDIT_PER_STRATUM = 20


def collapse(counts: StratumCounts, min_audit: int = MIN_AUDIT_PER_STRATUM) -> StratumCounts:
    """Merge adjacent deciles (top down) until each group holds ``min_audit`` audit items.

    Counted below the depth; a short last group joins the one above. Groups fill the first
    columns."""
    n = counts.audit_n
    out = [np.zeros_like(np.asarray(x, dtype=float)) if x is not None else None
           for x in (counts.unlabelled, counts.audit_n, counts.audit_k, counts.model_mean,
                     counts.model_var, counts.audit_model)]
    for row in range(n.shape[0]):
        group, acc = np.zeros(n.shape[1], np.int64), 0
        g = 0
        for d in range(n.shape[1]):
            group[d] = g
            acc += int(n[row, d])
            if acc >= min_audit and d < n.shape[1] - 1:
                g, acc = g + 1, 0
        if acc < min_audit and g > 0 and (group == g).any():
            group[group == g] = g - 1
        for src, dst in zip((counts.unlabelled, counts.audit_n, counts.audit_k,
                             counts.model_mean, counts.model_var, counts.audit_model),
                            out, strict=True):
            if src is not None and dst is not None:
                dst[row] = np.bincount(group, weights=src[row], minlength=n.shape[1])
    return StratumCounts(*out)  # type: ignore[arg-type]


PRIOR_ITEMS = 20.0  # the calibrated scores weigh as much as this many audit items


def _posterior_draws(counts: StratumCounts, use_model: bool, rng: np.random.Generator,
                     draws: int, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draws (runs × draws) of positives in the unlabelled part; plus the point estimate
    and a flag of the runs where no estimate exists (no audit item below the depth).

    ``side`` "lower" draws each stratum's rate from Beta(k, n − k + 1) (0 when k = 0), "upper"
    from Beta(k + 1, n − k): the Clopper–Pearson pair, so that a sum over many strata with
    no positive seen is not pulled up by a prior's mass."""
    u, n, k = (np.asarray(x, dtype=float) for x in (counts.unlabelled, counts.audit_n,
                                                    counts.audit_k))
    if side == "lower":
        a, b = np.maximum(k, 1e-9), np.maximum(n - k, 0) + 1
    else:
        a, b = k + 1, np.maximum(n - k, 1e-9)
    rate = np.where(n > 0, k / np.maximum(n, 1), 0.0)
    factor = np.ones_like(u)
    if use_model and counts.model_mean is not None and counts.audit_model is not None:
        # Model-assisted ratio: the audit's rate, rescaled by how the calibrated scores of
        # the unlabelled items compare with those of the audited ones (clipped: a guide).
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = (counts.model_mean / np.maximum(u, 1)) / (counts.audit_model / np.maximum(n, 1))
        factor = np.where((n > 0) & (u > 0) & np.isfinite(ratio), np.clip(ratio, 0.5, 2.0), 1.0)
    point = (u * np.minimum(rate * factor, 1.0)).sum(axis=1)
    if use_model and counts.model_mean is not None:
        # The combined point shrinks each stratum's audit rate towards the calibrated rate
        # of its unlabelled items, the model counting as PRIOR_ITEMS audit items: a stratum
        # whose few audit items held no positive is not declared empty while the scores
        # say otherwise. Only the point moves; the interval stays the audit's.
        prior = np.where(u > 0, counts.model_mean / np.maximum(u, 1), 0.0)
        shrunk = (k + PRIOR_ITEMS * prior) / (n + PRIOR_ITEMS)
        point = (u * np.clip(shrunk, 0.0, 1.0)).sum(axis=1)
    missing = ((u > 0) & (n == 0)).any(axis=1)
    shape = (u.shape[0], draws, u.shape[1])
    p = rng.beta(np.broadcast_to(a[:, None, :], shape), np.broadcast_to(b[:, None, :], shape))
    if side == "lower":
        p = np.where((k == 0)[:, None, :], 0.0, p)
    p = np.minimum(p * factor[:, None, :], 1.0)
    x = rng.binomial(np.broadcast_to(u[:, None, :].astype(np.int64), shape), p).astype(float)
    return x.sum(axis=2), point, missing


def estimate_remaining(counts: StratumCounts, *, use_model: bool, confidence: float,
                       draws: int = DRAWS, seed: int = SEED, chunk: int = 64
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(point, lower, upper, undefined) positives among the unlabelled, per run.

    Two-sided interval at ``confidence``; point and bounds clamped to [0, unlabelled].
    """
    rng = np.random.default_rng(seed)
    runs = counts.unlabelled.shape[0]
    point, lower, upper = (np.zeros(runs) for _ in range(3))
    undefined = np.zeros(runs, bool)
    tail = (1 - confidence) / 2
    for lo in range(0, runs, chunk):
        part = collapse(StratumCounts(*(None if x is None else x[lo:lo + chunk] for x in (  # type: ignore[arg-type]
            counts.unlabelled, counts.audit_n, counts.audit_k, counts.model_mean,
            counts.model_var, counts.audit_model))))
        x, pt, miss = _posterior_draws(part, use_model, rng, draws, "lower")
        lower[lo:lo + chunk] = np.quantile(x, tail, axis=1)
        x, _pt, _miss = _posterior_draws(part, use_model, rng, draws, "upper")
        upper[lo:lo + chunk] = np.quantile(x, 1 - tail, axis=1)
        point[lo:lo + chunk] = pt
        undefined[lo:lo + chunk] = miss
    total = counts.unlabelled.sum(axis=1).astype(float)
    lower = np.clip(lower, 0, total)
    upper = np.clip(np.maximum(upper, lower), 0, total)
    point = np.clip(point, lower, upper)
    return point, lower, upper, undefined


def model_remaining(mean: float, var: float, unlabelled: int, confidence: float
                    ) -> tuple[float, float, float]:
    """Calibrated sum over the unlabelled: (point, lower, upper), normal interval, clamped."""
    from triage.stats.distributions import norm_ppf

    z = float(norm_ppf(1 - (1 - confidence) / 2))
    sd = float(np.sqrt(max(var, 0.0)))
    clamp = lambda x: float(min(max(x, 0.0), unlabelled))  # noqa: E731
    return clamp(mean), clamp(mean - z * sd), clamp(mean + z * sd)


RANKED_WINDOW = 100  # labels of the ranked pass the ranked-order bound looks back over


def ranked_upper(window_n: ArrayLike, window_k: ArrayLike, unlabelled: ArrayLike,
                 confidence: float) -> np.ndarray:
    """Upper bound on positives left when the ranking beats random order below the depth.

    No unlabelled item is more likely positive than the last ``window_n`` ranked labels
    (``window_k`` positives), so at most unlabelled × the one-sided Jeffreys upper bound of
    that yield at (1 + confidence) / 2. Broadcasts; no window gives the whole remainder."""
    from triage.stats.distributions import beta_ppf

    n = np.asarray(window_n, dtype=float)
    k = np.asarray(window_k, dtype=float)
    u = np.asarray(unlabelled, dtype=float)
    q = 1 - (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        up = np.where(k >= n, 1.0, beta_ppf(q, k + 0.5, np.maximum(n - k, 0) + 0.5))
    return np.where(n > 0, np.minimum(u * up, u), u)
