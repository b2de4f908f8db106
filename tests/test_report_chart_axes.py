"""The report's charts read as the app's: times on the spend axis, the app's yield colours,
and an early recall band that never stretches the gain chart."""

from __future__ import annotations

import datetime as dt
import re

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex

from triage.views.palette import LIVE_BLUE
from triage.views.report.charts import spend_chart, yield_chart


def _ticks(fig) -> list[str]:
    FigureCanvasAgg(fig).draw()
    return [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]


def test_the_spend_axis_reads_as_times_of_day():
    t0 = dt.datetime(2026, 11, 27, 9, 0, tzinfo=dt.UTC)
    times = [(t0 + dt.timedelta(minutes=9 * i)).isoformat() for i in range(11)]
    fig = spend_chart({"timeline": {"times": times, "spend": list(range(11)),
                                    "events": list(range(11))},
                       "currency": "EUR", "budget": 20.0})
    ticks = _ticks(fig)
    assert ticks and all(re.fullmatch(r"\d\d:\d\d", t) for t in ticks), ticks
    assert fig.axes[0].get_xlabel() == "time (UTC), from 27 Nov 2026 09:00 to 27 Nov 2026 10:30"


def test_yield_bars_use_the_apps_blue():
    fig = yield_chart({"deciles": list(range(1, 11)), "yields": [0.5] * 5 + [None] * 5,
                       "bar_labels": [""] * 10, "current": 5})
    bars = list(fig.axes[0].containers[0])
    assert len(bars) == 10 and {to_hex(b.get_facecolor()) for b in bars} == {LIVE_BLUE.lower()}
