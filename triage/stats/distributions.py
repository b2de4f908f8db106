"""The four distribution functions the stopping rules use, without importing scipy.

Importing ``scipy.stats`` loads much of SciPy (spatial, optimize, sparse, interpolate...),
more than ``triage advise`` may spend in all, and even ``scipy.special`` costs a third of a
second (the report's first process paid it for a handful of quantiles). The beta quantile
and the binomial tail are the regularised incomplete beta function and its inverse of
:mod:`triage.stats.incbeta` (the functions ``scipy.stats`` itself calls, ``betaincinv`` and
``betainc``, with the same handling of the edges and of invalid arguments as its
``ppf``/``sf``); the normal quantile is the standard library's (Wichura's AS241). SciPy has
no public hypergeometric distribution function outside ``scipy.stats``;
:func:`hypergeom_cdf` sums the probabilities here, as R's ``phyper`` does (Loader's
saddle-point probabilities), within 1e-12 of scipy.stats'. ``tests/test_distributions.py``
compares all four with scipy.

A call with more than :data:`FEW` distinct beta arguments (the backtests' thousands of
checkpoints) goes to ``scipy.special``'s compiled functions instead, imported then
(:func:`~triage.base.startup.scipy_special`): the stopping advice of one project state never
asks for that many.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from triage.base.startup import scipy_special
from triage.stats import incbeta

# The rules ask for the same few values thousands of times (a bound per checkpoint, a tail
# per candidate sample size): each distinct one is computed once per process.
_betaincinv = lru_cache(maxsize=65_536)(incbeta.betaincinv)
_betainc = lru_cache(maxsize=65_536)(incbeta.betainc)
# Past this many distinct values in one call (a backtest's thousands of checkpoints) scipy's
# compiled loop is faster than Python's, and worth its import; the values agree to 1e-12.
FEW = 256


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
        # The rules ask for the same few quantiles thousands of times (a bound per
        # checkpoint): each distinct one is computed once.
        rows, back = np.unique(np.stack([a[inside], b[inside], q[inside]], axis=1).astype(float),
                               axis=0, return_inverse=True)
        if len(rows) > FEW:
            found = scipy_special().betaincinv(rows[:, 0], rows[:, 1], rows[:, 2]) * 1.0 + 0.0
        else:
            found = np.array([_betaincinv(a_, b_, q_) for a_, b_, q_ in rows.tolist()]) + 0.0
        out[inside] = found[back.ravel()]
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
        a_, b_, x_ = floor + 1, n[inside] - floor, p[inside].astype(float)
        if a_.size > FEW:
            tail = scipy_special().betainc(a_, b_, x_)
        else:
            tail = np.array([_betainc(*v) for v in zip(a_.tolist(), b_.tolist(), x_.tolist())])
        out[inside] = np.clip(tail, 0, 1)
    return _out(out)


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)`` of one probability: the standard normal quantile.

    Wichura's AS241 from the standard library, within a few ulp of scipy's ``ndtri``: one z
    for a confidence is not worth the third of a second scipy.special takes to import."""
    if not 0 <= q <= 1:
        return float("nan")
    if q in (0, 1):
        return float("-inf") if q == 0 else float("inf")
    from statistics import NormalDist

    return NormalDist().inv_cdf(q) + 0.0


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
    with np.errstate(divide="ignore", invalid="ignore"):
        nn = n * n
        series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / 1188 / nn) / nn) / nn) / nn) / n
    return np.where(n <= 15, _STIRLERR_SMALL[np.clip(n, 0, 15).astype(np.int64)], series)


def _bd0(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x log(x / mean) + mean - x, without cancellation when x is near mean."""
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x - mean) / (x + mean)
        v2 = v * v
        series = 1 / 23  # the sum over j >= 1 of v**(2j - 2) / (2j + 1), by Horner
        for j in range(10, 0, -1):  # |v| < 0.1: terms to v**22 reach the last bit
            series = series * v2 + 1 / (2 * j + 1)
        near = (x - mean) * v + 2 * x * v * v2 * series
        far = x * np.log(x / mean) + mean - x
    return np.where(np.abs(x - mean) < 0.1 * (x + mean), near, far)


def _log_dbinom(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log P(X = x) for X ~ Binomial(n, p), q = 1 - p, 0 < p < 1, accurate for large n."""
    size = x.size
    stirling = _stirlerr(np.concatenate([n, x, n - x]))
    deviance = _bd0(np.concatenate([x, n - x]), np.concatenate([n * p, n * q]))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (stirling[:size] - stirling[size:2 * size] - stirling[2 * size:]
               - deviance[:size] - deviance[size:]
               - 0.5 * (_LN_2PI + np.log(x) + np.log1p(-x / n)))
    for end, (mine, other) in ((x == 0, (q, p)), ((x == n) & (n > 0), (p, q))):
        if end.any():  # all of one kind: the general formula would take log(0)
            nn, a, b = n[end], mine[end], other[end]
            out[end] = np.where(b < 0.1, -_bd0(nn, nn * a) - nn * b, nn * np.log(a))
    out[(x == 0) & (n == 0)] = 0.0
    return out


def _phyper(x: np.ndarray, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """P(X <= x) for whole x strictly inside the support, summed from the nearer tail."""
    upper = x * (good + bad) > draws * good  # above the mean: 1 - the other tail
    x = np.where(upper, draws - x - 1, x)
    good, bad = np.where(upper, bad, good), np.where(upper, good, bad)
    total = good + bad
    p, q = draws / total, (total - draws) / total
    size = x.size
    parts = _log_dbinom(np.concatenate([x, draws - x, draws]), np.concatenate([good, bad, total]),
                        np.tile(p, 3), np.tile(q, 3))
    log_d = parts[:size] + parts[size:2 * size] - parts[2 * size:]
    tail = np.exp(log_d + np.log1p(_ratio_sum(x, good, bad, draws)))
    return np.where(upper, 1.0 - tail, tail)


def _ratio_sum(x: np.ndarray, good: np.ndarray, bad: np.ndarray,
               draws: np.ndarray) -> np.ndarray:
    """Sum over i < x of P(X = i) / P(X = x), until the terms no longer count.

    Block by block (the ratios of a block multiplied at once), each block twice the last:
    far below the mean a few terms suffice, near it many."""
    total = np.zeros(x.shape)
    term = np.ones(x.shape)
    where = np.nonzero(x > 0)[0]
    block = 16
    while where.size:
        xs = x[where, None] - np.arange(block)  # the i + 1 of each ratio P(i) / P(i + 1)
        dr = draws[where, None]
        bad_left = bad[where, None] - dr + xs  # P(i) = 0 where no bad items are left for it
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = xs * bad_left / ((dr + 1 - xs) * (good[where, None] + 1 - xs))
        steps = np.where((xs > 0) & (bad_left > 0), ratio, 0.0)
        terms = np.cumprod(steps, axis=1) * term[where, None]
        total[where] += terms.sum(axis=1)
        term[where] = terms[:, -1]
        x[where] -= block
        last = term[where]
        more = (x[where] > 0) & (last > 0) & (last >= np.finfo(float).eps * total[where])
        where = where[more]
        block *= 2
    return total
