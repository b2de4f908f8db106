"""Cost guards that were once wall-clock asserts in the tests (they flaked under load).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_cheap.py

Each line prints a measured time against its target (the median of a few repeats, on an
idle machine); the script exits 1 if one is over. The tests keep what is deterministic about
the same code: the snapshot's memory does not grow with the pool (tests/test_live.py), a
panel's ``show_state`` draws nothing (tests/test_ui_panels.py), the million-item curves are
thinned to 2,000 points.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_seconds(work: Callable[[], object], repeats: int = 3) -> float:
    """The median wall time of ``repeats`` runs of ``work``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def live_state(pool: int, events: int):
    """A live state with ``events`` labels (every third positive) on a pool of ``pool``."""
    from triage.stats.live import LiveState, RankedLabel

    state = LiveState(pool, price_per_item=0.04)
    for i in range(1, events + 1):
        state.apply(RankedLabel(i, i, f"a{i % 4}", i % 3 == 0, False, 10.0, "triage"))
    return state


def snapshot_200() -> float:
    """200 snapshots of 5,000 labels on a pool of a million."""
    state = live_state(1_000_000, 5_000)
    return median_seconds(lambda: [state.snapshot() for _ in range(200)])


def backtest_100x25000() -> float:
    """The stopping backtest: 100 repeats on 25,000 items."""
    from triage.stats.stopping.simulate import backtest

    rng = np.random.default_rng(1)
    gold = rng.random(25_000) < 0.6 * np.exp(-np.arange(25_000) / 3000) + 0.01
    order = np.broadcast_to(np.arange(25_000), (100, 25_000))
    return median_seconds(lambda: backtest(order, gold, price=1.0, value_per_positive=10.0,
                                           audit_rate=0.01, seed=0))


def bootstrap_1000x10000() -> float:
    """Krippendorff's alpha bootstrap: 1,000 resamples of 10,000 items, 3 raters."""
    from triage.stats.agreement.bootstrap import bootstrap
    from triage.stats.agreement.ratings import Ratings

    n = 10_000
    rng = np.random.default_rng(1)
    item = np.repeat(np.arange(n), 3)
    ratings = Ratings(item, np.tile(np.arange(3), n), rng.integers(0, 4, item.size),
                      ("a", "b", "c", "d"), tuple(map(str, range(n))), ("x", "y", "z"),
                      np.arange(4.0))
    return median_seconds(lambda: bootstrap(ratings, "nominal", resamples=1000, seed=0))


def panels() -> tuple[float, float]:
    """500 ``show_state`` calls on a panel; three panels drawn on a pool of a million."""
    from PySide6.QtWidgets import QApplication

    from triage.views.panels import PanelInfo
    from ui.panels import ComparisonPanel, GainPanel, SpendPanel

    app = QApplication.instance() or QApplication([])
    state = live_state(1_000_000, 5_000)
    rng = np.random.default_rng(3)
    info = PanelInfo(pool=1_000_000, active_model="m1",
                     offline_curves={"m1": np.cumsum(rng.random(1_000_000) < 0.05)})
    gain = GainPanel()
    snapshot = state.snapshot()
    show = median_seconds(lambda: [gain.show_state(snapshot, info) for _ in range(500)])
    drawn = [GainPanel(), SpendPanel(), ComparisonPanel(large=True)]

    def draw() -> None:
        for panel in drawn:
            panel.show_state(state.snapshot(), info)
            panel.flush()

    draw()  # the figures are built on first use
    seconds = median_seconds(draw)
    app.processEvents()
    return show, seconds


def main() -> int:
    """Measure each guard and print it against its target; 1 if any is over."""
    show, draw = panels()
    rows = [
        ("200 live snapshots, 5,000 labels, pool 1M", snapshot_200(), 0.4),
        ("500 panel show_state calls", show, 0.5),
        ("3 panels drawn, pool 1M (thinned curves)", draw, 3.0),
        ("stopping backtest, 100 repeats x 25,000 items", backtest_100x25000(), 5.0),
        ("alpha bootstrap, 1,000 resamples x 10,000 items", bootstrap_1000x10000(), 10.0),
    ]
    over = 0
    for name, seconds, target in rows:
        verdict = "ok" if seconds <= target else "OVER"
        over += verdict == "OVER"
        print(f"{name:<50} {seconds:8.3f} s   target ≤ {target:.1f} s   {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
