"""The four distribution functions the stopping rules use, without importing ``scipy.stats``.

Importing ``scipy.stats`` costs most of a second (it loads scipy.spatial, optimize, sparse,
interpolate...), more than ``triage advise`` may spend in all. The numbers come from the
very compiled functions ``scipy.stats`` calls (Boost's, exposed as ufuncs in
``scipy.special``), wrapped in the same handling of the edges and of invalid arguments as
``scipy.stats``' ``ppf``/``cdf``/``sf``, so every value is bit for bit what
``scipy.stats.beta.ppf`` and the others return (``tests/test_distributions.py`` holds them
equal). A SciPy without those ufuncs gets ``scipy.stats`` itself.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def _compiled_ufuncs() -> Any:
    """The module ``scipy.special._ufuncs``, without running ``scipy.special/__init__``.

    That ``__init__`` wraps every function for the array API standard (0.2-0.3 s, a fifth
    of ``triage advise``), while the compiled ufuncs load in about 10 ms. Python needs the
    package in ``sys.modules`` to import a submodule, so a bare placeholder stands in for it
    while the compiled module loads and is taken out right after: a later ``import
    scipy.special`` runs the real ``__init__``, which finds ``_ufuncs`` already loaded. The
    placeholder is marked as initialising and the package's import lock is held meanwhile,
    as a real import of the package would, so another thread importing ``scipy.special``
    waits and then gets the real package, never the placeholder.
    """
    if "scipy.special" in sys.modules:
        return importlib.import_module("scipy.special._ufuncs")
    spec = importlib.util.find_spec("scipy.special")
    bootstrap = importlib.import_module("importlib._bootstrap")
    if spec is None or spec.submodule_search_locations is None:  # pragma: no cover
        raise ImportError("scipy.special is not a package")
    with bootstrap._ModuleLockManager("scipy.special"):
        if "scipy.special" in sys.modules:  # another thread finished it while we waited
            return importlib.import_module("scipy.special._ufuncs")
        placeholder = types.ModuleType("scipy.special")
        placeholder.__path__ = list(spec.submodule_search_locations)
        spec._initializing = True  # type: ignore[attr-defined]
        placeholder.__spec__ = spec
        sys.modules["scipy.special"] = placeholder
        try:
            return importlib.import_module("scipy.special._ufuncs")
        finally:
            if sys.modules.get("scipy.special") is placeholder:
                del sys.modules["scipy.special"]


try:  # private names, present since SciPy 1.12; the fallback keeps older ones working
    _UFUNCS = _compiled_ufuncs()
    _beta_ppf, _binom_sf, _hypergeom_cdf, ndtri = (
        _UFUNCS._beta_ppf, _UFUNCS._binom_sf, _UFUNCS._hypergeom_cdf, _UFUNCS.ndtri)
    expit = _UFUNCS.expit  # the logistic function: ``scipy.special.expit`` itself
    _STATS = None
except (ImportError, AttributeError):  # pragma: no cover - depends on the installed SciPy
    from scipy import stats as _STATS  # type: ignore[no-redef]
    from scipy.special import expit  # type: ignore[no-redef]  # noqa: F401 - re-exported


def _out(values: np.ndarray) -> Any:
    """A 0-d result as a numpy scalar, as scipy.stats returns it."""
    return values[()] if values.ndim == 0 else values


def beta_ppf(q: ArrayLike, a: ArrayLike, b: ArrayLike) -> Any:
    """``scipy.stats.beta.ppf(q, a, b)``: the q-quantile of Beta(a, b) (broadcasts)."""
    if _STATS is not None:  # pragma: no cover
        return _STATS.beta.ppf(q, a, b)
    q, a, b = np.broadcast_arrays(*(np.asarray(v) for v in (q, a, b)))
    valid = (a > 0) & (b > 0)
    out = np.full(q.shape, np.nan)
    out[valid & (q == 0)] = 0.0
    out[valid & (q == 1)] = 1.0
    inside = valid & (q > 0) & (q < 1)
    if inside.any():
        out[inside] = _beta_ppf(q[inside], a[inside], b[inside]) * 1.0 + 0.0
    return _out(out)


def binom_sf(k: ArrayLike, n: ArrayLike, p: ArrayLike) -> Any:
    """``scipy.stats.binom.sf(k, n, p)``: P(X > k) for X ~ Binomial(n, p) (broadcasts)."""
    if _STATS is not None:  # pragma: no cover
        return _STATS.binom.sf(k, n, p)
    k, n, p = np.broadcast_arrays(*(np.asarray(v) for v in (k, n, p)))
    valid = (n >= 0) & (n == np.round(n)) & (p >= 0) & (p <= 1)
    out = np.zeros(k.shape)
    out[(~valid) | np.isnan(k)] = np.nan
    out[((k < 0) | np.isneginf(k)) & valid] = 1.0
    inside = valid & (k >= 0) & (k < n) & np.isfinite(k)
    if inside.any():
        out[inside] = np.clip(_binom_sf(np.floor(k[inside]), n[inside], p[inside]), 0, 1)
    return _out(out)


def hypergeom_cdf(k: ArrayLike, total: ArrayLike, good: ArrayLike, draws: ArrayLike) -> Any:
    """``scipy.stats.hypergeom.cdf(k, M, n, N)``: P(X <= k), X ~ Hypergeometric (broadcasts).

    X counts the good items among ``draws`` taken without replacement from ``total`` items
    of which ``good`` are good."""
    if _STATS is not None:  # pragma: no cover
        return _STATS.hypergeom.cdf(k, total, good, draws)
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
        out[inside] = np.clip(_hypergeom_cdf(k[inside], n[inside], d[inside], m[inside]), 0, 1)
    return _out(out)


def norm_ppf(q: float) -> float:
    """``scipy.stats.norm.ppf(q)`` of one probability: the standard normal quantile."""
    if _STATS is not None:  # pragma: no cover
        return float(_STATS.norm.ppf(q))
    return float(ndtri(q) * 1.0 + 0.0) if 0 <= q <= 1 else float("nan")
