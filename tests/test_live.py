"""The incremental live state: spend, budget, decile yield, undo, rebuild == incremental."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.stats.live import LiveState, RankedLabel, rebuild


def ev(event_id, rank, annotator="ann", positive=False, skipped=False, seconds=10.0,
       kind="triage"):
    return RankedLabel(event_id, rank, annotator, positive, skipped, seconds, kind)


def test_spend_per_item_counts_every_event():
    state = LiveState(50, price_per_item=0.04, budget=1.0)
    events = [ev(1, 1, positive=True), ev(2, 2, skipped=True), ev(3, 1, "bob", kind="overlap"),
              ev(4, 30, "bob", positive=True, kind="audit"), ev(5, 3, kind="retest")]
    for e in events:
        state.apply(e)
    snap = state.snapshot()
    assert snap.events == 5 and snap.label_events == 4 and snap.skipped == 1
    assert snap.spend == pytest.approx(5 * 0.04)
    assert snap.budget_left == pytest.approx(1.0 - 0.2)
    # Rank 1 was labeled twice (overlap) but counts once; its latest label (bob) is negative.
    assert snap.annotated == 3 and snap.positives_found == 1
    assert snap.cost_per_positive == pytest.approx(0.2)
    assert snap.spend_by_annotator == pytest.approx({"ann": 0.12, "bob": 0.08})
    assert snap.labels_by_annotator == {"ann": 2, "bob": 2}
    assert snap.skips_by_annotator == {"ann": 1, "bob": 0}
    # Credits are per positive candidate (rank 1 is no longer one; rank 30 is bob's find):
    # they add up to positives_found.
    assert snap.positives_by_annotator == {"ann": 0, "bob": 1}
    assert snap.seconds_by_annotator == {"ann": 30.0, "bob": 20.0}


def test_spend_per_hour_and_reprice():
    state = LiveState(20, price_model="per_hour", hourly_rates={"ann": 36.0}, budget=2.0)
    state.apply(ev(1, 1, "ann", seconds=90.0))
    state.apply(ev(2, 2, "ann", skipped=True, seconds=10.0))
    state.apply(ev(3, 3, "cy", positive=True, seconds=50.0))
    snap = state.snapshot()
    assert snap.spend == pytest.approx(100 * 36 / 3600)  # cy has no rate: 0, and listed
    assert snap.unpriced_annotators == ("cy",)
    assert snap.budget_left == pytest.approx(1.0)
    state.reprice(hourly_rates={"ann": 36.0, "cy": 72.0})
    snap = state.snapshot()
    assert snap.spend == pytest.approx(1.0 + 50 * 72 / 3600)
    assert snap.spend_by_annotator == pytest.approx({"ann": 1.0, "cy": 1.0})
    assert snap.unpriced_annotators == ()
    state.reprice(price_model="per_item", price_per_item=0.5, budget=None)
    snap = state.snapshot()
    assert snap.spend == 1.5 and snap.budget_left is None
    with pytest.raises(ValueError, match="price model"):
        state.reprice(price_model="per_word")
    with pytest.raises(ValueError, match="unknown setting"):
        state.reprice(price=3)


def test_decile_yield_marginal_cost_and_current_decile():
    state = LiveState(25, price_per_item=0.1)  # decile sizes 2,3,2,3,2,3,2,3,2,3
    assert [d.items for d in state.snapshot().deciles] == [2, 3, 2, 3, 2, 3, 2, 3, 2, 3]
    assert state.snapshot().current_decile == 1
    state.apply(ev(1, 1, positive=True))
    state.apply(ev(2, 2, skipped=True))
    state.apply(ev(3, 3, positive=False))
    state.apply(ev(4, 4, positive=True))
    snap = state.snapshot()
    d1, d2, d3 = snap.deciles[:3]
    assert (d1.annotated, d1.positives, d1.yield_) == (1, 1, 1.0)
    assert d1.marginal_cost_per_positive == pytest.approx(0.1)
    assert (d2.annotated, d2.positives) == (2, 1) and d2.yield_ == 0.5
    assert d2.marginal_cost_per_positive == pytest.approx(0.2)  # price / yield
    assert d2.annotated_share == pytest.approx(2 / 3)
    assert d3.yield_ is None and d3.marginal_cost_per_positive is None
    # Decile 1 is visited (rank 2 skipped), decile 2 has rank 5 left.
    assert snap.current_decile == 2
    assert snap.projected_spend_to_finish_decile == pytest.approx(0.1)
    state.apply(ev(5, 5))
    state.apply(ev(6, 20, kind="audit"))  # an audit label deep down does not move it
    snap = state.snapshot()
    assert snap.current_decile == 3
    assert snap.deciles[7].yield_ == 0.0 and math.isinf(snap.deciles[7].marginal_cost_per_positive)


def test_overlap_latest_label_decides_and_undo_restores():
    state = LiveState(10, price_per_item=1.0)
    state.apply(ev(1, 4, "ann", positive=True))
    state.apply(ev(2, 4, "bob", positive=False, kind="overlap"))
    assert state.snapshot().positives_found == 0
    state.apply(ev(3, 4, "lead", positive=True, kind="adjudication"))
    snap = state.snapshot()
    # The ruling decides, but a ruling is no paid annotation: two labels paid, the curator
    # who only ruled is not in the spend per annotator.
    assert snap.positives_found == 1 and snap.annotated == 1 and snap.spend == 2.0
    assert snap.events == 3 and set(snap.spend_by_annotator) == {"ann", "bob"}
    state.revert(ev(3, 4, "lead", positive=True, kind="adjudication"))
    assert state.snapshot().positives_found == 0
    state.revert(ev(1, 4, "ann", positive=True))  # an older label: bob's remains
    snap = state.snapshot()
    assert snap.annotated == 1 and snap.positives_found == 0 and snap.spend == 1.0
    assert snap == rebuild(10, [ev(2, 4, "bob", positive=False, kind="overlap")],
                           price_per_item=1.0).snapshot()


def test_curve_and_old_snapshots_stay_unchanged():
    state = LiveState(10)
    state.apply(ev(1, 1, positive=True))
    state.apply(ev(2, 2, skipped=True))
    state.apply(ev(3, 3, positive=False))
    before = state.snapshot()
    assert list(before.curve_annotated) == [1, 2] and list(before.curve_positives) == [1, 1]
    state.revert(ev(3, 3))
    state.apply(ev(4, 3, positive=True))
    after = state.snapshot()
    assert list(after.curve_positives) == [1, 2]
    assert list(before.curve_positives) == [1, 1]  # the earlier snapshot did not change
    with pytest.raises(ValueError):
        before.curve_positives[0] = 5


def test_undo_everything_returns_to_empty():
    state = LiveState(30, price_per_item=0.3, budget=5.0)
    empty = state.snapshot()
    events = [ev(i, (i * 7) % 30 + 1, f"a{i % 3}", positive=i % 2 == 0, skipped=i % 5 == 0,
                 seconds=i / 3) for i in range(1, 40)]
    for e in events:
        state.apply(e)
    for e in reversed(events):
        state.revert(e)
    assert state.snapshot() == empty
    assert state.snapshot().spend_by_annotator == {}


def test_bad_events_are_refused():
    state = LiveState(5)
    with pytest.raises(ValueError, match="outside the pool"):
        state.apply(ev(1, 6))
    with pytest.raises(ValueError, match="kind"):
        state.apply(ev(1, 1, kind="guess"))
    state.apply(ev(1, 1))
    with pytest.raises(ValueError, match="already applied"):
        state.apply(ev(1, 2))
    with pytest.raises(ValueError, match="not applied"):
        state.revert(ev(9, 1))
    with pytest.raises(ValueError, match="differs"):
        state.revert(ev(1, 1, positive=True))


def test_small_pool_has_empty_deciles():
    state = LiveState(3, price_per_item=1.0)
    snap = state.snapshot()
    assert [d.items for d in snap.deciles] == [0, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert snap.deciles[0].annotated_share is None
    assert snap.current_decile == 4
    for i in (1, 2, 3):
        state.apply(ev(i, i))
    assert state.snapshot().current_decile is None
    assert state.snapshot().projected_spend_to_finish_decile is None


SETTINGS = {"price_model": "per_hour", "hourly_rates": {"a": 30.0, "b": 45.5},
            "budget": 3.0, "value_per_positive": 0.5, "total_positives_hint": 7}

event_st = st.tuples(
    st.integers(1, 17),  # rank
    st.sampled_from(["a", "b", "c"]),
    st.booleans(),  # positive
    st.booleans(),  # skipped
    st.floats(0, 120, allow_nan=False),
    st.sampled_from(["triage", "overlap", "audit", "retest", "adjudication"]),
)
step_st = st.one_of(st.tuples(st.just("apply"), event_st),
                    st.tuples(st.just("revert"), st.integers(0, 10**6)))


@settings(max_examples=60, deadline=None)
@given(st.lists(step_st, max_size=40))
def test_rebuild_equals_incremental(steps):
    state = LiveState(17, **SETTINGS)
    next_id = 1
    for action, payload in steps:
        if action == "apply":
            rank, who, positive, skipped, seconds, kind = payload
            state.apply(RankedLabel(next_id, rank, who, positive, skipped, seconds, kind))
            next_id += 1
        elif state.events:
            active = state.events
            state.revert(active[payload % len(active)])  # the latest or any older one
    incremental = state.snapshot()
    rebuilt = rebuild(17, state.events, **SETTINGS).snapshot()
    assert incremental == rebuilt
    # And the derived figures agree with a direct count over the active events.
    events = state.events
    labels = [e for e in events if not e.skipped]
    assert incremental.annotated == len({e.rank for e in labels})
    latest = {}
    for e in sorted(labels, key=lambda e: e.event_id):
        latest[e.rank] = e.positive
    assert incremental.positives_found == sum(latest.values())
    seconds = {w: sum(e.seconds for e in events if e.annotator == w) for w in "abc"}
    expected = seconds["a"] * 30.0 / 3600 + seconds["b"] * 45.5 / 3600
    # Seconds are kept to the microsecond: at most 0.5 µs × rate / 3600 off per event.
    assert incremental.spend == pytest.approx(expected, abs=1e-7)
    assert len(incremental.curve_annotated) == len(labels)
    if labels:
        assert incremental.curve_annotated[-1] == incremental.annotated
        assert incremental.curve_positives[-1] == incremental.positives_found


_PEAK_PROBE = """
import json, sys, tracemalloc
import numpy as np
from triage.stats.live import RankedLabel, LiveState

def peak(pool, events):
    state = LiveState(pool, price_per_item=0.04)
    rng = np.random.default_rng(0)
    for i in range(1, events + 1):
        state.apply(RankedLabel(i, i, f"a{i % 4}", bool(rng.random() < 0.3), False, 10.0,
                               "triage"))
    state.snapshot()  # anything built once and cached is not the snapshot's cost
    tracemalloc.start()
    for _ in range(50):
        state.snapshot()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak

print(json.dumps([peak(1_000, 500), peak(1_000_000, 5_000)]))
"""


def _snapshot_peak_bytes() -> tuple[int, int]:
    """The most memory 50 snapshots take: 500 labels on 1,000, and 5,000 on a million.

    Measured in a fresh interpreter: tracemalloc counts every thread, and threads left
    running by other tests in this process would be counted too.
    """
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _PEAK_PROBE], capture_output=True, text=True,
                          check=True, timeout=120)
    small, large = json.loads(done.stdout)
    return small, large


def test_snapshot_is_cheap_on_a_large_pool():
    # Guards against an O(pool) or O(events) snapshot creeping in, by the memory it takes
    # (the same on any machine, at any load), not by a clock: a snapshot of 5,000 labels on
    # a pool of a million costs what one of 500 labels on a pool of a thousand does. (The
    # time per snapshot is a benchmark: bench/bench_cheap.py.)
    small, large = _snapshot_peak_bytes()
    assert large <= small + 16_384   # a copy of the pool would be 8 MB, of the curve 40 kB


def test_snapshot_equality_sees_the_curve():
    a, b = LiveState(5), LiveState(5)
    a.apply(ev(1, 1, positive=True))
    a.apply(ev(2, 2, positive=False))
    b.apply(ev(2, 2, positive=False))
    b.apply(ev(1, 1, positive=True))
    # Same counts, different annotation order: the curves differ, so the snapshots do.
    assert a.snapshot().positives_found == b.snapshot().positives_found
    assert a.snapshot() != b.snapshot()


def test_latest_means_highest_event_id_not_apply_order():
    state = LiveState(5)
    state.apply(ev(5, 2, "ann", positive=True))
    state.apply(ev(3, 2, "bob", positive=False, kind="overlap"))  # older event, fed late
    assert state.snapshot().positives_found == 1


def test_a_ruling_is_paid_per_hour_only_at_the_curators_own_rate():
    unpaid = LiveState(10, price_model="per_hour", hourly_rates={"ann": 36.0})
    unpaid.apply(ev(1, 4, "ann", positive=True, seconds=100.0))
    unpaid.apply(ev(2, 4, "lee", positive=False, kind="adjudication", seconds=100.0))
    snap = unpaid.snapshot()
    assert snap.spend == pytest.approx(1.0) and snap.unpriced_annotators == ()
    assert set(snap.spend_by_annotator) == {"ann"}
    paid = LiveState(10, price_model="per_hour", hourly_rates={"ann": 36.0, "lee": 72.0})
    paid.apply(ev(1, 4, "ann", positive=True, seconds=100.0))
    paid.apply(ev(2, 4, "lee", positive=False, kind="adjudication", seconds=100.0))
    assert paid.snapshot().spend == pytest.approx(3.0)
    assert paid.snapshot().spend_by_annotator["lee"] == pytest.approx(2.0)
