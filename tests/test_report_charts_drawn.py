"""The report's charts are drawn without a plotting library: one description, two renderers
(SVG for the page, vector drawing for the PDF) that show the same texts."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

from triage.views.report.chart_layout import texts
from triage.views.report.chart_svg import to_svg
from triage.views.report.charts import models_gain_chart, value_chart

NAME = 'm<1> & "x"'


def _models_gain():
    deciles = [{"cumulative_gain": g} for g in (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1, 1, 1, 1)]
    return models_gain_chart({"models": {NAME: {"deciles": deciles,
                                                "candidates_within_budget": 300}},
                              "pool": 1000})


def test_the_svg_is_well_formed_and_escapes_every_text():
    svg = to_svg(_models_gain())
    root = ET.fromstring(svg)   # parses: every name escaped
    shown = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert NAME in shown and "cumulative gain" in shown
    assert "<1>" not in svg
    # Ticks at round values, the budget's reach as a dotted vertical at decile 3.
    chart = _models_gain()
    assert [label for _, label in chart.xticks] == ["0", "2", "4", "6", "8", "10"]
    assert [label for _, label in chart.yticks] == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    assert all(label in shown for _, label in chart.xticks + chart.yticks)
    assert chart.rules[0].at == 3.0


def test_the_pdf_shows_the_texts_the_page_shows(tmp_path):
    from pypdf import PdfReader

    from triage.views.report.pdf import ReportPDF, _chart

    chart = value_chart({"value_ks": [0, 1, 2, 5, 10], "models": ["a", "b"],
                         "value_tuned": {"a": [0.9, 0.7, 0.5, None, 0.1],
                                         "b": [0.8, 0.6, -0.2, -0.4, -0.5]}})
    assert chart.ylim[0] < -0.5 and chart.ylim[1] > 0.9   # every value in view
    pdf = ReportPDF("t")
    pdf.add_page()
    _chart(pdf, chart)
    (tmp_path / "c.pdf").write_bytes(bytes(pdf.output()))
    page = PdfReader(tmp_path / "c.pdf").pages[0]
    text = page.extract_text()
    for t in texts(chart):
        assert t in text, t
    assert not page.images   # vector, not pixels


def test_the_report_draws_its_charts_without_importing_matplotlib():
    code = """
import sys
from triage.views.report import html, pdf
from triage.views.report.chart_pdf import draw_chart
from triage.views.report.chart_svg import to_svg
from triage.views.report.charts import yield_chart
chart = yield_chart({"deciles": [1, 2], "yields": [0.5, None], "bar_labels": ["$1", ""],
                     "current": 1})
to_svg(chart)
doc = pdf.ReportPDF("t")
doc.add_page()
draw_chart(doc, chart, 15, 15, 180)
doc.output()
print(sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_long_line_is_drawn_through_the_points_that_show():
    import numpy as np

    from triage.views.report.chart_layout import thin

    rng = np.random.default_rng(0)
    xs = np.sort(rng.random(20_000)) * 400
    ys = rng.random(20_000) * 100
    points = list(zip(xs.tolist(), ys.tolist()))
    kept = thin(points)
    assert len(kept) < len(points) // 4
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert set(kept) <= set(points)
    # Each half-point column keeps its lowest and highest point: the envelope drawn is the
    # envelope of all the points.
    for column in {int(x // 0.5) for x in xs[::997]}:
        inside = [p for p in points if int(p[0] // 0.5) == column]
        shown = [p for p in kept if int(p[0] // 0.5) == column]
        assert min(p[1] for p in shown) == min(p[1] for p in inside)
        assert max(p[1] for p in shown) == max(p[1] for p in inside)


def test_the_legend_goes_where_it_hides_no_line_on_a_white_ground():
    from triage.views.report.chart_layout import layout
    from triage.views.report.chart_model import Chart, Mark

    # A hockey stick: flat along the bottom, then up at the right. A legend in the lower
    # right (the old fixed place) would sit on it; the upper left hides nothing.
    xs = [x / 10 for x in range(101)]
    ys = [0.0 if x < 8 else (x - 8) / 2 for x in xs]
    chart = Chart((0.0, 10.0), (0.0, 1.0), [(0.0, "0"), (10.0, "10")], [(0.0, "0"), (1.0, "1")],
                  "x", "y", marks=[Mark(xs, ys, "#0072B2", label="found")], legend="best")
    fx, fy = chart.to_box()
    ground = next(op for op in layout(chart) if op.kind == "rect" and op.colour == "#ffffff"
                  and op.opacity < 1)
    (x0, y0), (x1, y1) = ground.points
    assert not any(x0 <= fx(x) <= x1 and y0 <= fy(y) <= y1 for x, y in zip(xs, ys))
    left, top, _, _ = chart.plot_box()
    assert x0 < left + 10 and y0 < top + 10     # the upper left
