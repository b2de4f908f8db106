"""Temperature and Platt scaling, ECE and reliability-diagram data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from triage.stats.models import calibration as cal
from triage.stats.models.metrics import roc_auc


def _synthetic(seed: int, n: int = 20_000) -> tuple[np.ndarray, np.ndarray]:
    """True logits z and gold labels drawn from sigmoid(z): sigmoid(z) is calibrated."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.5, n)
    return z, rng.random(n) < expit(z)


@pytest.mark.parametrize("true_t", [0.5, 3.0])
def test_temperature_recovers_known_temperature(true_t):
    z, g = _synthetic(1)
    reported = expit(z / true_t)  # over- (T=0.5 -> under-) confident version of the truth
    fitted = cal.fit_temperature(reported, g)
    # The model reports z/true_t, so the fitted temperature must undo it: T = 1/true_t.
    assert fitted.temperature == pytest.approx(1 / true_t, rel=0.05)


def test_calibration_reduces_ece_on_miscalibrated_scores():
    z, g = _synthetic(2)
    reported = expit(3.0 * z)  # strongly overconfident
    before = cal.reliability(reported, g).ece
    for method in ("temperature", "platt"):
        c = cal.fit(method, reported[:10_000], g[:10_000])
        after = cal.reliability(c.apply(reported[10_000:]), g[10_000:]).ece
        assert before > 0.05 and after < 0.015, (method, before, after)
        # Monotone maps never change the ranking.
        assert roc_auc(c.apply(reported), g).value == pytest.approx(roc_auc(reported, g).value)


def test_platt_matches_unregularised_logistic_regression():
    z, g = _synthetic(3, 5000)
    reported = expit((z - 1.0) / 2.0)  # shifted and squashed: Platt should find a=2, b=1
    c = cal.fit_platt(reported, g)
    assert c.a == pytest.approx(2.0, rel=0.1) and c.b == pytest.approx(1.0, abs=0.15)
    lr = LogisticRegression(C=1e10, tol=1e-10, max_iter=1000).fit(cal.logit(reported)[:, None], g)
    assert c.a == pytest.approx(lr.coef_[0, 0], rel=1e-3)
    assert c.b == pytest.approx(lr.intercept_[0], abs=1e-3)


def test_inverse_undoes_apply():
    c = cal.Calibrator("platt", a=1.7, b=-0.4)
    for q in (0.1, 0.5, 0.93):
        assert c.apply(np.array([c.inverse(q)]))[0] == pytest.approx(q)
    assert cal.Calibrator("none").inverse(0.3) == 0.3


def test_reliability_by_hand():
    p = np.array([0.95, 0.95, 0.65, 0.25])
    g = np.array([True, False, True, True])
    # confidences .95 .95 .65 .75; correct T F T F
    r = cal.reliability(p, g, bins=10)
    assert r.counts.tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 0, 2]
    assert r.accuracy[9] == 0.5 and r.confidence[9] == pytest.approx(0.95)
    assert r.accuracy[0] is None
    # ECE = (2·|.5-.95| + |1-.65| + |0-.75|) / 4 = 0.5
    assert r.ece == pytest.approx(0.5)
    assert cal.reliability(np.array([]), np.array([], bool)).ece is None


def test_exact_zero_and_one_scores_stay_finite():
    p = np.array([0.0, 1.0, 1.0, 0.0, 0.7])
    g = np.array([False, True, False, False, True])
    c = cal.fit_temperature(p, g)
    assert np.all(np.isfinite(c.apply(p))) and c.temperature > 1  # a wrong 1.0 means overconfident


# -- Platt by Newton in numpy against the former quasi-Newton fit (scipy BFGS) --

def _bfgs_platt(p, g):
    """The former fit: scipy.optimize BFGS on the same NLL (gradient tolerance 1e-5)."""
    from scipy.optimize import minimize

    z, y = cal.logit(p), g.astype(float)

    def loss(theta):
        u = theta[0] * z + theta[1]
        r = expit(u) - y
        return cal._nll(u, g), np.array([np.mean(r * z), np.mean(r)])

    return minimize(loss, x0=np.array([1.0, 0.0]), jac=True, method="BFGS").x


def _nll_of(c, p, g):
    return cal._nll(c.a * cal.logit(p) + c.b, g)


@pytest.mark.parametrize("n", [50, 5000, 250_000])  # 250,000: the warm-started path
def test_platt_newton_finds_the_former_fit_or_a_better_one(n):
    z, g = _synthetic(5, n)
    reported = expit((z + 0.7) / 1.8)
    new = cal.fit_platt(reported, g)
    a, b = _bfgs_platt(reported, g)
    assert new.a == pytest.approx(a, abs=1e-3) and new.b == pytest.approx(b, abs=1e-3)
    # The maximum-likelihood fit: its NLL is never above the former one.
    assert _nll_of(new, reported, g) <= cal._nll(a * cal.logit(reported) + b, g) + 1e-12
    # ... and the gradient vanishes there.
    u, y = new.a * cal.logit(reported) + new.b, g.astype(float)
    r = expit(u) - y
    assert abs(np.mean(r * cal.logit(reported))) < 1e-9 and abs(np.mean(r)) < 1e-9


@pytest.mark.parametrize("p, g", [
    (np.array([0.2, 0.9]), np.array([False, True])),            # n = 2, separable
    (np.array([0.2, 0.9, 0.6]), np.ones(3, bool)),              # all positive
    (np.array([0.2, 0.9, 0.6]), np.zeros(3, bool)),             # all negative
    (np.full(10, 0.7), np.arange(10) < 7),                      # one tied score
    (np.array([0.0, 1.0, 1.0, 0.0]), np.array([0, 1, 0, 0], bool)),
])
def test_platt_edge_cases_stay_finite_and_no_worse_than_before(p, g):
    new = cal.fit_platt(p, g)
    assert np.isfinite(new.a) and np.isfinite(new.b)
    assert np.all(np.isfinite(new.apply(p)))
    a, b = _bfgs_platt(p, g)
    assert _nll_of(new, p, g) <= cal._nll(a * cal.logit(p) + b, g) + 1e-9
    if g.all() or not g.any() or np.ptp(p) == 0:
        # One class, or one score: the calibrated scores follow the labels' share.
        assert new.apply(p) == pytest.approx(np.full(p.size, g.mean()), abs=1e-3)


def test_numpy_sigmoids_equal_scipy():
    from scipy.special import log_expit

    x = np.r_[np.linspace(-800, 800, 4001), -1e-300, 0.0, 1e-300, 36.0, -36.0]
    # scipy flushes results below 1e-308 to 0; numpy keeps the subnormal value.
    np.testing.assert_allclose(cal.expit(x), expit(x), rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(cal.log_expit(x), log_expit(x), rtol=1e-14, atol=1e-300)
    assert cal.expit(np.array([-1000.0]))[0] == 0.0 and cal.expit(np.array([1000.0]))[0] == 1.0
