"""Metrics against scikit-learn as oracle, the seed 002 worked values, and undefined cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from triage.stats.models import metrics as mt
from triage.views.model_words import metric_reason_text

# Scores drawn from a few values so that ties are common, as in real model output.
cases = st.integers(min_value=0, max_value=2**32 - 1).flatmap(
    lambda seed: st.tuples(st.just(seed), st.integers(2, 60), st.sampled_from([3, 7, 1000]))
)


def _data(seed: int, n: int, levels: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    gold = rng.random(n) < rng.uniform(0.1, 0.9)
    scores = rng.integers(0, levels, n) / (levels - 1) * 0.8 + 0.1 + 0.2 * gold * rng.random()
    return np.round(scores, 3), gold


@settings(max_examples=50, deadline=None)
@given(cases)
@pytest.mark.filterwarnings("ignore:A single label")
def test_threshold_metrics_match_sklearn(case):
    scores, gold = _data(*case)
    c = mt.confusion(scores, gold, 0.5)
    pred = scores >= 0.5
    if pred.any():
        assert mt.precision(c).value == pytest.approx(skm.precision_score(gold, pred))
    else:
        assert mt.precision(c).value is None
        assert "predicted positive" in metric_reason_text(mt.precision(c).reason)
    if gold.any():
        assert mt.recall(c).value == pytest.approx(skm.recall_score(gold, pred))
        assert mt.f1(c).value == pytest.approx(skm.f1_score(gold, pred))
    m = mt.mcc(c)
    if m.defined:
        assert m.value == pytest.approx(skm.matthews_corrcoef(gold, pred))
    else:
        # sklearn answers 0 here; we refuse to invent a number.
        assert skm.matthews_corrcoef(gold, pred) == 0.0 and "empty" in metric_reason_text(m.reason)


@settings(max_examples=50, deadline=None)
@given(cases)
def test_ranking_metrics_match_sklearn(case):
    scores, gold = _data(*case)
    if gold.any() and not gold.all():
        assert mt.roc_auc(scores, gold).value == pytest.approx(skm.roc_auc_score(gold, scores))
        curve = mt.roc_curve(scores, gold)
        fpr, tpr, thr = skm.roc_curve(gold, scores, drop_intermediate=False)
        np.testing.assert_allclose(curve.x, fpr)
        np.testing.assert_allclose(curve.y, tpr)
        np.testing.assert_allclose(curve.thresholds[1:], thr[1:])
    else:
        assert mt.roc_auc(scores, gold).value is None
        assert mt.roc_curve(scores, gold) is None
    if gold.any():
        assert mt.average_precision(scores, gold).value == pytest.approx(
            skm.average_precision_score(gold, scores))
        for k in (1, 3, 10, None):
            assert mt.ndcg_at_k(scores, gold, k).value == pytest.approx(
                skm.ndcg_score(gold[None, :].astype(float), scores[None, :], k=k))
        prec, rec, thr = skm.precision_recall_curve(gold, scores)
        curve = mt.pr_curve(scores, gold)
        # sklearn lists thresholds ascending and stops at full recall; we go high to low.
        np.testing.assert_allclose(curve.x[::-1][: rec.size - 1], rec[:-1])
        np.testing.assert_allclose(curve.y[::-1][: prec.size - 1], prec[:-1])
    else:
        assert metric_reason_text(mt.average_precision(scores, gold).reason).startswith(
            "no positive")
        assert mt.ndcg_at_k(scores, gold).value is None


def test_batch_ranking_metrics_equal_single_row_versions():
    rng = np.random.default_rng(3)
    gold = rng.random(50) < 0.3
    rows = rng.integers(0, 6, (20, 50)).astype(float)
    np.testing.assert_allclose(mt.average_precision_rows(rows, gold),
                               [mt.average_precision(r, gold).value for r in rows])
    np.testing.assert_allclose(mt.ndcg_rows(rows, gold, 7), [mt.ndcg_at_k(r, gold, 7).value for r in rows])


def test_all_metrics_rows_equal_binary_report():
    rng = np.random.default_rng(5)
    gold = rng.random(60) < 0.25
    rows = np.round(rng.random((6, 60)), 1)
    batch = mt.all_metrics_rows(rows, gold, threshold=0.4, k_ndcg=5)
    for i, row in enumerate(rows):
        report = mt.binary_report(row, gold, threshold=0.4, k_ndcg=5)
        for name, metric in report.metrics.items():
            assert batch[name][i] == pytest.approx(metric.value), name
    np.testing.assert_allclose(mt.roc_auc_rows(rows, gold), [mt.roc_auc(r, gold).value for r in rows])
    assert np.isnan(mt.all_metrics_rows(rows, np.zeros(60, bool))["roc_auc"]).all()


def test_seed_002_pos_tagger_example():
    # Seed 002: a tagger says NN for all 100 tokens, 90 of which are NN (positive class).
    c = mt.Confusion(tp=90, fp=10, fn=0, tn=0)
    assert mt.symmetric_balanced_accuracy(c).value == pytest.approx(0.5)
    # The seed writes MCC = 0 for this 0/0 case; we report it undefined with the reason.
    assert mt.mcc(c).value is None
    assert mt.precision(c).value == pytest.approx(0.9)


def test_sba_replacement_rules_by_hand():
    # No predicted negatives and no actual negatives: every replacement rule fires.
    c = mt.Confusion(tp=5, fp=0, fn=0, tn=0)
    # class P: 5/5 + 5/5; class N: a=0 -> b/n = 0, b=0 -> a/n = 0  => (2 + 0)/4
    assert mt.symmetric_balanced_accuracy(c).value == pytest.approx(0.5)
    c = mt.Confusion(tp=3, fp=1, fn=2, tn=4)
    expected = (3 / 5 + 3 / 4 + 4 / 5 + 4 / 6) / 4
    assert mt.symmetric_balanced_accuracy(c).value == pytest.approx(expected)
    assert mt.symmetric_balanced_accuracy(mt.Confusion(0, 0, 0, 0)).value is None


def test_ndcg_seed_form_by_hand():
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    gold = np.array([False, True, True, False])
    # Seed 002: DCG = rel_1 + sum_{i>=2} rel_i / log2 i = 0 + 1/1 + 1/log2(3); ideal = 1 + 1.
    expected = (1 + 1 / np.log2(3)) / 2
    assert mt.ndcg_at_k(scores, gold, 4, form="seed").value == pytest.approx(expected)
    # sklearn form: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3)
    assert mt.ndcg_at_k(scores, gold, 4).value == pytest.approx(
        (1 / np.log2(3) + 0.5) / (1 + 1 / np.log2(3)))


def test_ties_never_follow_input_order():
    gold = np.array([True, False, False, True])
    scores = np.array([0.5, 0.5, 0.5, 0.5])
    # All tied: AUC is exactly one half and AP is the prevalence, in either input order.
    for order in (np.arange(4), np.arange(4)[::-1]):
        assert mt.roc_auc(scores[order], gold[order]).value == 0.5
        assert mt.average_precision(scores[order], gold[order]).value == 0.5
    assert mt.tied_count(np.array([1, 1, 2, 3, 3, 3])) == 5


def test_undefined_cases_have_reasons_not_nan():
    scores = np.array([0.2, 0.4, 0.9])
    none = np.zeros(3, bool)
    report = mt.binary_report(scores, none)
    for name in ("recall", "roc_auc", "average_precision", "ndcg@10"):
        assert report.metrics[name].value is None and report.metrics[name].reason
    everything = mt.binary_report(scores, np.ones(3, bool))
    assert everything.metrics["roc_auc"].reason == "no_negative"
    assert (metric_reason_text(everything.metrics["roc_auc"].reason)
            == "no negative items in the gold labels")
    with pytest.raises(ValueError, match="NaN"):
        mt.roc_auc(np.array([0.1, np.nan]), np.array([True, False]))


# -- one sort per model (triage.stats.models.ranked) against the former implementations --

def _old_threshold_counts(s, g):
    order = np.argsort(-s, kind="stable")
    s_sorted, g_sorted = s[order], g[order]
    last = np.r_[np.flatnonzero(np.diff(s_sorted)), s_sorted.size - 1]
    tps = np.cumsum(g_sorted)[last]
    return tps, (last + 1) - tps, s_sorted[last]


def _old_metrics(s, g, k):
    """ROC-AUC, AP and NDCG@k as computed before one sort was shared (scipy ranks)."""
    from scipy.stats import rankdata

    pos, neg = int(g.sum()), int(g.size - g.sum())
    auc = None
    if pos and neg:
        auc = (rankdata(s)[g].sum() - pos * (pos + 1) / 2.0) / (pos * neg)
    ap = ndcg = None
    if pos:
        tps, fps, _ = _old_threshold_counts(s, g)
        ap = float(np.sum(np.diff(np.r_[0.0, tps / tps[-1]]) * tps / (tps + fps)))
        n, kk = s.size, min(k, s.size)
        disc = 1.0 / np.log2(np.arange(1, n + 1) + 1.0)
        disc[kk:] = 0.0
        order = np.argsort(-s, kind="stable")
        s_sorted, rel = s[order], g[order].astype(float)
        group = np.r_[0, np.cumsum(np.diff(s_sorted) != 0)]
        mean_rel = np.bincount(group, weights=rel) / np.bincount(group)
        ndcg = float(np.sum(mean_rel * np.bincount(group, weights=disc))) / float(
            np.sum(disc[:pos]))
    return auc, ap, ndcg


EDGE_CASES = [
    (np.array([0.3, 0.7]), np.array([False, True])),          # n = 2
    (np.array([0.5, 0.5]), np.array([True, False])),          # n = 2, tied
    (np.array([0.2, 0.9, 0.9, 0.4]), np.ones(4, bool)),       # all positive
    (np.array([0.2, 0.9, 0.9, 0.4]), np.zeros(4, bool)),      # all negative
    (np.full(7, 0.25), np.array([1, 0, 0, 1, 0, 1, 0], bool)),  # one tie group
    (np.array([1.0, 0.0, 1.0, 0.0, 0.5]), np.array([1, 0, 0, 1, 1], bool)),
]


@settings(max_examples=60, deadline=None)
@given(cases, st.sampled_from([1, 3, 10]))
def test_one_sort_equals_the_former_metrics(case, k):
    scores, gold = _data(*case)
    for s, g in [(scores, gold), *EDGE_CASES]:
        auc, ap, ndcg = _old_metrics(s, g, k)
        report = mt.binary_report(s, g, k_ndcg=k)
        for name, want in (("roc_auc", auc), ("average_precision", ap), (f"ndcg@{k}", ndcg)):
            got = report.metrics[name].value
            assert (got is None) == (want is None), name
            if want is not None:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15), name
        assert report.tied_scores == mt.tied_count(s)


@settings(max_examples=60, deadline=None)
@given(cases)
def test_average_ranks_equal_scipy_rankdata(case):
    from scipy.stats import rankdata

    scores, gold = _data(*case)
    for s, g in [(scores, gold), *EDGE_CASES, (np.array([3.0]), np.array([True]))]:
        ranks = mt.rank_scores(s, g).item_ranks()
        np.testing.assert_array_equal(ranks, rankdata(s))  # exact: half-integers


def test_curves_from_one_sort_equal_the_former_curves():
    rng = np.random.default_rng(11)
    gold = rng.random(500) < 0.2
    scores = np.round(rng.random(500), 2)
    tps, fps, thr = _old_threshold_counts(scores, gold)
    roc, pr = mt.roc_curve(scores, gold), mt.pr_curve(scores, gold)
    np.testing.assert_array_equal(roc.x, np.r_[0.0, fps / fps[-1]])
    np.testing.assert_array_equal(roc.y, np.r_[0.0, tps / tps[-1]])
    np.testing.assert_array_equal(pr.y, tps / (tps + fps))
    np.testing.assert_array_equal(pr.thresholds, thr)
    assert mt.roc_curve(scores, np.zeros(500, bool)) is None
    assert mt.pr_curve(scores, np.zeros(500, bool)) is None


def _thinned(curve, points):
    keep = np.unique(np.linspace(0, curve.x.size - 1, min(points, curve.x.size)).round().astype(int))
    return curve.x[keep], curve.y[keep]


@pytest.mark.parametrize("n, points", [(2, 400), (7, 3), (500, 400), (5000, 400), (5000, 17)])
def test_thinned_curves_equal_the_full_curves_thinned(n, points):
    rng = np.random.default_rng(n)
    gold = rng.random(n) < 0.3
    gold[0], gold[-1] = True, False
    scores = np.round(rng.random(n), 3)
    got = mt.model_curves(scores, gold, points)
    for name, curve in (("roc", mt.roc_curve(scores, gold)), ("pr", mt.pr_curve(scores, gold))):
        for x, y in zip(got[name], _thinned(curve, points)):
            np.testing.assert_array_equal(x, y)
    assert set(mt.model_curves(scores, np.zeros(n, bool))) == set()
    assert set(mt.model_curves(scores, np.ones(n, bool))) == {"pr"}
