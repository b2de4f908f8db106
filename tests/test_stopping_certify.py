"""Certification: the hypergeometric test of Callaghan & Müller-Hansen, its plan, the ranked
urns (against buscarpy as an oracle), Quant/QuantCI, and the audit-rate statement."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from triage.stats.stopping import AdviceInputs, advise
from triage.stats.stopping.certify import (
    k_least_favourable,
    plan_sample,
    ranked_urn_pvalue,
    sample_pvalue,
)
from triage.stats.stopping.quant import quant
from triage.views.rule_words import audit_rate_words


def test_sample_pvalue_hand_example():
    # 100 found before; 1,000 unlabelled; 200 sampled, none positive; target .8:
    # r_seen = 100 -> K = floor(100 / .8) + 1 - 100 = 26; p = P(X = 0) = C(974, 200) / C(1000, 200).
    assert int(k_least_favourable(100, 0, 0.8)) == 26
    exact = math.prod(Fraction(974 - i, 1000 - i) for i in range(200))
    assert sample_pvalue(100, 1000, 200, 0, 0.8) == pytest.approx(float(exact), rel=1e-9)
    # A positive in the sample raises r_seen and K: K = floor(101 / .8) + 1 - 100 = 27.
    assert sample_pvalue(100, 1000, 200, 1, 0.8) == pytest.approx(
        stats.hypergeom.cdf(1, 1000, 27, 200))
    assert sample_pvalue(100, 1000, 0, 0, 0.8) == 1.0     # no sample: no evidence
    assert sample_pvalue(100, 10, 5, 0, 0.8) == 0.0       # H0 impossible: K > remaining


def test_plan_is_where_the_test_first_rejects():
    plan = plan_sample(100, 1000, 5.0, 0.8, 0.95)
    n = plan.items
    rate = 5 / 1000
    k = lambda m: int(np.floor(m * rate + 0.5))  # noqa: E731
    assert sample_pvalue(100, 1000, n, k(n), 0.8) < 0.05
    assert all(sample_pvalue(100, 1000, m, k(m), 0.8) >= 0.05 for m in range(1, n))
    # Recall estimated below the target (100 of 160): only a sample that itself finds most of
    # the missing positives can certify, so it must cover most of the remainder.
    assert plan_sample(100, 1000, 60.0, 0.8, 0.95).items > 500
    assert plan_sample(100, 0, 0.0, 0.8, 0.95).items == 0


@pytest.mark.parametrize("found, remaining, expected, target, confidence", [
    (100, 5000, 40.0, 0.8, 0.95), (100, 5000, 10.0, 0.9, 0.99), (30, 20_000, 900.0, 0.8, 0.95),
    (2555, 20_000, 6700.0, 0.8, 0.95), (0, 3000, 0.0, 0.8, 0.95), (500, 8000, 126.0, 0.8, 0.95),
    (7, 4000, 2.0, 0.5, 0.9), (100, 5000, 4000.0, 0.8, 0.95),
])
def test_plan_skipping_blocks_finds_the_size_a_full_scan_finds(found, remaining, expected,
                                                                target, confidence):
    """The planner skips blocks of sizes by a bound: it must land where testing every size does."""
    rate = expected / remaining
    n = np.arange(1, remaining + 1)
    p = sample_pvalue(found, remaining, n, np.floor(n * rate + 0.5).astype(np.int64), target)
    hits = np.nonzero(p < 1 - confidence)[0]
    assert plan_sample(found, remaining, expected, target, confidence).items == (
        int(n[hits[0]]) if hits.size else None)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("target", [0.8, 0.9, 0.95])
def test_ranked_urns_match_buscarpy(seed, target):
    buscarpy = pytest.importorskip("buscarpy")
    rng = np.random.default_rng(seed)
    screened = int(rng.integers(50, 600))
    y = (rng.random(screened) < np.linspace(0.6, 0.01, screened)).astype(int)
    total = screened + int(rng.integers(0, 3000))
    ours = ranked_urn_pvalue(y, total - screened, target)
    theirs = buscarpy.calculate_h0(y, total, target)
    assert ours == pytest.approx(float(np.nan_to_num(theirs, nan=1.0)), abs=1e-12)


def test_quant_and_quant_ci_hand_values():
    p = np.array([0.9, 0.8, 0.5, 0.1, 0.1])
    reviewed = np.array([True, True, True, False, False])
    res = quant(p, reviewed, 0.8)
    sk, su = 2.2, 0.2
    assert res.recall == pytest.approx(sk / (sk + su))
    pv = p * (1 - p)
    var = sk**2 / (sk + su) ** 4 * pv.sum() + pv[:3].sum() / (sk + su) ** 2
    assert res.sd == pytest.approx(math.sqrt(var))
    assert res.quant_met and res.quant_ci_met == (res.recall - 2 * res.sd >= 0.8)


def test_audit_rate_that_can_never_certify_is_named():
    # 20,000 items, 2% positives, labelled down to 2,000 with a 2% audit: the audit can
    # never gather the positives QBCB needs before the pool ends.
    rng = np.random.default_rng(1)
    n = 20_000
    gold = rng.random(n) < 0.02 * np.linspace(3, 0.1, n) / 1.55
    depth = 2000
    audit = rng.choice(n, size=40, replace=False) + 1
    ranks = np.union1d(np.arange(1, depth + 1), audit)
    a = advise(AdviceInputs(pool=n, ranks=ranks, positive=gold[ranks - 1], audit_ranks=audit,
                            audit_positive=gold[audit - 1], depth=depth, price=0.04,
                            audit_rate=0.02, raw_scores=np.linspace(3, -3, n)))
    check = a.certification["audit_rate"]
    assert check["can_certify"] is False and check["code"] == "cannot"
    text = audit_rate_words(check, "USD")
    assert text.startswith("The audit rate in force (2%) can never certify 80% recall")
    assert "one-off certification sample of about" in text
    # QBCB needs at least 14 audit positives for 80% at 95%; more when recall is not ~1.
    assert check["needed"] >= 14 and check["projected_audit_positives"] < check["needed"]
