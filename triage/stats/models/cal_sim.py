"""Backtests of the cal ranking on labeled data: the order CAL (alone, or as a bandit arm)
would have had the pool labeled in, refitting exactly as the desk's helper does.

The random audit sample is left out of training here as at the desk (``audit`` marks the
rows it holds), so a backtest measures the ranking the desk would serve.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.stats.models.bandit import HOLD, BanditAllocator, ranking
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


def _heads(fixed: dict[str, np.ndarray], ptr: dict[str, int], done: np.ndarray,
           learned: _CalArm | None) -> dict[str, int]:
    """Each arm's best-ranked row not labeled yet (arms worked to the end are left out)."""
    heads: dict[str, int] = {}
    for name, r in fixed.items():
        while ptr[name] < r.size and done[r[ptr[name]]]:
            ptr[name] += 1
        if ptr[name] < r.size:
            heads[name] = int(r[ptr[name]])
    nxt = learned.next(done) if learned is not None else None
    if nxt is not None:
        heads["cal"] = nxt
    return heads


def _allocate(fixed: dict[str, np.ndarray], learned: _CalArm | None, gold: np.ndarray,
              alloc: BanditAllocator, refit_until: int | None, need: int | None
              ) -> tuple[np.ndarray, list[str]]:
    """(row order, arm per label) with ``alloc`` choosing among the arms' heads.

    A label counts for every arm whose head it was (shared credit) when ``alloc`` holds
    an incumbent; plain Thompson sampling counts it for the arm played only. Without a
    learned arm the run ends once ``need`` positives are found.
    """
    n = gold.size
    ptr = dict.fromkeys(fixed, 0)
    done = np.zeros(n, dtype=bool)
    train = np.ones(n, dtype=bool)
    order: list[int] = []
    arms: list[str] = []
    found = 0
    while len(order) < n and (learned is not None or need is None or found < need):
        if learned is not None and (refit_until is None or len(order) < refit_until) and (
                need is None or found < need):
            learned.maybe_refit(order, gold, train)
        heads = _heads(fixed, ptr, done, learned)
        chosen = alloc.choose([a for a in alloc.arms if a in heads])
        item = heads[chosen]
        done[item] = True
        order.append(item)
        arms.append(chosen)
        shared = [a for a, h in heads.items() if h == item] if alloc.hold is not None else [chosen]
        alloc.credit(shared, bool(gold[item]))
        found += int(gold[item])
    return np.asarray(order, dtype=np.int64), arms


def bandit_cal_order(features: Any, scores: dict[str, np.ndarray], gold: np.ndarray,
                     config: CalConfig = DEFAULT, discount: float = 0.99,
                     stop_at: int | None = None, target: float | None = None,
                     hold: float | None = HOLD) -> tuple[np.ndarray, list[str]]:
    """(row order, arm per label) of the bandit over the imported models and cal.

    ``hold``: the allocator follows the first imported model until another arm is more
    likely than that to yield more (None: plain Thompson sampling, as before).
    ``stop_at`` and ``target`` as for :func:`cal_order`.
    """
    gold = np.asarray(gold, dtype=bool)
    rng = np.random.default_rng([config.seed, 0xBA4])
    fixed = {name: ranking(s, rng) for name, s in scores.items()}
    arm = _CalArm(features, warm_scores(list(scores.values())), config)
    alloc = BanditAllocator([*fixed, "cal"], discount=discount, seed=int(rng.integers(2 ** 31)),
                            hold=hold)
    return _allocate(fixed, arm, gold, alloc, stop_at, _need(gold, target))


def bandit_order(orders: dict[str, np.ndarray], gold: np.ndarray, *, seed: int = 0,
                 discount: float = 0.99, hold: float | None = HOLD, target: float | None = None
                 ) -> tuple[np.ndarray, list[str]]:
    """(row order, arm per label) of the bandit over fixed orders (the first is the baseline).

    ``target``: stop once that recall is reached (None: label the whole pool).
    """
    gold = np.asarray(gold, dtype=bool)
    alloc = BanditAllocator(list(orders), discount=discount, seed=seed, hold=hold)
    fixed = {name: np.asarray(o, dtype=np.int64) for name, o in orders.items()}
    return _allocate(fixed, None, gold, alloc, None, _need(gold, target))


def labels_to_target(order: np.ndarray, gold: np.ndarray, target: float) -> int:
    """Labels until the true recall first reaches ``target`` along ``order``."""
    gold = np.asarray(gold, dtype=bool)
    need = int(np.ceil(target * int(gold.sum()) - 1e-9))
    if need <= 0:
        return 0
    found = np.cumsum(gold[np.asarray(order, dtype=np.int64)])
    hit = np.flatnonzero(found >= need)
    return int(hit[0]) + 1 if hit.size else int(order.size)


__all__ = ["bandit_cal_order", "bandit_order", "cal_order", "labels_to_target"]
