"""Arithmetic every statistic shares: the logistic function and its fit, deciles, thinning.

The statistics packages (gain, agreement, stopping, models) never import each other; what
more than one of them needs lives here, once: the logistic sigmoid and logit, the Newton
fit of a two-parameter logistic model (Platt scaling), the decile of a rank, and the evenly
spaced thinning of a long curve for drawing.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

DECILES = 10
_EPS = 1e-6  # keeps logit(0) and logit(1) finite; exact 0/1 scores exist in real data


# -- the logistic function ----------------------------------------------------------------

def expit(x: ArrayLike) -> np.ndarray:
    """The logistic sigmoid 1 / (1 + exp(-x)), without overflow for large |x|."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def log_expit(x: ArrayLike) -> np.ndarray:
    """log(sigmoid(x)) = -log(1 + exp(-x)), accurate in both tails."""
    return -np.logaddexp(0.0, -np.asarray(x, dtype=np.float64))


def logit(p: ArrayLike) -> np.ndarray:
    """log(p / (1 - p)) with p clipped away from 0 and 1."""
    q = np.clip(np.asarray(p, dtype=np.float64), _EPS, 1.0 - _EPS)
    return np.log(q) - np.log1p(-q)


class _Point:
    """sigmoid(a z + b) at one (a, b): the penalised mean NLL and the probabilities."""

    def __init__(self, theta: np.ndarray, z: np.ndarray, y: np.ndarray, ridge: float) -> None:
        self.theta = theta
        u = theta[0] * z + theta[1]
        e = np.exp(-np.abs(u))
        # log(1 + exp(u)) - y u, written with exp(-|u|) so that nothing overflows.
        self.nll = float(np.mean(np.maximum(u, 0.0) + np.log1p(e) - y * u))
        if ridge:
            self.nll += 0.5 * ridge * float(theta @ theta)
        self.q = np.where(u >= 0, 1.0, e) / (1.0 + e)


def fit_logistic(z: np.ndarray, y: np.ndarray, theta: np.ndarray, ridge: float = 0.0,
                 max_steps: int = 100) -> np.ndarray:
    """(a, b) minimising the mean NLL of y under sigmoid(a z + b), by Newton from ``theta``.

    ``ridge`` adds ``ridge / 2 * (a² + b²)`` to the mean NLL, so separable labels still
    converge to finite parameters. Each step is halved until the objective does not rise
    (it is convex, so a full step is taken near the optimum). Newton converges
    quadratically, so once a step is below 1e-6 (relative) it is taken and the search ends:
    what remains is of the order of 1e-12. Without a ridge, separable labels (optimum at
    infinity) end the search when the NLL stops falling.
    """
    at = _Point(theta, z, y, ridge)
    for _ in range(max_steps):
        r, w = at.q - y, at.q * (1.0 - at.q)
        wz = w * z
        grad = np.array([np.mean(r * z), np.mean(r)]) + ridge * at.theta
        hess = np.array([[np.mean(wz * z), np.mean(wz)], [np.mean(wz), np.mean(w)]])
        hess += ridge * np.eye(2)
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = grad  # flat curvature (e.g. one class): a gradient step instead
        if np.max(np.abs(step)) <= 1e-6 * (1.0 + np.max(np.abs(at.theta))):
            return at.theta - step
        size = 1.0
        while size > 1e-6:
            trial = _Point(at.theta - size * step, z, y, ridge)
            if trial.nll <= at.nll:
                break
            size /= 2.0
        else:
            return at.theta  # no step lowers the NLL: at the optimum within rounding
        stalled = at.nll - trial.nll <= 1e-15 * max(at.nll, 1e-300)
        at = trial
        if stalled:
            break
    return at.theta


def logistic_covariance(z: np.ndarray, theta: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """Covariance of (a, b) at ``theta``: the inverse Fisher information of the summed NLL."""
    x = np.column_stack([z, np.ones_like(z)])
    p = expit(x @ theta)
    w = p * (1 - p)
    return np.linalg.inv(x.T @ (x * w[:, None]) + ridge * np.eye(2))


# -- deciles --------------------------------------------------------------------------------

def decile_of_rank(ranks: ArrayLike, pool: int, bins: int = DECILES) -> np.ndarray:
    """Decile (1..bins) of 1-based ranks: ``ceil(bins * r / pool)``, in exact integers."""
    ranks = np.asarray(ranks, dtype=np.int64)
    return (bins * ranks + pool - 1) // pool


def decile_sizes(pool: int, bins: int = DECILES) -> np.ndarray:
    """Items in each decile; boundaries are fractional, so sizes may differ by one (or be 0).

    Rank r is in decile d + 1 or later exactly when r > d·pool/bins, so decile d + 1 starts
    after rank ⌊d·pool/bins⌋: the sizes are differences of those floors."""
    return np.diff(np.arange(bins + 1, dtype=np.int64) * pool // bins)


# -- thinning a curve for drawing ---------------------------------------------------------

def even_indices(size: int, points: int) -> np.ndarray:
    """At most ``points`` evenly spaced indices into ``size`` items, first and last kept."""
    return np.unique(np.linspace(0, size - 1, min(points, size)).round().astype(np.int64))


def downsample(x: ArrayLike, y: ArrayLike, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_points`` points of a curve, evenly spaced, keeping the first and last.

    Gain curves rise by at most one per step, so evenly spaced indices lose at most
    ``len/max_points`` positives of height between kept points: invisible at chart size.
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.size <= max_points:
        return x, y
    keep = even_indices(x.size, max_points)
    return x[keep], y[keep]
