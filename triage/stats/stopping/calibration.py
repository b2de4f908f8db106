"""Model-based expectations: calibrated probabilities, or a Platt fit on the labels so far.

Platt scaling fits P(positive | score) = 1 / (1 + exp(−(a·score + b))) by maximum likelihood
(Newton's method, a tiny ridge so separable labels still converge). The parameter covariance
(inverse Fisher information) gives a delta-method interval for any sum of probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.common import expit, fit_logistic, logistic_covariance


@dataclass(frozen=True)
class Calibration:
    """Probabilities for every rank, and how far to trust them."""

    p: np.ndarray  # probability of positive, index = rank - 1
    method: str  # "given" (calibrated scores as given) | "platt" (fitted on raw scores)
    # For fitted calibrations: design columns and parameter covariance for delta-method sums.
    score: np.ndarray | None = None
    cov: np.ndarray | None = None
    extrapolates_below_rank: int | None = None
    fitted_on: int = 0  # labels a Platt fit used

    def masked_sum(self, index: np.ndarray, z: float) -> tuple[float, float]:
        """Expected positives over the given 0-based rank indices, with its standard error."""
        p = self.p[index]
        point = float(p.sum())
        if self.cov is None or self.score is None:
            return point, 0.0
        w = p * (1 - p)
        grad = np.array([float((w * self.score[index]).sum()), float(w.sum())])
        return point, float(np.sqrt(max(grad @ self.cov @ grad, 0.0)))


def fit_platt(score: np.ndarray, label: np.ndarray, ridge: float = 1e-6
              ) -> tuple[np.ndarray, np.ndarray]:
    """Fit (a, b) of the logistic model on (score, label); return them and their covariance.

    ``ridge`` penalises the summed NLL by ``ridge / 2 * (a² + b²)``, so labels that the
    score separates perfectly still give finite parameters."""
    y = label.astype(float)
    theta = fit_logistic(score, y, np.zeros(2), ridge=ridge / max(score.size, 1))
    return theta, logistic_covariance(score, theta, ridge)


def calibration_for(pool: int, ranks: np.ndarray, positive: np.ndarray,
                    calibrated: np.ndarray | None, raw_scores: np.ndarray | None
                    ) -> Calibration | None:
    """Calibrated probabilities as given, else a Platt fit on raw scores, else None."""
    if calibrated is not None:
        return Calibration(p=calibrated, method="given")
    if raw_scores is None or ranks.size < 2 or positive.all() or not positive.any():
        return None
    # Standardise so Newton is well conditioned whatever the score scale.
    mu, sd = float(raw_scores.mean()), float(raw_scores.std()) or 1.0
    z = (raw_scores - mu) / sd
    theta, cov = fit_platt(z[ranks - 1], positive)
    p = expit(theta[0] * z + theta[1])
    lowest = int(ranks.max())
    return Calibration(
        p=p,
        method="platt",
        fitted_on=int(ranks.size),
        score=z,
        cov=cov,
        extrapolates_below_rank=lowest if lowest < pool else None,
    )
