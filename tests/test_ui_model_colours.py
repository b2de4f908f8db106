"""One colour per model on the desk, in the lead window and the report."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from tests.helpers import make_project
from tests.test_ui_panels import _info, _label_top
from triage.views.models import build_models_view_data, models_inputs
from triage.views.palette import MODEL_PALETTE, model_colour
from triage.views.report.charts import report_charts
from triage.views.report.data import build_report_data
from ui.analysis._models_charts import draw_gain
from ui.panels import ComparisonPanel, GainPanel


def _colour_of(fig, label_start: str) -> str:
    lines = [line for ax in fig.axes for line in ax.get_lines()
             if str(line.get_label()).startswith(label_start)]
    assert lines, [str(line.get_label()) for ax in fig.axes for line in ax.get_lines()]
    return to_hex(lines[0].get_color())


def _mark_colour(chart, label: str) -> str:
    """The colour of the report chart's line named ``label`` (the report draws no Figure)."""
    colours = [m.colour for m in chart.marks if m.label == label]
    assert colours, [m.label for m in chart.marks]
    return to_hex(colours[0])


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_each_model_has_one_colour_on_every_chart(qtbot, tmp_path):
    project = make_project(tmp_path, n=30, budget=1.0)
    _label_top(project, 6)
    models = [m.name for m in project.models]
    assert models == ["m1", "m2"]
    m1, m2 = (to_hex(model_colour(m, models)) for m in models)
    assert (m1, m2) == tuple(to_hex(c) for c in MODEL_PALETTE[:2])
    # The desk's gain panel and the lead window's comparison panel.
    for cls in (GainPanel, ComparisonPanel):
        panel = cls()
        qtbot.addWidget(panel)
        panel.show()
        panel.show_state(project.snapshot(), _info(project))
        qtbot.waitUntil(lambda p=panel: p.redraws == 1, timeout=10000)
        lines = panel.offline if cls is GainPanel else panel.lines
        assert [to_hex(lines[m].get_color()) for m in models] == [m1, m2], cls
    # The lead window's Models tab.
    fig = Figure()
    draw_gain(fig, build_models_view_data(models_inputs(project), trials=20))
    assert (_colour_of(fig, "m1"), _colour_of(fig, "m2")) == (m1, m2)
    # The report.
    charts = report_charts(build_report_data(project, bootstrap=20))
    assert (_mark_colour(charts["gain"], "m1 (gold)"),
            _mark_colour(charts["gain"], "m2 (gold)")) == (m1, m2)
    assert (_mark_colour(charts["models_gain"], "m1"),
            _mark_colour(charts["models_gain"], "m2")) == (m1, m2)
    project.close()
