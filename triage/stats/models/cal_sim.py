"""Backtests of the cal ranking on labeled data: the order CAL (alone, or as a bandit arm)
would have had the pool labeled in, refitting exactly as the desk's helper does.

The random audit sample is left out of training here as at the desk (``audit`` marks the
rows it holds), so a backtest measures the ranking the desk would serve.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.stats.models.bandit import BanditAllocator, ranking
from triage.stats.models.cal import DEFAULT, CalConfig, fit_scores, next_refit, warm_scores


class _CalArm:
    """The cal ranking during a backtest: refit when due, served best-first."""

    def __init__(self, features: Any, warm: np.ndarray, config: CalConfig) -> None:
        self.features = features
        self.config = config
        self.scores = warm
        self.order = ranking(warm, np.random.default_rng([config.seed, 0xCA1]))
        self.ptr = 0
        self.due = config.every
        self.refits = 0

    def maybe_refit(self, labeled: list[int], gold: np.ndarray, train: np.ndarray) -> None:
        """Refit once ``due`` labels are in, on every trainable label so far."""
        if len(labeled) < self.due:
            return
        self.due = next_refit(len(labeled), self.config)
        rows = np.asarray([i for i in labeled if train[i]], dtype=np.int64)
        fitted = fit_scores(self.features, rows, gold[rows], self.config.seed, self.config)
        if fitted is None:
            return
        self.refits += 1
        self.scores = fitted
        self.order = ranking(fitted, np.random.default_rng([self.config.seed, 0xCA1,
                                                           self.refits]))
        self.ptr = 0

    def next(self, done: np.ndarray) -> int | None:
        """The best-ranked row not labeled yet."""
        while self.ptr < self.order.size and done[self.order[self.ptr]]:
            self.ptr += 1
        return int(self.order[self.ptr]) if self.ptr < self.order.size else None


def _need(gold: np.ndarray, target: float | None) -> int | None:
    """Positives that make ``target`` recall (None: no target)."""
    return None if target is None else int(np.ceil(target * int(gold.sum()) - 1e-9))


def cal_order(features: Any, scores: list[np.ndarray], gold: np.ndarray,
              config: CalConfig = DEFAULT, audit: np.ndarray | None = None,
              stop_at: int | None = None, target: float | None = None) -> np.ndarray:
    """Row indices in the order CAL has them labeled (the whole pool).

    ``stop_at``: after this many labels the last ranking is followed without refits.
    ``target``: no refits once that recall is reached (the labels to it are exact; a
    backtest that only needs them saves the later fits).
    """
    gold = np.asarray(gold, dtype=bool)
    n = gold.size
    train = np.ones(n, bool) if audit is None else ~np.asarray(audit, dtype=bool)
    arm = _CalArm(features, warm_scores(scores), config)
    done = np.zeros(n, dtype=bool)
    order: list[int] = []
    need, found = _need(gold, target), 0
    while len(order) < n:
        if (stop_at is None or len(order) < stop_at) and (need is None or found < need):
            arm.maybe_refit(order, gold, train)
        item = arm.next(done)
        assert item is not None  # rows remain
        done[item] = True
        order.append(item)
        found += int(gold[item])
    return np.asarray(order, dtype=np.int64)


def bandit_cal_order(features: Any, scores: dict[str, np.ndarray], gold: np.ndarray,
                     config: CalConfig = DEFAULT, discount: float = 0.99,
                     stop_at: int | None = None, target: float | None = None
                     ) -> tuple[np.ndarray, list[str]]:
    """(row order, arm per label) of Thompson sampling over the imported models and cal.

    ``stop_at`` and ``target`` as for :func:`cal_order`.
    """
    gold = np.asarray(gold, dtype=bool)
    n = gold.size
    rng = np.random.default_rng([config.seed, 0xBA4])
    fixed = {name: ranking(s, rng) for name, s in scores.items()}
    ptr = dict.fromkeys(fixed, 0)
    arm = _CalArm(features, warm_scores(list(scores.values())), config)
    names = [*fixed, "cal"]
    alloc = BanditAllocator(names, discount=discount, seed=int(rng.integers(2 ** 31)))
    done = np.zeros(n, dtype=bool)
    train = np.ones(n, dtype=bool)
    order: list[int] = []
    arms: list[str] = []
    need, found = _need(gold, target), 0
    while len(order) < n:
        if (stop_at is None or len(order) < stop_at) and (need is None or found < need):
            arm.maybe_refit(order, gold, train)
        heads: dict[str, int] = {}
        for name, r in fixed.items():
            while ptr[name] < n and done[r[ptr[name]]]:
                ptr[name] += 1
            if ptr[name] < n:
                heads[name] = int(r[ptr[name]])
        cal_head = arm.next(done)
        if cal_head is not None:
            heads["cal"] = cal_head
        chosen = alloc.choose([a for a in names if a in heads])
        item = heads[chosen]
        done[item] = True
        order.append(item)
        arms.append(chosen)
        alloc.update(chosen, bool(gold[item]))
        found += int(gold[item])
    return np.asarray(order, dtype=np.int64), arms


def labels_to_target(order: np.ndarray, gold: np.ndarray, target: float) -> int:
    """Labels until the true recall first reaches ``target`` along ``order``."""
    gold = np.asarray(gold, dtype=bool)
    need = int(np.ceil(target * int(gold.sum()) - 1e-9))
    if need <= 0:
        return 0
    found = np.cumsum(gold[np.asarray(order, dtype=np.int64)])
    hit = np.flatnonzero(found >= need)
    return int(hit[0]) + 1 if hit.size else int(order.size)


__all__ = ["bandit_cal_order", "cal_order", "labels_to_target"]
