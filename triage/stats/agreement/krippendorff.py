"""Krippendorff's α from the coincidence matrix (seed 002), all four levels.

Each pairable item (two or more ratings) contributes a row of *linear* statistics, so
α for any multiset of items (the whole set, or a bootstrap resample) is a function of
the weighted column sums of one matrix (dense, or sparse when wide):

- nominal: the item's category counts n_uc, its number of values m_u, and its diagonal
  coincidences Σ_c n_uc(n_uc-1)/(m_u-1);
- interval: m_u, Σ values, Σ values², and the item's observed disagreement;
- ordinal and ratio: the item's whole coincidence matrix, flattened (the ordinal metric
  depends on the marginals, so it is evaluated after summing).

Items with one rating are not pairable and drop out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from triage.stats.agreement.ratings import LEVELS, Coefficient, Ratings

if TYPE_CHECKING:
    from scipy import sparse

# Cells up to which the item statistics are a dense array (32 MB of float64).
DENSE_CELLS = 4_000_000

NO_PAIRABLE = "alpha_no_pairable"  # reason codes, worded by triage.views.agreement_words
NO_RATINGS = "no_ratings"
NO_VARIATION = "alpha_no_variation"
# Relative size below which an expected disagreement counts as zero (rounding noise).
_EPS = 1e-12
RELIABLE, TENTATIVE = 0.800, 0.667


def reading(alpha: Coefficient) -> str:
    """Krippendorff's bands: reliable ≥ 0.800, tentative ≥ 0.667, unreliable below."""
    if alpha.value is None:
        return "undefined"
    if alpha.value >= RELIABLE:
        return "reliable"
    if alpha.value >= TENTATIVE:
        return "tentative"
    return "unreliable"


def category_counts(
    item: np.ndarray, code: np.ndarray, n_categories: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nonzero (item, category, count) triples, sorted by item then category."""
    item = np.asarray(item, dtype=np.int64)
    code = np.asarray(code, dtype=np.int64)
    c = max(int(n_categories), 1)
    if item.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    key = item * c + code
    span = int(key.max()) + 1
    if span <= 4 * key.size + 1_000_000:
        dense = np.bincount(key, minlength=span)
        nz = np.flatnonzero(dense)
        counts = dense[nz]
    else:  # sparse keys: sorting beats a huge mostly-empty count array
        nz, counts = np.unique(key, return_counts=True)
    return nz // c, nz % c, counts.astype(np.int64)


def item_statistics(
    item: np.ndarray, code: np.ndarray, n_categories: int, level: str, values: np.ndarray
) -> np.ndarray | sparse.csr_matrix:
    """The (pairable items × statistics) matrix described in the module docstring.

    Dense while it is small (nominal and interval data have a handful of columns), sparse
    beyond :data:`DENSE_CELLS` (ordinal/ratio data with many categories)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    u, c, n = category_counts(item, code, n_categories)
    n_cat = max(int(n_categories), 1)
    m = np.bincount(u, weights=n) if u.size else np.zeros(0)
    pairable_items = np.flatnonzero(m >= 2)
    row_of = np.full(m.size, -1, dtype=np.int64)
    row_of[pairable_items] = np.arange(pairable_items.size)
    keep = row_of[u] >= 0 if u.size else np.zeros(0, dtype=bool)
    u, c, n = row_of[u[keep]], c[keep], n[keep].astype(float)
    mp = m[pairable_items]
    w = 1.0 / (mp - 1.0)
    rows = pairable_items.size
    idx = np.arange(rows)
    if level == "nominal":
        diag = np.bincount(u, weights=n * (n - 1), minlength=rows) * w
        r = np.concatenate([u, idx, idx])
        k = np.concatenate([c, np.full(rows, n_cat), np.full(rows, n_cat + 1)])
        data = np.concatenate([n, mp, diag])
        shape = (rows, n_cat + 2)
    elif level == "interval":
        v = _centred(values, c, n)
        s1 = np.bincount(u, weights=n * v, minlength=rows)
        s2 = np.bincount(u, weights=n * v * v, minlength=rows)
        # Σ_c Σ_k n_c n_k (v_c - v_k)² = 2 (m Σv² - (Σv)²), per item.
        obs = 2.0 * (mp * s2 - s1 * s1) * w
        r = np.tile(idx, 4)
        k = np.repeat(np.arange(4), rows)
        data = np.concatenate([mp, s1, s2, obs])
        shape = (rows, 4)
    else:
        # Pairs of (item, c, k) within an item: nonzero counts are sorted by item.
        first, second = _pairs_within_groups(u)
        diag = np.arange(u.size)
        a = np.concatenate([first, second, diag])
        b = np.concatenate([second, first, diag])
        data = n[a] * n[b]
        data[-u.size:] -= n  # the diagonal excludes pairing a value with itself
        data = data * w[u[a]]
        r, k = u[a], c[a] * n_cat + c[b]
        shape = (rows, n_cat * n_cat)
    return _matrix(data, r, k, shape)


def _matrix(data: np.ndarray, r: np.ndarray, k: np.ndarray, shape: tuple[int, int]
            ) -> np.ndarray | sparse.csr_matrix:
    """The matrix with ``data`` summed at (``r``, ``k``), dense when it is small.

    Dense arrays spare ``triage agree`` importing scipy.sparse (a large import) and
    multiply faster in the bootstrap."""
    rows, cols = shape
    if rows * cols <= DENSE_CELLS:
        at = np.asarray(r, np.int64) * cols + np.asarray(k, np.int64)
        return np.bincount(at, weights=data, minlength=rows * cols).reshape(shape)
    from scipy import sparse  # only for the wide matrices of many ordered categories

    return sparse.csr_matrix((data, (r, k)), shape=shape)


def _centred(values: np.ndarray, c: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Category values at the rated positions, shifted to mean 0 (fewer rounding errors)."""
    v = np.asarray(values, dtype=float)[c]
    if v.size:
        v = v - np.average(v, weights=n)
    return v


def _pairs_within_groups(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j), i < j, of elements with equal ``group`` (``group`` sorted)."""
    size = group.size
    if size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    ends = np.r_[starts[1:], size]
    end_of = np.repeat(ends, ends - starts)
    after = end_of - np.arange(size) - 1  # later elements in the same group
    first = np.repeat(np.arange(size), after)
    run_start = np.repeat(np.cumsum(after) - after, after)
    second = first + 1 + (np.arange(first.size) - run_start)
    return first, second


def alpha_from_totals(
    totals: np.ndarray, level: str, n_categories: int, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """α, n (pairable values) and expected disagreement for each row of summed statistics.

    Rows where α is undefined hold NaN (n < 2 or expected disagreement zero).
    """
    t = np.atleast_2d(np.asarray(totals, dtype=float))
    c = max(int(n_categories), 1)
    if level == "nominal":
        nc, n, diag = t[:, :c], t[:, c], t[:, c + 1]
        observed = n - diag
        expected_num = n * n - (nc * nc).sum(axis=1)
        scale = n * n
    elif level == "interval":
        n, s1, s2, obs = t[:, 0], t[:, 1], t[:, 2], t[:, 3]
        observed = obs
        expected_num = 2.0 * (n * s2 - s1 * s1)
        scale = 2.0 * n * s2
    else:
        o = t.reshape(-1, c, c)
        nc = o.sum(axis=2)
        n = nc.sum(axis=1)
        d2 = distance_squared(level, values, nc)
        observed = (o * d2).sum(axis=(1, 2))
        expected_num = np.einsum("bc,bck,bk->b", nc, d2, nc)
        scale = np.einsum("bc,bck,bk->b", nc, np.abs(d2), nc) + n * n
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = (n >= 2) & (expected_num > _EPS * np.maximum(scale, 1.0))
        alpha = np.where(ok, 1.0 - (n - 1.0) * observed / np.where(ok, expected_num, 1.0), np.nan)
        de = np.where(n >= 2, expected_num / np.maximum(n * (n - 1.0), 1.0), np.nan)
    return alpha, n, de


def distance_squared(level: str, values: np.ndarray, nc: np.ndarray) -> np.ndarray:
    """δ²(c, k) for the level; shape (B, C, C) from marginals ``nc`` of shape (B, C)."""
    nc = np.atleast_2d(nc)
    v = np.asarray(values, dtype=float)
    if level == "nominal":
        d = 1.0 - np.eye(nc.shape[1])
        return np.broadcast_to(d, (nc.shape[0], *d.shape))
    if level == "ordinal":
        # Σ_{g=c..k} n_g - (n_c + n_k)/2 = cum_k - cum_c + (n_c - n_k)/2, sign aside.
        cum = np.cumsum(nc, axis=1)
        d = cum[:, None, :] - cum[:, :, None] + (nc[:, :, None] - nc[:, None, :]) / 2.0
        return d * d
    diff = v[:, None] - v[None, :]
    if level == "interval":
        d = diff * diff
    else:
        total = v[:, None] + v[None, :]
        d = np.divide(diff, total, out=np.zeros_like(diff), where=total != 0) ** 2
    return np.broadcast_to(d, (nc.shape[0], *d.shape))


def alpha_arrays(
    item: np.ndarray, code: np.ndarray, n_categories: int, level: str = "nominal",
    values: np.ndarray | None = None,
) -> Coefficient:
    """Krippendorff's α over long-form arrays (one rating per item and annotator)."""
    vals = np.arange(n_categories, dtype=float) if values is None else values
    if level == "nominal":
        totals = _nominal_totals(np.asarray(item, np.int64), np.asarray(code, np.int64),
                                 n_categories)
    else:
        totals = np.asarray(
            item_statistics(item, code, n_categories, level, vals).sum(axis=0)
        ).ravel()
    if totals is None or not _has_pairable(totals, level, n_categories):
        return Coefficient.undefined(NO_PAIRABLE if len(code) else NO_RATINGS)
    alpha, _, _ = alpha_from_totals(totals, level, n_categories, vals)
    if np.isnan(alpha[0]):
        return Coefficient.undefined(NO_VARIATION)
    return Coefficient.of(alpha[0])


def _has_pairable(totals: np.ndarray, level: str, n_categories: int) -> bool:
    """Whether summed statistics contain any pairable value."""
    if level == "nominal":
        return totals[n_categories] > 0
    if level == "interval":
        return totals[0] > 0
    return totals.sum() > 0


def _nominal_totals(item: np.ndarray, code: np.ndarray, n_categories: int) -> np.ndarray | None:
    """Summed nominal statistics [n_c..., n, Σ o_cc] straight from the ratings.

    The batch fast path (no sparse matrix): with few categories the (item × category)
    count table is built densely with one bincount.
    """
    if item.size == 0:
        return None
    c = max(int(n_categories), 1)
    n_items = int(item.max()) + 1
    if n_items * c <= 4 * item.size + 1_000_000:
        # Category-major layout: per-item sums then run over contiguous rows.
        key = code * n_items
        key += item
        table = np.bincount(key, minlength=n_items * c).reshape(c, n_items)
        return nominal_totals_from_table(table)
    u, k, n = category_counts(item, code, c)
    m = np.bincount(u, weights=n)
    pair = m >= 2
    w = np.zeros(m.size)
    w[pair] = 1.0 / (m[pair] - 1)
    nc = np.bincount(k, weights=n * pair[u], minlength=c)
    return np.r_[nc, nc.sum(), float(np.sum(n * (n - 1) * w[u]))]


def nominal_totals_from_table(table: np.ndarray) -> np.ndarray:
    """Summed nominal statistics from a (categories × items) count table."""
    m = table.sum(axis=0)
    pair = m >= 2
    w = np.zeros(m.size)
    np.divide(1.0, m - 1, out=w, where=pair)
    nc = (table @ pair).astype(float)
    same = (table * (table - 1)).sum(axis=0)
    return np.r_[nc, nc.sum(), float(np.dot(same, w))]


def alpha_from_matrix(data: np.ndarray, n_categories: int) -> Coefficient:
    """Nominal α of a raters × items matrix of category codes 0..C-1 (NaN = missing).

    Builds the item × category counts with one comparison pass per category, which is
    faster than converting to long form when categories are few.
    """
    data = np.asarray(data, dtype=float)
    if data.size == 0:
        return Coefficient.undefined(NO_RATINGS)
    table = np.empty((n_categories, data.shape[1]), dtype=np.int64)
    for c in range(n_categories):
        np.sum(data == c, axis=0, out=table[c])
    totals = nominal_totals_from_table(table)
    if totals[n_categories] == 0:
        return Coefficient.undefined(NO_PAIRABLE if table.any() else NO_RATINGS)
    alpha = alpha_from_totals(totals, "nominal", n_categories, np.arange(n_categories))[0][0]
    return Coefficient.undefined(NO_VARIATION) if np.isnan(alpha) else Coefficient.of(alpha)


def krippendorff_alpha(ratings: Ratings, level: str = "nominal") -> Coefficient:
    """Krippendorff's α of coded ratings at a level of measurement."""
    return alpha_arrays(ratings.item, ratings.code, ratings.n_categories, level, ratings.values)


def coincidence_matrix(item: np.ndarray, code: np.ndarray, n_categories: int) -> np.ndarray:
    """The (C × C) coincidence matrix o_ck of pairable values (seed 002, step 1-4)."""
    stats = item_statistics(item, code, n_categories, "ordinal", np.arange(n_categories))
    return np.asarray(stats.sum(axis=0)).reshape(n_categories, n_categories)
