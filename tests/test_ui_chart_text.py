"""Chart text a user can read, offscreen and fast.

The real-window tier (test_ui_realwindow.py) runs the same check on every chart of the desk
and the lead window; here each finding's chart is drawn at the size it was seen at:

- finding 2: the lead window's gain chart with gold curves and an early estimate band, whose
  legend ran off both sides and squeezed the plot to a sliver (and "Save chart…" was worse);
- finding 10: the desk's spend chart at the default split, where "ada" overlapped "$0.40"
  and the spend-per-annotator axis had no ticks.
"""

from __future__ import annotations

import warnings

import matplotlib.backends.backend_agg  # noqa: F401 - loaded before the timeouts below
import pytest

from tests.helpers import make_project
from tests.test_ui_panels import _info, _label_top
from triage.views.advice import RecallBand
from ui.panels import GainPanel, SpendPanel
from ui.panels.chart_text import MIN_FIG_PT, chart_text_problems


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path, n=30, budget=1.0, value_per_positive=0.5)
    _label_top(p, 8, annotator="ada")
    _label_top(p, 3, annotator="bartholomew")
    yield p
    p.close()


def _drawn(qtbot, panel, project, width: int, height: int):
    qtbot.addWidget(panel)
    panel.resize(width, height)
    panel.show()
    panel.show_state(project.snapshot(), _info(project))
    panel.flush()
    return panel


def test_spend_chart_at_the_desk_default_split_is_readable(qtbot, project):
    """Finding 10, at the size the spend panel has at 1366×768 and at 1366×768 × 150 %."""
    for width, height in ((420, 180), (520, 230), (700, 260)):
        panel = _drawn(qtbot, SpendPanel(), project, width, height)
        assert panel.text_problems() == [], (width, height)
        ticks = [t.get_text() for t in panel.people_ax.get_xticklabels() if t.get_text()]
        assert len(ticks) >= 2 and ticks[0] == "$0", ticks
        names = [t.get_text() for t in panel.people_ax.get_yticklabels() if t.get_text()]
        assert names == ["ada", "bartholom…"]
        shown = [c for c in panel.captions if c.get_visible() and c.get_text()]
        assert shown and all(c.get_fontsize() >= MIN_FIG_PT for c in shown)


def test_large_gain_chart_keeps_its_legend_and_title_inside(qtbot, project, tmp_path):
    """Finding 2: the legend below the chart, wrapped to its width; the plot keeps at least
    half the figure's width; "Save chart…" writes the same layout, with no warning."""
    panel = GainPanel(large=True)
    panel.show_estimate(RecallBand(35.0, 25.0, 1094.0, 0.71, 0.023, "x",
                                   "too early to estimate recall: between 2.3% and 100%",
                                   recall_upper=1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a constrained-layout warning fails the test
        _drawn(qtbot, panel, project, 560, 420)
        assert panel.text_problems() == []
        plot = panel.ax.get_window_extent()
        assert plot.width > 0.5 * panel.figure.bbox.width
        assert plot.height > 0.25 * panel.figure.bbox.height
        saved: list[list[str]] = []   # checked as the file is drawn (at 150 dpi)
        panel.figure.canvas.mpl_connect("draw_event", lambda event: saved.append(
            chart_text_problems(panel.figure, "saved", event.renderer)))
        panel.save_figure(tmp_path / "gain.png")
        assert saved and saved[-1] == []
    assert (tmp_path / "gain.png").stat().st_size > 10_000


def test_the_check_finds_small_clipped_overlapping_text_and_missing_ticks():
    """The checker itself: each kind of problem, planted in a plain figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    figure = Figure(figsize=(3, 2), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    ax.xaxis.set_major_formatter(NullFormatter())   # ticks without labels
    ax.set_xlabel("cost")
    ax.text(0.5, 0.5, "tiny", fontsize=6, transform=ax.transAxes)
    ax.text(0.1, 0.2, "first words", fontsize=10, transform=ax.transAxes)
    ax.text(0.12, 0.21, "second words", fontsize=10, transform=ax.transAxes)
    ax.text(0.9, 0.5, "a long line running past the edge", fontsize=10, transform=ax.transAxes)
    figure.canvas.draw()
    found = chart_text_problems(figure, "test")
    assert "test: 'tiny' is 6.2 pt" in found
    assert "test: 'second words' overlaps 'first words'" in found
    assert "test: 'a long line running past the edge' runs off the figure" in found
    assert "test: the axis 'cost' has fewer than 2 ticks" in found
