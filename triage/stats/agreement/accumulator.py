"""Krippendorff's α kept up to date one rating at a time (the desk's live figure).

Adding, changing or removing one rating touches only that item: its old contribution to
the coincidence matrix is taken out and its new one put in, in O(d²) for the d distinct
categories of the item (d ≤ its number of ratings). Contributions are kept as exact
integer matrices per number of ratings m (the weight 1/(m-1) is applied when α is read),
so any sequence of additions and removals gives exactly the batch counts.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from numpy.typing import ArrayLike

from triage.stats.agreement.krippendorff import (
    NO_PAIRABLE,
    NO_RATINGS,
    NO_VARIATION,
    alpha_from_totals,
)
from triage.stats.agreement.ratings import LEVELS, Coefficient


class AlphaAccumulator:
    """Incremental α for one category set and level (all four levels)."""

    def __init__(self, n_categories: int, level: str = "nominal",
                 values: ArrayLike | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}")
        self.n_categories = int(n_categories)
        self.level = level
        self.values = (
            np.arange(n_categories, dtype=float) if values is None else np.asarray(values, float)
        )
        self._ratings: dict[object, dict[object, int]] = {}
        # m -> Σ over items with m ratings of (n nᵀ - diag n), integers.
        self._by_m: dict[int, np.ndarray] = {}

    def _apply(self, item: object, sign: int) -> None:
        """Add (sign=+1) or take out (-1) the item's current contribution."""
        labels = self._ratings.get(item)
        if not labels or len(labels) < 2:
            return
        m = len(labels)
        counts = Counter(labels.values())
        mat = self._by_m.get(m)
        if mat is None:
            mat = self._by_m[m] = np.zeros((self.n_categories, self.n_categories), np.int64)
        for c, nc in counts.items():
            for k, nk in counts.items():
                mat[c, k] += sign * (nc * nk - (nc if c == k else 0))

    def add(self, item: object, annotator: object, code: int) -> None:
        """Record (or replace) ``annotator``'s rating of ``item``."""
        if not 0 <= code < self.n_categories:
            raise ValueError(f"category code {code} is outside 0..{self.n_categories - 1}")
        self._apply(item, -1)
        self._ratings.setdefault(item, {})[annotator] = int(code)
        self._apply(item, +1)

    def remove(self, item: object, annotator: object) -> None:
        """Forget ``annotator``'s rating of ``item`` (no-op when there is none)."""
        labels = self._ratings.get(item)
        if not labels or annotator not in labels:
            return
        self._apply(item, -1)
        del labels[annotator]
        if not labels:
            del self._ratings[item]
        self._apply(item, +1)

    def coincidences(self) -> np.ndarray:
        """The current (C × C) coincidence matrix."""
        o = np.zeros((self.n_categories, self.n_categories))
        for m in sorted(self._by_m):
            o += self._by_m[m] / (m - 1)
        return o

    def alpha(self) -> Coefficient:
        """α of the ratings held now."""
        o = self.coincidences()
        if o.sum() < 2:
            return Coefficient.undefined(NO_PAIRABLE if self._ratings else NO_RATINGS)
        c = self.n_categories
        if self.level == "nominal":
            totals = np.r_[o.sum(axis=1), o.sum(), np.trace(o)]
            value = alpha_from_totals(totals, "nominal", c, self.values)[0][0]
        elif self.level == "interval":
            value = _interval_alpha(o, self.values)
        else:
            value = alpha_from_totals(o.ravel(), self.level, c, self.values)[0][0]
        if np.isnan(value):
            return Coefficient.undefined(NO_VARIATION)
        return Coefficient.of(value)


def _interval_alpha(o: np.ndarray, values: np.ndarray) -> float:
    """α at the interval level straight from a coincidence matrix."""
    nc = o.sum(axis=1)
    n = nc.sum()
    d2 = (values[:, None] - values[None, :]) ** 2
    expected = nc @ d2 @ nc
    if n < 2 or expected <= 1e-12 * max(n * n * d2.max(), 1.0):
        return float("nan")
    return float(1.0 - (n - 1.0) * (o * d2).sum() / expected)
