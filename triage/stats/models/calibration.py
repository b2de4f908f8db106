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

from triage.stats.common import expit as expit
from triage.stats.common import fit_logistic
from triage.stats.common import log_expit as log_expit
from triage.stats.common import logit as logit
from triage.stats.models.metrics import as_arrays

WARM_START = 100_000  # items of the seeded sample Platt's Newton iteration starts from


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
        theta = fit_logistic(z[pick], y[pick], theta)
    theta = fit_logistic(z, y, theta)
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
