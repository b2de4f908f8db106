"""Bootstrap intervals, the incremental accumulator, breakdowns and test–retest."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from triage.stats.agreement.accumulator import AlphaAccumulator
from triage.stats.agreement.bootstrap import bootstrap
from triage.stats.agreement.breakdown import breakdown, retest_agreement, time_groups
from triage.stats.agreement.coefficients import cohen_pairs, percent_agreement
from triage.stats.agreement.krippendorff import alpha_arrays, krippendorff_alpha
from triage.stats.agreement.ratings import encode
from triage.views.agreement_words import reason_text


def _random_ratings(rng, items=200, raters=4, cats=3, missing=0.4, agree=0.7):
    truth = rng.integers(0, cats, items)
    item, ann, lab = [], [], []
    for u in range(items):
        for r in range(raters):
            if rng.random() < missing:
                continue
            v = truth[u] if rng.random() < agree else rng.integers(0, cats)
            item.append(u)
            ann.append(f"r{r}")
            lab.append(str(v))
    return item, ann, lab


# --- bootstrap -----------------------------------------------------------------------

def test_bootstrap_is_reproducible_and_brackets_the_estimate():
    rng = np.random.default_rng(3)
    r = encode(*_random_ratings(rng, items=400), categories=["0", "1", "2"])
    a = bootstrap(r, "nominal", resamples=400, seed=7)
    b = bootstrap(r, "nominal", resamples=400, seed=7)
    c = bootstrap(r, "nominal", resamples=400, seed=8)
    assert a == b and a != c
    alpha = krippendorff_alpha(r).value
    assert a.alpha.low < alpha < a.alpha.high
    assert 0.02 < a.alpha.high - a.alpha.low < 0.3
    assert a.alpha.resamples == a.alpha.defined == 400
    pa = percent_agreement(r).value
    assert a.percent_agreement.low < pa < a.percent_agreement.high


@pytest.mark.parametrize("level", ["ordinal", "interval", "ratio"])
def test_bootstrap_resample_equals_alpha_of_the_resampled_items(level, monkeypatch):
    # One resample, checked against α computed on explicitly duplicated items.
    rng = np.random.default_rng(5)
    items, anns, labs = _random_ratings(rng, items=30, cats=4)
    labs = [str(int(x) + 1) for x in labs]
    r = encode(items, anns, labs, level=level, categories=["1", "2", "3", "4"])
    res = bootstrap(r, level, resamples=1, seed=11)
    pair_items = np.flatnonzero(np.bincount(r.item) >= 2)
    draw = np.random.default_rng(11).integers(0, pair_items.size, size=(1, pair_items.size))[0]
    it, cd = [], []
    for k, idx in enumerate(draw):
        sel = r.item == pair_items[idx]
        it.append(np.full(sel.sum(), k))
        cd.append(r.code[sel])
    expected = alpha_arrays(np.concatenate(it), np.concatenate(cd), 4, level, r.values).value
    assert res.alpha.low == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_dense_and_sparse_item_statistics_give_the_same_alpha_and_intervals(level, monkeypatch):
    """Small matrices are dense (no scipy.sparse); wide ones sparse: the numbers agree."""
    import triage.stats.agreement.krippendorff as kr

    rng = np.random.default_rng(9)
    items, anns, labs = _random_ratings(rng, items=300, cats=4)
    r = encode(items, anns, [str(int(x) + 1) for x in labs], level=level,
               categories=["1", "2", "3", "4"])
    dense_stats = kr.item_statistics(r.item, r.code, r.n_categories, level, r.values)
    dense = (alpha_arrays(r.item, r.code, r.n_categories, level, r.values).value,
             bootstrap(r, level, resamples=200, seed=4))
    monkeypatch.setattr(kr, "DENSE_CELLS", 0)
    sparse_stats = kr.item_statistics(r.item, r.code, r.n_categories, level, r.values)
    sparse = (alpha_arrays(r.item, r.code, r.n_categories, level, r.values).value,
              bootstrap(r, level, resamples=200, seed=4))
    assert isinstance(dense_stats, np.ndarray) and not isinstance(sparse_stats, np.ndarray)
    np.testing.assert_allclose(dense_stats, sparse_stats.toarray(), rtol=0, atol=1e-12)
    assert dense[0] == pytest.approx(sparse[0], abs=1e-12)
    for name in ("alpha", "percent_agreement"):
        a, b = getattr(dense[1], name), getattr(sparse[1], name)
        assert (a.low, a.high, a.defined) == pytest.approx((b.low, b.high, b.defined), abs=1e-12)


def test_nominal_agreement_with_its_bootstrap_never_imports_scipy_sparse():
    """``triage agree`` on nominal labels pays nothing for scipy.sparse."""
    import subprocess
    import sys

    code = ("import sys; from triage.stats.agreement.report import agreement_report; "
            "agreement_report(['a','a','b','b','c','c'], ['x','y','x','y','x','y'], "
            "['1','1','0','1','0','0'], bootstrap=50); print('scipy.sparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bootstrap_undefined_cases_have_reasons():
    r = encode([1, 2], ["a", "a"], ["x", "y"])
    res = bootstrap(r, "nominal", resamples=10, seed=0)
    assert res.alpha.as_list() is None and "two or more annotators" in reason_text(res.alpha.reason)
    r = encode([1, 1, 2, 2], ["a", "b"] * 2, ["x"] * 4)
    res = bootstrap(r, "nominal", resamples=10, seed=0)
    assert res.alpha.defined == 0 and "every resample" in reason_text(res.alpha.reason)


def test_bootstrap_1000_resamples_of_10000_items():
    rng = np.random.default_rng(1)
    n = 10_000
    item = np.repeat(np.arange(n), 3)
    code = rng.integers(0, 4, item.size)
    from triage.stats.agreement.ratings import Ratings

    r = Ratings(item, np.tile(np.arange(3), n), code, ("a", "b", "c", "d"),
                tuple(map(str, range(n))), ("x", "y", "z"), np.arange(4.0))
    res = bootstrap(r, "nominal", resamples=1000, seed=0)  # time: bench/bench_cheap.py
    assert res.alpha.defined == 1000


# --- accumulator ---------------------------------------------------------------------

@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_incremental_equals_batch_after_random_adds_and_removes(level, seed):
    rng = np.random.default_rng(seed)
    values = np.array([0.0, 1.0, 2.5, 4.0, 7.0])
    acc = AlphaAccumulator(5, level, values)
    held: dict[tuple[int, int], int] = {}
    for step in range(600):
        u, a = int(rng.integers(0, 25)), int(rng.integers(0, 5))
        if rng.random() < 0.3:
            acc.remove(u, a)
            held.pop((u, a), None)
        else:
            c = int(rng.integers(0, 5))
            acc.add(u, a, c)
            held[(u, a)] = c
        if step % 50 == 49:
            keys = list(held)
            batch = alpha_arrays(np.array([k[0] for k in keys]),
                                 np.array([held[k] for k in keys]), 5, level, values)
            inc = acc.alpha()
            assert (inc.value is None) == (batch.value is None)
            if batch.value is not None:
                assert inc.value == pytest.approx(batch.value, abs=1e-12)
    # Against the reference package as well, at the end.
    data = np.full((5, 25), np.nan)
    for (u, a), c in held.items():
        data[a, u] = values[c]
    ref = krippendorff.alpha(data, level_of_measurement=level, value_domain=values)
    assert acc.alpha().value == pytest.approx(ref, abs=1e-9)


def test_accumulator_undefined_and_emptied():
    acc = AlphaAccumulator(2)
    assert reason_text(acc.alpha().reason) == "there are no ratings"
    acc.add("i", "a", 0)
    assert "two or more annotators" in reason_text(acc.alpha().reason)
    acc.add("i", "b", 0)
    assert "0/0" in reason_text(acc.alpha().reason)
    acc.add("j", "a", 1)
    acc.add("j", "b", 1)
    assert acc.alpha().value == pytest.approx(1.0)
    acc.add("j", "b", 0)  # a change of mind replaces the rating
    # o = [[2, 1], [1, 0]]: n = 4, n_c = (3, 1) -> α = 1 - 3·2/(16 - 10) = 0.
    assert acc.alpha().value == pytest.approx(0.0, abs=1e-12)
    for item, ann in [("i", "a"), ("i", "b"), ("j", "a"), ("j", "b")]:
        acc.remove(item, ann)
    assert reason_text(acc.alpha().reason) == "there are no ratings"
    assert not acc.coincidences().any()
    with pytest.raises(ValueError):
        acc.add("k", "a", 2)


# --- breakdowns ----------------------------------------------------------------------

def _table():
    # Three annotators, six items, two sessions each, deciles 1/2, two days.
    items = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    anns = ["a", "b", "c", "a", "b", "c", "a", "b", "a", "c", "b", "c", "a", "b"]
    labels = ["x", "x", "y", "y", "y", "y", "x", "y", "x", "x", "y", "x", "y", "y"]
    session = ["s1", "s2", "s3", "s1", "s2", "s3", "s1", "s2", "s4", "s3", "s2", "s3", "s4",
               "s2"]
    decile = ["1", "1", "1", "1", "1", "1", "1", "1", "2", "2", "2", "2", "2", "2"]
    time = ["2024-05-01T10:00"] * 7 + ["2024-05-02T09:00"] * 7
    return items, anns, labels, session, decile, time


def test_pair_breakdown_equals_alpha_of_the_pair():
    items, anns, labels, *_ = _table()
    r = encode(items, anns, labels)
    rows = {row.group: row for row in breakdown(r, "pair")}
    assert set(rows) == {"a|b", "a|c", "b|c"}
    keep = [k for k, a in enumerate(anns) if a in "ab"]
    sub = encode([items[k] for k in keep], [anns[k] for k in keep], [labels[k] for k in keep],
                 categories=list(r.categories))
    assert rows["a|b"].alpha.value == pytest.approx(krippendorff_alpha(sub).value)
    assert rows["a|b"].items == 4  # items 1, 2, 3, 6
    pairs = {f"{p.first}|{p.second}": p.items for p in cohen_pairs(r)}
    assert {g: row.items for g, row in rows.items()} == pairs


def test_annotator_against_rest_with_two_annotators_is_their_pair_alpha():
    r = encode([1, 1, 2, 2, 3, 3, 4, 4], ["a", "b"] * 4, list("xxyyxyyy"))
    rows = breakdown(r, "annotator")
    assert [row.group for row in rows] == ["a", "b"]
    assert rows[0].alpha.value == pytest.approx(krippendorff_alpha(r).value)
    assert rows[0].percent_agreement.value == pytest.approx(0.75)


def test_decile_session_and_time_breakdowns():
    items, anns, labels, session, decile, time = _table()
    r = encode(items, anns, labels)
    dec = breakdown(r, "decile", decile=decile)
    assert [row.group for row in dec] == ["1", "2"]
    first = encode(items[:8], anns[:8], labels[:8], categories=list(r.categories))
    assert dec[0].alpha.value == pytest.approx(krippendorff_alpha(first).value)
    assert dec[0].items == 3
    ses = {row.group: row for row in breakdown(r, "session", session=session)}
    # s4: a's ratings of items 4 (x vs c's x) and 6 (y vs b's y): 2 agreeing pairs.
    assert ses["s4"].items == 2 and ses["s4"].percent_agreement.value == 1.0
    # Units [x, x] and [y, y]: no observed disagreement, two categories -> α = 1.
    assert ses["s4"].alpha.value == pytest.approx(1.0)
    assert ses["s1"].items == 3
    days = breakdown(r, "time", time=time)
    assert [row.group for row in days] == ["2024-05-01", "2024-05-02"]
    blocks = breakdown(r, "time", block=5)
    assert [row.group for row in blocks] == ["1-5", "6-10", "11-14"]


def test_time_groups_by_block_follow_time_order():
    groups = time_groups(["2024-01-03", "2024-01-01", "2024-01-02"], 3, 2)
    assert groups.tolist() == ["3-3", "1-2", "1-2"]
    with pytest.raises(ValueError):
        time_groups(None, 3, None)


def test_retest_agreement_per_annotator():
    # Annotator a: 4 items in s1 and again in s2 (3 agree); b: only one session.
    items = [1, 2, 3, 4, 1, 2, 3, 4, 1]
    anns = ["a"] * 8 + ["b"]
    labels = ["x", "y", "x", "y", "x", "y", "x", "x", "y"]
    sessions = ["s1"] * 4 + ["s2"] * 4 + ["s9"]
    rows = {row.annotator: row for row in retest_agreement(items, anns, labels, sessions)}
    a = rows["a"]
    assert a.items == 4 and a.percent_agreement.value == pytest.approx(0.75)
    # table [[2, 0], [1, 1]]: p_o = 3/4, p_e = (2/4)(3/4) + (2/4)(1/4) = 1/2 -> κ = 0.5
    assert a.kappa.value == pytest.approx(0.5)
    ref = krippendorff.alpha([[0, 1, 0, 1], [0, 1, 0, 0]], level_of_measurement="nominal")
    assert a.alpha.value == pytest.approx(ref)
    assert rows["b"].items == 0 and rows["b"].alpha.value is None
    assert "two sessions" in reason_text(rows["b"].alpha.reason)
