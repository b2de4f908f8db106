"""Ranking a pool by score, with ties resolved by expectation rather than input order.

Items that share a score have no order between them. Instead of letting the input order
decide (which would make a model look better or worse by accident of file layout), every
figure is the expected value under a uniformly random order within each tie group: each
rank of a group of ``m`` items holding ``p`` positives carries ``p / m`` expected positives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from triage.stats.common import DECILES as DECILES
from triage.stats.common import decile_of_rank as decile_of_rank
from triage.stats.common import decile_sizes as decile_sizes


@dataclass(frozen=True)
class Ranking:
    """A pool ranked by descending score, grouped into tie groups.

    ``order`` lists item indices in rank order (within a tie group the input order is kept,
    for display only: no figure depends on it). Group arrays are in rank order too.
    """

    order: np.ndarray  # int: item index at each 0-based rank
    expected_positive: np.ndarray  # float: expected positives carried by each rank
    group_start: np.ndarray  # int: 1-based first rank of each tie group
    group_size: np.ndarray  # int: items in each tie group
    group_positives: np.ndarray  # int: positives in each tie group

    @property
    def pool(self) -> int:
        """Number of ranked items."""
        return int(self.order.size)

    @property
    def tied_items(self) -> int:
        """Items sharing their score with at least one other item."""
        return int(self.group_size[self.group_size > 1].sum())

    @property
    def tie_groups(self) -> int:
        """Groups of two or more items sharing a score."""
        return int((self.group_size > 1).sum())


def rank_pool(scores: np.ndarray, positive: np.ndarray, order: np.ndarray | None = None
              ) -> Ranking:
    """Rank items by descending score and spread each tie group's positives evenly.

    ``order``: the item indices already in descending score order when the caller has them
    (a project stores each model's ranking, its ties in a seeded order). It is checked, not
    trusted: unless it is a permutation in descending score order the pool is sorted here.
    No figure depends on the order inside a tie group, so both give the same numbers.
    """
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    if scores.ndim != 1 or scores.shape != positive.shape:
        raise ValueError("scores and positive must be 1-D arrays of the same length")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite numbers")
    n = scores.size
    checked = _checked_order(scores, order) if order is not None else None
    if checked is None:
        order = descending_order(scores)
        checked = order, scores[order]
    order, ranked = checked
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = ranked[1:] != ranked[:-1]
    group_id = np.cumsum(new_group) - 1
    group_start = np.flatnonzero(new_group) + 1
    group_size = np.bincount(group_id, minlength=group_start.size)
    group_pos = np.bincount(group_id, weights=positive[order], minlength=group_start.size)
    group_pos = np.rint(group_pos).astype(np.int64)
    if n:
        expected = (group_pos / group_size)[group_id]
    else:
        expected = np.zeros(0)
    return Ranking(order, expected, group_start, group_size, group_pos)


def _checked_order(scores: np.ndarray, order: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(order, scores[order])`` when ``order`` ranks every item once by descending score."""
    order = np.asarray(order)
    if order.shape != scores.shape or (order.size and order.dtype.kind not in "iu"):
        return None
    if order.size and (order.min() < 0 or order.max() >= scores.size):
        return None
    seen = np.zeros(scores.size, dtype=bool)
    seen[order] = True
    ranked = scores[order]
    if not seen.all() or np.any(ranked[1:] > ranked[:-1]):
        return None
    return order.astype(np.int64, copy=False), ranked


def descending_order(scores: np.ndarray) -> np.ndarray:
    """Indices by descending score, input order kept inside a tie group.

    The same as ``np.argsort(-scores, kind="stable")``, in a third of the time on a large
    pool: numpy's default sort (vectorised on x86) orders the scores, then only the tied
    items are put back in input order.
    """
    order = np.argsort(-scores)
    ranked = scores[order]
    same = ranked[1:] == ranked[:-1]
    if same.any():
        tied = np.zeros(order.size, dtype=bool)
        tied[1:] = same
        tied[:-1] |= same
        at = np.flatnonzero(tied)
        group = np.cumsum(np.r_[True, ~same])[at]
        items = order[at]
        order[at] = items[np.lexsort((items, group))]
    return order


def last_positive_distribution(ranking: Ranking) -> tuple[np.ndarray, np.ndarray] | None:
    """Ranks the last positive can take and their probabilities; ``None`` without positives.

    Within the last tie group holding positives (first rank ``a``, ``m`` items, ``p``
    positives), the p positives take p of the m slots uniformly at random, so the highest
    slot is j with probability C(j-1, p-1) / C(m, p), j = p..m.
    """
    holding = np.flatnonzero(ranking.group_positives > 0)
    if holding.size == 0:
        return None
    g = holding[-1]
    a, m, p = (int(x[g]) for x in (ranking.group_start, ranking.group_size,
                                    ranking.group_positives))
    j = np.arange(p, m + 1)
    # log C(j-1, p-1) up to a constant; math.lgamma rather than scipy's gammaln, whose
    # import (scipy.special's start-up) the gain report would otherwise pay.
    lgamma = np.frompyfunc(math.lgamma, 1, 1)
    log_w = np.asarray(lgamma(j) - lgamma(j - p + 1), dtype=np.float64)
    w = np.exp(log_w - log_w.max())
    return a - 1 + j, w / w.sum()


def expected_last_positive_rank(ranking: Ranking) -> float | None:
    """Expected rank of the last positive; ``None`` when there is no positive.

    Within the last tie group holding positives (first rank ``a``, ``m`` items, ``p``
    positives), the p positives fall on p of the m slots uniformly at random and the
    expected maximum slot is ``(m + 1) p / (p + 1)``; the rank is ``a - 1`` plus that.
    """
    holding = np.flatnonzero(ranking.group_positives > 0)
    if holding.size == 0:
        return None
    g = holding[-1]
    a = float(ranking.group_start[g])
    m = float(ranking.group_size[g])
    p = float(ranking.group_positives[g])
    return a - 1.0 + (m + 1.0) * p / (p + 1.0)
