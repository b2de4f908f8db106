"""Paired approximate-randomisation test: seed 002 worked example and hand-checkable cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.stats.models import metrics as mt
from triage.stats.models.significance import (
    batch_mean,
    permutation_test,
    permutation_tests,
    rowwise,
    score_statistics,
)
from triage.stats.models.swaps import score_permutation_tests
from triage.views.model_words import metric_reason_text

A = np.array([1, 2, 1, 2, 2, 2, 0])
B = np.array([4, 5, 5, 4, 3, 2, 1])


def test_seed_002_example_exact():
    r = permutation_test(A, B, trials=1000)
    # 6 uncommon items -> 64 swap patterns; only "no swap" and "swap all" reach |diff| = 2.
    assert r.exact and r.trials == 64 and r.uncommon == 6
    assert r.p_value == pytest.approx(2 / 64)
    assert r.p_value == pytest.approx(0.0313, abs=1e-4)  # the seed's figure, 4 decimals
    assert r.statistic_a == pytest.approx(1.4286, abs=1e-4)
    assert r.statistic_b == pytest.approx(3.4286, abs=1e-4)
    assert r.difference == pytest.approx(-2.0)


def test_seed_002_example_by_brute_force_over_all_seven_items():
    # Enumerate 2^7 swaps including the common item (swapping equal values changes nothing).
    observed = abs(A.mean() - B.mean())
    hits = 0
    for mask in itertools.product([False, True], repeat=7):
        m = np.array(mask)
        a2, b2 = np.where(m, B, A), np.where(m, A, B)
        hits += abs(a2.mean() - b2.mean()) >= observed - 1e-12
    assert hits / 128 == permutation_test(A, B, trials=128).p_value


def test_seed_002_example_sampled_like_the_seed():
    r = permutation_test(A, B, trials=100_000, seed=7, exact=False)
    assert not r.exact
    # Seed 002 reports p ≈ 0.0313 after 10^6 trials; 10^5 trials: sd ≈ 0.00055.
    assert r.p_value == pytest.approx(0.0313, abs=0.002)


def test_identical_systems_and_seeds():
    r = permutation_test(A, A, trials=100)
    assert r.p_value == 1.0 and r.uncommon == 0
    rng = np.random.default_rng(0)
    a, b = rng.random(40), rng.random(40)
    first = permutation_test(a, b, trials=300, seed=5)
    assert first == permutation_test(a, b, trials=300, seed=5)
    assert not first.exact and 0 < first.p_value <= 1


def test_rowwise_statistic_equals_batch_statistic():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=30), rng.normal(0.5, size=30)
    fast = permutation_test(a, b, batch_mean, trials=500, seed=3)
    slow = permutation_test(a, b, rowwise(lambda r: float(np.mean(r))), trials=500, seed=3)
    assert fast.p_value == slow.p_value


def test_score_statistics_match_plain_metrics():
    rng = np.random.default_rng(2)
    gold = rng.random(80) < 0.3
    rows = np.round(rng.random((4, 80)), 1)
    stats = score_statistics(gold, threshold=0.5, k_ndcg=5)
    for i, row in enumerate(rows):
        report = mt.binary_report(row, gold, threshold=0.5, k_ndcg=5)
        for name, stat in stats.items():
            want = report.metrics[name].value
            got = stat(rows)[i]
            assert (np.isnan(got) and want is None) or got == pytest.approx(want), name


def test_clearly_better_model_is_significant_and_noise_is_not():
    rng = np.random.default_rng(4)
    gold = rng.random(400) < 0.4
    good = gold * 1.5 + rng.normal(size=400)
    bad = rng.normal(size=400)
    stats = score_statistics(gold)
    assert permutation_test(good, bad, stats["roc_auc"], trials=300).p_value < 0.01
    twin = good + rng.normal(scale=1e-3, size=400)
    assert permutation_test(good, twin, stats["roc_auc"], trials=300).p_value > 0.2


def test_undefined_statistic_gives_reason():
    gold = np.zeros(5, bool)
    stats = score_statistics(gold)
    r = permutation_test(np.arange(5.0), np.arange(5.0)[::-1], stats["roc_auc"], trials=10)
    assert r.p_value is None and r.reason == "statistic_undefined"
    assert "undefined" in metric_reason_text(r.reason)


# -- the score tests without sorting each permuted row (swaps.py) against the plain test --

def _plain(a, b, gold, trials, seed=3, k=5):
    return permutation_tests(a, b, lambda rows: mt.all_metrics_rows(rows, gold, threshold=0.5,
                                                                    k_ndcg=k),
                             trials=trials, seed=seed)


def _case(seed):
    """Two models on up to 80 items, scores from few levels (many ties, within and across)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    gold = rng.random(n) < rng.uniform(0, 1)
    levels = int(rng.choice([2, 3, 7, 1000]))
    a = np.round(rng.integers(0, levels, n) / (levels - 1) * 0.8 + 0.1 + 0.2 * gold * rng.random(), 3)
    b = a.copy()
    change = rng.random(n) < rng.uniform(0, 1)
    b[change] = np.round(rng.integers(0, levels, change.sum()) / (levels - 1), 3)
    return a, b, gold


EDGES = [
    (np.array([0.3, 0.7]), np.array([0.6, 0.2]), np.array([True, False])),    # n = 2
    (np.array([0.3, 0.7]), np.array([0.6, 0.2]), np.array([True, True])),     # all positive
    (np.array([0.3, 0.7]), np.array([0.6, 0.2]), np.array([False, False])),   # all negative
    (np.full(6, 0.5), np.r_[np.full(3, 0.5), 0.1, 0.9, 0.5], np.array([1, 0, 1, 0, 1, 0], bool)),
    (np.arange(5.0), np.arange(5.0), np.array([1, 0, 1, 0, 0], bool)),       # identical
]


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([40, 300, 2**12]))
def test_score_tests_give_the_plain_tests_p_values(seed, trials):
    # 2^12 patterns enumerate every swap of up to 12 differing items (exact); 40 and 300
    # draw patterns at random: the same ones, from the same seed, in both.
    for a, b, gold in [_case(seed), *EDGES]:
        assert score_permutation_tests(a, b, gold, threshold=0.5, k_ndcg=5, trials=trials,
                                       seed=3) == _plain(a, b, gold, trials)


def test_score_tests_on_continuous_scores_with_ties_across_models():
    # Positives whose value occurs in the other model too take the tied-group path.
    rng = np.random.default_rng(8)
    gold = rng.random(3000) < 0.2
    a = np.round(rng.random(3000) + 0.3 * gold, 4)
    b = np.where(rng.random(3000) < 0.3, a, np.round(rng.random(3000) + 0.2 * gold, 4))
    got = score_permutation_tests(a, b, gold, threshold=0.5, k_ndcg=10, trials=60, seed=1)
    want = permutation_tests(a, b, lambda rows: mt.all_metrics_rows(rows, gold), trials=60,
                             seed=1)
    assert got == want
    assert got["roc_auc"].p_value == pytest.approx(1 / 61) and not got["roc_auc"].exact


def test_score_tests_refuse_unequal_lengths():
    with pytest.raises(ValueError, match="equal lengths"):
        score_permutation_tests(np.zeros(3), np.zeros(3), np.zeros(4, bool))
