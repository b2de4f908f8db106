"""Offline gain analysis of one model's ranking against known gold labels (seed 000).

Gain of decile d = positives in d / all positives; cumulative gain is the running sum;
lift = gain / share of the pool in the decile. Money follows two stated conventions:

* **whole deciles** (the paper's): every decile costs ``price × N / 10``, whatever the
  integer number of candidates it holds; "cost to all positives" buys whole deciles.
* **per candidate**: a budget buys ``floor(budget / price)`` candidates from the top; the
  cost to the last positive is ``rank × price``.

With tied scores every figure is an expected value under a random order of tied items.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from triage.stats.gain.ranking import (
    DECILES,
    Ranking,
    decile_of_rank,
    decile_sizes,
    expected_last_positive_rank,
    last_positive_distribution,
    rank_pool,
)

# A budget of 16 at 0.04 a candidate is 399.99999999999994 in binary floating point; the
# user means 400. Relative slack this small cannot buy a candidate anyone paid for.
_AFFORD_SLACK = 1e-9
# An expected decile count this close to a whole number is reported as that number.
_WHOLE_TOL = 1e-9

# Why gain is undefined, as a code (worded by triage.views.gain_words): no positive gold label.
NO_POSITIVES = "no_positives"


@dataclass(frozen=True)
class DecileRow:
    """One decile of the ranking. ``positives`` is an expected count (fractional with ties)."""

    decile: int
    items: int
    positives: float
    gain: float | None  # None when there are no positives at all
    cumulative_gain: float | None
    lift: float | None  # None for an empty decile (N < 10) or when gain is undefined
    cost: float  # per-candidate convention: price × items in this decile
    marginal_cost_per_positive: float | None  # cost / positives; None when 0 positives


@dataclass(frozen=True)
class ModelGain:
    """Gain, cumulative gain and costs of one model's ranking."""

    pool: int
    positives: int
    cost_per_item: float
    budget: float | None
    deciles: tuple[DecileRow, ...]
    cost_per_decile_whole: float  # paper convention: price × N / 10
    deciles_to_all_positives: float | None  # expected; a whole number without ties
    candidates_to_all_positives_whole_deciles: float | None  # items in those deciles
    cost_to_all_positives_whole_deciles: float | None
    rank_of_last_positive: float | None  # expected value under random tie order
    cost_to_last_positive: float | None  # rank_of_last_positive × price
    candidates_within_budget: int | None  # floor(budget / price), at most N
    positives_within_budget: float | None  # expected positives in those candidates
    deciles_within_budget: int | None  # floor(budget / (price × N / 10)), at most 10
    positives_within_budget_whole_deciles: float | None
    tied_items: int
    tie_groups: int
    undefined_reason: str | None  # why gain figures are None, as a code; None when defined

    def cumulative_positives(self, deciles: int) -> float:
        """Expected positives found after annotating the first ``deciles`` deciles."""
        return float(sum(row.positives for row in self.deciles[:deciles]))


def affordable(budget: float, unit_price: float, limit: int) -> int:
    """Whole units a budget buys (``floor``), capped at ``limit``; a free unit is unlimited."""
    if budget < 0:
        raise ValueError("budget must not be negative")
    if unit_price <= 0:
        return limit
    units = math.floor(budget / unit_price * (1.0 + _AFFORD_SLACK))
    return int(min(max(units, 0), limit))


def _decile_rows(
    ranking: Ranking, total: int, price: float, bins: int
) -> tuple[tuple[DecileRow, ...], np.ndarray]:
    n = ranking.pool
    sizes = decile_sizes(n, bins)
    found: np.ndarray
    if n:
        deciles = decile_of_rank(np.arange(1, n + 1), n, bins)
        found = np.bincount(deciles - 1, weights=ranking.expected_positive, minlength=bins)
    else:
        found = np.zeros(bins)
    cumulative = np.cumsum(found)
    rows = []
    for d in range(bins):
        items = int(sizes[d])
        positives = float(found[d])
        cost = float(price) * items
        gain: float | None = None
        cum: float | None = None
        lift: float | None = None
        if total:
            gain = positives / total
            cum = float(cumulative[d]) / total
            lift = gain / (items / n) if items else None
        marginal = cost / positives if positives > 0 else None
        rows.append(DecileRow(d + 1, items, positives, gain, cum, lift, cost, marginal))
    return tuple(rows), cumulative


def _deciles_to_all(ranking: Ranking, bins: int) -> tuple[float, float]:
    """Expected (deciles, candidates in them) needed to hold every positive.

    The decile of the last positive, averaged over the random order of its tie group; a
    whole number when that group is a single item.
    """
    distribution = last_positive_distribution(ranking)
    if distribution is None:
        raise ValueError("the ranking holds no positive")
    ranks, prob = distribution
    n = ranking.pool
    deciles = decile_of_rank(ranks, n, bins)
    cum_items = np.cumsum(decile_sizes(n, bins))
    expected = float(prob @ deciles)
    candidates = float(prob @ cum_items[deciles - 1])
    if abs(expected - round(expected)) < _WHOLE_TOL:
        # Certain (up to rounding) to end in one decile: report it as a whole number.
        whole = int(round(expected))
        return whole, float(cum_items[whole - 1])
    return expected, candidates


def _reach(ranking: Ranking, bins: int, per_decile: float, price: float
           ) -> tuple[float, float, float, float, float]:
    """Deciles, candidates and cost (whole deciles) to every positive; rank and cost of the last.

    Only for a ranking that holds a positive.
    """
    to_all, cand_all = _deciles_to_all(ranking, bins)
    last_rank = expected_last_positive_rank(ranking)
    if last_rank is None:
        raise ValueError("the ranking holds no positive")
    return to_all, cand_all, to_all * per_decile, last_rank, last_rank * price


def analyse_model(
    scores: np.ndarray,
    positive: np.ndarray,
    *,
    cost_per_item: float,
    budget: float | None = None,
    bins: int = DECILES,
    order: np.ndarray | None = None,
) -> ModelGain:
    """Gain table and budget figures for one model (``bins=len(scores)``: one row per item).

    ``order``: item indices in descending score order, if known (see :func:`rank_pool`)."""
    if not (math.isfinite(cost_per_item) and cost_per_item >= 0):
        raise ValueError("cost per item must be a finite number >= 0")
    if budget is not None and not (math.isfinite(budget) and budget >= 0):
        raise ValueError("budget must be a finite number >= 0")
    ranking = rank_pool(scores, positive, order)
    n = ranking.pool
    total = int(ranking.group_positives.sum())
    rows, cumulative = _decile_rows(ranking, total, cost_per_item, bins)
    per_decile = cost_per_item * n / bins

    reason = None if total else NO_POSITIVES
    reach: tuple[float | None, ...] = (None,) * 5
    if total:
        reach = _reach(ranking, bins, per_decile, cost_per_item)
    to_all, cand_all, cost_to_all, last_rank, cost_last = reach

    cand = pos_budget = dec_budget = pos_budget_dec = None
    if budget is not None:
        cand = affordable(budget, cost_per_item, n)
        pos_budget = float(ranking.expected_positive[:cand].sum())
        dec_budget = affordable(budget, per_decile, bins)
        pos_budget_dec = float(cumulative[dec_budget - 1]) if dec_budget else 0.0

    return ModelGain(
        pool=n,
        positives=total,
        cost_per_item=float(cost_per_item),
        budget=None if budget is None else float(budget),
        deciles=rows,
        cost_per_decile_whole=per_decile,
        deciles_to_all_positives=to_all,
        candidates_to_all_positives_whole_deciles=cand_all,
        cost_to_all_positives_whole_deciles=cost_to_all,
        rank_of_last_positive=last_rank,
        cost_to_last_positive=cost_last,
        candidates_within_budget=cand,
        positives_within_budget=pos_budget,
        deciles_within_budget=dec_budget,
        positives_within_budget_whole_deciles=pos_budget_dec,
        tied_items=ranking.tied_items,
        tie_groups=ranking.tie_groups,
        undefined_reason=reason,
    )
