"""The four distribution functions the stopping rules use, without importing ``scipy.stats``.

Importing ``scipy.stats`` loads much of SciPy (spatial, optimize, sparse, interpolate...),
more than ``triage advise`` may spend in all. Three functions come from the public
``scipy.special`` functions ``scipy.stats`` itself calls, with the same handling of the
edges and of invalid arguments as its ``ppf``/``cdf``/``sf``: ``betaincinv`` (the beta
quantile), ``betainc`` (the binomial tail) and ``ndtri`` (the normal quantile), so those
values are scipy.stats' own. SciPy has no public hypergeometric distribution function
outside ``scipy.stats``; :func:`hypergeom_cdf` sums the probabilities here, as R's
``phyper`` does (Loader's saddle-point probabilities), within 1e-12 of scipy.stats'.
``tests/test_distributions.py`` compares all four with scipy.stats.

``scipy.special`` is imported on first use (the start-up policy, :mod:`triage.base.startup`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from triage.base.startup import scipy_special, statistics_loaded

statistics_loaded()


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
        out[inside] = scipy_special().betaincinv(a[inside], b[inside], q[inside]) * 1.0 + 0.0
    return _out(out)


def binom_sf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``scipy.stats.binom.sf(k, n, p)``: P(X > k) for X ~ Binomial(n, p) (broadcasts)."""
    k, n, p = np.broadcast_arrays(*(np.asarray(v) for v in (k, n, p)))
    valid = (n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1)
    out = np.zeros(k.shape)
    out[(~valid) | np.isnan(k)] = np.nan
    out[((k < 0) | np.isneginf(k)) & valid] = 1.0
    inside = valid & (k >= 0) & (k < n) & np.isfinite(k)
    if inside.any():
        floor = np.floor(k[inside])  # P(X > k) = I_p(k + 1, n - k), the regularised beta
        tail = scipy_special().betainc(floor + 1, n[inside] - floor, p[inside])
        out[inside] = np.clip(tail, 0, 1)
    return _out(out)


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)`` of one probability: the standard normal quantile."""
    return float(scipy_special().ndtri(q) * 1.0 + 0.0) if 0 <= q <= 1 else float("nan")


def hypergeom_cdf(k: ArrayLike, total: ArrayLike, good: ArrayLike, draws: ArrayLike) -> Any:
    """``scipy.stats.hypergeom.cdf(k, M, n, N)``: P(X <= k), X ~ Hypergeometric (broadcasts).

    X counts the good items among ``draws`` taken without replacement from ``total`` items
    of which ``good`` are good."""
    k, m, n, d = np.broadcast_arrays(*(np.asarray(v) for v in (k, total, good, draws)))
    valid = ((m > 0) & (n >= 0) & (d >= 0) & (n <= m) & (d <= m)
             & (m == np.round(m)) & (n == np.round(n)) & (d == np.round(d)))
    low, high = np.maximum(d - (m - n), 0), np.minimum(n, d)
    out = np.zeros(k.shape)
    out[k >= high] = 1.0
    out[np.isneginf(k)] = 0.0
    out[(~valid) | np.isnan(k)] = np.nan
    inside = valid & (k >= low) & (k < high) & np.isfinite(k)
    if inside.any():
        x, good_, draws_ = (np.asarray(v[inside], dtype=float) for v in (k, n, d))
        out[inside] = np.clip(_phyper(np.floor(x), good_, m[inside] - good_, draws_), 0, 1)
    return _out(out)


# -- the hypergeometric sum (R's phyper, dhyper and dbinom_raw, after Loader 2000) --------

_LN_2PI = math.log(2 * math.pi)
# Stirling's error log(n!) - log(sqrt(2 pi n) (n/e)^n) for n = 0..15, where the series is
# not yet accurate.
_STIRLERR_SMALL = np.array([0.0] + [math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n
                                    - 0.5 * _LN_2PI for n in range(1, 16)])


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """Stirling's error of whole numbers ``n`` (the table up to 15, the series above)."""
    nn = n * n
    with np.errstate(divide="ignore", invalid="ignore"):
        s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
        series = np.select(
            [n > 500, n > 80, n > 35],
            [(s0 - s1 / nn) / n, (s0 - (s1 - s2 / nn) / nn) / n,
             (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n],
            (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n)
    small = _STIRLERR_SMALL[np.clip(n, 0, 15).astype(np.int64)]
    return np.where(n <= 15, small, series)


def _bd0(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x log(x / mean) + mean - x, without cancellation when x is near mean."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        ej, v2 = 2 * x * v, v * v
        for j in range(1, 12):  # |v| < 0.1: eleven terms reach the last bit
            ej = ej * v2
            s = s + ej / (2 * j + 1)
        direct = x * np.log(x / mean) + mean - x
    return np.where(np.abs(x - mean) < 0.1 * (x + mean), s, direct)


def _log_dbinom(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log P(X = x) for X ~ Binomial(n, p), q = 1 - p, 0 < p < 1, accurate for large n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        general = (_stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p)
                   - _bd0(n - x, n * q)
                   - 0.5 * (_LN_2PI + np.log(x) + np.log1p(-x / n)))
        at_zero = np.where(p < 0.1, -_bd0(n, n * q) - n * p, n * np.log(q))
        at_n = np.where(q < 0.1, -_bd0(n, n * p) - n * q, n * np.log(p))
    return np.where(x == 0, np.where(n == 0, 0.0, at_zero), np.where(x == n, at_n, general))


def _phyper(x: np.ndarray, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """P(X <= x) for whole x strictly inside the support, summed from the nearer tail."""
    upper = x * (good + bad) > draws * good  # above the mean: 1 - the other tail
    x = np.where(upper, draws - x - 1, x)
    good, bad = np.where(upper, bad, good), np.where(upper, good, bad)
    total = good + bad
    p, q = draws / total, (total - draws) / total
    log_d = (_log_dbinom(x, good, p, q) + _log_dbinom(draws - x, bad, p, q)
             - _log_dbinom(draws, total, p, q))
    tail = np.exp(log_d + np.log1p(_ratio_sum(x, good, bad, draws)))
    return np.where(upper, 1.0 - tail, tail)


def _ratio_sum(x: np.ndarray, good: np.ndarray, bad: np.ndarray,
               draws: np.ndarray, block: int = 64) -> np.ndarray:
    """Sum over i < x of P(X = i) / P(X = x), until the terms no longer count."""
    total = np.zeros(x.shape)
    term = np.ones(x.shape)
    active = x > 0
    step = np.arange(block)
    while active.any():
        xs = x[active, None] - step  # the i + 1 of each ratio P(i) / P(i + 1)
        ratio = xs * (bad[active, None] - draws[active, None] + xs) / (
            (draws[active, None] + 1 - xs) * (good[active, None] + 1 - xs))
        terms = term[active, None] * np.cumprod(np.where(xs > 0, ratio, 0.0), axis=1)
        total[active] += terms.sum(axis=1)
        term[active] = terms[:, -1]
        x = np.where(active, x - block, x)
        active = active & (x > 0) & (term >= np.finfo(float).eps * total)
    return total
