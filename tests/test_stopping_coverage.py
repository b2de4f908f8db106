"""The stated 95% recall interval is honest: it holds the true recall in ≥ 90% of runs.

100 seeds per pool, checkpoints from 300 labels on, audit rates 0, 2% and 5%; synthetic
pools and the shipped real scores (IMDB sentiment, CIFAR-10 "cat" vs rest; cleanlab's
cross-validated probabilities, Apache-2.0) subsampled to 2,000 items per seed.
The figures for the docs come from the same function (docs/numbers/stopping.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import DATA_DIR
from triage.stats.stopping.coverage import recall_coverage

SEEDS = range(100)
N = 2000


def synthetic(prev: float = 0.03, sep: float = 2.0):
    ys, ss = [], []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        y = rng.random(N) < prev
        s = rng.normal(0, 1, N) + sep * y
        order = np.argsort(-s, kind="stable")
        ys.append(y[order])
        ss.append(s[order])
    return np.array(ys), np.array(ss)


def real(name: str):
    base = DATA_DIR / "cleanlab"
    what = {"imdb": ("imdb", 1, 1), "cifar10-cat": ("cifar10", 3, 3)}[name]
    probs = base / f"cross_validated_predicted_probabilities__{what[0]}_test_set_pyx.npy"
    labels = base / f"original_test_labels__{what[0]}_test_set_original_labels.npy"
    if not probs.exists():
        pytest.skip(f"{probs} is not available")
    p = np.load(probs)[:, what[1]]
    g = np.load(labels) == what[2]
    ys, ss = [], []
    for seed in SEEDS:
        rng = np.random.default_rng([seed, 5])
        idx = rng.choice(p.size, N, replace=False)
        order = np.lexsort((rng.random(N), -p[idx]))  # ties in random order
        ys.append(g[idx][order])
        ss.append(p[idx][order])
    return np.array(ys), np.array(ss)


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["synthetic", "imdb", "cifar10-cat"])
@pytest.mark.parametrize("rate", [0.0, 0.02, 0.05])
def test_recall_interval_covers_the_truth(pool, rate):
    y, s = synthetic() if pool == "synthetic" else real(pool)
    cov = recall_coverage(y, s, audit_rate=rate, start=300)
    assert cov.runs >= 500
    assert cov.covered >= 0.90, (pool, rate, cov)
    assert 0 < cov.mean_width < 1


def test_decile_runs_equal_the_ceiling_formula():
    """decile_of_rank lays out runs; it must equal ceil(10 r / N) - 1 for every rank."""
    import numpy as np

    from triage.stats.stopping.remainder import decile_of_rank

    for pool in [*range(0, 120), 999, 1001, 65_537, 1_000_003]:
        r = np.arange(1, pool + 1)
        expected = np.minimum(np.ceil(10 * r / max(pool, 1)).astype(np.int64) - 1, 9)
        assert decile_of_rank(pool).tolist() == expected.tolist()


def test_early_checkpoints_report_width_beside_coverage():
    """The early regime (50-300 labels) is backtested too, its width reported per checkpoint,
    and a pool where no calibration can be fitted early (all labels positive) still counts."""
    ys, ss = [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        y = rng.random(1500) < 0.2
        s = rng.normal(0, 1, 1500) + 4 * y
        order = np.argsort(-s, kind="stable")
        ys.append(y[order])
        ss.append(s[order])
    cov = recall_coverage(np.array(ys), np.array(ss), audit_rate=0.02,
                          labels=(50, 150, 300, 1000, 5000))
    assert sorted(cov.by_labels) == [50, 150, 300, 1000]
    for runs, covered, width in cov.by_labels.values():
        assert runs == 8 and 0 <= covered <= 1 and 0 < width <= 1
    assert cov.by_labels[1000][2] < cov.by_labels[50][2]
