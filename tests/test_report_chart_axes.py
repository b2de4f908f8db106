"""The report's charts read as the app's: times on the spend axis, the app's yield colours,
and an early recall band that never stretches the gain chart."""

from __future__ import annotations

import datetime as dt
import re

from triage.views.palette import LIVE_BLUE
from triage.views.report.chart_layout import layout
from triage.views.report.charts import gain_chart, spend_chart, yield_chart


def test_the_spend_axis_reads_as_times_of_day():
    t0 = dt.datetime(2026, 11, 27, 9, 0, tzinfo=dt.UTC)
    times = [(t0 + dt.timedelta(minutes=9 * i)).isoformat() for i in range(11)]
    chart = spend_chart({"timeline": {"times": times, "spend": list(range(11)),
                                      "events": list(range(11))},
                         "currency": "EUR", "budget": 20.0})
    ticks = [label for _, label in chart.xticks]
    assert len(ticks) >= 3 and all(re.fullmatch(r"\d\d:\d\d", t) for t in ticks), ticks
    assert chart.xlabel == "time (UTC), from 27 Nov 2026 09:00 to 27 Nov 2026 10:30"
    # Each tick sits at the moment it names.
    for at, label in chart.xticks:
        assert dt.datetime.fromtimestamp(at, dt.UTC).strftime("%H:%M") == label
    # The budget is drawn and in view; the spend curve climbs to 10.
    assert chart.ylim[0] == 0 and chart.ylim[1] >= 20
    assert [r.at for r in chart.rules] == [20.0]
    assert max(chart.marks[0].ys) == 10


def test_yield_bars_use_the_apps_blue():
    chart = yield_chart({"deciles": list(range(1, 11)), "yields": [0.5] * 5 + [None] * 5,
                         "bar_labels": [""] * 10, "current": 5})
    assert len(chart.bars) == 10 and {b.colour for b in chart.bars} == {LIVE_BLUE}
    assert [b.height for b in chart.bars] == [0.5] * 5 + [0.0] * 5
    drawn = [op for op in layout(chart) if op.kind == "rect" and op.colour == LIVE_BLUE]
    assert len(drawn) == 10


def test_an_early_upper_bound_never_stretches_the_gain_axes():
    gain = {"annotated": [0, 10, 20], "positives": [0, 3, 5], "baseline_x": [0, 100],
            "baseline": [0, 2], "offline": {}, "offline_x": {}, "decile_lines": [],
            "xlim": 100, "ylim": 6.0,
            "band": {"informative": False, "lower": 5, "upper": 1000, "total": None}}
    chart = gain_chart(gain)
    assert chart.ylim == (0.0, 6.0)
    assert chart.spans[0].hi == 6.0
