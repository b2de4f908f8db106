"""Certifying recall with the hypergeometric test of Callaghan & Müller-Hansen (2020).

**Random certification sample.** ``found`` positives are known before the sample; the
unlabelled remainder holds ``remaining`` items; a uniform random sample of ``n`` of them
(drawn without replacement, labelled in a random order) holds ``k`` positives. H0 is
"recall < target". With r_seen = found + k, the least favourable H0 puts

    K = ⌊r_seen / target⌋ + 1 − found

positives in the remainder, and p = P(X ≤ k), X ~ Hypergeometric(remaining, K, n). The
sample stops as soon as p < 1 − confidence (as in their paper). K > remaining makes H0
impossible (p = 0).

**Ranked urns (no extra labels).** Their test also runs on the last documents screened in
ranked order: for every urn of the last j screened items (k_j positives), the population is
the urn plus the unscreened items, K_j = ⌊r_seen / target⌋ + 1 − (r_seen − k_j), and
p_j = P(X ≤ k_j). The reported p-value is the **minimum over urns**, as in buscarpy. Treating
the urn as a random sample is valid only when the ranking beats random order there (the last
screened items are at least as rich in positives as the rest would be); the minimum over
many urns is not corrected for multiple looks. Offer it beside the random-sample test,
labelled with that assumption.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from triage.stats.distributions import binom_sf, hypergeom_cdf


def k_least_favourable(found: ArrayLike, sample_k: ArrayLike, target: float) -> np.ndarray:
    """K = ⌊(found + k) / target⌋ + 1 − found: remaining positives under the edge of H0."""
    r_seen = np.asarray(found, dtype=np.int64) + np.asarray(sample_k, dtype=np.int64)
    return (np.floor(r_seen / target + 1e-12) + 1 - np.asarray(found)).astype(np.int64)


def sample_pvalue(found: ArrayLike, remaining: ArrayLike, sample_n: ArrayLike,
                  sample_k: ArrayLike, target: float) -> Any:
    """p-value of H0 "recall < target" from a random sample of the remainder (broadcasts)."""
    remaining = np.asarray(remaining, dtype=np.int64)
    n = np.asarray(sample_n, dtype=np.int64)
    k = np.asarray(sample_k, dtype=np.int64)
    big_k = k_least_favourable(found, k, target)
    impossible = big_k > remaining
    safe_pop = np.maximum(remaining, 1)
    p = hypergeom_cdf(k, safe_pop, np.minimum(big_k, safe_pop), np.minimum(n, safe_pop))
    p = np.where(impossible, 0.0, np.where(n <= 0, 1.0, p))
    out = np.clip(np.nan_to_num(p, nan=1.0), 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def ranked_urn_pvalue(labels_in_order: np.ndarray, unscreened: int, target: float) -> float:
    """Minimum over urns of the last screened items (buscarpy's ``calculate_h0``)."""
    y = np.asarray(labels_in_order, dtype=np.int64)
    if y.size == 0:
        return 1.0
    r_seen = int(y.sum())
    urn_k = np.cumsum(y[::-1])
    sizes = np.arange(1, y.size + 1)
    big_k = np.floor(r_seen / target + 1e-12).astype(np.int64) + 1 - (r_seen - urn_k)
    population = unscreened + sizes
    impossible = big_k > population
    p = hypergeom_cdf(urn_k, population, np.minimum(big_k, population), sizes)
    p = np.where(impossible, 0.0, np.nan_to_num(p, nan=1.0))
    return float(np.clip(p.min(), 0.0, 1.0))


@dataclass(frozen=True)
class SamplePlan:
    """How many random labels of the remainder a certification needs, if recall is as
    estimated; ``items`` is None when it cannot succeed (``reason``: ``below_target``)."""

    items: int | None
    expected_positives: float
    reason: str          # nothing_left | below_target | at_estimated_rate
    rate: float = 0.0    # the estimated rate of positives in the remainder


def plan_sample(found: int, remaining: int, expected_remaining: float, target: float,
                confidence: float) -> SamplePlan:
    """Smallest n at which the test rejects H0 if the sample finds the expected share.

    The sample is assumed to find positives at the estimated rate of the remainder
    (``expected_remaining / remaining``); n is the first size where p < 1 − confidence with
    k = round(n × rate). None when even labelling the whole remainder would not do (the
    estimated recall is below the target).
    """
    alpha = 1 - confidence
    if remaining <= 0:
        return SamplePlan(0, 0.0, "nothing_left")
    rate = min(max(expected_remaining, 0.0) / remaining, 1.0)
    items = _first_rejecting(found, remaining, rate, target, alpha)
    if items is None:
        return SamplePlan(None, expected_remaining, "below_target", rate)
    return SamplePlan(items, items * rate, "at_estimated_rate", rate)


# Planning: blocks of sizes are split FAN ways until SCAN or fewer, which are tested one by
# one; a block is skipped when even its floor clears alpha by MARGIN, far above rounding.
FAN, SCAN, MARGIN = 16, 256, 1e-9


def _first_rejecting(found: int, remaining: int, rate: float, target: float,
                     alpha: float) -> int | None:
    """The smallest n in 1..remaining with p(n, round(n × rate)) < alpha, or None.

    p falls as n grows with k fixed, rises with k and falls as K grows, so no size in a
    block lo..hi has a p below P(X ≤ k(lo) | remaining, K(k(hi)), hi) (:func:`_floors`).
    Blocks whose floor clears alpha are skipped whole, the others split, in order: the
    same n as testing every size, from a few hundred CDFs instead of up to a million.
    """
    def first(lo: int, hi: int) -> int | None:
        if hi - lo < SCAN:
            n = np.arange(lo, hi + 1)
            k = np.floor(n * rate + 0.5).astype(np.int64)
            ok = np.nonzero(np.asarray(sample_pvalue(found, remaining, n, k, target)) < alpha)[0]
            return int(n[ok[0]]) if ok.size else None
        edges = np.unique(np.linspace(lo, hi + 1, FAN + 1).astype(np.int64))
        floors = _floors(found, remaining, edges[:-1], edges[1:] - 1, rate, target)
        for a, b, floor in zip(edges[:-1].tolist(), (edges[1:] - 1).tolist(), floors.tolist()):
            if floor < alpha + MARGIN and (got := first(a, b)) is not None:
                return got
        return None

    return first(1, remaining) if remaining >= 1 else None


def _floors(found: int, remaining: int, lo: np.ndarray, hi: np.ndarray, rate: float,
            target: float) -> np.ndarray:
    """A lower bound of p over each block of sample sizes lo..hi (0 when H0 may be impossible)."""
    k_lo = np.floor(lo * rate + 0.5).astype(np.int64)
    big_k = k_least_favourable(found, np.floor(hi * rate + 0.5).astype(np.int64), target)
    p = np.asarray(hypergeom_cdf(k_lo, remaining, np.minimum(big_k, remaining), hi), dtype=float)
    return np.where(big_k > remaining, 0.0, np.nan_to_num(p, nan=0.0))


def audit_positives_needed(target: float, confidence: float, recall_guess: float) -> int | None:
    """Audit positives QBCB needs to certify ``target`` if recall is really ``recall_guess``.

    The smallest r whose required count j fits within r × recall_guess; None when never."""
    if recall_guess <= target or target >= 1:
        return None
    for r in range(1, 2000):
        j = np.arange(1, r + 1)
        tail = binom_sf(j - 1, r, target)
        ok = np.nonzero(tail <= 1 - confidence)[0]
        if ok.size and int(j[ok[0]]) <= math.floor(r * recall_guess):
            return r
    return None
