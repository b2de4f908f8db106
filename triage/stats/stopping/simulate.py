"""Backtest the stopping rules on labeled data.

An annotator labels down a given order (one row per repeat) with the gold labels; every
``1/audit_rate`` items one audit item is drawn uniformly at random from the whole pool
(paid for unless the ranked pass has already reached it). After every batch each rule is
asked whether to stop; we record where each would first have stopped, what it had found and
spent. Everything is vectorised over repeats × checkpoints × audit draws.

The backtest runs the sample-based rules exactly as :func:`triage.stats.stopping.advise` does
(same formulas from :mod:`triage.stats.stopping.bounds`); it does not refit a calibration at every
batch, so the marginal rule here rests on the recent yield.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.base.errors import TriageError
from triage.stats.stopping.bounds import (
    clopper_pearson_lower,
    hypergeometric_pvalue,
    jeffreys_bounds,
)
from triage.stats.stopping.knee import knee_at

RECALL_RULES = ("recall", "recall_hypergeometric", "combined")


@dataclass(frozen=True)
class RuleOutcome:
    """Where one rule stopped, averaged over repeats (net value is None without a value)."""

    stopped_at_mean: float
    recall_mean: float
    recall_min: float
    spend_mean: float
    net_value_mean: float | None
    target_met_share: float | None
    never_stopped_share: float


@dataclass(frozen=True)
class Backtest:
    """Per-rule outcomes and the best stopping point in hindsight."""

    pool: int
    positives: int
    repeats: int
    checkpoints: int
    rules: dict[str, RuleOutcome]
    best_net_value: RuleOutcome | None


def checkpoints_for(pool: int, batch: int) -> np.ndarray:
    """Depths at which advice is asked: every ``batch`` items, and the end of the pool."""
    d = np.arange(batch, pool + batch, batch, dtype=np.int64)
    return np.unique(np.minimum(d, pool))


def _audit_draws(pool: int, count: int, repeats: int, seed: int) -> np.ndarray:
    """Positions (0-based, in labeling order) of the audit draws, per repeat, in draw order."""
    out = np.empty((repeats, count), dtype=np.int64)
    for i in range(repeats):
        rng = np.random.default_rng([seed + i, 7])  # own stream: independent of tie-breaking
        out[i] = rng.choice(pool, size=count, replace=False)
    return out


@dataclass(frozen=True)
class Replay:
    """Every rule's verdict at every checkpoint of every repeat (repeats × checkpoints)."""

    depth: np.ndarray  # checkpoints (items of the ranked pass)
    audit_positions: np.ndarray  # repeats × draws: 0-based positions in labeling order
    audit_drawn: np.ndarray  # draws made by each checkpoint
    stops: dict[str, np.ndarray]
    found: np.ndarray
    spend: np.ndarray
    net: np.ndarray | None
    last: np.ndarray  # per repeat: last checkpoint the budget pays for


def backtest(orders: np.ndarray, gold: np.ndarray, *, price: float,
             value_per_positive: float | None = None, budget: float | None = None,
             target_recall: float = 0.8, confidence: float = 0.95, audit_rate: float = 0.0,
             batch: int | None = None, seed: int = 0) -> Backtest:
    """Replay the rules on ``orders`` (repeats × pool candidate indices) with ``gold`` labels."""
    rp = replay(orders, gold, price=price, value_per_positive=value_per_positive, budget=budget,
                target_recall=target_recall, confidence=confidence, audit_rate=audit_rate,
                batch=batch, seed=seed)
    return summarise(rp, int(np.asarray(gold, bool).sum()), target_recall)


def replay(orders: np.ndarray, gold: np.ndarray, *, price: float,
           value_per_positive: float | None = None, budget: float | None = None,
           target_recall: float = 0.8, confidence: float = 0.95, audit_rate: float = 0.0,
           batch: int | None = None, seed: int = 0) -> Replay:
    """Ask every rule at every checkpoint; see :func:`backtest`."""
    orders = np.atleast_2d(np.asarray(orders, dtype=np.int64))
    gold = np.asarray(gold, dtype=bool)
    repeats, pool = orders.shape
    positives = int(gold.sum())
    if pool != gold.size or positives == 0:
        raise TriageError("the backtest needs one order over the whole pool and at least one "
                          "positive in the gold labels")
    if not 0 <= audit_rate < 1:
        raise TriageError("the audit rate must be in [0, 1)")
    b = int(batch) if batch else max(1, round(pool / 100))
    d = checkpoints_for(pool, b)  # K
    y = gold[orders]  # R × N, labels in labeling order
    gain = np.concatenate([np.zeros((repeats, 1), np.int64), np.cumsum(y, axis=1)], axis=1)

    # Audit: floor(depth × rate) draws by each checkpoint, uniform over the whole pool.
    drawn = np.floor(d * audit_rate + 1e-9).astype(np.int64)  # K
    count = int(drawn[-1]) if drawn.size else 0
    pos = _audit_draws(pool, count, repeats, seed)  # R × A
    ypos = np.take_along_axis(y, pos, axis=1)
    valid = np.arange(count)[None, :] < drawn[:, None]  # K × A
    below = pos[:, None, :] >= d[None, :, None]  # R × K × A
    vb = valid[None] & below
    n_below = vb.sum(axis=2)
    k_below = (vb & ypos[:, None, :]).sum(axis=2)
    r_pos = (valid[None] & ypos[:, None, :]).sum(axis=2)
    k_above = r_pos - k_below

    found_top = gain[:, d]  # R × K
    found = found_top + k_below
    spend = price * (d[None, :] + n_below)
    net = None if value_per_positive is None else value_per_positive * found - spend

    # Budget: the last whole batch the budget pays for caps every rule.
    last = np.full(repeats, d.size - 1)
    if budget is not None:
        affordable = spend <= budget + 1e-9
        if not affordable[:, 0].all():
            raise TriageError("the budget does not pay for the first batch")
        last = np.where(affordable.all(axis=1), d.size - 1, np.argmin(affordable, axis=1) - 1)

    stops: dict[str, np.ndarray] = {"budget": np.zeros((repeats, d.size), bool)}
    # Marginal value: stop when even the upper bound of the last batch's yield does not pay.
    prev = np.concatenate([[0], d[:-1]])
    recent = gain[:, d] - gain[:, prev]
    _, upper = jeffreys_bounds(recent, (d - prev)[None, :], confidence)
    stops["marginal_value"] = (np.zeros_like(upper, bool) if value_per_positive is None
                               else upper * value_per_positive < price)
    with np.errstate(invalid="ignore"):
        qb = clopper_pearson_lower(k_above, r_pos, confidence)
    stops["recall"] = np.nan_to_num(qb, nan=-1.0) >= target_recall
    p_h = hypergeometric_pvalue(found_top, pool - d[None, :], n_below, k_below, target_recall)
    stops["recall_hypergeometric"] = (p_h < 1 - confidence) & (n_below > 0)
    stops["knee"] = _knee_stops(gain, d)
    stops["combined"] = stops["budget"] | stops["marginal_value"] | stops["recall"]
    return Replay(d, pos, drawn, stops, found, spend, net, last)


def summarise(rp: Replay, positives: int, target_recall: float) -> Backtest:
    """Where each rule first stopped (capped by the budget), and the best point in hindsight."""
    d, found, spend, net, last = rp.depth, rp.found, rp.spend, rp.net, rp.last
    repeats = found.shape[0]
    rows = np.arange(repeats)
    rules = {}
    for name, mask in rp.stops.items():
        hit = mask.any(axis=1)
        first = np.where(hit, np.argmax(mask, axis=1), d.size - 1)
        at = np.minimum(first, last)
        rules[name] = _outcome(d[at], found[rows, at], spend[rows, at],
                               None if net is None else net[rows, at], positives, target_recall,
                               name in RECALL_RULES, float(np.mean(~hit | (first > last))))
    best = None
    if net is not None:
        # Not annotating at all (net 0) is also a stopping point.
        masked = np.where(np.arange(d.size)[None, :] <= last[:, None], net, -np.inf)
        at = np.argmax(masked, axis=1)
        zero = masked[rows, at] < 0
        best = _outcome(np.where(zero, 0, d[at]), np.where(zero, 0, found[rows, at]),
                        np.where(zero, 0.0, spend[rows, at]),
                        np.where(zero, 0.0, net[rows, at]), positives, target_recall, False, 0.0)
    return Backtest(int(rp.depth[-1]), positives, repeats, int(d.size), rules, best)


def _knee_stops(gain: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Knee criterion per repeat × checkpoint, computed once per distinct labeling order."""
    out = np.zeros((gain.shape[0], d.size), bool)
    done: list[tuple[np.ndarray, np.ndarray]] = []
    for i, g in enumerate(gain):
        for seen, met in done:
            if np.array_equal(seen, g):
                out[i] = met
                break
        else:
            met = knee_at(g, d).met
            done.append((g, met))
            out[i] = met
    return out


def _outcome(at: np.ndarray, found: np.ndarray, spend: np.ndarray, net: np.ndarray | None,
             positives: int, target: float, is_recall: bool, never: float) -> RuleOutcome:
    recall = found / positives
    return RuleOutcome(
        stopped_at_mean=float(np.mean(at)),
        recall_mean=float(np.mean(recall)),
        recall_min=float(np.min(recall)),
        spend_mean=float(np.mean(spend)),
        net_value_mean=None if net is None else float(np.mean(net)),
        target_met_share=float(np.mean(recall >= target - 1e-12)) if is_recall else None,
        never_stopped_share=never,
    )
