"""Backtests on synthetic pools: guarantees hold, the marginal rule is near the best, the
vectorised replay agrees with advise(), and it is fast."""

from __future__ import annotations

import numpy as np
import pytest

from triage.cli.commands.simulate import follow_order
from triage.stats.stopping import AdviceInputs, advise
from triage.stats.stopping.simulate import backtest, checkpoints_for, replay


def pool(n: int, scale: float, floor: float, top: float, seed: int) -> np.ndarray:
    """Gold labels in ranking order: yield falls smoothly from top + floor to floor."""
    rng = np.random.default_rng(seed)
    p = top * np.exp(-np.arange(n) / scale) + floor
    return rng.random(n) < p


def slack(share: float, n: int) -> float:
    """One-sided 99% binomial sampling slack on a share estimated from n repeats."""
    return 2.33 * np.sqrt(share * (1 - share) / n)


@pytest.mark.parametrize(("n", "scale", "floor", "rate"), [
    (5000, 1500, 0.0, 0.05),
    (4000, 400, 0.05, 0.10),
])
def test_recall_rules_meet_target_with_stated_confidence(n, scale, floor, rate):
    gold = pool(n, scale, floor, 0.7, seed=3)
    repeats = 300
    order = np.broadcast_to(np.arange(n), (repeats, n))
    bt = backtest(order, gold, price=1.0, target_recall=0.8, confidence=0.95, audit_rate=rate,
                  batch=25, seed=11)
    for rule in ("recall", "recall_hypergeometric"):
        out = bt.rules[rule]
        assert out.target_met_share >= 0.95 - slack(0.95, repeats), rule
        assert out.never_stopped_share < 0.05  # it does stop, well before the end
        assert out.stopped_at_mean < 0.8 * n
    # Sanity: recall of 0.8 is reached at a known depth and the rules stop after it on average.
    c80 = int(np.searchsorted(np.cumsum(gold), 0.8 * gold.sum())) + 1
    assert bt.rules["recall"].stopped_at_mean > c80


def test_marginal_rule_is_within_ten_percent_of_the_best():
    # Yield p(r) = 0.6 exp(-r/scale) + 0.01 falls through the break-even yield 1/8 at
    # r* = scale * ln(0.6 / 0.115): the best stopping point in expectation.
    nets, bests, stops, r_star = [], [], [], []
    for seed in range(100):
        scale = 1000 + 10 * seed
        gold = pool(5000, scale, 0.01, 0.6, seed)
        bt = backtest(np.arange(5000), gold, price=1.0, value_per_positive=8.0,
                      audit_rate=0.01, batch=50, seed=seed)
        nets.append(bt.rules["marginal_value"].net_value_mean)
        bests.append(bt.best_net_value.net_value_mean)
        stops.append(bt.rules["marginal_value"].stopped_at_mean)
        r_star.append(scale * np.log(0.6 / 0.115))
    nets, bests, ratio = np.array(nets), np.array(bests), np.array(stops) / np.array(r_star)
    assert nets.mean() >= 0.95 * bests.mean()
    assert np.mean(nets >= 0.9 * bests) >= 0.95  # per pool, hindsight knows the noise
    # Conservative (upper bound of the yield): it stops after r*, but not far after.
    assert 1.0 < np.median(ratio) < 1.5


def test_best_net_value_hand_example():
    # Gold in order 1,1,0,1,0...; $1 each, $2.50 per positive, batch 1, no audit:
    # net at depth 1..5 = 1.5, 3.0, 2.0, 3.5, 2.5 -> best depth 4 with 3.5.
    gold = np.array([1, 1, 0, 1, 0, 0, 0, 0, 0, 0], bool)
    bt = backtest(np.arange(10), gold, price=1.0, value_per_positive=2.5, batch=1)
    best = bt.best_net_value
    assert best.stopped_at_mean == 4 and best.net_value_mean == pytest.approx(3.5)
    assert best.recall_mean == 1.0 and best.spend_mean == 4.0
    # Marginal rule: Jeffreys upper of 0/1 at 95% is 0.8534; 0.8534 * 2.5 > 1 keeps going,
    # so it never stops on single items: stopped at the end, net 3 * 2.5 - 10 = -2.5.
    assert bt.rules["marginal_value"].net_value_mean == pytest.approx(-2.5)
    # Budget of $6: six items, net 7.5 - 6 = 1.5.
    capped = backtest(np.arange(10), gold, price=1.0, value_per_positive=2.5, batch=1, budget=6)
    assert capped.rules["budget"].stopped_at_mean == 6
    assert capped.rules["budget"].net_value_mean == pytest.approx(1.5)


def test_audit_items_are_paid_and_found():
    # Audit rate 0.5 on a pool of 100: by depth d, d/2 draws; those below d cost extra.
    gold = np.zeros(100, bool)
    gold[[0, 90]] = True
    rp = replay(np.arange(100), gold, price=1.0, audit_rate=0.5, batch=10, seed=5)
    pos = rp.audit_positions[0]
    for k, d in enumerate(rp.depth):
        drawn = pos[: d // 2]
        extra = (drawn >= d).sum()
        assert rp.spend[0, k] == d + extra
        assert rp.found[0, k] == gold[:d].sum() + gold[drawn[drawn >= d]].sum()


@pytest.mark.slow
def test_replay_agrees_with_advise():
    n, b = 3000, 30
    gold = pool(n, 600, 0.02, 0.7, seed=8)
    rp = replay(np.arange(n), gold, price=1.0, value_per_positive=10.0, target_recall=0.8,
                confidence=0.95, audit_rate=0.05, batch=b, seed=2)
    pos = rp.audit_positions[0]
    checked = 0
    for k in range(0, rp.depth.size - 1, 7):
        d = int(rp.depth[k])
        audit = pos[: rp.audit_drawn[k]]
        ranks = np.union1d(np.arange(1, d + 1), audit + 1)
        a = advise(AdviceInputs(
            pool=n, ranks=ranks, positive=gold[ranks - 1], audit_ranks=audit + 1,
            audit_positive=gold[audit], depth=d, price=1.0, value_per_positive=10.0, batch=b))
        verdicts = {r.rule: r.verdict for r in a.reasons}
        assert (verdicts["recall"] == "stop") == rp.stops["recall"][0, k], d
        assert (verdicts["marginal_value"] == "stop") == rp.stops["marginal_value"][0, k], d
        knee_met = next(r for r in a.reasons if r.rule == "knee").numbers["criterion_met"]
        assert knee_met == rp.stops["knee"][0, k], d
        checked += 1
    assert checked > 10
    assert rp.stops["recall"][0].any() and rp.stops["marginal_value"][0].any()


def test_hundred_repeats_on_25000_items_run_in_one_backtest():
    # Its time (a second or so) is a benchmark: bench/bench_cheap.py.
    gold = pool(25000, 3000, 0.01, 0.6, seed=1)
    bt = backtest(np.broadcast_to(np.arange(25000), (100, 25000)), gold, price=1.0,
                  value_per_positive=10.0, audit_rate=0.01, seed=0)
    assert bt.checkpoints == 100 and bt.repeats == 100


def test_checkpoints_and_tie_breaking():
    assert checkpoints_for(10, 4).tolist() == [4, 8, 10]
    tied = np.zeros(50)
    orders = [follow_order(tied, s) for s in range(5)]
    assert len({o.tobytes() for o in orders}) == 5  # seeds change the tie order
    assert all(sorted(o.tolist()) == list(range(50)) for o in orders)
    assert not any(np.array_equal(o, np.arange(50)) for o in orders)  # never file order
    assert follow_order(np.array([0.1, 0.9, 0.5]), 0).tolist() == [1, 2, 0]
