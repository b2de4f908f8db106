"""The bandit holding an incumbent: no labels lost alternating between level rankings."""

from __future__ import annotations

import numpy as np

from triage.stats.models.bandit import HOLD, BanditAllocator, p_better
from triage.stats.models.cal_sim import bandit_order, labels_to_target

TARGET = 0.95


def level_pair(seed: int, n: int = 2000, pos: int = 60, hard: int = 6
               ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Two orders with the same positives at the same ranks (most in the first 300, a few
    deep: hard for both) and the negatives between them in two independent shuffles."""
    rng = np.random.default_rng(seed)
    gold = np.zeros(n, dtype=bool)
    gold[:pos] = True
    ranks = np.sort(np.concatenate([rng.choice(300, pos - hard, replace=False),
                                    rng.choice(np.arange(300, 1000), hard, replace=False)]))
    positives = rng.permutation(pos)
    rest = np.setdiff1d(np.arange(n), ranks)
    orders = {}
    for name in ("a", "b"):
        order = np.empty(n, dtype=np.int64)
        order[ranks] = positives
        order[rest] = rng.permutation(np.arange(pos, n))
        orders[name] = order
    return orders, gold


def test_alternating_between_level_rankings_costs_labels_and_holding_does_not():
    thompson, held = [], []
    for seed in range(6):
        orders, gold = level_pair(seed)
        alone = labels_to_target(orders["a"], gold, TARGET)
        assert labels_to_target(orders["b"], gold, TARGET) == alone   # level
        ts = bandit_order(orders, gold, seed=seed, hold=None, target=TARGET)[0]
        hold = bandit_order(orders, gold, seed=seed, target=TARGET)[0]
        thompson.append(labels_to_target(ts, gold, TARGET) / alone - 1)
        held.append(labels_to_target(hold, gold, TARGET) / alone - 1)
    # Thompson sampling interleaves the two heads: every seed pays for both (measured
    # +12 % to +37 %); holding the baseline stays within 2 % on every seed (measured ≤ 0.2 %).
    assert min(thompson) > 0.05, thompson
    assert max(held) <= 0.02, held


def test_a_better_ranking_that_shares_heads_takes_over():
    rng = np.random.default_rng(7)
    n = 3000
    gold = rng.random(n) < 0.03
    base = rng.normal(0, 1, n) + 1.0 * gold
    better = base + 1.5 * gold            # the same order, positives moved up
    orders = {"a": np.argsort(-base, kind="stable"), "b": np.argsort(-better, kind="stable")}
    alone = {k: labels_to_target(o, gold, 0.8) for k, o in orders.items()}
    order, arms = bandit_order(orders, gold, target=0.8)
    got = labels_to_target(order, gold, 0.8)
    assert alone["b"] < 0.7 * alone["a"]
    assert got <= alone["b"] + 0.25 * (alone["a"] - alone["b"]), (got, alone)
    assert arms[: got].count("b") > 0.5 * got


def test_the_held_choice_depends_on_the_labels_only():
    # Two desks (different seeds, different numbers of calls) fed the same labels agree.
    # Half the time both rankings have the same candidate next and it counts for both; the
    # baseline's own candidates are positive less often (20 %) than cal's (35 %).
    rng = np.random.default_rng(3)
    events = [(bool(rng.random() < 0.5), bool(rng.random() < 0.2), bool(rng.random() < 0.35))
              for _ in range(400)]
    desks = [BanditAllocator(["imported", "cal"], discount=0.99, seed=s, hold=HOLD)
             for s in (1, 2)]
    followed = []
    for i, (agree, imported_pos, cal_pos) in enumerate(events):
        choices = [desk.choose() for _ in range(1 + i % 3) for desk in desks][-2:]
        assert choices[0] == choices[1], i
        followed.append(choices[0])
        for desk in desks:
            if agree:
                desk.credit(["imported", "cal"], cal_pos)
            else:
                desk.credit([choices[0]], imported_pos if choices[0] == "imported" else cal_pos)
    assert followed[0] == "imported"              # the baseline first
    assert followed.count("cal") > 0.6 * len(followed)   # cal yields more: mostly followed


def test_p_better_is_a_probability_in_the_right_direction():
    assert p_better(30, 70, 10, 90) > 0.99
    assert p_better(10, 90, 30, 70) < 0.01
    assert abs(p_better(5, 5, 5, 5) - 0.5) < 1e-12
