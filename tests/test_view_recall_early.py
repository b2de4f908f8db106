"""Charts that tell one story: until the recall interval is narrower than 50 points, every
surface states what is known one-sided (found, a lower bound on recall, upper bounds on the
positives left) and gives no point estimate; the JSON keeps its keys."""

from __future__ import annotations

import math

from triage.stats.stopping.types import recall_informative
from triage.views.advice import RecallBand, advice_lines, recall_band, summary_lines
from triage.views.analysis import banner_data

EARLY = {
    "decision": "continue",
    "headline": "continue — too early to estimate recall: between 2% and 100% (x interval)",
    "reasons": [{"rule": "recall", "verdict": "continue",
                 "detail": "Too early to estimate recall: between 2% and 100% (x interval)."}],
    "estimated_recall": {"point": 0.71, "lower": 0.023, "upper": 1.0, "method": "x"},
    "estimated_total_positives": {"point": 35.0, "lower": 25.0, "upper": 1094.0,
                                  "method": "x"},
    "remaining": {"method": "x", "positives": 10.0, "lower": 0.0, "upper": 1069.0,
                  "unlabelled": 1458, "found": 25},
    "next_batch": {"items": 247.83, "expected_positives": 3.2, "cost": 9.91,
                   "cost_per_positive": 3.1},
    "labels_at": 42,
    "known": {"reason": "early", "confidence": 0.95, "found": 25, "labelled": 42, "ranked": 41,
              "audit": 1, "unlabelled": 1458, "depth": 41, "window_n": 41, "window_k": 25,
              "audit_below_n": 1, "audit_below_k": 0, "ranked_left": 1069.0,
              "audit_left": 1458.0, "recall_at_least": 0.023, "recall_at_least_audit": 0.017},
}


def test_the_threshold_is_fifty_points():
    assert recall_informative(0.60, 0.95)
    assert not recall_informative(0.023, 1.0)
    assert not recall_informative(0.4, 0.9)      # exactly 50 points: still too wide
    assert not recall_informative(None, 0.9)
    assert not recall_informative(math.nan, 0.9)


def test_every_surface_says_what_is_known_and_quotes_no_point():
    lines = advice_lines(EARLY)
    assert lines.recall == ("25 positives found in 42 labels (41 ranked, 1 audit); recall is at "
                            "least 2.3% (95% confidence) if the ranking beats random below "
                            "rank 41")
    assert lines.remaining == (
        "positives left: at most 1,069 if the ranking beats random, at most 1,458 on the "
        "random audit alone (resting on 25 positives in the last 41 ranked labels and 1 "
        "random audit item below rank 41 (0 positive))")
    text = "\n".join([lines.headline, *summary_lines(lines), *banner_data(EARLY).details])
    assert "≈" not in text and "71%" not in text and "about 10" not in text
    band = recall_band(EARLY)
    assert band is not None and not band.informative and band.total is None
    assert (band.lower, band.upper) == (25.0, 25.0 + 1069.0)
    assert band.label == f"known: {lines.recall}"


def test_a_narrow_interval_gives_the_point():
    data = dict(EARLY, estimated_recall={"point": 0.8, "lower": 0.7, "upper": 0.9,
                                         "method": "x"},
                estimated_total_positives={"point": 31.0, "lower": 28.0, "upper": 36.0,
                                           "method": "x"},
                known=dict(EARLY["known"], reason="estimate"))
    assert advice_lines(data).recall.startswith("recall ≈ 80% (95% interval 70%–90%")
    assert advice_lines(data).remaining.startswith("about 10 positives left")
    band = recall_band(data)
    assert band is not None and band.informative
    assert band.label.startswith("estimate: positives in the pool ≈ 31 (28–36)")


def test_the_library_leaves_every_word_to_the_views():
    from triage.stats.stopping.advice import advice_to_json
    from triage.stats.stopping.types import Advice, Estimate, NextBatch

    advice = Advice("continue", [], Estimate(0.71, 0.023, 1.0, "x"),
                    Estimate(35.0, 25.0, 1094.0, "x"), NextBatch(10, 1.0, 0.4, 0.4), None)
    data = advice_to_json(advice)
    assert "headline" not in data and data["deciding"] is None


def test_band_defaults_keep_old_callers_working():
    band = RecallBand(30.0, 28.0, 33.0, 0.8, 0.7, "x", recall_upper=0.9)
    assert band.informative and band.as_dict()["informative"] is True
