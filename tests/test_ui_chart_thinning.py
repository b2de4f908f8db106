"""Model charts draw a bounded number of points whatever the pool size."""

import numpy as np

from ui.analysis._models_charts import MAX_POINTS, thin


def test_a_million_point_curve_is_drawn_from_a_few_thousand_keeping_both_ends():
    x = np.arange(1, 1_000_001)
    y = np.cumsum(np.arange(1_000_000) % 7 == 0)
    tx, ty = thin(x, y)
    assert tx.size <= MAX_POINTS and tx.size > MAX_POINTS // 2
    assert (tx[0], ty[0]) == (1, 1) and (tx[-1], ty[-1]) == (1_000_000, y[-1])
    assert np.all(np.diff(tx) > 0)                  # still in order, no repeats
    assert np.array_equal(ty, y[tx - 1])            # every kept point is a true point


def test_a_short_curve_is_drawn_as_it_is():
    x, y = np.arange(10), np.arange(10) ** 2
    tx, ty = thin(x, y)
    assert np.array_equal(tx, x) and np.array_equal(ty, y)
