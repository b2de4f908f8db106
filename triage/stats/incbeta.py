"""The regularised incomplete beta function and its inverse, in plain Python floats.

What the stopping advice needs from ``scipy.special`` (``betainc`` and ``betaincinv``, for a
handful of distinct arguments per call) without the third of a second its import costs the
report. ``I_x(a, b)`` is the continued fraction of Numerical Recipes (modified Lentz) on the
side of the mean where it converges fast; its prefactor ``x^a (1-x)^b / (a B(a, b))`` is
computed as Loader's saddle-point form (``bd0`` deviances and Stirling's error), which keeps
its relative accuracy for large a and b where the logarithms of the gamma functions would
cancel. The inverse is Newton's method, kept inside a bracket, from the Numerical Recipes
starting guess. ``tests/test_distributions.py`` compares both with scipy on a grid.
"""

from __future__ import annotations

import math

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_TINY = 1e-300
_EPS = 2.220446049250313e-16


def _omega(z: float) -> float:
    """Stirling's error: log Γ(z) - ((z - ½) log z - z + ½ log 2π)."""
    if z >= 15:
        zz = z * z
        return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / 1188 / zz) / zz) / zz) / zz) / z
    return math.lgamma(z) - (z - 0.5) * math.log(z) + z - _HALF_LOG_2PI


def _bd0(x: float, m: float) -> float:
    """x log(x / m) + m - x, without cancellation when x is near m (Loader)."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2 * x * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    if m <= 0:
        return math.inf
    ratio = x / m
    log_ratio = math.log(ratio) if 0 < ratio < math.inf else math.log(x) - math.log(m)
    return x * log_ratio + m - x


def log_power_terms(a: float, b: float, x: float, y: float | None = None) -> float:
    """log(x^a y^b / B(a, b)) for 0 < x < 1 and y = 1 - x (given when known more exactly)."""
    n = a + b
    y = 1.0 - x if y is None else y
    return (0.5 * (math.log(a) + math.log(b) - math.log(n)) - _HALF_LOG_2PI + _omega(n)
            - _omega(a) - _omega(b) - _bd0(a, n * x) - _bd0(b, n * y))


def _continued_fraction(a: float, b: float, x: float, y: float) -> float:
    """x^a y^b / B(a, b) divided by this is I_x(a, b): Didonato and Morris' continued
    fraction (as Boost's ``ibeta_fraction2``), written with y = 1 - x given exactly, so
    nothing cancels when x is near 1; fast for x below the mean. Modified Lentz."""

    def term(m: int) -> tuple[float, float]:
        den = a + 2 * m - 1
        an = (a + m - 1) * (a + b + m - 1) * m * (b - m) * x * x / (den * den)
        bn = m + m * (b - m) * x / den + (a + m) * (a * y - b * x + 1 + m * (2 - x)) / (
            a + 2 * m + 1)
        return an, bn

    f = a * (a * y - b * x + 1) / (a + 1)   # the first term, b0
    f = f if f != 0 else _TINY
    c, d = f, 0.0
    for m in range(1, 100_000):
        an, bn = term(m)
        d = bn + an * d
        d = 1.0 / (d if d != 0 else _TINY)
        c = bn + an / c
        c = c if c != 0 else _TINY
        delta = c * d
        f *= delta
        if abs(delta - 1.0) <= _EPS:
            break
    return f


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (``scipy.special.betainc``)."""
    if not (a > 0 and b > 0) or math.isnan(x):
        return math.nan
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    y = 1.0 - x
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_power_terms(a, b, x, y)) / _continued_fraction(a, b, x, y)
    return 1.0 - math.exp(log_power_terms(b, a, y, x)) / _continued_fraction(b, a, y, x)


def _start(a: float, b: float, q: float) -> float:
    """Numerical Recipes' first guess at the q-quantile of Beta(a, b)."""
    if a >= 1 and b >= 1:
        pp = q if q < 0.5 else 1.0 - q
        t = math.sqrt(-2.0 * math.log(pp))
        z = (2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t
        z = -z if q < 0.5 else z
        al = (z * z - 3.0) / 6.0
        h = 2.0 / (1.0 / (2.0 * a - 1.0) + 1.0 / (2.0 * b - 1.0))
        w = z * math.sqrt(al + h) / h - (1.0 / (2.0 * b - 1.0) - 1.0 / (2.0 * a - 1.0)) * (
            al + 5.0 / 6.0 - 2.0 / (3.0 * h))
        return a / (a + b * math.exp(min(2.0 * w, 700.0)))
    lna, lnb = math.log(a / (a + b)), math.log(b / (a + b))
    t, u = math.exp(a * lna) / a, math.exp(b * lnb) / b
    w = t + u
    if q < t / w:
        return (a * w * q) ** (1.0 / a)
    return 1.0 - (b * w * (1.0 - q)) ** (1.0 / b)


def betaincinv(a: float, b: float, q: float) -> float:
    """The x with I_x(a, b) = q (``scipy.special.betaincinv``)."""
    if not (a > 0 and b > 0) or not 0 <= q <= 1:
        return math.nan
    if q in (0, 1):
        return float(q)
    x = _start(a, b, q)
    if not 0.0 < x < 1.0:   # the quantile is nearer 0 or 1 than a double can say
        return 0.0 if x <= 0.0 else 1.0
    lo, hi = 0.0, 1.0
    for _ in range(200):
        if not 0.0 < x < 1.0:   # underflowed or at an end: bisect the bracket instead
            x = 0.5 * (lo + hi) if hi - lo > 0 else lo
            if not 0.0 < x < 1.0:
                return x
        f = betainc(a, b, x) - q
        if f == 0:
            return x
        lo, hi = (x, hi) if f < 0 else (lo, x)
        density = math.exp(log_power_terms(a, b, x)) / (x * (1.0 - x))
        step = f / density if density > 0 else math.inf
        new = x - step
        if not lo < new < hi:
            new = 0.5 * (lo + hi)
        if abs(new - x) <= 4 * _EPS * new or hi - lo <= 4 * _EPS * hi:
            return new
        x = new
    return x


__all__ = ["betainc", "betaincinv", "log_power_terms"]
