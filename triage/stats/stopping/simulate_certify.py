"""Backtest the certification-on-demand policy: rank, then certify with a one-off sample.

Per repeat, the lead labels down the ranking until a trigger says the target looks met (by
default the Quant rule's point estimate), then asks "certify now": a random order of the
unlabelled remainder is labelled until the hypergeometric test of Callaghan & Müller-Hansen
rejects "recall < target" (or the budget or the remainder runs out). We record where the
ranked pass stopped, how many certification labels it took, and what it all bought.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.stopping.certify import sample_pvalue
from triage.stats.stopping.simulate import Replay

CHUNK = 2000


@dataclass(frozen=True)
class CertifyOutcome:
    """Means over repeats of the certification-on-demand policy."""

    stopped_at_mean: float      # depth of the ranked pass when certification was asked for
    sample_mean: float          # certification labels bought
    recall_mean: float
    recall_min: float
    spend_mean: float
    net_value_mean: float | None
    target_met_share: float
    certified_share: float
    never_triggered_share: float


def first_rejection(found: int, remaining: int, sample_y: np.ndarray, target: float,
                    alpha: float) -> int | None:
    """Sample size at which the sequential test first rejects H0; None if it never does."""
    k = np.cumsum(sample_y)
    for lo in range(0, remaining, CHUNK):
        n = np.arange(lo + 1, min(lo + CHUNK, remaining) + 1)
        p = np.asarray(sample_pvalue(found, remaining, n, k[n - 1], target))
        hit = np.nonzero(p < alpha)[0]
        if hit.size:
            return int(n[hit[0]])
    return None


def certify_on_demand(rp: Replay, orders: np.ndarray, gold: np.ndarray, trigger: np.ndarray, *,
                      price: float, value_per_positive: float | None, budget: float | None,
                      target: float, confidence: float, seed: int) -> CertifyOutcome:
    """Run the policy per repeat on a :class:`~triage.stats.stopping.simulate.Replay`.

    ``trigger`` is repeats × checkpoints (when the lead asks for certification)."""
    gold = np.asarray(gold, bool)
    depth, spend, last = rp.depth, rp.spend, rp.last
    positives = int(gold.sum())
    rows = []
    for i in range(orders.shape[0]):
        hit = np.nonzero(trigger[i, : last[i] + 1])[0]
        t = int(hit[0]) if hit.size else int(last[i])
        d = int(depth[t])
        seen = np.zeros(gold.size, bool)
        seen[orders[i, :d]] = True
        seen[orders[i, rp.audit_positions[i, : rp.audit_drawn[t]]]] = True
        found = int(gold[seen].sum())
        rest = np.nonzero(~seen)[0]
        rng = np.random.default_rng([seed + i, 0xCE27])
        sample = gold[rng.permutation(rest)] if rest.size else np.zeros(0, bool)
        n = first_rejection(found, rest.size, sample, target, 1 - confidence) if rest.size else 0
        cap = rest.size if budget is None else max(int((budget - spend[i, t]) // price), 0)
        certified = n is not None and n <= cap
        n = min(n if n is not None else rest.size, cap)
        k = int(sample[:n].sum())
        cost = spend[i, t] + n * price
        rows.append((d, n, (found + k) / positives, cost, certified, bool(hit.size)))
    arr = np.array(rows, dtype=float)
    recall = arr[:, 2]
    net = None if value_per_positive is None else float(
        np.mean(value_per_positive * recall * positives - arr[:, 3]))
    return CertifyOutcome(float(arr[:, 0].mean()), float(arr[:, 1].mean()),
                          float(recall.mean()), float(recall.min()), float(arr[:, 3].mean()), net,
                          float(np.mean(recall >= target - 1e-12)), float(arr[:, 4].mean()),
                          float(1 - arr[:, 5].mean()))
