"""Gain arithmetic against seed 000 (Klubička, Salton & Kelleher, LREC 2018) and by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from tests.helpers import DATA_DIR
from triage.stats.gain import (
    NO_POSITIVES,
    analyse_model,
    compare_models,
    decile_of_rank,
    decile_sizes,
    rank_pool,
)

# -- Tables 1-3: six phrases, IDs 1..6. Each model column lists the phrase IDs in the
# model's order (row k = rank k). The positives (green in the paper, shading lost in the
# text) are IDs 1, 2, 3: the only choice that reproduces both the "Acc" row of Table 1
# (top four predicted positive) and the "TP" row of Table 3 (top two annotated).
TABLE = {
    ("S1", "M1"): [1, 5, 4, 2, 6, 3],
    ("S1", "M2"): [1, 2, 6, 5, 3, 4],
    ("S2", "M1"): [3, 6, 4, 5, 2, 1],
    ("S2", "M2"): [5, 4, 3, 1, 6, 2],
}
POSITIVE_IDS = {1, 2, 3}
ACC = {("S1", "M1"): 0.5, ("S1", "M2"): 0.5, ("S2", "M1"): 0.17, ("S2", "M2"): 0.5}  # Table 1
TP = {("S1", "M1"): 1, ("S1", "M2"): 2, ("S2", "M1"): 1, ("S2", "M2"): 0}  # Table 3


def _arrays(order: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Scores per phrase ID 1..6 (higher = earlier) and the gold positive flags."""
    scores = np.zeros(6)
    for rank, pid in enumerate(order, start=1):
        scores[pid - 1] = 7 - rank
    positive = np.array([pid in POSITIVE_IDS for pid in range(1, 7)])
    return scores, positive


@pytest.mark.parametrize("key", sorted(TABLE))
def test_table1_accuracy_confirms_transcription(key):
    order = TABLE[key]
    predicted = set(order[:4])  # "both models predict that two thirds ... are positive"
    correct = sum((pid in predicted) == (pid in POSITIVE_IDS) for pid in range(1, 7))
    assert round(correct / 6, 2) == ACC[key]


@pytest.mark.parametrize("key", sorted(TABLE))
def test_table3_true_positives_within_two_candidates(key):
    # Table 3: the budget covers the top two of six candidates (price 1, budget 2).
    scores, positive = _arrays(TABLE[key])
    result = analyse_model(scores, positive, cost_per_item=1.0, budget=2.0)
    assert result.candidates_within_budget == 2
    assert result.positives_within_budget == TP[key]


def test_table3_best_model_per_scenario():
    for scenario, winner in (("S1", "M2"), ("S2", "M1")):
        results = {
            m: analyse_model(*_arrays(TABLE[(scenario, m)]), cost_per_item=1.0, budget=2.0)
            for m in ("M1", "M2")
        }
        choice = compare_models(results).best_model_within_budget
        assert choice.models == (winner,) and not choice.tied


def test_section3_gain_with_each_row_a_decile():
    # Section 3: "each row/data point is also one decile"; the gains quoted (0.5 per
    # positive, S1-M1 reaching cumulative gain 1 at D4) are over the four candidates the
    # models predicted positive, which hold two positives. bins=4: one row per item.
    expected = {"M1": [0.5, 0.0, 0.0, 0.5], "M2": [0.5, 0.5, 0.0, 0.0]}
    for model, gains in expected.items():
        top4 = TABLE[("S1", model)][:4]
        scores = np.arange(4, 0, -1.0)
        positive = np.array([pid in POSITIVE_IDS for pid in top4])
        result = analyse_model(scores, positive, cost_per_item=1.0, bins=4)
        assert [row.gain for row in result.deciles] == gains
    m1 = analyse_model(np.arange(4, 0, -1.0), np.array([1, 0, 0, 1], bool), cost_per_item=1,
                       bins=4)
    assert [row.cumulative_gain for row in m1.deciles] == [0.5, 0.5, 0.5, 1.0]
    assert m1.deciles_to_all_positives == 4


# -- Case study (section 4.1, Table 5): 2,091 verb+noun pairs, 414 VNICs, $0.04 each.
# The paper gives only some per-decile counts; the rest are filled in to fit every
# statement: M1 has all 414 within two deciles; M2 has 410 within two, 0 new in the
# third, the last in the fourth and beats M1 on the first decile alone; M3 has 394 within
# two, +8 in the third, +4 in the fourth and the rest in the fifth.
N, VNICS, PRICE = 2091, 414, 0.04
PER_DECILE = {
    "M1": [205, 209, 0, 0, 0, 0, 0, 0, 0, 0],
    "M2": [209, 201, 0, 4, 0, 0, 0, 0, 0, 0],
    "M3": [200, 194, 8, 4, 8, 0, 0, 0, 0, 0],
}


def _case_study(budget: float | None) -> dict:
    sizes = decile_sizes(N)
    positive = np.arange(N) < VNICS  # items 0..413 are the VNICs
    results = {}
    for model, counts in PER_DECILE.items():
        by_rank = np.concatenate([[True] * c + [False] * (s - c) for c, s in zip(counts, sizes)])
        items = np.empty(N, dtype=np.int64)
        items[by_rank] = np.arange(VNICS)
        items[~by_rank] = np.arange(VNICS, N)
        scores = np.empty(N)
        scores[items] = np.arange(N, 0, -1.0)  # distinct: rank r gets N + 1 - r
        results[model] = analyse_model(scores, positive, cost_per_item=PRICE, budget=budget)
    return results


def test_case_study_decile_costs():
    results = _case_study(budget=None)
    m1 = results["M1"]
    assert list(decile_sizes(N)) == [209] * 9 + [210]
    assert m1.cost_per_decile_whole == pytest.approx(8.364)  # "$8.3" a decile
    assert 10 * m1.cost_per_decile_whole == pytest.approx(83.64)  # whole list
    assert [r.positives for r in m1.deciles[:2]] == [205, 209]


def test_case_study_table5_cost_to_all_positives():
    results = _case_study(budget=None)
    table5 = {"M1": 16.73, "M2": 33.46, "M3": 41.82}
    for model, cost in table5.items():
        assert round(results[model].cost_to_all_positives_whole_deciles, 2) == cost
    assert [results[m].deciles_to_all_positives for m in table5] == [2, 4, 5]  # situation 2
    saving = 1 - results["M1"].cost_to_all_positives_whole_deciles / results[
        "M3"].cost_to_all_positives_whole_deciles
    assert saving == pytest.approx(0.6)  # "a difference of 60%"
    early = compare_models(results).earliest_to_all_positives_whole_deciles
    assert early.models == ("M1",) and early.deciles == 2
    assert early.candidates == 418


def test_case_study_ideal_minimum_cost():
    # "a minimum of $16.56 in the ideal scenario where they are all found at the top"
    positive = np.arange(N) < VNICS
    ideal = analyse_model(np.arange(N, 0, -1.0), positive, cost_per_item=PRICE)
    assert ideal.rank_of_last_positive == VNICS
    assert ideal.cost_to_last_positive == pytest.approx(16.56)


def test_case_study_situation1_fixed_budget():
    # $16 "means we can afford ... not more than two deciles"; the VNICs quoted are those
    # of two whole deciles (414 / 410 / 394), which cost 2 × $8.364.
    results = _case_study(budget=2 * 8.364)
    found = {m: r.positives_within_budget_whole_deciles for m, r in results.items()}
    assert found == {"M1": 414, "M2": 410, "M3": 394}
    assert all(r.deciles_within_budget == 2 for r in results.values())
    best = compare_models(results).best_model_within_budget_whole_deciles
    assert best.models == ("M1",) and best.positives == 414
    # One decile: M2 is preferred; two to four deciles: M1.
    one = compare_models(_case_study(budget=8.364)).best_model_within_budget_whole_deciles
    assert one.models == ("M2",)
    # Per candidate, $16 buys exactly 400 candidates (16 / 0.04 is 399.999... in floats).
    per_candidate = _case_study(budget=16.0)
    assert {r.candidates_within_budget for r in per_candidate.values()} == {400}
    assert per_candidate["M2"].positives_within_budget == 209 + 191
    assert per_candidate["M1"].deciles_within_budget == 1


def test_case_study_situation3_next_decile():
    results = _case_study(budget=None)
    after_two = {n.model: n for n in compare_models(results, after_deciles=2).next_decile}
    assert {m: n.new_positives for m, n in after_two.items()} == {"M1": 0, "M2": 0, "M3": 8}
    assert after_two["M3"].cost == pytest.approx(8.364)
    assert after_two["M3"].cost_per_new_positive == pytest.approx(8.364 / 8)
    assert after_two["M1"].cost_per_new_positive is None  # nothing new: not worth it
    assert after_two["M1"].positives_so_far == 414
    after_three = {n.model: n for n in compare_models(results, after_deciles=3).next_decile}
    assert after_three["M3"].new_positives == 4  # "the additional 4 VNICS ... 4th decile"


# -- Hand-computed cases: N not divisible by 10, ties, no positives.

def test_deciles_of_seven_and_twenty_three():
    assert list(decile_of_rank(np.arange(1, 8), 7)) == [2, 3, 5, 6, 8, 9, 10]
    assert list(decile_sizes(7)) == [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    # ceil(10 r / 23): ranks 1-2 -> 1, 3-4 -> 2, 5-6 -> 3, 7-9 -> 4, ...
    assert list(decile_sizes(23)) == [2, 2, 2, 3, 2, 2, 3, 2, 2, 3]
    assert list(decile_of_rank([2, 3, 9, 10, 23], 23)) == [1, 2, 4, 5, 10]


def test_seven_items_empty_deciles_have_no_lift():
    scores = np.arange(7, 0, -1.0)
    positive = np.array([1, 0, 0, 0, 0, 1, 0], bool)
    result = analyse_model(scores, positive, cost_per_item=0.5, budget=1.0)
    rows = result.deciles
    assert rows[0].items == 0 and rows[0].lift is None and rows[0].gain == 0
    assert rows[1].gain == 0.5 and rows[1].lift == pytest.approx(0.5 / (1 / 7))
    assert result.deciles_to_all_positives == 9  # rank 6 is in decile ceil(60/7) = 9
    assert result.cost_to_all_positives_whole_deciles == pytest.approx(9 * 0.5 * 7 / 10)
    assert result.rank_of_last_positive == 6 and result.cost_to_last_positive == 3.0
    assert result.candidates_within_budget == 2 and result.positives_within_budget == 1
    # Budget 1.0 buys floor(1 / 0.35) = 2 whole deciles: 1 and 2, holding rank 1 only.
    assert result.deciles_within_budget == 2
    assert result.positives_within_budget_whole_deciles == 1


def test_tie_group_straddling_decile_boundary_n23():
    scores = np.array([9.0, 5.0, 5.0, 5.0] + list(np.arange(19, 0, -1.0) / 100))
    positive = np.zeros(23, bool)
    positive[[0, 1]] = True  # rank 1, and one of the three items tied at ranks 2..4
    result = analyse_model(scores, positive, cost_per_item=1.0, budget=3.0)
    assert result.tied_items == 3 and result.tie_groups == 1
    # Decile 1 = ranks 1-2: 1 + 1/3; decile 2 = ranks 3-4: 2/3.
    assert result.deciles[0].positives == pytest.approx(4 / 3)
    assert result.deciles[1].positives == pytest.approx(2 / 3)
    assert result.deciles[0].gain == pytest.approx(2 / 3)
    assert result.positives_within_budget == pytest.approx(1 + 2 / 3)
    # Last positive: a=2, m=3, p=1 -> 2 + 4 * 1/2 - 1 = 3 (uniform over ranks 2, 3, 4).
    assert result.rank_of_last_positive == pytest.approx(3.0)
    assert result.deciles_to_all_positives == pytest.approx(1 / 3 * 1 + 2 / 3 * 2)
    assert result.candidates_to_all_positives_whole_deciles == pytest.approx(1 / 3 * 2 + 2 / 3 * 4)


def _orders(scores: np.ndarray):
    """Every order of the items consistent with the scores (ties permuted)."""
    ranking = rank_pool(scores, np.zeros(scores.size, bool))
    groups = [ranking.order[s - 1: s - 1 + m]
              for s, m in zip(ranking.group_start, ranking.group_size)]
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield np.concatenate(perm)


@pytest.mark.parametrize("seed", range(6))
def test_ties_equal_brute_force_average_over_tie_orders(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 9))
    scores = rng.integers(0, 3, size=n).astype(float)  # heavy ties
    positive = rng.random(n) < 0.5
    positive[rng.integers(n)] = True
    tied = analyse_model(scores, positive, cost_per_item=0.3, budget=1.0)
    fields = ["rank_of_last_positive", "deciles_to_all_positives",
              "cost_to_all_positives_whole_deciles", "cost_to_last_positive",
              "candidates_to_all_positives_whole_deciles", "positives_within_budget",
              "positives_within_budget_whole_deciles"]
    totals = dict.fromkeys(fields, 0.0)
    decile_pos = np.zeros(10)
    count = 0
    for order in _orders(scores):
        distinct = np.empty(n)
        distinct[order] = np.arange(n, 0, -1.0)
        one = analyse_model(distinct, positive, cost_per_item=0.3, budget=1.0)
        for f in fields:
            totals[f] += getattr(one, f)
        decile_pos += [row.positives for row in one.deciles]
        count += 1
    for f in fields:
        assert getattr(tied, f) == pytest.approx(totals[f] / count), f
    assert [row.positives for row in tied.deciles] == pytest.approx(list(decile_pos / count))
    expected_tied = sum(int((scores == s).sum()) for s in set(scores) if (scores == s).sum() > 1)
    assert tied.tied_items == expected_tied


def test_input_order_never_decides():
    scores = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    positive = np.array([0, 1, 0, 0, 1], bool)
    a = analyse_model(scores, positive, cost_per_item=1, budget=2)
    perm = np.array([4, 3, 2, 1, 0])
    b = analyse_model(scores[perm], positive[perm], cost_per_item=1, budget=2)
    assert a == b
    assert a.positives_within_budget == pytest.approx(1 / 3)


def test_no_positives_is_undefined_not_zero():
    result = analyse_model(np.arange(10.0), np.zeros(10, bool), cost_per_item=0.04, budget=1)
    assert result.undefined_reason == NO_POSITIVES
    assert all(row.gain is None and row.cumulative_gain is None for row in result.deciles)
    assert result.deciles_to_all_positives is None and result.rank_of_last_positive is None
    assert result.positives_within_budget == 0
    early = compare_models({"a": result}).earliest_to_all_positives
    assert early.models == () and early.reason == NO_POSITIVES


def test_tied_models_are_reported_not_broken():
    scores = np.arange(20, 0, -1.0)
    positive = np.isin(np.arange(20), [0, 1, 2, 9])
    same = analyse_model(scores, positive, cost_per_item=1, budget=5)
    worse = analyse_model(-scores, positive, cost_per_item=1, budget=5)
    comparison = compare_models({"A": same, "B": same, "C": worse})
    assert comparison.best_model_within_budget.models == ("A", "B")
    assert comparison.best_model_within_budget.tied
    assert comparison.earliest_to_all_positives.models == ("A", "B")


def test_free_annotation_and_bad_inputs():
    result = analyse_model(np.arange(5.0), np.ones(5, bool), cost_per_item=0.0, budget=0.0)
    assert result.candidates_within_budget == 5 and result.positives_within_budget == 5
    with pytest.raises(ValueError, match="finite"):
        analyse_model(np.array([1.0, math.nan]), np.ones(2, bool), cost_per_item=1)
    with pytest.raises(ValueError, match="cost"):
        analyse_model(np.arange(3.0), np.ones(3, bool), cost_per_item=-1)


HOLLANCE = DATA_DIR / "hollance" / "probs_densenet40_c10_logits.csv"


@pytest.mark.skipif(not HOLLANCE.exists(), reason="shared data not mounted")
def test_real_scores_with_many_ties():
    # DenseNet-40 on CIFAR-10: many confidences are exactly 1.0. Positive = a wrong
    # prediction, ranked by *low* confidence (finding the model's errors).
    data = np.genfromtxt(HOLLANCE, delimiter=",", skip_header=1)
    wrong = data[:, 0] != data[:, 1]
    result = analyse_model(-data[:, 2], wrong, cost_per_item=0.04, budget=40)
    values, counts = np.unique(data[:, 2], return_counts=True)
    assert result.tied_items == counts[counts > 1].sum() > 1000
    assert sum(row.positives for row in result.deciles) == pytest.approx(wrong.sum())
    assert result.deciles[-1].cumulative_gain == pytest.approx(1.0)
    assert result.deciles[0].lift > 5  # low confidence finds errors far above chance
    assert result.candidates_within_budget == 1000


def test_descending_order_is_the_stable_sort_of_the_negated_scores():
    """The faster ranking keeps tied items in input order, exactly as a stable sort does."""
    from triage.stats.gain.ranking import descending_order

    rng = np.random.default_rng(13)
    for trial in range(60):
        n = int(rng.integers(0, 2000))
        scores = rng.integers(0, int(rng.integers(1, 40)), n) / 7.0
        if trial % 3 == 0:
            scores = rng.random(n)
        if trial % 4 == 0 and n:
            scores[rng.integers(0, n, n // 3)] = -0.0  # -0.0 and 0.0 tie
            scores[rng.integers(0, n, n // 5)] = 0.0
        assert descending_order(scores).tolist() == np.argsort(-scores, kind="stable").tolist()


@pytest.mark.parametrize("seed", range(4))
def test_a_given_ranking_gives_the_same_figures_whatever_its_tie_order(seed):
    """A project's stored ranking (ties in a seeded order) spares the sort, same numbers."""
    rng = np.random.default_rng(seed)
    n = 400
    scores = rng.integers(0, 25, size=n).astype(float)  # many ties
    positive = rng.random(n) < 0.2
    expected = analyse_model(scores, positive, cost_per_item=0.5, budget=40.0)
    # Descending score, ties in a random order: what import stores.
    seeded = np.lexsort((rng.random(n), -scores))
    assert analyse_model(scores, positive, cost_per_item=0.5, budget=40.0,
                         order=seeded) == expected
    ranking = rank_pool(scores, positive, seeded)
    assert np.array_equal(ranking.order, seeded)


def test_a_wrong_ranking_is_not_trusted():
    """Not a descending permutation of the pool: the pool is sorted afresh."""
    scores = np.array([0.9, 0.5, 0.5, 0.1, 0.7])
    positive = np.array([1, 0, 1, 0, 1], bool)
    expected = analyse_model(scores, positive, cost_per_item=1, budget=2)
    for wrong in ([3, 1, 2, 4, 0], [0, 4, 1, 1, 3], [0, 4, 1], [0, 4, 1, 2, 7],
                  [0.0, 4.0, 1.0, 2.0, 3.0], [-1, 4, 1, 2, 3]):
        got = analyse_model(scores, positive, cost_per_item=1, budget=2,
                            order=np.asarray(wrong))
        assert got == expected, wrong
        assert list(rank_pool(scores, positive, np.asarray(wrong)).order) == [0, 4, 1, 2, 3]
