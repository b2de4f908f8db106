"""The lead's window and the desk's advice banner, driven through the main window."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt

from tests.helpers import make_project
from tests.qt_helpers import open_main_window


@pytest.fixture
def project_path(tmp_path):
    """300 candidates; ada and bob label 60 each with overlap, disagreeing on some."""
    project = make_project(tmp_path, n=300, overlap_rate=0.3, audit_rate=0.05, budget=10.0,
                           value_per_positive=0.5)
    gold = dict(project.db.execute("SELECT id, gold FROM candidates").fetchall())
    ada, bob = project.start_session("ada"), project.start_session("bob")
    for i in range(60):
        for session in (ada, bob):
            c = project.next_candidate(session)
            value = gold[c.candidate_id]
            if session is bob and c.kind == "overlap" and i % 3 == 0:
                value = "literal" if value == "idiom" else "idiom"   # a disagreement
            project.record_label(session, c.candidate_id, value)
    project.close()
    return tmp_path / "p.triage"


@pytest.fixture
def window(qtbot, project_path):
    w = open_main_window(qtbot, project_path, "lead")
    yield w
    w.close()


def test_banner_shows_the_advice_headline(window, qtbot):
    qtbot.waitUntil(lambda: window.advice_feed.latest is not None, timeout=15000)
    state = window.advice_feed.latest
    assert state.decision in ("continue", "stop", "pause")
    from triage.views.advice import advice_lines

    assert window.advice_banner.text.text() == advice_lines(state).headline
    assert window.advice_banner.stamp.text() == f"computed at {state.labels_at:,} labels"


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_lead_window_tabs_compute_off_the_gui_thread(window, qtbot):
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitUntil(lambda: lead.advice.table.rowCount() >= 5, timeout=15000)
    rules = {lead.advice.table.item(r, 0).text() for r in range(lead.advice.table.rowCount())}
    assert {"budget", "marginal_value", "recall", "knee", "reliability"} <= rules
    # The same estimate is drawn as a band on the lead's cumulative-gain chart (once the
    # live state, built on a worker after the window opened, has reached the charts).
    qtbot.waitUntil(lambda: not window.live_pending(), timeout=15000)
    lead.overview.gain.flush()
    band = lead.overview.gain.panel_data()["band"]
    assert band is not None and band["lower"] <= band["upper"]
    if band["informative"]:
        assert band["lower"] <= band["total"] <= band["upper"]
    else:   # early: no count of positives in the pool, only what is known
        assert band["total"] is None and band["label"].startswith("known: ")

    # Every tab is there at once; each fills when its helper or worker reports.
    assert [lead.tabs.tabText(i) for i in range(lead.tabs.count())] == [
        "Overview", "Advice", "Agreement", "Adjudication", "Guidelines", "Models", "Gallery",
        "Data"]
    qtbot.waitUntil(lambda: not lead.pending_tabs(), timeout=60000)
    assert lead.agreement is not None and lead.models is not None
    assert lead.tabs.indexOf(lead.agreement) == 2 and lead.tabs.indexOf(lead.models) == 5
    # The permutation tests came after the rest and filled their table in.
    assert not lead.models.data.pvalues_pending and lead.models.pvalue_table.rowCount() > 0
    assert "random swaps" in lead.models.tests_caption.text()
    lead.tabs.setCurrentWidget(lead.agreement)
    qtbot.waitUntil(lambda: (lead.agreement.panel_data() or {}).get("alpha") is not None,
                    timeout=15000)
    data = lead.agreement.panel_data()
    assert 0 < data["alpha"] < 1
    # Under 30 overlap items the reading is "too few to judge (n = …)", never a verdict.
    assert data["reading"] == "too few" and data["reading_text"].startswith("too few to judge")
    from ui.analysis._text import VERMILLION
    assert VERMILLION not in lead.agreement.reading_label.styleSheet()
    assert data["annotators"] == ["ada", "bob"]
    assert data["kappa"][0][1] == pytest.approx(data["kappa"][1][0]) and data["kappa"][0][1] < 1

    lead.tabs.setCurrentWidget(lead.adjudication)
    rows = lead.adjudication.panel_data()["rows"]
    assert rows, "bob's disagreements should wait for a ruling"
    first = rows[0]
    lead.adjudication.curator.setText("cleo")
    lead._rule(first["candidate_id"], "idiom")
    with sqlite3.connect(window.project.path) as conn:
        kinds = conn.execute("SELECT count(*) FROM labels WHERE kind = 'adjudication'").fetchone()
    assert kinds == (1,)
    assert first["candidate_id"] not in [r["candidate_id"]
                                         for r in lead.adjudication.panel_data()["rows"]]

    lead.tabs.setCurrentWidget(lead.models)
    qtbot.waitUntil(lambda: bool(lead.models.panel_data()), timeout=30000)
    assert set(lead.models.panel_data()["cells"]) >= {"m1", "m2"}
    roc_x, roc_y = lead.models.panel_data()["curves"]["m1"]["roc"]
    assert roc_x[0] == roc_y[0] == 0.0 and roc_x[-1] == roc_y[-1] == 1.0


def test_advice_banner_is_plain_text(window):
    window.advice_banner.show_advice({"decision": "stop", "headline": "<b>stop</b> now",
                                      "reasons": []})
    label = window.advice_banner.text
    assert label.text() == "<b>stop</b> now"
    assert label.textFormat() == Qt.TextFormat.PlainText


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_export_report_writes_the_file_in_the_background(window, qtbot, tmp_path):
    window.show_lead_view()
    lead = window.lead_view
    out = tmp_path / "lead-report.html"
    lead.export_report_to(out)
    # The window's own slots were connected before the worker started: wait on what they show.
    qtbot.waitUntil(lambda: "report written" in lead.status.text(), timeout=120000)
    text = out.read_text(encoding="utf-8")
    assert '<section id="advice">' in text and "<svg" in text
    assert lead.report_button.isEnabled()
    assert str(out) in lead.status.text()


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_cancelled_report_writes_nothing(window, qtbot, tmp_path):
    window.show_lead_view()
    lead = window.lead_view
    out = tmp_path / "never.pdf"
    worker = lead.export_report_to(out)
    worker.cancel()
    qtbot.waitUntil(lambda: "cancelled" in lead.status.text(), timeout=120000)
    assert not out.exists()
    assert lead.report_button.isEnabled()
    # The news stays beside what is computing, and after it, until the next news.
    lead.refresh_analysis()
    assert lead.status.text().startswith("report cancelled; nothing was written — computing ")
    qtbot.waitUntil(lambda: not lead.workers, timeout=120000)
    assert lead.status.text() == "report cancelled; nothing was written"


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_certify_now_asks_then_starts_and_cancel_ends_the_sample(window, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from triage.store.certification import latest_certification

    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2])
                        or QMessageBox.StandardButton.Yes)
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitUntil(lambda: lead.advice.certify.isEnabled(), timeout=30000)
    qtbot.mouseClick(lead.advice.certify, Qt.MouseButton.LeftButton)
    assert asked and asked[0].endswith("Start the certification sample?")
    running = latest_certification(window.project.db)
    assert running is not None and running.running
    qtbot.waitUntil(lambda: lead.advice.cancel_certify.isEnabled(), timeout=30000)
    qtbot.mouseClick(lead.advice.cancel_certify, Qt.MouseButton.LeftButton)
    assert not latest_certification(window.project.db).running


@pytest.mark.slow
def test_the_models_tab_never_queues_behind_the_lead_helper(window, qtbot, monkeypatch):
    """The model comparison has its own thread: it fills while the agreement's helper is
    still busy, then its value tables and tests follow into the tab in order."""
    import threading

    from ui import advice_process

    release, real = threading.Event(), advice_process.HELPERS_RUNNING.call

    def slow_lead(task, path, *args, **kwargs):
        if task.helper == "lead":
            release.wait(60)   # the agreement and the disagreements take their time
        return real(task, path, *args, **kwargs)

    monkeypatch.setattr(advice_process.HELPERS_RUNNING, "call", slow_lead)
    try:
        window.show_lead_view()
        lead = window.lead_view
        qtbot.waitUntil(lambda: "models-pvalues" not in lead.pending_tabs(), timeout=60000)
        assert {"agreement", "adjudication"} <= lead.pending_tabs()
        data = lead.models.data
        assert not data.value_pending and not data.pvalues_pending
        assert data.value_tuned and data.pvalues and data.metrics
    finally:
        release.set()
    qtbot.waitUntil(lambda: not lead.pending_tabs(), timeout=60000)
