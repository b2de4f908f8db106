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
