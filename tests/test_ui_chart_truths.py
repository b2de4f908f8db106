"""The charts draw only what the numbers say and keep their text readable: a lone audit label
draws no 100 % bar, the lead view's gain chart keeps its height under a long legend, the
spend panel's names never run into its figures (matplotlib's renderer extents)."""

from __future__ import annotations

import pytest

from triage.stats.live import LiveState, RankedLabel
from triage.views.panels import PanelInfo, yield_data
from ui.panels import GainPanel, SpendPanel, YieldPanel


def _labels(pool: int, top: int, audit_rank: int | None = None, **settings) -> LiveState:
    """``top`` labels down the ranking (every other one positive) and one positive audit
    label at ``audit_rank``."""
    state = LiveState(pool, **settings)
    for i in range(1, top + 1):
        state.apply(RankedLabel(i, i, "ada", i % 2 == 1, False, 10.0, "triage"))
    if audit_rank is not None:
        state.apply(RankedLabel(top + 1, audit_rank, "ada", True, False, 10.0, "audit"))
    return state


def test_a_single_audit_label_draws_no_yield_bar_but_says_n(qtbot):
    snap = _labels(1500, 20, audit_rank=1200, price_per_item=0.04).snapshot()
    data = yield_data(snap, PanelInfo(pool=1500))
    assert data.annotated[7] == 1 and data.yields[7] == 1.0   # the number is still there
    assert data.drawn[7] is False and data.bar_labels[7] == "n=1"
    assert data.drawn[0] is True and data.bar_labels[0] == "$0.08"   # 20 labels, 10 positive
    panel = YieldPanel()
    qtbot.addWidget(panel)
    panel.resize(420, 260)
    panel.show_state(snap, PanelInfo(pool=1500))
    panel.flush()
    assert panel.yield_bars[7].get_height() == 0.0
    assert panel.cost_texts[7].get_text() == "n=1"
    assert panel.yield_bars[0].get_height() == pytest.approx(0.5)


def test_a_whole_small_decile_is_its_true_yield_and_is_drawn():
    data = yield_data(_labels(20, 4).snapshot(), PanelInfo(pool=20))
    assert data.drawn[:3] == [True, True, False] and data.yields[:2] == [0.5, 0.5]


def _gain_with_models(qtbot, models: int, size: tuple[int, int]) -> GainPanel:
    """The lead view's gain chart with ``models`` offline curves and an estimate band."""
    import numpy as np

    from triage.views.panels import RecallBand

    pool = 1500
    state = _labels(pool, 300, price_per_item=0.04)
    curves = {f"model number {k} with a long name": np.minimum(
        np.arange(1, pool + 1) * (0.1 + 0.05 * k), 236).astype(float) for k in range(models)}
    info = PanelInfo(pool=pool, offline_curves=curves)
    panel = GainPanel(large=True)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show_state(state.snapshot(), info)
    panel.show_estimate(RecallBand(total=None, lower=197.0, upper=672.0, recall=None,
                                   recall_lower=0.29, method="early",
                                   text="between 197 and 672 positives; too early to "
                                        "estimate recall: between 29% and 100%"))
    panel.flush()
    return panel


@pytest.mark.parametrize("models", [3, 6])
def test_the_lead_gain_chart_keeps_its_plot_under_a_long_legend(qtbot, models):
    panel = _gain_with_models(qtbot, models, (900, 420))
    fig = panel.figure
    renderer = fig.canvas.get_renderer()
    plot_px = panel.ax.get_window_extent(renderer).height
    assert plot_px >= 0.45 * fig.bbox.height, f"plot {plot_px:.0f} px of {fig.bbox.height:.0f}"
    legend = fig.legends[0].get_window_extent(renderer)
    assert legend.height <= 0.32 * fig.bbox.height
    assert legend.y0 >= fig.bbox.y0 - 1 and legend.x0 >= fig.bbox.x0 - 1
    assert legend.x1 <= fig.bbox.x1 + 1
    assert panel.text_problems() == []


def test_the_spend_panels_names_never_run_into_its_figures(qtbot):
    state = LiveState(1500, price_per_item=0.04, budget=20.0)
    for i, who in enumerate(["ada"] * 10 + ["bartholomew"] * 4 + ["curator"] * 2, start=1):
        state.apply(RankedLabel(i, i, who, i % 3 == 0, False, 10.0, "triage"))
    panel = SpendPanel()
    qtbot.addWidget(panel)
    panel.resize(360, 230)
    info = PanelInfo(pool=1500)
    panel.show_state(_labels(1500, 2, price_per_item=0.04, budget=20.0).snapshot(), info)
    panel.flush()        # laid out for a short name first, then the longer ones arrive
    panel.show_state(state.snapshot(), info)
    panel.flush()
    assert panel.text_problems() == []


@pytest.mark.slow
def test_the_agreement_bands_are_named_beside_the_plot_never_over_a_point(qtbot, tmp_path):
    """"reliable" and "tentative" sit right of the plot: inside it, "reliable" ran into the
    "n=43" of a session whose α was between the two lines."""
    from matplotlib.text import Annotation

    from tests.helpers import make_project
    from tests.test_view_analysis import BREAKDOWNS, label_two
    from triage.project.agreement import agreement_for_project
    from triage.views.analysis import session_labels
    from ui.analysis import AgreementView

    project = make_project(tmp_path, n=60, budget=1.0)
    label_two(project)
    report = agreement_for_project(project, bootstrap=50, breakdowns=BREAKDOWNS).to_json()
    view = AgreementView()
    qtbot.addWidget(view)
    view.resize(1000, 560)
    view.show_report(report, session_labels(project))
    view.show()
    view.flush()
    project.close()
    fig = view.chart.figure
    renderer = fig.canvas.get_renderer()
    bands = [(t, ax) for ax in fig.axes for t in ax.texts
             if isinstance(t, Annotation) and t.get_text() in ("reliable", "tentative")]
    assert len(bands) == 4   # two charts, two bands each
    for text, ax in bands:
        assert text.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    assert view.chart.text_problems() == []


SHARP_PROBE = """
import json, sys
import numpy as np
from PySide6.QtWidgets import QApplication
app = QApplication([])
from triage.stats.live import RankedLabel, LiveState
from triage.views.panels import PanelInfo
from ui.panels import GainPanel
state = LiveState(1500, price_per_item=0.04)
for i in range(1, 200):
    state.apply(RankedLabel(i, i, "ada", i % 3 == 0, False, 10.0, "triage"))
panel = GainPanel()
panel.resize(301, 203)
panel.show()
app.processEvents()
panel.show_state(state.snapshot(), PanelInfo(pool=1500))
panel.flush()
shot = panel.grab().toImage().convertToFormat(panel.grab().toImage().Format.Format_RGBA8888)
buffer = np.asarray(panel.figure.canvas.buffer_rgba())
h, w = min(shot.height(), buffer.shape[0]), min(shot.width(), buffer.shape[1])
raw = np.frombuffer(shot.constBits(), np.uint8, shot.sizeInBytes()).reshape(
    shot.height(), shot.bytesPerLine())[:, : shot.width() * 4].reshape(shot.height(), shot.width(), 4)
same = float(np.mean(np.all(raw[:h, :w, :3] == buffer[:h, :w, :3], axis=2)))
print(json.dumps({"ratio": panel.devicePixelRatioF(), "shot": [shot.width(), shot.height()],
                  "buffer": [buffer.shape[1], buffer.shape[0]], "same": same}))
"""


@pytest.mark.slow   # a few seconds: the slow tier, which CI runs
@pytest.mark.parametrize("scale", ["1.25", "1.5"])
def test_charts_are_drawn_pixel_for_pixel_at_a_fractional_scale(tmp_path, scale):
    """At 125 % the chart's image has the screen's device pixels: what the widget shows is
    the figure's own pixels, never a resampled (blurred) copy."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": scale,
           "TRIAGE_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SHARP_PROBE], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["ratio"] == float(scale)
    assert abs(seen["shot"][0] - seen["buffer"][0]) <= 1 and abs(seen["shot"][1] - seen["buffer"][1]) <= 1
    assert seen["same"] > 0.99, seen
