"""triage.stats.distributions returns what scipy.stats returns, edges included.

The beta quantile, the binomial tail and the normal quantile are bit for bit scipy.stats' own;
the hypergeometric distribution function is within 1e-12 of it (scipy.special has none).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from scipy import stats

from triage.stats import distributions as d


def same(ours, theirs) -> None:
    """Equal values (NaN where NaN), the same shape, and a scalar where scipy gives one."""
    assert np.shape(ours) == np.shape(theirs)
    assert np.ndim(ours) == np.ndim(theirs)
    np.testing.assert_array_equal(ours, theirs, strict=False)
    assert np.array_equal(np.asarray(ours), np.asarray(theirs), equal_nan=True)


def test_beta_ppf_is_scipys_on_a_grid_and_at_the_edges():
    rng = np.random.default_rng(1)
    q = np.concatenate([rng.random(300), [0.0, 1.0, -0.1, 1.1, np.nan, 0.05, 0.95, 0.975]])
    a = np.concatenate([rng.random(300) * 50 + 0.5, [2, 2, 2, 2, 2, 0.0, -1.0, 1e-300]])
    b = np.concatenate([rng.random(300) * 5000 + 0.5, [3, 3, 3, 3, 3, 4, 4, 0.5]])
    same(d.beta_ppf(q, a, b), stats.beta.ppf(q, a, b))
    same(d.beta_ppf(0.95, 3.5, 997.5), stats.beta.ppf(0.95, 3.5, 997.5))
    same(d.beta_ppf(0.05, np.arange(1, 6) + 0.5, 10.5), stats.beta.ppf(0.05, np.arange(1, 6) + 0.5, 10.5))


def test_binom_sf_is_scipys_on_a_grid_and_at_the_edges():
    r = np.arange(1, 400)
    j = np.arange(-2, 402)
    same(d.binom_sf(j[:, None] - 1, r[None, :], 0.8), stats.binom.sf(j[:, None] - 1, r[None, :], 0.8))
    same(d.binom_sf([3, 4.5, np.nan, -np.inf, np.inf], [10, 10, 10, 10, 10], [0.3, 0.3, 0.3, 0.3, 1.5]),
         stats.binom.sf([3, 4.5, np.nan, -np.inf, np.inf], [10, 10, 10, 10, 10], [0.3, 0.3, 0.3, 0.3, 1.5]))
    same(d.binom_sf(2, 5.5, 0.5), stats.binom.sf(2, 5.5, 0.5))


def close(ours, theirs, rtol: float) -> None:
    """Values within ``rtol`` of scipy's (NaN where NaN; below 1e-300 both count as 0), the same shape."""
    assert np.shape(ours) == np.shape(theirs)
    assert np.ndim(ours) == np.ndim(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-300, equal_nan=True)  # subnormals


def test_hypergeom_cdf_is_scipys_to_1e12_and_at_the_edges():
    rng = np.random.default_rng(2)
    total = rng.integers(1, 20_000, 2000)
    good = (total * rng.random(2000)).astype(np.int64)
    draws = (total * rng.random(2000)).astype(np.int64)
    low = (draws * rng.random(2000) * 0.6).astype(np.int64)   # the lower tail
    mid = (draws * good / total).astype(np.int64) + rng.integers(-30, 30, 2000)  # the bulk
    for k in (low, mid):
        close(d.hypergeom_cdf(k, total, good, draws), stats.hypergeom.cdf(k, total, good, draws),
              rtol=1e-12)
    edges = dict(k=[0, 5, 10, -1, 3, 3, 3, 3, np.nan, -np.inf], total=[10, 10, 10, 10, 0, 10, 10, 10, 10, 10],
                 good=[4, 4, 4, 4, 0, 11, 4, 4, 4, 4], draws=[5, 5, 5, 5, 0, 5, 5.5, 11, 5, 5])
    close(d.hypergeom_cdf(*edges.values()), stats.hypergeom.cdf(*edges.values()), rtol=1e-12)
    close(d.hypergeom_cdf(2, 100, 10, 30), stats.hypergeom.cdf(2, 100, 10, 30), rtol=1e-14)


def test_hypergeom_cdf_of_millions_is_exact_where_scipys_drifts():
    """At millions of items SciPy's (Boost's) sum drifts by up to ~1e-9; ours stays exact.

    The reference is P(X = 24195) from Python's exact integer binomial coefficients
    (math.comb, two minutes), times the sum of the probability ratios below it."""
    rng = np.random.default_rng(2)
    total = rng.integers(1, 2_000_000, 500)
    good = (total * rng.random(500)).astype(np.int64)
    draws = (total * rng.random(500)).astype(np.int64)
    k = (draws * rng.random(500) * 0.6).astype(np.int64)
    close(d.hypergeom_cdf(k, total, good, draws), stats.hypergeom.cdf(k, total, good, draws),
          rtol=1e-8)
    exact = 0.49199925216773943
    assert abs(d.hypergeom_cdf(24195, 1962951, 60433, 785983) - exact) < 1e-14
    assert abs(stats.hypergeom.cdf(24195, 1962951, 60433, 785983) - exact) > 1e-10


def test_norm_ppf_agrees_with_scipys_to_the_last_bits():
    """Wichura's AS241 (the standard library's) against scipy's ndtri: a few ulp apart."""
    qs = np.concatenate([np.linspace(1e-12, 1 - 1e-12, 20001),
                         [0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 1e-300]])
    ours = np.array([d.norm_ppf(float(q)) for q in qs])
    np.testing.assert_allclose(ours, stats.norm.ppf(qs), rtol=2e-15, atol=0)
    assert (d.norm_ppf(0.0), d.norm_ppf(0.5), d.norm_ppf(1.0)) == (-np.inf, 0.0, np.inf)
    assert np.isnan(d.norm_ppf(1.5)) and np.isnan(d.norm_ppf(-0.1))


def test_the_stopping_rules_do_not_import_scipy_stats():
    """``triage advise`` pays nothing for scipy.stats (most of a second to import)."""
    code = ("import sys, triage.stats.stopping, triage.project.advice; "
            "print('scipy.stats' in sys.modules, 'scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_scipy_special_is_imported_on_first_use_and_is_the_real_package():
    """Importing the module costs nothing; the normal quantile never loads scipy.special
    (the report's critical path asks for one z); the first beta quantile imports it."""
    code = ("import sys, triage.stats.distributions as d; "
            "print('scipy.special' in sys.modules); "
            "print(float(d.norm_ppf(0.5)), 'scipy.special' in sys.modules); "
            "print(float(d.beta_ppf(0.5, 1, 1)), 'scipy.special' in sys.modules, "
            "'scipy.stats' in sys.modules); "
            "import scipy.special; print(hasattr(scipy.special, 'gamma'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "0.0", "False", "0.5", "True", "False", "True"]


def test_a_statistics_command_starts_importing_scipy_special_first_thing():
    """``triage status`` warms scipy.special on the shared pool; others never load it."""
    code = ("import sys; from triage.base import startup; "
            "startup.prepare_command('export'); print('scipy.special' in sys.modules); "
            "startup.prepare_command('status').result(); print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
