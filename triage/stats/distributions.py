"""The four distribution functions the stopping rules use, through SciPy's public API.

This module owns when SciPy is imported: not when Triage starts, only on the first call
that needs it. The beta quantile and the normal quantile come from ``scipy.special``
(``betaincinv`` and ``ndtri``, the functions ``scipy.stats`` itself calls: since SciPy
1.12 both are Boost's); the binomial and hypergeometric tails come from ``scipy.stats``,
which has no lighter public route. Every value is what ``scipy.stats`` returns, edges
included (``tests/test_distributions.py`` holds them equal); the SciPy versions this is
checked on are bounded in ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


@cache
def _scipy(name: str) -> Any:
    """``scipy.special`` or ``scipy.stats``, imported on first use."""
    return importlib.import_module(f"scipy.{name}")


def _out(values: np.ndarray) -> Any:
    """A 0-d result as a numpy scalar, as scipy.stats returns it."""
    return values[()] if values.ndim == 0 else values


def beta_ppf(q: ArrayLike, a: ArrayLike, b: ArrayLike) -> Any:
    """``scipy.stats.beta.ppf(q, a, b)``: the q-quantile of Beta(a, b) (broadcasts)."""
    q, a, b = np.broadcast_arrays(*(np.asarray(v) for v in (q, a, b)))
    valid = (a > 0) & (b > 0)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = 0.0
    out[valid & (q == 1)] = 1.0
    inside = valid & (q > 0) & (q < 1)
    if inside.any():
        out[inside] = _scipy("special").betaincinv(a[inside], b[inside], q[inside]) * 1.0 + 0.0
    return _out(out)


def binom_sf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``scipy.stats.binom.sf(k, n, p)``: P(X > k) for X ~ Binomial(n, p) (broadcasts)."""
    return _scipy("stats").binom.sf(k, n, p)


def hypergeom_cdf(k: ArrayLike, total: ArrayLike, good: ArrayLike, draws: ArrayLike) -> Any:
    """``scipy.stats.hypergeom.cdf(k, M, n, N)``: P(X <= k), X ~ Hypergeometric (broadcasts).

    X counts the good items among ``draws`` taken without replacement from ``total`` items
    of which ``good`` are good."""
    return _scipy("stats").hypergeom.cdf(k, total, good, draws)


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)`` for a scalar q."""
    return float(_scipy("special").ndtri(q) * 1.0 + 0.0) if 0 <= q <= 1 else float("nan")
