"""The Quant and QuantCI rules of Yang, Lewis & Frieder (DocEng 2021) — score-based heuristics.

With calibrated probabilities p_i for every candidate, the reviewed part is expected to hold
``Sk = Σ_reviewed p_i`` positives and the rest ``Su = Σ_unreviewed p_i``. **Quant** estimates
recall as ``Sk / (Sk + Su)`` and stops when it reaches the target. **QuantCI** subtracts
``nstd`` standard deviations first (the paper uses 2), with the paper's variance

    Var = Sk² / (Sk + Su)⁴ · Σ_all p(1−p) + 1 / (Sk + Su)² · Σ_reviewed p(1−p).

Both rest entirely on the calibration being right, including where it extrapolates below the
deepest label it was fitted on; they carry no statistical guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class QuantResult:
    """Quant's recall estimate, its standard deviation and the two verdicts."""

    recall: float
    sd: float
    recall_lower: float   # recall − nstd · sd (QuantCI)
    quant_met: bool
    quant_ci_met: bool


def quant(p: np.ndarray, reviewed: np.ndarray, target: float, nstd: float = 2.0) -> QuantResult:
    """Quant and QuantCI on calibrated probabilities ``p`` and a reviewed mask (one per item)."""
    res = quant_many(np.asarray(p, float)[None, :], np.asarray(reviewed, bool)[None, :], target,
                     nstd)
    return QuantResult(*(x[0].item() for x in res))


def quant_many(p: np.ndarray, reviewed: np.ndarray, target: float, nstd: float = 2.0
               ) -> tuple[np.ndarray, ...]:
    """Vectorised over rows: (recall, sd, lower, quant_met, quant_ci_met), NaN-free."""
    pv = p * (1 - p)
    return quant_from_sums((p * reviewed).sum(axis=1), p.sum(axis=1),
                           (pv * reviewed).sum(axis=1), pv.sum(axis=1), target, nstd)


def quant_from_sums(sk: ArrayLike, total: ArrayLike, known_var: ArrayLike,
                    all_var: ArrayLike, target: float, nstd: float = 2.0
                    ) -> tuple[np.ndarray, ...]:
    """Quant/QuantCI from the sums (broadcasts): Σp reviewed, Σp all, Σp(1−p) reviewed, all."""
    sk, total = np.asarray(sk, float), np.asarray(total, float)
    known_var, all_var = np.asarray(known_var, float), np.asarray(all_var, float)
    safe = np.maximum(total, 1e-12)
    recall = np.where(total > 0, sk / safe, 0.0)
    var = sk**2 / safe**4 * all_var + known_var / safe**2
    sd = np.sqrt(np.maximum(var, 0.0))
    lower = np.clip(recall - nstd * sd, 0.0, 1.0)
    return recall, sd, lower, recall >= target, lower >= target
