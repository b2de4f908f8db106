"""The analysis views as a lead sees them: agreement, adjudication, models, advice banner."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt

from tests.helpers import make_project
from tests.test_view_analysis import BREAKDOWNS, label_two
from triage.project.adjudication import adjudicate, candidate_id_of, disagreements
from triage.project.advice import project_advice
from triage.project.agreement import agreement_for_project
from triage.stats.stopping import advice_to_json
from triage.views.agreement_words import reason_text
from triage.views.analysis import session_labels
from triage.views.models import build_models_view_data, models_inputs
from triage.views.rule_words import worded
from ui.analysis import AdjudicationView, AdviceBanner, AgreementView, ModelsView


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path, n=60, budget=1.0)
    label_two(p)
    yield p
    p.close()


@pytest.mark.slow
def test_agreement_view_shows_alpha_reading_and_the_kappa_matrix(qtbot, project, tmp_path):
    report = agreement_for_project(project, bootstrap=200, breakdowns=BREAKDOWNS).to_json()
    view = AgreementView()
    qtbot.addWidget(view)
    view.resize(1100, 620)
    view.show_report(report, session_labels(project))
    view.show()
    alpha, (low, high) = report["krippendorff_alpha"], report["alpha_ci95"]
    assert view.alpha_label.text() == (f"Krippendorff's α = {alpha:.3f}  "
                                       f"(95% CI {low:.3f} – {high:.3f})")
    assert view.reading_label.text().startswith(report["reading"] + " — ")
    assert view.alpha_label.textFormat() == Qt.TextFormat.PlainText
    data = view.panel_data()
    assert data["annotators"] == ["ada", "bob"]
    assert data["kappa"][0][1] == data["kappa"][1][0] == report["cohen_kappa_pairs"][
        "ada|bob"]["kappa"]
    assert data["kappa_items"][0][1] == report["cohen_kappa_pairs"]["ada|bob"]["items"] == 30
    assert data["sessions"]["labels"] == ["ada · 1", "bob · 1", "ada · 2"]
    assert data["deciles"]["items"] == [6, 6, 6, 6, 6]
    # The one chart thread may still be drawing other tests' panels on a loaded machine.
    qtbot.waitUntil(lambda: view.redraws >= 1, timeout=60_000)
    assert view.redraws == 1  # the empty report and this one coalesced into one drawing
    # Drawn on the chart thread: the GUI thread only painted the finished image.
    assert view.chart.render_threads and "MainThread" not in view.chart.render_threads
    saved = view.save_figure(tmp_path / "agreement.svg")
    assert saved.read_text(encoding="utf-8").count("<svg") == 1
    view.grab().save(str(tmp_path / "agreement.png"))
    assert (tmp_path / "agreement.png").stat().st_size > 10_000


def test_agreement_view_with_one_annotator_says_why_alpha_is_undefined(qtbot, tmp_path):
    p = make_project(tmp_path, n=30)
    s = p.start_session("ada")
    for i in range(4):
        p.record_label(s, candidate_id_of(p, f"c{i:04d}"), "idiom" if i % 3 == 0 else "literal")
    report = agreement_for_project(p, bootstrap=20, breakdowns=BREAKDOWNS).to_json()
    p.close()
    view = AgreementView()
    qtbot.addWidget(view)
    view.show_report(report)
    view.flush()
    reason = reason_text(report["undefined_reason"])   # the report gives a code, the view words
    assert reason and view.alpha_label.text() == "Krippendorff's α is undefined"
    assert view.reading_label.text() == f"undefined — {reason}"
    assert view.panel_data()["kappa"] == []


def test_adjudication_view_rules_through_the_callback(qtbot, project, tmp_path):
    calls = []
    judge = project.start_session("judith")

    def on_rule(candidate_id, value):
        calls.append((candidate_id, value))
        adjudicate(project, judge, candidate_id, value)

    view = AdjudicationView(on_rule=on_rule)
    qtbot.addWidget(view)
    view.resize(800, 360)
    view.show_items(disagreements(project), project.settings.labels)
    view.show()
    assert view.table.rowCount() == 3
    assert [view.table.item(r, 1).text() for r in range(3)] == ["c0001", "c0004", "c0009"]
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    assert headers == ["Rank", "Key", "Text", "ada", "bob", "Status"]
    assert view.table.item(1, 2).text() == "phrase number 4"
    assert (view.table.item(1, 3).text(), view.table.item(1, 4).text()) == ("literal", "idiom")
    # Pick the second row with the mouse and press the "idiom" button.
    rect = view.table.visualItemRect(view.table.item(1, 1))
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.selected_candidate() == candidate_id_of(project, "c0004")
    assert view.buttons["idiom"].text() == "idiom   [i]"
    with qtbot.waitSignal(view.ruled) as signal:
        qtbot.mouseClick(view.buttons["idiom"], Qt.MouseButton.LeftButton)
    assert calls == [(candidate_id_of(project, "c0004"), "idiom")]
    assert signal.args == [candidate_id_of(project, "c0004"), "idiom"]
    # The host refreshes: the ruled row is gone and the selection stays in place.
    view.show_items(disagreements(project), project.settings.labels)
    assert [view.table.item(r, 1).text() for r in range(view.table.rowCount())] == [
        "c0001", "c0009"]
    assert view.selected_candidate() == candidate_id_of(project, "c0009")
    # The key of a label rules too.
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key.Key_L)
    assert calls[-1] == (candidate_id_of(project, "c0009"), "literal")
    with sqlite3.connect(project.path) as db:
        rows = db.execute("SELECT value FROM labels WHERE kind = 'adjudication' ORDER BY id")
        assert [r[0] for r in rows] == ["idiom", "literal"]


def test_adjudication_buttons_wait_for_a_selection(qtbot, project):
    view = AdjudicationView(on_rule=lambda *_: pytest.fail("no ruling without a selection"))
    qtbot.addWidget(view)
    view.show_items([], project.settings.labels)
    assert view.summary.text() == "No disagreements await a ruling."
    assert not view.buttons["idiom"].isEnabled()
    assert view.rule("idiom") is False


@pytest.mark.slow
def test_models_view_tables_equal_the_core_numbers(qtbot, project, tmp_path):
    data = build_models_view_data(models_inputs(project), trials=200)
    view = ModelsView()
    qtbot.addWidget(view)
    view.resize(1000, 680)
    view.show_data(data)
    view.show()
    cells = view.table_cells()
    for m in ("m1", "m2"):
        for key, value in data.metrics[m].items():
            assert cells[m][key] == ("undef." if value is None else f"{value:.3f}")
    assert cells["m1"]["precision"] == f"{11 / 31:.3f}"
    p = data.pvalues["m1|m2"]["roc_auc"]
    row = list(data.metric_names).index("roc_auc")
    assert view.pvalue_table.item(row, 0).text() == f"{p['difference']:+.3f}"
    assert view.pvalue_table.item(row, 1).text().startswith(f"{p['p']:.3f}")
    assert view.info.text() == "Judged on 60 candidates from gold labels, 20 positive; 2 models."
    assert not view.warning.isVisibleTo(view)
    budget_items = 1.0 / 0.04
    assert view.panel_data()["budget_items"] == pytest.approx(budget_items)
    assert view.acceptance.text().splitlines()[0] == data.acceptance[2.0]["m1"].text
    view.k_combo.setCurrentIndex(view.k_combo.findData(8.0))
    assert view.acceptance.text().splitlines()[0] == data.acceptance[8.0]["m1"].text
    states = view.tab_states()  # by title: the index once pointed at Calibration
    assert not states["Bandit"] and states["Calibration"]  # follow mode: no bandit
    qtbot.waitUntil(lambda: view.redraws >= 1, timeout=60_000)
    assert view.redraws == 1
    assert "MainThread" not in view.charts["Gain"].render_threads
    assert view.charts["Value"].renders == 0  # a chart on a hidden tab waits to be shown
    for chart in ("Gain", "Value", "Calibration"):
        assert view.save_figure(tmp_path / f"{chart}.png", chart).stat().st_size > 5_000


@pytest.mark.slow
def test_models_view_shows_the_metrics_first_and_the_value_tables_when_they_come(qtbot,
                                                                                 project):
    from triage.views.models import models_value, with_value
    from ui.analysis._models_charts import PENDING

    inputs = models_inputs(project)
    first = build_models_view_data(inputs, trials=50, pvalues=False, value=False)
    view = ModelsView()
    qtbot.addWidget(view)
    view.resize(1000, 680)
    view.show_data(first)
    assert view.table_cells()["m1"]["roc_auc"] == f"{first.metrics['m1']['roc_auc']:.3f}"
    assert view.value_caption.text() == PENDING and view.acceptance.text() == ""
    view.tabs.setCurrentIndex(view.tab_index("Value"))
    view.flush()
    texts = [t.get_text() for t in view.charts["Value"].figure.findobj(
        lambda a: hasattr(a, "get_text"))]
    assert PENDING in texts
    full = with_value(first, models_value(inputs))
    view.show_data(full)
    assert view.value_caption.text().startswith("Value V = (1−ρ)(α − k(1−α))")
    assert view.acceptance.text().splitlines()[0] == full.acceptance[2.0]["m1"].text
    view.flush()
    axes = view.charts["Value"].figure.axes
    assert axes and len(axes[0].lines) == 5   # two lines per model and the zero line


def test_models_view_warns_about_a_followed_ranking_and_shows_the_bandit(qtbot, tmp_path):
    from tests.helpers import SCHEME, pool_rows, write_pool
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project
    from triage.store.settings import Settings

    src = write_pool(tmp_path / "pool.csv", pool_rows(40))
    p = create_project(tmp_path / "p.triage", Settings(labels=SCHEME, positive_labels=("idiom",),
                                                       queue_mode="bandit"))
    p.import_file(src, ColumnMapping(text="text", key="key", scores=(("m1", "m1"), ("m2", "m2"))))
    s = p.start_session("ada")
    for _ in range(12):
        c = p.next_candidate(s)
        p.record_label(s, c.candidate_id, "idiom" if int(c.key[1:]) % 3 == 0 else "literal")
    belief = p.bandit_belief()
    data = build_models_view_data(models_inputs(p), trials=50)
    p.close()
    view = ModelsView()
    qtbot.addWidget(view)
    view.show_data(data)
    assert view.warning.text().startswith("Warning: labels came from a bandit")
    assert view.tabs.isTabEnabled(4)
    # P(best) is a Monte Carlo estimate that differs per call; the pulls are counts.
    b = data.bandit
    assert b["pulls"] == belief.pulls and sum(b["pulls"].values()) == 12
    assert sum(b["p_best"].values()) == pytest.approx(1.0)
    lines = view.bandit_label.text().splitlines()
    assert lines[0].startswith("decided:" if b["decided"] else "not decided yet")
    best = max(b["p_best"], key=b["p_best"].get)
    assert lines[1].startswith(f"{best}: P(best) {100 * b['p_best'][best]:.1f}%, "
                               f"{b['pulls'][best]} labels served")
    view.flush()


def test_models_data_can_be_built_in_the_worker(qtbot, project):
    from ui.jobs import Worker

    inputs = models_inputs(project)  # read on this thread; compute in the pool
    worker = Worker(lambda progress: build_models_view_data(inputs, trials=50,
                                                            progress=progress))
    seen = []
    worker.signals.progress.connect(lambda done, total: seen.append((done, total)))
    with qtbot.waitSignal(worker.signals.finished, timeout=10_000) as result:
        worker.start()
    assert result.args[0].metrics["m1"]["precision"] == pytest.approx(11 / 31)
    qtbot.waitUntil(lambda: (4, 4) in seen, timeout=10000)


def test_advice_banner_shows_the_headline_and_colours_by_decision(qtbot, project):
    advice = advice_to_json(project_advice(project))
    banner = AdviceBanner()
    qtbot.addWidget(banner)
    banner.show_advice(advice)
    assert banner.text.text() == worded(advice)["headline"]
    assert banner.text.textFormat() == Qt.TextFormat.PlainText
    roles = {"continue": "go", "stop": "stop", "pause": "pause"}
    assert banner.colour_role() == roles[advice["decision"]]
    tip = banner.toolTip()
    for r in advice["reasons"]:
        assert r["rule"] in tip
    sheets = set()
    for decision, badge in (("continue", "▶ CONTINUE"), ("stop", "■ STOP"),
                            ("pause", "❚❚ PAUSE")):
        banner.show_advice({**advice, "decision": decision})
        assert banner.colour_role() == roles[decision] and banner.badge.text() == badge
        sheets.add(banner.styleSheet())
    assert len(sheets) == 3
    banner.show_advice({**advice, "headline": "<b>not bold</b>", "reasons": [
        {"rule": "budget", "verdict": "stop", "detail": "<i>x</i>", "numbers": {}}]})
    assert banner.text.text() == "<b>not bold</b>" and "&lt;i&gt;x&lt;/i&gt;" in banner.toolTip()


def test_untrusted_text_and_names_stay_literal(qtbot, tmp_path):
    text = "<b>bold</b> & <img src=x> $x$"
    view = AdjudicationView()
    qtbot.addWidget(view)
    item = {"candidate_id": 7, "key": "<i>k</i>", "text": text, "rank": 3,
            "votes": {"$a$": "idiom", "<b>b</b>": "literal"}, "status": "unresolved",
            "majority": None}
    view.show_items([item], [{"value": "idiom", "key": "i"}, {"value": "literal", "key": "l"}])
    cell = view.table.item(0, 2)
    assert cell.text() == text
    assert cell.toolTip() == ("<p style='white-space:pre-wrap'>&lt;b&gt;bold&lt;/b&gt; &amp; "
                              "&lt;img src=x&gt; $x$</p>")
    assert view.table.horizontalHeaderItem(3).text() == "$a$"
    # Dollar signs in names would be read as maths by matplotlib: the charts escape them.
    report = {"krippendorff_alpha": 0.9, "reading": "reliable", "cohen_kappa_pairs": {
        "$a$|<b>b</b>": {"kappa": 0.9, "items": 10, "reason": None}}, "breakdowns": []}
    agreement = AgreementView()
    qtbot.addWidget(agreement)
    agreement.show_report(report)
    agreement.save_figure(tmp_path / "a.svg")
    ticks = [t.get_text() for t in agreement.chart.figure.axes[0].get_xticklabels()]
    assert ticks == [r"\$a\$", "<b>b</b>"]


def test_a_session_without_overlap_says_why_and_draws_no_point(qtbot, tmp_path):
    """Not "there are no ratings" beside 42 ratings, and no × at 0."""
    p = make_project(tmp_path, n=30, overlap_rate=0.0, audit_rate=0.0)
    ada1 = p.start_session("ada")
    for i in range(4):                                      # nobody else rates these
        p.record_label(ada1, candidate_id_of(p, f"c{i:04d}"), "idiom" if i % 2 else "literal")
    ada2, bob = p.start_session("ada"), p.start_session("bob")
    for i in range(4, 10):
        cid = candidate_id_of(p, f"c{i:04d}")
        p.record_label(ada2, cid, "idiom" if i % 2 else "literal")
        p.record_label(bob, cid, "idiom" if i % 3 else "literal", kind="overlap")
    report = agreement_for_project(p, bootstrap=20, breakdowns=BREAKDOWNS).to_json()
    p.close()
    view = AgreementView()
    qtbot.addWidget(view)
    view.show_report(report)
    view.flush()
    caption = view.caption.text()
    assert ("session 1 — α undefined: none of its items has a rating by another annotator yet"
            in caption.splitlines()), caption
    assert "there are no ratings" not in caption
    trend = next(ax for ax in view.chart.figure.axes if ax.get_title(loc="left").startswith("α per session"))
    points = [xy for line in trend.get_lines() if line.get_marker() not in (None, "None", "")
              for xy in line.get_xydata().tolist()]
    assert all(x != 0 for x, _ in points), points      # session 1 (x = 0) has no point
    assert any(t.get_text() == "undef." for t in trend.texts)
