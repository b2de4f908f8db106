"""Bootstrap intervals for Cohen's κ (mean over pairs), Fleiss' κ and Gwet's AC1.

Rated items are drawn with replacement, as for α (:mod:`triage.stats.agreement.bootstrap`),
and each coefficient is recomputed on the resample exactly as on the data: every
coefficient is a function of per-item sums, so a resample's value comes from one matrix
product of its multiplicity vector with a per-item feature matrix.

- Fleiss' κ and AC1: the sums of agreeing pairs over pairable items, of pairable items, of
  rated items, and of each category's share n_ic / m_i (Gwet's generalisation).
- Cohen's κ: every annotator pair's C × C table, summed over the items; the mean over the
  pairs defined in that resample (Light's κ), as :func:`~.coefficients.mean_kappa`.
"""

from __future__ import annotations

import numpy as np

from triage.stats.agreement.bootstrap import Interval, percentile_interval
from triage.stats.agreement.coefficients import kappa_weights, rating_pairs
from triage.stats.agreement.krippendorff import category_counts
from triage.stats.agreement.ratings import Ratings

_CHUNK_CELLS = 2_000_000


def _count_features(ratings: Ratings) -> tuple[np.ndarray, int]:
    """Per rated item: [agreeing pairs share if pairable, pairable, 1, n_ic/m_i …]."""
    u, c, n = category_counts(ratings.item, ratings.code, ratings.n_categories)
    items, u = np.unique(u, return_inverse=True)
    n = n.astype(float)
    m = np.bincount(u, weights=n)
    agree = np.bincount(u, weights=n * (n - 1), minlength=m.size)
    two = m >= 2
    share = np.zeros((m.size, ratings.n_categories))
    np.add.at(share, (u, c), n / m[u])
    pa = np.where(two, agree / np.where(two, m * (m - 1), 1.0), 0.0)
    feats = np.column_stack([pa, two.astype(float), np.ones(m.size), share])
    return feats, int(items.size)


def _fleiss_ac1(totals: np.ndarray, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Fleiss' κ and AC1 per resample from summed features (NaN where undefined)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = totals[:, 0] / totals[:, 1]
        pi = totals[:, 3:] / totals[:, 2:3]
        pe_f = (pi * pi).sum(axis=1)
        pe_g = (pi * (1 - pi)).sum(axis=1) / max(q - 1, 1)
        fleiss = np.where(pe_f < 1 - 1e-15, (pa - pe_f) / (1 - pe_f), np.nan)
        ac1 = (pa - pe_g) / (1 - pe_g) if q >= 2 else np.full_like(pa, np.nan)
    return fleiss, ac1


def _pair_features(ratings: Ratings, weights: str | None) -> tuple[np.ndarray, np.ndarray,
                                                                    int, np.ndarray]:
    """Per item × (pair, cell) counts, the item index, pairs and the disagreement weights."""
    i, j = rating_pairs(ratings)
    c, a = ratings.n_categories, ratings.n_annotators
    key = ratings.annotator[i] * a + ratings.annotator[j]
    keys, pair = np.unique(key, return_inverse=True)
    items, item = np.unique(ratings.item[i], return_inverse=True)
    col = pair * c * c + ratings.code[i] * c + ratings.code[j]
    feats = np.zeros((items.size, keys.size * c * c))
    np.add.at(feats, (item, col), 1.0)
    w = kappa_weights(ratings.values if weights else np.arange(c), weights)
    w = 1.0 - np.eye(c) if w is None else np.asarray(w, dtype=float)
    return feats, items, keys.size, w


def _mean_kappa(tables: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mean of the defined pairwise κ per resample; tables (B, P, C, C)."""
    n = tables.sum(axis=(2, 3))
    safe = np.where(n > 0, n, 1.0)
    observed = (tables * w).sum(axis=(2, 3)) / safe
    rows, cols = tables.sum(axis=3) / safe[..., None], tables.sum(axis=2) / safe[..., None]
    expected = np.einsum("bpc,ck,bpk->bp", rows, w, cols)
    ok = (n > 0) & (expected > 1e-15)
    kappa = np.where(ok, 1.0 - observed / np.where(ok, expected, 1.0), 0.0)
    defined = ok.sum(axis=1)
    return np.where(defined > 0, kappa.sum(axis=1) / np.maximum(defined, 1), np.nan)


def _resample(feats: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Summed features of ``resamples`` item resamples (B × F)."""
    n_items = feats.shape[0]
    out = np.empty((resamples, feats.shape[1]))
    step = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        draws = rng.integers(0, n_items, size=(b, n_items))
        flat = (np.arange(b)[:, None] * n_items + draws).ravel()
        mult = np.bincount(flat, minlength=b * n_items).reshape(b, n_items).astype(float)
        out[start:start + b] = mult @ feats
    return out


def kappa_intervals(ratings: Ratings, weights: str | None = None, resamples: int = 1000,
                    seed: int | None = 0, confidence: float = 0.95
                    ) -> dict[str, Interval]:
    """Percentile intervals for ``cohen_kappa_mean``, ``fleiss_kappa`` and ``gwet_ac1``."""
    out = {k: Interval(None, None, resamples, 0, "resample_no_pairable")
           for k in ("cohen_kappa_mean", "fleiss_kappa", "gwet_ac1")}
    feats, n_items = _count_features(ratings)
    if resamples <= 0 or n_items == 0 or not (feats[:, 1] > 0).any():
        return out
    rng = np.random.default_rng(seed)
    fleiss, ac1 = _fleiss_ac1(_resample(feats, resamples, rng), ratings.n_categories)
    out["fleiss_kappa"] = percentile_interval(fleiss, confidence, "fleiss_kappa")
    out["gwet_ac1"] = percentile_interval(ac1, confidence, "gwet_ac1")
    pf, _items, pairs, w = _pair_features(ratings, weights)
    if pairs:
        c = ratings.n_categories
        tables = _resample(pf, resamples, rng).reshape(resamples, pairs, c, c)
        out["cohen_kappa_mean"] = percentile_interval(_mean_kappa(tables, w), confidence,
                                                      "cohen_kappa_mean")
    return out
