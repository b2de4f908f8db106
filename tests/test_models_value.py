"""Model value with a reject option (seed 001): hand-computed cases and calibrated synthetic data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from triage.stats.models import value as val
from triage.stats.models.report import model_value, value_report

# Six items, worked by hand in the comments below.
P = np.array([0.9, 0.8, 0.3, 0.6, 0.55, 0.1])
G = np.array([True, False, False, True, False, False])
# predicted positive: T T F T T F; confidence .9 .8 .7 .6 .55 .9; correct: T F T T F T


def test_value_at_calibrated_threshold_by_hand():
    assert val.calibrated_threshold(2) == pytest.approx(2 / 3)
    v = val.value_at(P, G, k=2, threshold=2 / 3)
    # Accepted (confidence >= 2/3): items 0, 1, 2, 5 -> 3 correct, 1 wrong.
    assert v.accepted == 4 and v.rejected_share == pytest.approx(2 / 6)
    assert v.accepted_accuracy == pytest.approx(3 / 4)
    # V = (1 - ρ)(α - k(1 - α)) = (2/3)(3/4 - 2/4) = 1/6
    assert v.value == pytest.approx(1 / 6)
    nothing = val.value_at(P, G, k=2, threshold=0.95)
    assert nothing.value == 0 and nothing.accepted_accuracy is None and nothing.rejected_share == 1


def test_best_threshold_by_hand():
    # k=2, accepting down to each confidence: .9 -> 2/6, .8 -> 0, .7 -> 1/6, .6 -> 2/6, .55 -> 0.
    # The maximum 2/6 is reached at .9 and .6; the higher threshold wins.
    b = val.best_threshold(P, G, k=2)
    assert b.threshold == 0.9 and b.value == pytest.approx(2 / 6) and b.accepted == 2
    # k=0 (accuracy): accept down to .6, leaving out only the wrong .55 prediction.
    b0 = val.best_threshold(P, G, k=0)
    assert b0.threshold == 0.6 and b0.value == pytest.approx(4 / 6)
    # All predictions wrong: reject everything.
    worst = val.best_threshold(P, P < 0.5, k=1)
    assert math.isinf(worst.threshold) and worst.value == 0 and worst.rejected_share == 1


def test_cost_sensitive_by_hand():
    tau_p, tau_n = val.cost_sensitive_thresholds(ktp=2, kfp=1, kfn=3)
    assert tau_p == pytest.approx(1 / 3) and tau_n == pytest.approx(3 / 4)
    cs = val.cost_sensitive_value(P, G, ktp=2, kfp=1, kfn=3)
    # Positives accepted at p >= 1/3: items 0 (TP), 1 (FP), 3 (TP), 4 (FP).
    # Negatives accepted at 1-p >= 3/4: item 5 (TN); item 2 (1-p = .7) goes to review.
    assert (cs.tp, cs.fp, cs.tn, cs.fn) == (2, 2, 1, 0)
    assert cs.value == pytest.approx((2 * 2 + 1 - 2) / 6)
    assert cs.rejected_share == pytest.approx(1 / 6)


def test_cost_sensitive_reduces_to_eq4():
    rng = np.random.default_rng(0)
    p, g = rng.random(500), rng.random(500) < 0.4
    for k in (0, 1, 3, 9):
        cs = val.cost_sensitive_value(p, g, ktp=1, kfp=k, kfn=k)
        assert cs.tau_p == pytest.approx(k / (k + 1)) and cs.tau_n == pytest.approx(k / (k + 1))
        assert cs.value == pytest.approx(val.value_at(p, g, k, k / (k + 1)).value)


@pytest.mark.parametrize("seed", [0, 1])
def test_perfectly_calibrated_scores_give_k_over_k_plus_1(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(100_000)
    g = rng.random(p.size) < p  # P(positive | p) = p: perfectly calibrated
    for k in (1, 2, 4, 8):
        best = val.best_threshold(p, g, k)
        assert best.threshold == pytest.approx(k / (k + 1), abs=0.03)
        rule = val.value_at(p, g, k, k / (k + 1))
        # For the calibrated model the rule is as good as tuning, within sampling error.
        assert rule.value == pytest.approx(best.value, abs=0.005)
        # Analytic V(τ) for c ~ U(.5, 1): ∫_τ^1 2((1+k)c - k) dc
        t = k / (k + 1)
        expected = (1 + k) * (1 - t**2) - 2 * k * (1 - t)
        assert rule.value == pytest.approx(expected, abs=0.01)


def test_split_is_seeded_disjoint_and_complete():
    v1, h1 = val.split(101, 0.5, seed=3)
    v2, h2 = val.split(101, 0.5, seed=3)
    assert np.array_equal(v1, v2) and v1.size == 50 and h1.size == 51
    assert np.array_equal(np.sort(np.r_[v1, h1]), np.arange(101))
    assert val.split(10, 0.0, 0)[0].size == 0
    with pytest.raises(ValueError):
        val.split(10, 1.0, 0)


def test_model_value_without_validation_uses_rule_and_gives_advice():
    m = model_value("m", P, G, ks=(2,), validation_share=0.0)
    r = m.by_k["2"]
    assert m.n_heldout == 6 and r.tuned_threshold is None and r.heldout_value is None
    assert r.value == pytest.approx(1 / 6)
    # Advice from τ = 2/3 on uncalibrated scores: accept p >= 2/3, negatives p <= 1/3.
    assert r.advice.accept_positive_at_or_above == pytest.approx(2 / 3)
    assert r.advice.accept_negative_at_or_below == pytest.approx(1 / 3)
    assert r.advice.reviewed_share == pytest.approx(2 / 6)
    with pytest.raises(ValueError, match="validation split"):
        model_value("m", P, G, calibrate="platt", validation_share=0.0)
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]; item 2"):
        model_value("m", np.array([0.5, 1.2]), np.array([True, False]))


def test_value_report_best_model_changes_with_k():
    rng = np.random.default_rng(5)
    g = rng.random(20_000) < 0.5
    truth = np.where(g, rng.beta(5, 2, g.size), rng.beta(2, 5, g.size))
    # "sharp" is overconfident: right more often at 0.5 but many confident mistakes.
    sharp = np.clip(np.where(rng.random(g.size) < 0.1, 1 - g, g) * 0.98 + 0.01, 0, 1)
    report = value_report({"calibrated": truth, "sharp": sharp}, g, ks=(0, 10), validation_share=0.5)
    assert report.best_model_by_k["0"] == "sharp"  # 90% accuracy beats ~80%
    assert report.best_model_by_k["10"] == "calibrated"  # sharp accepts its 10% errors at k=10
    assert report.models["sharp"].by_k["10"].value < 0


# -- the confidence table (one sort per split) against the former per-call computations --

def _old_value_at(p, g, k, threshold):
    pred, conf = val.confidence(p)
    accepted = conf >= threshold
    n_acc, n_correct, n = int(accepted.sum()), int(np.count_nonzero(accepted & (pred == g))), p.size
    return ((n_correct - k * (n_acc - n_correct)) / n if n else 0.0,
            1.0 - n_acc / n if n else 1.0, n_correct / n_acc if n_acc else None, n_acc)


def _old_best_threshold(p, g, k):
    n = p.size
    if n == 0:
        return (val.REJECT_ALL, 0.0, 1.0, None, 0)
    pred, conf = val.confidence(p)
    order = np.argsort(-conf, kind="stable")
    conf_sorted, correct = conf[order], (pred == g)[order]
    last = np.r_[np.flatnonzero(np.diff(conf_sorted)), n - 1]
    n_acc, n_cor = last + 1, np.cumsum(correct)[last]
    values = (n_cor - k * (n_acc - n_cor)) / n
    best = int(np.argmax(values))
    if values[best] <= 0.0:
        return (val.REJECT_ALL, 0.0, 1.0, None, 0)
    acc = int(n_acc[best])
    return (float(conf_sorted[last[best]]), float(values[best]), 1.0 - acc / n,
            float(n_cor[best] / acc), acc)


def _old_cost_sensitive(p, g, ktp, kfp, kfn):
    tau_p, tau_n = val.cost_sensitive_thresholds(ktp, kfp, kfn)
    pred, _ = val.confidence(p)
    accepted = np.where(pred, p >= tau_p, 1.0 - p >= tau_n)
    return tuple(int(np.count_nonzero(accepted & x)) for x in
                 (pred & g, ~pred & ~g, pred & ~g, ~pred & g))


VALUE_CASES = [
    (np.array([0.2, 0.9]), np.array([False, True])),                  # n = 2
    (np.array([0.5, 0.5]), np.array([False, True])),                  # n = 2, tied at 0.5
    (np.array([0.1, 0.9, 0.3, 0.7]), np.ones(4, bool)),               # all positive
    (np.array([0.1, 0.9, 0.3, 0.7]), np.zeros(4, bool)),              # all negative
    (np.array([0.0, 1.0, 1.0, 0.0, 0.25, 0.75]), np.array([0, 1, 0, 0, 1, 1], bool)),
    (np.empty(0), np.empty(0, bool)),
]


@pytest.mark.parametrize("seed", range(6))
def test_confidence_table_equals_the_former_computations(seed):
    rng = np.random.default_rng(seed)
    n = 400
    g = rng.random(n) < 0.4
    p = np.clip(np.round(0.5 + (g - 0.5) * rng.random(n) + rng.normal(0, 0.2, n), 2), 0, 1)
    for scores, gold in [(p, g), *VALUE_CASES]:
        table = val.confidence_table(scores, gold)
        for k in (0.0, 0.5, 1.0, 2.0, 4.0, 10.0):
            for tau in (0.5, k / (k + 1), 0.75, 0.99, 1.0, val.REJECT_ALL):
                got = val.value_at(table, None, k, tau)
                assert (got.value, got.rejected_share, got.accepted_accuracy, got.accepted) == \
                    _old_value_at(scores, gold, k, tau)
                assert got == val.value_at(scores, gold, k, tau)
            best = val.best_threshold(table, None, k)
            assert (best.threshold, best.value, best.rejected_share, best.accepted_accuracy,
                    best.accepted) == _old_best_threshold(scores, gold, k)
            cs = val.cost_sensitive_value(table, None, 1.0, 1.0, k)
            assert (cs.tp, cs.tn, cs.fp, cs.fn) == _old_cost_sensitive(scores, gold, 1.0, 1.0, k)
            assert cs == val.cost_sensitive_value(scores, gold, 1.0, 1.0, k)


@pytest.mark.parametrize("n, share", [(0, 0.5), (1, 0.5), (2, 0.5), (1001, 0.3), (50, 0.0)])
def test_split_equals_the_sorted_halves_of_the_permutation(n, share):
    perm = np.random.default_rng(7).permutation(n)
    n_val = int(round(share * n))
    validation, held = val.split(n, share, 7)
    np.testing.assert_array_equal(validation, np.sort(perm[:n_val]))
    np.testing.assert_array_equal(held, np.sort(perm[n_val:]))


def _same_table(a: val.ConfidenceTable, b: val.ConfidenceTable) -> None:
    assert a.n == b.n and np.array_equal(a.neg_conf, b.neg_conf) and np.array_equal(a.ends, b.ends)
    for name in ("correct", "tp", "fp", "tn", "fn"):   # the counts at each group's end
        assert np.array_equal(getattr(a, name)[a.ends], getattr(b, name)[b.ends]), name


def test_a_score_order_spares_the_sort_by_confidence_and_changes_nothing():
    rng = np.random.default_rng(5)
    p = rng.random(20_000).round(3)   # many ties, some on both sides of 0.5
    g = rng.random(p.size) < p
    plain = val.confidence_table(p, g)
    by_score = np.argsort(-p, kind="stable")
    _same_table(val.confidence_table(p, g, by_score), plain)
    order = val.confidence_order(p, by_score)
    conf = np.maximum(p, 1 - p)[order]
    assert np.all(conf[1:] <= conf[:-1]) and np.array_equal(np.sort(order), np.arange(p.size))
    # A wrong order is only slower; one that is no permutation is not used at all.
    _same_table(val.confidence_table(p, g, rng.permutation(p.size)), plain)
    _same_table(val.confidence_table(p, g, np.zeros(p.size, dtype=np.int64)), plain)


def test_model_value_with_a_shared_split_and_a_score_order_is_the_same():
    rng = np.random.default_rng(8)
    p = rng.beta(2, 5, 30_000).round(4)
    g = rng.random(p.size) < p
    plain = model_value("m", p, g, ks=(0.0, 1.0, 2.0, 8.0), calibrate="platt", seed=3)
    fast = model_value("m", p, g, ks=(0.0, 1.0, 2.0, 8.0), calibrate="platt", seed=3,
                       halves=val.split(p.size, 0.5, 3), by_score=np.argsort(-p))
    assert fast.by_k == plain.by_k and (fast.platt_a, fast.platt_b) == (plain.platt_a, plain.platt_b)
    assert (fast.ece_before, fast.ece_after) == (plain.ece_before, plain.ece_after)
    assert np.array_equal(fast.reliability_after.counts, plain.reliability_after.counts)
