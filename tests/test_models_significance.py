"""Paired approximate-randomisation test: seed 002 worked example and hand-checkable cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from triage.stats.models import metrics as mt
from triage.stats.models.significance import batch_mean, permutation_test, rowwise, score_statistics

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
    assert r.p_value is None and "undefined" in r.reason
