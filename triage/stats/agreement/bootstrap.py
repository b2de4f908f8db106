"""Bootstrap confidence intervals for α and percent agreement, resampling items.

Pairable items are drawn with replacement; because every item's contribution to α is a
row of linear statistics (see :mod:`triage.stats.agreement.krippendorff`), a resample's α is a
function of one matrix product with its multiplicity vector, so 1,000 resamples of
10,000 items take well under a second for nominal and interval data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.agreement.krippendorff import alpha_from_totals, category_counts, item_statistics
from triage.stats.agreement.ratings import Ratings

# Multiplicity entries materialised at once (memory bound, not a speed knob).
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Interval:
    """A percentile interval, or ``low``/``high`` None with the reason code (views word it)."""

    low: float | None
    high: float | None
    resamples: int
    defined: int
    reason: str | None = None

    def as_list(self) -> list[float] | None:
        """``[low, high]`` for JSON, or None when the interval is undefined."""
        return None if self.low is None or self.high is None else [self.low, self.high]


@dataclass(frozen=True)
class BootstrapResult:
    """Intervals for Krippendorff's α and for percent agreement from the same resamples."""

    alpha: Interval
    percent_agreement: Interval


def percentile_interval(samples: np.ndarray, confidence: float, what: str) -> Interval:
    """The percentile interval of the defined resampled values, or why there is none.

    ``what`` is the coefficient's key (``alpha``, ``fleiss_kappa``, …): undefined in every
    resample, the reason is ``every_resample_<what>``."""
    ok = samples[~np.isnan(samples)]
    if samples.size == 0:
        return Interval(None, None, 0, 0, "no_resamples")
    if ok.size == 0:
        return Interval(None, None, samples.size, 0, f"every_resample_{what}")
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(ok, [tail, 100 - tail])
    return Interval(float(lo), float(hi), int(samples.size), int(ok.size))


def bootstrap(
    ratings: Ratings,
    level: str = "nominal",
    resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> BootstrapResult:
    """Percentile intervals from ``resamples`` item resamples, reproducible with ``seed``.

    Resamples where α is undefined (no variation left) are left out and counted: the
    interval reports how many were defined.
    """
    # Transposed (statistics × items) so each chunk is one matrix product.
    stats = item_statistics(
        ratings.item, ratings.code, ratings.n_categories, level, ratings.values)
    stats_t = np.ascontiguousarray(stats.T) if isinstance(stats, np.ndarray) else stats.T.tocsr()
    pa_stats = _agreement_per_item(ratings)
    n_items = stats_t.shape[1]
    if n_items == 0:
        empty = Interval(None, None, resamples, 0, "resample_no_pairable")
        return BootstrapResult(empty, empty)
    rng = np.random.default_rng(seed)
    alphas = np.empty(resamples)
    shares = np.empty(resamples)
    step = max(1, _CHUNK_CELLS // n_items)
    for start in range(0, resamples, step):
        b = min(step, resamples - start)
        draws = rng.integers(0, n_items, size=(b, n_items))
        flat = (np.arange(b)[:, None] * n_items + draws).ravel()
        mult = np.bincount(flat, minlength=b * n_items).reshape(b, n_items).astype(float)
        totals = np.asarray(stats_t @ mult.T).T
        alphas[start:start + b] = alpha_from_totals(
            totals, level, ratings.n_categories, ratings.values
        )[0]
        shares[start:start + b] = (mult @ pa_stats) / n_items
    return BootstrapResult(
        percentile_interval(alphas, confidence, "alpha"),
        percentile_interval(shares, confidence, "percent_agreement"),
    )


def _agreement_per_item(ratings: Ratings) -> np.ndarray:
    """Each pairable item's share of agreeing rating pairs, in item-statistics row order."""
    u, _, n = category_counts(ratings.item, ratings.code, ratings.n_categories)
    n = n.astype(float)
    m = np.bincount(u, weights=n) if u.size else np.zeros(0)
    agree = np.bincount(u, weights=n * (n - 1), minlength=m.size)
    two = m >= 2
    return agree[two] / (m[two] * (m[two] - 1))
