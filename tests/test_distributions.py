"""triage.stats.distributions returns what scipy.stats returns, edges included.

The beta quantile, the binomial tail, the normal quantile and the hypergeometric distribution
function are within 1e-12 of scipy.stats' (none of them imports scipy).
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


def close(ours, theirs, rtol: float) -> None:
    """Values within ``rtol`` of scipy's (NaN where NaN; below 1e-300 both count as 0), the same shape."""
    assert np.shape(ours) == np.shape(theirs)
    assert np.ndim(ours) == np.ndim(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-300, equal_nan=True)  # subnormals


def test_beta_ppf_is_scipys_to_1e12_on_a_grid_and_at_the_edges():
    rng = np.random.default_rng(1)
    q = np.concatenate([rng.random(300), [0.0, 1.0, -0.1, 1.1, np.nan, 0.05, 0.95, 0.975]])
    a = np.concatenate([rng.random(300) * 50 + 0.5, [2, 2, 2, 2, 2, 0.0, -1.0, 1e-300]])
    b = np.concatenate([rng.random(300) * 5000 + 0.5, [3, 3, 3, 3, 3, 4, 4, 0.5]])
    close(d.beta_ppf(q, a, b), stats.beta.ppf(q, a, b), rtol=1e-12)
    close(d.beta_ppf(0.95, 3.5, 997.5), stats.beta.ppf(0.95, 3.5, 997.5), rtol=1e-12)
    close(d.beta_ppf(0.05, np.arange(1, 6) + 0.5, 10.5),
          stats.beta.ppf(0.05, np.arange(1, 6) + 0.5, 10.5), rtol=1e-12)
    # What the stopping rules ask for: Jeffreys and Clopper–Pearson ends of counts up to
    # ten thousand, at the confidences they use.
    k = np.array([0, 1, 2, 5, 33, 71, 72, 500, 2484, 9000])
    n = np.array([1, 3, 10, 100, 100, 198, 198, 1000, 8910, 10_000])
    for conf in (0.8, 0.9, 0.95, 0.975, 0.99):
        for qq in (conf, 1 - conf):
            close(d.beta_ppf(qq, k + 0.5, n - k + 0.5), stats.beta.ppf(qq, k + 0.5, n - k + 0.5),
                  rtol=1e-12)
            close(d.beta_ppf(qq, k + 1, n - k), stats.beta.ppf(qq, k + 1, n - k), rtol=1e-12)


def test_binom_sf_is_scipys_to_1e12_on_a_grid_and_at_the_edges():
    r = np.arange(1, 400)
    j = np.arange(-2, 402)
    close(d.binom_sf(j[:, None] - 1, r[None, :], 0.8),
          stats.binom.sf(j[:, None] - 1, r[None, :], 0.8), rtol=1e-12)
    # Far in the tail scipy's own values lose digits near underflow (at 6e-290 it is 40 %
    # below the 50-digit value, which ours matches to 1e-14): compared where it has them.
    ours, theirs = (f(j[:, None] - 1, r[None, :], 0.03) for f in (d.binom_sf, stats.binom.sf))
    kept = theirs >= 1e-250
    assert kept.sum() > 60_000
    close(ours[kept], theirs[kept], rtol=1e-12)
    close(d.binom_sf([3, 4.5, np.nan, -np.inf, np.inf], [10, 10, 10, 10, 10], [0.3, 0.3, 0.3, 0.3, 1.5]),
          stats.binom.sf([3, 4.5, np.nan, -np.inf, np.inf], [10, 10, 10, 10, 10], [0.3, 0.3, 0.3, 0.3, 1.5]),
          rtol=1e-12)
    same(d.binom_sf(2, 5.5, 0.5), stats.binom.sf(2, 5.5, 0.5))


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


def test_no_distribution_function_imports_scipy():
    """The report's first process asks for a few beta quantiles and binomial tails: none of
    them imports scipy.special (a third of a second), nor scipy.stats."""
    code = ("import sys, triage.stats.distributions as d; "
            "print(float(d.norm_ppf(0.5)), float(d.beta_ppf(0.5, 1, 1)), "
            "round(float(d.binom_sf(2, 10, 0.5)), 12), float(d.hypergeom_cdf(2, 100, 10, 30)) > 0); "
            "print('scipy.special' in sys.modules, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0.0", "0.5", "0.9453125", "True", "False", "False"]


def test_the_backtest_starts_importing_scipy_special_first_thing():
    """``triage simulate`` (bulk bounds) warms scipy.special on the shared pool; ``status``
    (one state's bounds, computed without it) and others never load it."""
    code = ("import sys; from triage.base import startup; "
            "startup.prepare_command('export'); startup.prepare_command('status'); "
            "print('scipy.special' in sys.modules); "
            "startup.prepare_command('simulate').result(); print('scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_the_python_incomplete_beta_and_its_inverse_are_scipys_to_1e12():
    """The functions the advice calls for its few values (no scipy import): on a grid of the
    shapes a stopping rule meets (counts up to ten thousand, halves for Jeffreys)."""
    from scipy import special

    from triage.stats import incbeta

    shapes = [0.25, 0.5, 1, 1.5, 2, 3.5, 10, 20.5, 71.5, 127.5, 1000.5, 2484.5, 6426.5, 1e4]
    qs = [1e-10, 0.001, 0.025, 0.05, 0.1, 0.5, 0.8, 0.95, 0.975, 0.999]
    xs = [1e-8, 0.001, 0.03, 0.3, 0.5, 0.8, 0.99]
    pairs = [(a, b) for a in shapes for b in shapes]
    inv = np.array([[incbeta.betaincinv(a, b, q) for q in qs] for a, b in pairs])
    close(inv, special.betaincinv(*(np.array(pairs).T[:, :, None]), np.array(qs)), rtol=1e-12)
    inc = np.array([[incbeta.betainc(a, b, x) for x in xs] for a, b in pairs])
    theirs = special.betainc(*(np.array(pairs).T[:, :, None]), np.array(xs))
    kept = theirs >= 1e-250   # scipy's own values lose digits nearer underflow
    close(inc[kept], theirs[kept], rtol=1e-12)
    # A few small calls take this path in beta_ppf and binom_sf (no scipy import there).
    assert d.FEW >= 100
    close(d.beta_ppf([0.025, 0.975], 71.5, 127.5), stats.beta.ppf([0.025, 0.975], 71.5, 127.5),
          rtol=1e-12)
    close(d.binom_sf(np.arange(72), 71, 0.8), stats.binom.sf(np.arange(72), 71, 0.8), rtol=1e-12)
