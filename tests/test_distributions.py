"""triage.stats.distributions returns bit for bit what scipy.stats returns, edges included."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
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


def test_hypergeom_cdf_is_scipys_on_a_grid_and_at_the_edges():
    rng = np.random.default_rng(2)
    total = rng.integers(1, 2_000_000, 500)
    good = (total * rng.random(500)).astype(np.int64)
    draws = (total * rng.random(500)).astype(np.int64)
    k = (draws * rng.random(500) * 0.6).astype(np.int64)
    same(d.hypergeom_cdf(k, total, good, draws), stats.hypergeom.cdf(k, total, good, draws))
    edges = dict(k=[0, 5, 10, -1, 3, 3, 3, 3, np.nan, -np.inf], total=[10, 10, 10, 10, 0, 10, 10, 10, 10, 10],
                 good=[4, 4, 4, 4, 0, 11, 4, 4, 4, 4], draws=[5, 5, 5, 5, 0, 5, 5.5, 11, 5, 5])
    same(d.hypergeom_cdf(*edges.values()), stats.hypergeom.cdf(*edges.values()))
    same(d.hypergeom_cdf(2, 100, 10, 30), stats.hypergeom.cdf(2, 100, 10, 30))


def test_norm_ppf_is_scipys():
    for q in (0.5, 0.9, 0.95, 0.975, 0.995, 0.0, 1.0, 1e-12):
        assert d.norm_ppf(q) == float(stats.norm.ppf(q))
    assert np.isnan(d.norm_ppf(1.5))


def test_the_stopping_rules_do_not_import_scipy_stats():
    """``triage advise`` pays nothing for scipy.stats (most of a second to import)."""
    code = ("import sys, triage.stats.stopping, triage.project.advice; "
            "print('scipy.stats' in sys.modules, 'scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_compiled_functions_load_without_scipy_special_and_it_still_imports_after():
    """The placeholder package is gone after loading: ``import scipy.special`` is the real one."""
    code = ("import sys, triage.stats.distributions as d; "
            "print('scipy.special' in sys.modules); "
            "import scipy.special; from scipy.special import expit, ndtri; "
            "print(scipy.special.ndtri is d.ndtri, float(expit(0.0)), hasattr(scipy.special, 'gamma'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "0.5", "True"]


@pytest.mark.slow
def test_a_thread_importing_scipy_special_meanwhile_gets_the_real_package():
    """Loading the compiled functions while another thread imports scipy.special is safe."""
    code = """
import sys, threading
got = {}
def other():
    import scipy.special
    got['other'] = hasattr(scipy.special, 'expit')
t = threading.Thread(target=other)
t.start()
import triage.stats.distributions as d
t.join()
import scipy.special
print(got['other'], float(d.norm_ppf(0.5)), sys.modules['scipy.special'] is scipy.special)
"""
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, timeout=120)
        assert out.stdout.split() == ["True", "0.0", "True"]
