"""Post-hoc calibration of binary scores and the expected calibration error.

Seed 001 (§4.2.3) recalibrates with temperature scaling before applying the threshold
k/(k+1), because that threshold assumes calibrated confidences. For a binary model that
reports p, the logit is z = log(p / (1 - p)); temperature scaling fits one T > 0 and
returns sigmoid(z / T); Platt scaling fits sigmoid(a z + b). Both minimise the negative
log-likelihood of the gold labels and are monotone, so they never change a ranking.

Platt scaling is fitted by Newton's method in numpy (two parameters: the exact Hessian is
2 × 2), started from a fit on a seeded sample of at most ``WARM_START`` items when there are
more, then polished on every item to the maximum-likelihood fit of all of them: at a million
items that is two or three passes instead of the two dozen of a quasi-Newton search, and
neither scipy.optimize nor scipy.special is imported (half a second when a tab opens).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.models.metrics import as_arrays

_EPS = 1e-6  # keeps logit(0) and logit(1) finite; exact 0/1 scores exist in real data
WARM_START = 100_000  # items of the seeded sample Platt's Newton iteration starts from


def expit(x: np.ndarray) -> np.ndarray:
    """The logistic sigmoid 1 / (1 + exp(-x)), without overflow for large |x|."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def log_expit(x: np.ndarray) -> np.ndarray:
    """log(sigmoid(x)) = -log(1 + exp(-x)), accurate in both tails."""
    return -np.logaddexp(0.0, -np.asarray(x, dtype=np.float64))


def logit(p: np.ndarray) -> np.ndarray:
    """log(p / (1 - p)) with p clipped away from 0 and 1."""
    q = np.clip(np.asarray(p, dtype=np.float64), _EPS, 1.0 - _EPS)
    return np.log(q) - np.log1p(-q)


def _nll(z: np.ndarray, g: np.ndarray) -> float:
    """Mean negative log-likelihood of labels g under sigmoid(z)."""
    return float(-np.mean(np.where(g, log_expit(z), log_expit(-z))))


@dataclass(frozen=True)
class Calibrator:
    """A fitted monotone map p -> sigmoid(a * logit(p) + b); temperature is a = 1/T, b = 0."""

    method: str  # "none", "temperature" or "platt"
    a: float = 1.0
    b: float = 0.0

    @property
    def temperature(self) -> float | None:
        """T of temperature scaling (``a = 1/T``); None for the other methods."""
        return 1.0 / self.a if self.method == "temperature" else None

    def apply(self, p: np.ndarray) -> np.ndarray:
        """The calibrated probabilities of raw scores ``p``."""
        if self.method == "none":
            return np.asarray(p, dtype=np.float64)
        return expit(self.a * logit(p) + self.b)

    def inverse(self, q: float) -> float:
        """The raw score whose calibrated value is q (for stating thresholds on raw scores)."""
        if self.method == "none":
            return float(q)
        return float(expit((logit(np.array([q]))[0] - self.b) / self.a))


def fit_temperature(p: np.ndarray, gold: np.ndarray) -> Calibrator:
    """Temperature scaling (Guo et al. 2017) on logit(p): one parameter T > 0."""
    from scipy.optimize import minimize_scalar  # only here: the lead's tab uses Platt

    s, g = as_arrays(p, gold)
    z = logit(s)
    # Optimise log T so that T stays positive; the bounds allow T from 1/1000 to 1000.
    res = minimize_scalar(lambda lt: _nll(z * np.exp(-lt), g), bounds=(-7.0, 7.0), method="bounded")
    return Calibrator("temperature", a=float(np.exp(-res.x)), b=0.0)


class _Point:
    """sigmoid(a z + b) at one (a, b): the NLL and the fitted probabilities, from one exp."""

    def __init__(self, theta: np.ndarray, z: np.ndarray, y: np.ndarray) -> None:
        self.theta = theta
        u = theta[0] * z + theta[1]
        e = np.exp(-np.abs(u))
        # log(1 + exp(u)) - y u, written with exp(-|u|) so that nothing overflows.
        self.nll = float(np.mean(np.maximum(u, 0.0) + np.log1p(e) - y * u))
        self.q = np.where(u >= 0, 1.0, e) / (1.0 + e)


def _newton(z: np.ndarray, y: np.ndarray, theta: np.ndarray, max_steps: int = 100) -> np.ndarray:
    """Minimise the mean NLL of y under sigmoid(a z + b) from ``theta`` = (a, b) by Newton steps.

    Each step is halved until the NLL does not rise (the NLL is convex, so a full step is
    taken near the optimum). Newton converges quadratically, so once a step is below 1e-6
    (relative) it is taken and the search ends: what remains is of the order of 1e-12. For
    separable labels, whose optimum lies at infinity, it ends when the NLL stops falling.
    """
    at = _Point(theta, z, y)
    for _ in range(max_steps):
        r, w = at.q - y, at.q * (1.0 - at.q)
        wz = w * z
        grad = np.array([np.mean(r * z), np.mean(r)])
        hess = np.array([[np.mean(wz * z), np.mean(wz)], [np.mean(wz), np.mean(w)]])
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = grad  # flat curvature (e.g. one class): a gradient step instead
        if np.max(np.abs(step)) <= 1e-6 * (1.0 + np.max(np.abs(at.theta))):
            return at.theta - step
        size = 1.0
        while size > 1e-6:
            trial = _Point(at.theta - size * step, z, y)
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


def fit_platt(p: np.ndarray, gold: np.ndarray, seed: int = 0) -> Calibrator:
    """Platt scaling: logistic regression of the gold label on logit(p) (no label smoothing).

    The maximum-likelihood fit on all items; ``seed`` only picks the sample the Newton
    iteration starts from when there are more than ``WARM_START`` items (see the module).
    """
    s, g = as_arrays(p, gold)
    z = logit(s)
    y = g.astype(np.float64)
    theta = np.array([1.0, 0.0])
    if z.size > 2 * WARM_START:
        pick = np.random.default_rng(seed).choice(z.size, WARM_START, replace=False)
        theta = _newton(z[pick], y[pick], theta)
    theta = _newton(z, y, theta)
    return Calibrator("platt", a=float(theta[0]), b=float(theta[1]))


def fit(method: str, p: np.ndarray, gold: np.ndarray) -> Calibrator:
    """Fit ``none``, ``temperature`` or ``platt``."""
    if method == "none":
        return Calibrator("none")
    if method == "temperature":
        return fit_temperature(p, gold)
    if method == "platt":
        return fit_platt(p, gold)
    raise ValueError(f"unknown calibration method {method!r}")


@dataclass(frozen=True)
class Reliability:
    """Reliability-diagram data and expected calibration error.

    Bins are equal-width over the confidence of the predicted class, max(p, 1 - p)
    (Guo et al. 2017); ``accuracy[i]`` is the share of correct predictions in bin i and
    ``confidence[i]`` their mean confidence (None for empty bins).
    """

    ece: float | None
    edges: np.ndarray
    counts: np.ndarray
    confidence: list[float | None]
    accuracy: list[float | None]
    reason: str | None = None


def reliability(p: np.ndarray, gold: np.ndarray, bins: int = 10) -> Reliability:
    """ECE = Σ_bins (n_b / n) |accuracy_b - confidence_b| over ``bins`` equal-width bins."""
    s, g = as_arrays(p, gold)
    edges = np.round(np.linspace(0.0, 1.0, bins + 1), 12)  # 0.3, not 0.30000000000000004
    if s.size == 0:
        return Reliability(None, edges, np.zeros(bins, int), [None] * bins, [None] * bins, "no items")
    conf = np.maximum(s, 1.0 - s)
    correct = (s >= 0.5) == g
    # Right-closed bins (0.9, 1.0]; a confidence of exactly 0 falls in the first bin.
    idx = np.clip(np.searchsorted(edges, conf, side="left") - 1, 0, bins - 1)
    counts = np.bincount(idx, minlength=bins)
    sum_conf = np.bincount(idx, weights=conf, minlength=bins)
    sum_acc = np.bincount(idx, weights=correct.astype(np.float64), minlength=bins)
    nz = counts > 0
    ece = float(np.sum(np.abs(sum_acc[nz] - sum_conf[nz])) / s.size)
    mean_conf = [float(c / n) if n else None for c, n in zip(sum_conf, counts)]
    mean_acc = [float(a / n) if n else None for a, n in zip(sum_acc, counts)]
    return Reliability(ece, edges, counts, mean_conf, mean_acc)
