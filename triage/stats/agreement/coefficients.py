"""Percent agreement, Cohen's κ (per pair, optionally weighted), Fleiss' κ, Gwet's AC1.

Fleiss' κ and AC1 follow Gwet's generalisation to items with different numbers of
raters (as in irrCAC): observed agreement p_a averages over items with two or more
ratings; the category shares π_c average n_uc/m_u over every rated item. Seed 004 has
the 2×2 worked example for Cohen's κ (κ = 0.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.agreement.krippendorff import _pairs_within_groups, category_counts
from triage.stats.agreement.ratings import Coefficient, Ratings

# Why a coefficient is undefined: reason codes, worded by triage.views.agreement_words.
NO_RATINGS = "no_ratings"
NO_PAIRABLE = "no_pairable"
ONE_CATEGORY = "one_category"


@dataclass(frozen=True)
class PairKappa:
    """Cohen's κ for one annotator pair over the items both rated."""

    first: str
    second: str
    items: int
    kappa: Coefficient


def kappa_from_tables(tables: np.ndarray, weights: np.ndarray | None = None) -> list[Coefficient]:
    """Cohen's κ for each (C × C) contingency table in ``tables`` (shape (P, C, C)).

    ``weights`` is a disagreement weight matrix (0 on the diagonal); ``None`` = unweighted.
    κ_w = 1 - Σ w·observed / Σ w·expected, which is (p_o - p_e)/(1 - p_e) unweighted.
    """
    t = np.asarray(tables, dtype=float)
    if t.ndim == 2:
        t = t[None]
    c = t.shape[-1]
    w = 1.0 - np.eye(c) if weights is None else np.asarray(weights, dtype=float)
    n = t.sum(axis=(1, 2))
    safe_n = np.where(n > 0, n, 1.0)
    observed = (t * w).sum(axis=(1, 2)) / safe_n
    rows, cols = t.sum(axis=2) / safe_n[:, None], t.sum(axis=1) / safe_n[:, None]
    expected = np.einsum("pc,ck,pk->p", rows, w, cols)
    out = []
    for ni, o, e in zip(n, observed, expected):
        if ni == 0:
            out.append(Coefficient.undefined("pair_no_common_item"))
        elif e <= 1e-15:
            out.append(Coefficient.undefined(ONE_CATEGORY))
        else:
            out.append(Coefficient.of(1.0 - o / e))
    return out


def kappa_weights(positions: np.ndarray, kind: str | None) -> np.ndarray | None:
    """Disagreement weights |p_i - p_j| (linear) or (p_i - p_j)² (quadratic); None = unweighted."""
    if kind in (None, "none"):
        return None
    d = np.abs(np.asarray(positions, dtype=float)[:, None] - np.asarray(positions, dtype=float))
    if kind == "linear":
        return d
    if kind == "quadratic":
        return d * d
    raise ValueError(f"unknown kappa weighting {kind!r}")


def rating_pairs(ratings: Ratings) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j) of every two ratings of one item, oriented so annotator[i] < annotator[j]."""
    order = np.argsort(ratings.item, kind="stable")
    first, second = _pairs_within_groups(ratings.item[order])
    i, j = order[first], order[second]
    swap = ratings.annotator[i] > ratings.annotator[j]
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    return i, j


def cohen_pairs(ratings: Ratings, weights: str | None = None) -> list[PairKappa]:
    """Cohen's κ for every annotator pair with at least one item in common."""
    i, j = rating_pairs(ratings)
    if i.size == 0:
        return []
    c = ratings.n_categories
    a = ratings.n_annotators
    pair_key = ratings.annotator[i] * a + ratings.annotator[j]
    keys, pair_index = np.unique(pair_key, return_inverse=True)
    cells = pair_index * c * c + ratings.code[i] * c + ratings.code[j]
    tables = np.bincount(cells, minlength=keys.size * c * c).reshape(keys.size, c, c)
    w = kappa_weights(ratings.values if weights else np.arange(c), weights)
    kappas = kappa_from_tables(tables, w)
    names = ratings.annotator_names
    return [
        PairKappa(names[k // a], names[k % a], int(tables[p].sum()), kappas[p])
        for p, k in enumerate(keys)
    ]


def mean_kappa(pairs: list[PairKappa]) -> Coefficient:
    """The mean of the defined pairwise κ values (Light's κ)."""
    vals = [p.kappa.value for p in pairs if p.kappa.value is not None]
    if not pairs:
        return Coefficient.undefined("no_common_item")
    if not vals:
        return Coefficient.undefined("every_pair_undefined")  # the words name the first pair
    return Coefficient.of(float(np.mean(vals)))


def counts_table(ratings: Ratings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nonzero (item, category, count) triples of the ratings."""
    return category_counts(ratings.item, ratings.code, ratings.n_categories)


def _chance_terms(
    u: np.ndarray, c: np.ndarray, n: np.ndarray, n_categories: int
) -> tuple[float, np.ndarray] | str:
    """p_a (over items with ≥ 2 ratings) and π_c (over rated items), or the reason for none."""
    n = np.asarray(n, dtype=float)
    if n.size == 0 or n.sum() == 0:
        return NO_RATINGS
    _, u = np.unique(u, return_inverse=True)
    m = np.bincount(u, weights=n)
    agree = np.bincount(u, weights=n * (n - 1), minlength=m.size)
    two = m >= 2
    pi = np.bincount(c, weights=n / m[u], minlength=n_categories) / np.count_nonzero(m > 0)
    if not two.any():
        return NO_PAIRABLE
    pa = float(np.mean(agree[two] / (m[two] * (m[two] - 1))))
    return pa, pi


def percent_agreement_counts(u: np.ndarray, c: np.ndarray, n: np.ndarray) -> Coefficient:
    """Share of agreeing rating pairs within an item, averaged over pairable items."""
    terms = _chance_terms(u, c, n, int(np.max(c, initial=0)) + 1)
    return Coefficient.undefined(terms) if isinstance(terms, str) else Coefficient.of(terms[0])


def fleiss_counts(u: np.ndarray, c: np.ndarray, n: np.ndarray, n_categories: int) -> Coefficient:
    """Fleiss' κ (Gwet's generalisation) from (item, category, count) triples."""
    terms = _chance_terms(u, c, n, n_categories)
    if isinstance(terms, str):
        return Coefficient.undefined(terms)
    pa, pi = terms
    pe = float(np.sum(pi * pi))
    if pe >= 1 - 1e-15:
        return Coefficient.undefined(ONE_CATEGORY)
    return Coefficient.of((pa - pe) / (1 - pe))


def gwet_counts(u: np.ndarray, c: np.ndarray, n: np.ndarray, n_categories: int) -> Coefficient:
    """Gwet's AC1 with q = ``n_categories`` declared categories (unused ones count)."""
    if n_categories < 2:
        return Coefficient.undefined("ac1_one_category")
    terms = _chance_terms(u, c, n, n_categories)
    if isinstance(terms, str):
        return Coefficient.undefined(terms)
    pa, pi = terms
    pe = float(np.sum(pi * (1 - pi)) / (n_categories - 1))
    return Coefficient.of((pa - pe) / (1 - pe))


def randolph_counts(u: np.ndarray, c: np.ndarray, n: np.ndarray, n_categories: int) -> Coefficient:
    """Randolph's free-marginal κ: chance agreement 1/q."""
    if n_categories < 2:
        return Coefficient.undefined("free_kappa_one_category")
    terms = _chance_terms(u, c, n, n_categories)
    if isinstance(terms, str):
        return Coefficient.undefined(terms)
    pa = terms[0]
    return Coefficient.of((pa - 1 / n_categories) / (1 - 1 / n_categories))


def from_subject_counts(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item, category, count) triples from an items × categories count table."""
    t = np.asarray(table, dtype=float)
    if t.size == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e, np.zeros(0)
    u, c = np.nonzero(t)
    return u, c, t[u, c]


def percent_agreement(ratings: Ratings) -> Coefficient:
    """Pairwise percent agreement over pairable items."""
    return percent_agreement_counts(*counts_table(ratings))


def fleiss_kappa(ratings: Ratings) -> Coefficient:
    """Fleiss' κ over items with any number of raters."""
    return fleiss_counts(*counts_table(ratings), ratings.n_categories)


def gwet_ac1(ratings: Ratings) -> Coefficient:
    """Gwet's AC1 over the declared category set."""
    return gwet_counts(*counts_table(ratings), ratings.n_categories)
