"""Property tests: our coefficients against reference libraries on random data.

Oracles (test-only): ``krippendorff.alpha`` (all four levels, missing values),
``sklearn.metrics.cohen_kappa_score`` (unweighted, linear, quadratic) and
``statsmodels.stats.inter_rater.fleiss_kappa`` (every item rated by the same number of
raters, which is what it assumes).
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from triage.stats.agreement.coefficients import cohen_pairs, fleiss_counts, from_subject_counts
from triage.stats.agreement.krippendorff import alpha_arrays, alpha_from_matrix
from triage.stats.agreement.ratings import encode

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def reliability_data(draw):
    """(raters × items matrix of category indices with NaN, number of categories)."""
    raters = draw(st.integers(2, 5))
    items = draw(st.integers(1, 12))
    cats = draw(st.integers(2, 5))
    cells = draw(st.lists(st.one_of(st.none(), st.integers(0, cats - 1)),
                          min_size=raters * items, max_size=raters * items))
    data = np.array([np.nan if c is None else c for c in cells], dtype=float)
    return data.reshape(raters, items), cats


def _theirs(data, level, domain):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(krippendorff.alpha(data, level_of_measurement=level,
                                            value_domain=domain))
        except ValueError:
            return float("nan")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@SETTINGS
@given(case=reliability_data(), values=st.lists(st.integers(0, 30), min_size=5, max_size=5,
                                                unique=True))
def test_alpha_matches_krippendorff_package(level, case, values):
    data, cats = case
    domain = np.sort(np.array(values[:cats], dtype=float))
    rater, item = np.nonzero(~np.isnan(data))
    code = data[rater, item].astype(np.int64)
    theirs = _theirs(np.where(np.isnan(data), np.nan, domain[np.nan_to_num(data).astype(int)]),
                     level, domain)
    ours = alpha_arrays(item, code, cats, level, domain)
    if ours.value is None:
        assert ours.reason
        assert not np.isfinite(theirs)
    else:
        assert np.isfinite(theirs)
        assert ours.value == pytest.approx(theirs, abs=1e-9)
    if level == "nominal":
        wide = alpha_from_matrix(data, cats)
        assert (wide.value is None) == (ours.value is None)
        if ours.value is not None:
            assert wide.value == pytest.approx(ours.value, abs=1e-12)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@SETTINGS
@given(st.integers(2, 5).flatmap(lambda k: st.tuples(
    st.just(k),
    st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1, max_size=40),
)))
def test_cohen_matches_sklearn(weights, case):
    k, pairs = case
    y1 = [a for a, _ in pairs]
    y2 = [b for _, b in pairs]
    cats = [str(i) for i in range(k)]
    n = len(pairs)
    ratings = encode(list(range(n)) * 2, ["A"] * n + ["B"] * n,
                     [str(v) for v in y1 + y2], level="ordinal", categories=cats)
    (pair,) = cohen_pairs(ratings, weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = cohen_kappa_score(y1, y2, labels=list(range(k)), weights=weights)
    assert pair.items == n
    if pair.kappa.value is None:
        assert not np.isfinite(theirs)
    else:
        assert pair.kappa.value == pytest.approx(theirs, abs=1e-9)


@SETTINGS
@given(st.integers(2, 6).flatmap(lambda raters: st.integers(2, 4).flatmap(
    lambda cats: st.lists(
        st.lists(st.integers(0, cats - 1), min_size=raters, max_size=raters),
        min_size=1, max_size=15,
    ).map(lambda rows: (rows, cats)))))
def test_fleiss_matches_statsmodels_with_equal_raters(case):
    rows, cats = case
    table = np.array([np.bincount(r, minlength=cats) for r in rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sm_fleiss(table, method="fleiss")
    ours = fleiss_counts(*from_subject_counts(table), cats)
    if ours.value is None:
        assert not np.isfinite(theirs)
    else:
        assert ours.value == pytest.approx(theirs, abs=1e-9)
    # The same numbers through the long-form path.
    items = [i for i, r in enumerate(rows) for _ in r]
    anns = [j for r in rows for j in range(len(r))]
    labels = [str(v) for r in rows for v in r]
    from triage.stats.agreement.coefficients import fleiss_kappa

    long = fleiss_kappa(encode(items, anns, labels, categories=[str(c) for c in range(cats)]))
    assert long.value == ours.value or long.value == pytest.approx(ours.value, abs=1e-12)
