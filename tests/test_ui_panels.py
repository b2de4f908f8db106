"""The live panels and the lead view, fed by a real project after a known label sequence."""

from __future__ import annotations

import matplotlib.backends.backend_agg  # noqa: F401 - the panels load it lazily, on their drawing
import numpy as np  # thread; loaded here so that the timeouts below measure drawing only
import pytest

from tests.helpers import make_project, pool_rows, write_pool
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.stats.live import LiveState, RankedLabel
from triage.store.settings import LabelOption, Settings
from triage.views.panels import PanelInfo
from ui.dialogs.settings import SettingsDialog
from ui.lead_view import LeadView
from ui.panels import ComparisonPanel, GainPanel, SpendPanel, YieldPanel


def _info(project) -> PanelInfo:
    s = project.settings
    return PanelInfo(pool=project.pool, currency=s.currency, budget=s.budget,
                     value_per_positive=s.value_per_positive, price_per_item=s.price_per_item,
                     offline_curves=project.offline_curves(),
                     active_model=project.active_model().name,
                     annotator_rows=project.annotator_table())


def _label_top(project, n: int, annotator: str = "ada", seconds: float = 2.0) -> None:
    """Label the next n queue candidates with their gold labels (key cNNNN, gold every 3rd)."""
    session = project.start_session(annotator)
    for _ in range(n):
        item = project.next_candidate(session)
        value = "idiom" if int(item.key[1:]) % 3 == 0 else "literal"
        project.record_label(session, item.candidate_id, value, seconds=seconds)


@pytest.fixture
def project(tmp_path):
    # 30 candidates; m1 ranks c0000..c0029 in order, m2 reversed; gold idiom when i % 3 == 0
    p = make_project(tmp_path, n=30, budget=1.0, value_per_positive=0.5)
    _label_top(p, 6)  # ranks 1..6 under m1: positives at ranks 1 and 4
    yield p
    p.close()


def _panel(qtbot, cls, **kw):
    panel = cls(**kw)
    qtbot.addWidget(panel)
    return panel


@pytest.mark.slow
def test_gain_panel_draws_the_live_curve_gold_baseline_and_offline_curves(qtbot, project):
    panel = _panel(qtbot, GainPanel)
    panel.show()
    panel.show_state(project.snapshot(), _info(project))
    qtbot.waitUntil(lambda: panel.redraws == 1, timeout=10000)  # slack for a loaded machine
    data = panel.panel_data()
    assert data["annotated"] == [0, 1, 2, 3, 4, 5, 6]
    assert data["positives"] == [0, 1, 1, 1, 2, 2, 2]
    assert data["xlim"] == 6 and data["decile_lines"] == [3]
    assert data["baseline"] == [0.0, 2.0]  # 6 of 30 at random, 10 gold positives
    assert "gold has 10 positives" in data["baseline_label"]
    assert data["offline"] == {"m1": [0, 1, 1, 1, 2, 2, 2], "m2": [0, 0, 0, 1, 1, 1, 2]}
    assert panel.live.get_xdata().tolist() == data["annotated"]  # drawn = reported
    assert "2 positives in 6" in panel.title_text.get_text()


def test_spend_and_yield_panels_after_the_same_labels(qtbot, project):
    spend, yld = _panel(qtbot, SpendPanel), _panel(qtbot, YieldPanel)
    for panel in (spend, yld):
        panel.show_state(project.snapshot(), _info(project))
        panel.flush()
    s = spend.panel_data()
    assert s["spent"] == pytest.approx(0.24) and s["remaining"] == pytest.approx(0.76)
    lines = dict(s["lines"])
    assert lines == {"Spent": "$0.24", "Budget": "$1.00", "Remaining": "$0.76",
                     "Cost per positive": "$0.12", "To finish decile 3": "$0.12",
                     "Value found": "$1.00"}
    assert s["headline"] == "24% of the budget used"
    assert spend.spent_rect.get_width() == pytest.approx(0.24)
    assert [t.get_text() for t in spend.figures[:2]] == ["$0.24", "$1.00"]
    y = yld.panel_data()
    assert y["yields"][:3] == [pytest.approx(1 / 3), pytest.approx(1 / 3), None]
    assert y["shares"][:3] == [1.0, 1.0, 0.0]
    assert y["bar_labels"][:3] == ["$0.12", "$0.12", ""]
    assert y["current"] == 3
    assert yld.yield_bars[0].get_height() == pytest.approx(1 / 3)
    assert [t.get_fontweight() for t in yld.ax.get_xticklabels()][2] == "bold"


def test_show_state_is_cheap_and_redraws_coalesce(qtbot, project):
    panel = _panel(qtbot, GainPanel)
    panel.show()
    snap, info = project.snapshot(), _info(project)
    # show_state only stores the snapshot and starts a timer: 500 calls draw nothing (its
    # time per call, well under a millisecond, is in bench/bench_cheap.py).
    for _ in range(500):
        panel.show_state(snap, info)
    assert panel.redraws == 0
    qtbot.waitUntil(lambda: panel.redraws == 1, timeout=10000)  # slack for a loaded machine
    qtbot.wait(120)
    assert panel.redraws == 1
    panel.hide()  # e.g. the lead view closed: labels keep coming, nothing is drawn
    _label_top(project, 1)
    panel.show_state(project.snapshot(), info)
    qtbot.wait(120)
    assert panel.redraws == 1 and panel.panel_data()["annotated"][-1] == 7
    panel.show()
    qtbot.waitUntil(lambda: panel.redraws == 2, timeout=10000)  # slack for a loaded machine
    assert panel.live.get_xdata()[-1] == 7


def test_empty_project_budgetless_and_tiny_pool_draw_without_errors(qtbot, tmp_path):
    src = write_pool(tmp_path / "tiny.csv", pool_rows(7))
    p = create_project(tmp_path / "t.triage", Settings(
        labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")),
        positive_labels=("idiom",)))
    p.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),)))
    panels = [_panel(qtbot, cls) for cls in (GainPanel, SpendPanel, YieldPanel)]
    for panel in panels:
        panel.show_state(p.snapshot(), _info(p))
        panel.flush()
    gain, spend, yld = (x.panel_data() for x in panels)
    assert gain["empty"] and gain["baseline"] == [] and "Nothing annotated" in gain["summary"]
    assert "Nothing annotated yet" in panels[0].empty_text.get_text()
    assert dict(spend["lines"])["Budget"] == "no budget set"
    assert panels[1].bar_note.get_text() == "no budget set"
    assert yld["items"] == [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]  # ceil(10 r / 7): empty deciles
    assert yld["bar_labels"][0] == "empty"
    _label_top(p, 2)
    panels[2].show_state(p.snapshot(), _info(p))
    assert panels[2].panel_data()["yields"][1] == 1.0  # rank 1 (c0000) is an idiom
    p.close()


@pytest.mark.slow
def test_per_hour_pricing_and_a_million_item_pool_are_downsampled(qtbot):
    state = LiveState(1_000_000, price_model="per_hour", hourly_rates={"ada": 36.0},
                      budget=500.0)
    rng = np.random.default_rng(3)
    for i in range(1, 5001):
        state.apply(RankedLabel(i, i, "ada", bool(rng.random() < 0.3), False, 1.0, "triage"))
    curves = {"m1": np.cumsum(rng.random(1_000_000) < 0.05)}
    info = PanelInfo(pool=1_000_000, offline_curves=curves, active_model="m1")
    gain, spend = _panel(qtbot, GainPanel), _panel(qtbot, SpendPanel)
    comparison = _panel(qtbot, ComparisonPanel, large=True)
    # What keeps the draw fast is the downsampling asserted below (the time is a benchmark:
    # bench/bench_cheap.py).
    for panel in (gain, spend, comparison):
        panel.show_state(state.snapshot(), info)
        panel.flush()
    g = gain.panel_data()
    assert len(g["annotated"]) <= 2000 and g["annotated"][-1] == 5000
    assert g["xlim"] == 6250 and all(len(v) <= 2000 for v in g["offline"].values())
    assert spend.panel_data()["spent"] == pytest.approx(50.0)  # 5000 s at $36/h
    c = comparison.panel_data()
    assert len(c["curves"]["m1"]) <= 2000
    assert c["budget_items"] == 50_000  # $500 at $0.01 per label so far


@pytest.mark.slow
def test_charts_save_as_png_and_svg(qtbot, project, tmp_path):
    for cls in (GainPanel, SpendPanel, YieldPanel, ComparisonPanel):
        panel = _panel(qtbot, cls)
        panel.show_state(project.snapshot(), _info(project))
        png, svg = tmp_path / f"{cls.__name__}.png", tmp_path / f"{cls.__name__}.svg"
        panel.save_figure(png)
        panel.save_figure(svg)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in svg.read_text(encoding="utf-8")
        with pytest.raises(ValueError, match="png or .svg"):
            panel.save_figure(tmp_path / "chart.jpg")
    assert panel.save_action.text() == "Save chart…"


def test_settings_change_moves_the_spend_figures(qtbot, project):
    panel = _panel(qtbot, SpendPanel)
    panel.show_state(project.snapshot(), _info(project))
    assert panel.panel_data()["spent"] == pytest.approx(0.24)
    dialog = SettingsDialog(project.settings, [m.name for m in project.models])
    qtbot.addWidget(dialog)
    price = dialog.fields.price
    price.selectAll()
    qtbot.keyClicks(price, "0.10")
    dialog.fields.budget.selectAll()
    qtbot.keyClicks(dialog.fields.budget, "2")
    assert dialog.changes() == {"price_per_item": 0.10, "budget": 2.0}
    project.update_settings(**dialog.changes())
    panel.show_state(project.snapshot(), _info(project))
    data = panel.panel_data()
    assert data["spent"] == pytest.approx(0.60) and data["remaining"] == pytest.approx(1.40)
    assert dict(data["lines"])["Cost per positive"] == "$0.30"


def test_settings_dialog_refuses_a_bad_price_and_keeps_unchanged_fields_out(qtbot, project):
    dialog = SettingsDialog(project.settings, ["m1", "m2"])
    qtbot.addWidget(dialog)
    assert dialog.changes() == {}
    dialog.model_combo.setCurrentText("m2")
    assert dialog.changes() == {"active_model": "m2"}
    dialog.fields.price.setText("cheap")
    dialog.accept()
    assert dialog.result() == 0 and "price per item must be a number" in dialog.error.text()
    dialog.fields.price.setText("0.04")
    dialog.fields.positives.setText("maybe")
    dialog.accept()
    assert "not in the label scheme" in dialog.error.text()


def test_lead_view_shows_large_panels_table_and_comparison(qtbot, project):
    _label_top(project, 3, annotator="bob", seconds=4.0)
    view = LeadView()
    qtbot.addWidget(view)
    view.show_state(project.snapshot(), _info(project))
    view.flush()
    assert view.table_rows() == [
        ["ada", "6", "0", "2", "2.0", "1", "$0.24"],
        ["bob", "3", "0", "1", "4.0", "1", "$0.12"],
    ]
    assert view.gain.large and view.gain.panel_data()["annotated"][-1] == 9
    assert view.comparison.panel_data()["at_budget"] == {"m1": 9, "m2": 8}  # $1 buys 25
    assert not view.comparison.isHidden() and view.no_gold.isHidden()
    assert set(view.save_actions) == {"Cumulative gain", "Spend", "Marginal-decile yield",
                                      "Offline model comparison"}
    view.close()


def test_lead_view_without_gold_says_so(qtbot, tmp_path):
    rows = [{k: v for k, v in r.items() if k != "gold"} for r in pool_rows(20)]
    src = write_pool(tmp_path / "nogold.csv", rows)
    p = create_project(tmp_path / "n.triage")
    p.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"),)))
    view = LeadView()
    qtbot.addWidget(view)
    view.show_state(p.snapshot(), _info(p))
    assert view.comparison.isHidden() and not view.no_gold.isHidden()
    assert not view.save_actions["Offline model comparison"].isEnabled()
    assert "observed yield" not in view.gain.panel_data()["baseline_label"]  # nothing yet
    p.close()


def test_gain_band_is_clipped_and_truth_and_estimate_are_named(qtbot, project):
    """An early band (only an upper bound is known) never stretches the axes, draws no point
    estimate, and the legend says which line is truth (gold) and what is known."""
    from triage.views.advice import RecallBand

    panel = _panel(qtbot, GainPanel, large=True)
    panel.resize(760, 420)
    panel.show()
    panel.show_state(project.snapshot(), _info(project))
    found = float(project.snapshot().positives_found)
    ylim = panel.panel_data()["ylim"]
    panel.show_estimate(RecallBand(None, found, found + 1069.0, None, 0.023, "x",
                                   "2 positives found in 20 labels (19 ranked, 1 audit); "
                                   "recall is at least 0.2% (95% confidence) if the ranking "
                                   "beats random below rank 19"))
    panel.flush()
    data = panel.panel_data()
    lower, upper = panel.band_extent()
    assert data["ylim"] == ylim < found + 1069.0          # the axes are not stretched
    assert lower == min(found, ylim) and upper == data["ylim"]
    assert len(panel.band_line.get_xdata()) == 0     # no point estimate while too early
    legend = panel.figure.legends[0]   # large: below the whole chart
    labels = [t.get_text() for t in legend.get_texts()]
    assert any(t.startswith("known: 2 positives found in 20 labels") for t in labels), labels
    assert any(t.startswith("truth: random order, gold has 10") for t in labels), labels
    assert any(t.startswith("truth: m1 order on gold labels") for t in labels), labels
