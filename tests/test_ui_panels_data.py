"""Qt-free panel data (triage.views.panels): hand-computed figures and edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.stats.live import LiveState, RankedLabel
from triage.views.panels import (
    PanelInfo,
    budget_items,
    comparison_data,
    decile_boundaries,
    downsample,
    format_money,
    format_share,
    gain_data,
    random_baseline,
    spend_data,
    view_limit,
    yield_data,
)


def _state(pool: int, positives: list[bool], **settings) -> LiveState:
    """Label ranks 1..len(positives) top-down, one annotator, 10 s each."""
    state = LiveState(pool, **settings)
    for i, pos in enumerate(positives, start=1):
        state.apply(RankedLabel(i, i, "ada", pos, False, 10.0, "triage"))
    return state


def test_money_uses_the_dollar_sign_for_usd_and_the_code_otherwise():
    assert format_money(12.4, "USD") == "$12.40"
    assert format_money(12.4, "EUR") == "12.40 EUR"
    assert format_money(1234.5, "usd") == "$1,234.50"
    assert format_money(-3, "USD") == "-$3.00"
    assert format_money(0.004, "GBP") == "0.004 GBP"     # under a cent: never "0.00"
    assert format_money(0, "USD") == "$0.00"
    assert format_money(None, "USD") == "—"
    assert format_money(math.nan, "EUR") == "—"
    assert format_money(math.inf, "USD") == "unlimited"
    assert format_share(0.125) == "12.5%"
    assert format_share(None) == "—"


def test_random_baseline_is_linear_through_the_pool_rate():
    assert random_baseline(np.array([0, 50, 100]), 200, 40).tolist() == [0, 10, 20]
    assert random_baseline(np.array([3]), 0, 5).tolist() == [0]


def test_decile_boundaries_for_round_small_and_empty_pools():
    assert decile_boundaries(100) == [10, 20, 30, 40, 50, 60, 70, 80, 90]
    assert decile_boundaries(5) == [1, 2, 3, 4]  # half the deciles are empty
    assert decile_boundaries(0) == []


def test_view_limit_runs_through_the_current_decile_or_zooms_on_the_work():
    assert view_limit(0, 2000) == 200
    assert view_limit(300, 2000) == 400
    assert view_limit(400, 2000) == 400
    assert view_limit(10, 1_000_000) == 13  # 1.25 × annotated: the decile would hide the curve
    assert view_limit(0, 0) == 1


def test_downsample_keeps_ends_and_caps_points():
    x = np.arange(1_000_001)
    y = x // 3
    dx, dy = downsample(x, y)
    assert len(dx) <= 2000 and dx[0] == 0 and dx[-1] == 1_000_000
    assert np.array_equal(dy, dx // 3)
    small = np.arange(5)
    assert downsample(small, small)[0] is small


def test_gain_without_gold_draws_the_observed_yield_baseline_and_says_so():
    snap = _state(100, [True] * 10 + [False] * 10).snapshot()
    data = gain_data(snap, PanelInfo(pool=100))
    assert data.annotated.tolist() == list(range(21))
    assert data.positives.tolist() == [*range(11), *[10] * 10]
    assert data.xlim == 20
    assert data.baseline_x.tolist() == [0, 20]
    assert data.baseline.tolist() == [0, 10]  # 20 × 50% observed yield
    assert "observed yield (50.0%)" in data.baseline_label
    assert data.decile_lines == [10]
    assert data.summary == "10 positives in 20 annotated (20.0% of the pool)"


def test_gain_with_gold_uses_the_gold_total_and_clips_offline_curves_to_the_view():
    snap = _state(100, [True] * 10 + [False] * 10).snapshot()
    gold = np.cumsum(np.arange(100) < 25)  # 25 positives, all at the top
    data = gain_data(snap, PanelInfo(pool=100, offline_curves={"m1": gold}))
    assert data.baseline.tolist() == [0, 5]  # 20 × 25 / 100
    assert "gold has 25 positives" in data.baseline_label
    ox, oy = data.offline["m1"]
    assert ox.tolist() == list(range(21)) and oy[-1] == 20
    assert data.as_dict()["offline"]["m1"][-1] == 20


def test_empty_project_has_an_empty_state_and_no_division():
    snap = LiveState(2000, price_per_item=0.04).snapshot()
    info = PanelInfo(pool=2000)
    gain = gain_data(snap, info)
    assert gain.empty and gain.baseline.size == 0 and gain.annotated.tolist() == [0]
    assert "Nothing annotated yet" in gain.summary
    spend = dict(spend_data(snap, info).lines)
    assert spend["Spent"] == "$0.00" and spend["Budget"] == "no budget set"
    assert spend_data(snap, info).headline == "no budget set"
    assert spend["Cost per positive"] == "—"
    assert spend["To finish decile 1"] == "$8.00"  # 200 items × $0.04
    ylds = yield_data(snap, info)
    assert ylds.empty and ylds.yields == [None] * 10 and ylds.bar_labels == [""] * 10
    zero = LiveState(0).snapshot()
    assert gain_data(zero, PanelInfo(pool=0)).xlim == 1


def test_spend_figures_against_a_budget():
    snap = _state(100, [True] * 10 + [False] * 10, price_per_item=0.04, budget=1.0,
                  value_per_positive=0.5, currency="EUR").snapshot()
    data = spend_data(snap, PanelInfo(pool=100))
    assert data.spent == pytest.approx(0.8) and data.remaining == pytest.approx(0.2)
    assert data.spent_share == pytest.approx(0.8) and not data.over_budget
    lines = dict(data.lines)
    assert lines["Spent"] == "0.80 EUR"
    assert data.headline == "80% of the budget used"
    assert lines["Remaining"] == "0.20 EUR"
    assert lines["Cost per positive"] == "0.08 EUR"
    assert lines["To finish decile 3"] == "0.40 EUR"  # 10 items left × 0.04
    assert lines["Value found"] == "5.00 EUR"
    assert data.by_annotator == [("ada", pytest.approx(0.8))]


def test_spend_over_budget_and_per_hour_with_an_unpriced_annotator():
    over = spend_data(_state(100, [False] * 30, price_per_item=0.04, budget=1.0).snapshot(),
                      PanelInfo(pool=100))
    assert over.over_budget and dict(over.lines)["Over budget by"] == "$0.20"
    assert over.headline == "over budget" and over.spent_share == pytest.approx(1.2)
    assert dict(over.lines)["Cost per positive"] == "no positive yet"
    state = _state(100, [True] * 10, price_model="per_hour", hourly_rates={"ada": 36.0})
    state.apply(RankedLabel(99, 50, "bob", False, False, 30.0, "audit"))
    data = spend_data(state.snapshot(), PanelInfo(pool=100))
    assert data.spent == pytest.approx(1.0)  # 100 s at $36/h; bob has no rate
    assert data.by_annotator == [("ada", pytest.approx(1.0)), ("bob", 0.0)]
    assert "bob" in data.warning


def test_yield_per_decile_with_marginal_cost_and_empty_deciles():
    # pool 20: deciles of 2; decile 1 both positive, decile 2 one of two, decile 3 none
    snap = _state(20, [True, True, True, False, False, False], price_per_item=0.5).snapshot()
    data = yield_data(snap, PanelInfo(pool=20))
    assert data.yields[:4] == [1.0, 0.5, 0.0, None]
    assert data.shares[:4] == [1.0, 1.0, 1.0, 0.0]
    assert data.bar_labels[:4] == ["$0.50", "$1.00", "no pos.", ""]
    assert data.current == 4
    tiny = yield_data(_state(5, [True]).snapshot(), PanelInfo(pool=5))
    assert tiny.items == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    assert tiny.bar_labels[0] == "empty" and tiny.shares[0] is None
    assert tiny.yields[1] == 1.0


def test_model_comparison_counts_gold_positives_inside_the_budget():
    snap = LiveState(100, price_per_item=0.04, budget=1.0).snapshot()
    curves = {"m1": np.cumsum(np.arange(100) < 25), "m2": np.cumsum(np.arange(100) >= 75)}
    info = PanelInfo(pool=100, price_per_item=0.04, offline_curves=curves, active_model="m1")
    assert budget_items(snap, info) == 25
    data = comparison_data(snap, info)
    assert data.at_budget == {"m1": 25, "m2": 0} and data.total == 25
    assert budget_items(LiveState(100).snapshot(), info) is None  # no budget


@settings(max_examples=40, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=60), st.integers(60, 500))
def test_gain_curve_is_the_snapshot_curve_and_baseline_stays_in_range(labels, pool):
    snap = _state(pool, labels).snapshot()
    data = gain_data(snap, PanelInfo(pool=pool))
    assert data.positives[-1] == sum(labels) and data.annotated[-1] == len(labels)
    assert data.xlim >= len(labels)
    if labels:
        assert 0 <= data.baseline[-1] <= data.xlim
        assert data.ylim >= max(data.positives[-1], data.baseline[-1])


def test_current_decile_span():
    from triage.views.panels import decile_span

    assert decile_span(2000, 1) == (0, 200)
    assert decile_span(2000, 3) == (400, 600)
    assert decile_span(5, 2) == (0, 1)
    assert decile_span(100, None) is None
    snap = _state(100, [True] * 15).snapshot()
    assert gain_data(snap, PanelInfo(pool=100)).current_span == (10, 20)
