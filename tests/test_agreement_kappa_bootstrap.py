"""Bootstrap intervals on Cohen's κ, Fleiss' κ and AC1 match a bootstrap done by hand.

By hand: draw the rated items with replacement (the same draws), rebuild the long-form
ratings of each resample under fresh item names, compute the coefficient with
``agreement_report`` exactly as on real data, and take the 2.5% and 97.5% percentiles.
"""

from __future__ import annotations

import numpy as np
import pytest

from triage.stats.agreement import agreement_report

B, SEED = 200, 7


def _data():
    rng = np.random.default_rng(3)
    items, annotators, labels = [], [], []
    for i in range(30):
        truth = rng.integers(0, 3)
        raters = ["ann", "bob", "cat"][: 1 + (i % 3)]        # singletons, pairs and triples
        for a in raters:
            value = truth if rng.random() < 0.75 else rng.integers(0, 3)
            items.append(f"i{i}"), annotators.append(a), labels.append(f"c{value}")
    return items, annotators, labels


def _by_hand(items, annotators, labels, keep, key: str) -> list[float]:
    """Percentile interval of ``key`` over resamples of the items in ``keep`` (sorted)."""
    rng = np.random.default_rng(SEED)
    draws = rng.integers(0, len(keep), size=(B, len(keep)))
    if key == "cohen_kappa_mean":   # the κ draws follow the Fleiss/AC1 draws in the stream
        rated = sorted(set(items))
        rng = np.random.default_rng(SEED)
        rng.integers(0, len(rated), size=(B, len(rated)))
        draws = rng.integers(0, len(keep), size=(B, len(keep)))
    values = []
    for row in draws:
        it, an, la = [], [], []
        for n, idx in enumerate(row):
            for x, a, lab in zip(items, annotators, labels):
                if x == keep[idx]:
                    it.append(f"r{n}"), an.append(a), la.append(lab)
        rep = agreement_report(it, an, la, categories=["c0", "c1", "c2"], bootstrap=0)
        value = rep.to_json()[key]
        if value is not None:
            values.append(value)
    return list(np.percentile(values, [2.5, 97.5]))


@pytest.mark.parametrize("key", ["fleiss_kappa", "gwet_ac1", "cohen_kappa_mean"])
def test_intervals_match_a_bootstrap_by_hand(key):
    items, annotators, labels = _data()
    report = agreement_report(items, annotators, labels, categories=["c0", "c1", "c2"],
                              bootstrap=B, seed=SEED).to_json()
    rated = sorted(set(items), key=lambda x: int(x[1:]))
    if key == "cohen_kappa_mean":
        counts = {x: items.count(x) for x in rated}
        rated = [x for x in rated if counts[x] >= 2]
    low, high = report[f"{key}_ci95"]
    assert low <= report[key] <= high
    assert [low, high] == pytest.approx(_by_hand(items, annotators, labels, rated, key),
                                        abs=1e-9)
