"""The numbers and short texts the widgets show, formatted in one place (no Qt)."""

from __future__ import annotations

import math

from triage.views.formatting import (
    budget_buys,
    comparison_label,
    count_tick,
    format_count,
    format_decimal,
    format_difference,
    format_number,
    format_share,
    gain_title,
    plural,
    pool_caption,
    share_tick,
)


def test_numbers():
    assert format_count(1234567.4) == "1,234,567"
    assert format_decimal(0.81234) == "0.812" and format_decimal(2.25, 1) == "2.2"
    assert format_decimal(None) == "—" and format_decimal(math.nan, 3, "–") == "–"
    assert format_difference(-0.0001) == "+0.000" and format_difference(0.0125) == "+0.013"
    assert format_difference(-0.25) == "-0.250" and format_difference(None) == "–"
    assert format_number(0.04) == "0.04" and format_number(10.0) == "10"
    assert format_number(None) == ""
    assert format_share(0.125) == "12.5%" and format_share(0.6, 0) == "60%"


def test_chart_texts():
    assert share_tick(0.05) == "5%" and share_tick(0.025) == "2.5%"
    assert count_tick(500, 20_000) == "500\n2.5%"
    assert plural(1, "positive") == "1 positive" and plural(1204, "positive") == "1,204 positives"
    assert gain_title(12, 3400) == "Cumulative gain · 12 positives in 3,400"
    assert comparison_label("m1", True, 1204) == "m1 (active): 1,204 at budget"
    assert comparison_label("m2", False, None) == "m2"
    assert budget_buys(5000) == " budget buys 5,000" and budget_buys(None) == ""
    assert pool_caption(20_000, None) == "pool 20,000 · ranking followed: —"


def test_certification_plan_items_reads_the_plan_of_an_advice_state():
    from types import SimpleNamespace

    from triage.views.advice import certification_plan_items

    state = SimpleNamespace(advice={"certification": {"plan": {"items": 240, "text": "…"}}})
    assert certification_plan_items(state) == 240
    assert certification_plan_items(SimpleNamespace(advice={})) is None
    assert certification_plan_items(None) is None
