"""Adjudication with a name, exports from the GUI, and the new-project dialog on real data."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.helpers import make_project
from tests.qt_helpers import open_main_window
from triage.ingest.writer import current_umask
from ui.dialogs.new_project import NewProjectDialog
from ui.export_dialog import ExportDialog
from ui.file_dialogs import start_folder, with_extension
from ui.prefs import Prefs

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "resources" / "demo" / "idioms.csv"


@pytest.fixture
def project_path(tmp_path):
    """ada and bob label the same 12 candidates and disagree on every third one."""
    project = make_project(tmp_path, n=40, overlap_rate=0.0, audit_rate=0.0)
    ada, bob = project.start_session("ada"), project.start_session("bob")
    for i in range(12):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom")
        project.record_label(bob, c.candidate_id, "literal" if i % 3 == 0 else "idiom")
    project.close()
    return tmp_path / "p.triage"


def rulings(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT c.key, l.value, a.name, l.undone_at IS NOT NULL FROM labels l "
            "JOIN candidates c ON c.id = l.candidate_id JOIN annotators a "
            "ON a.id = l.annotator_id WHERE l.kind = 'adjudication' ORDER BY l.id").fetchall()


def test_rulings_carry_the_curator_undo_and_show_in_exports(qtbot, project_path, tmp_path):
    window = open_main_window(qtbot, project_path, "ada")   # the desk's annotator is ada
    window.show_lead_view()
    lead = window.lead_view
    # The disagreements come from the lead's helper process.
    qtbot.waitUntil(lambda: "adjudication" not in lead.pending_tabs(), timeout=20000)
    lead.tabs.setCurrentWidget(lead.adjudication)
    view = lead.adjudication
    assert [r["key"] for r in view.panel_data()["rows"]] == ["c0000", "c0003", "c0006", "c0009"]
    view.table.setFocus()
    view.table.selectRow(0)
    qtbot.keyClick(view.table, "i")                       # no curator name yet
    assert view.message.isVisible() and "type your name as curator" in view.message.text()
    assert rulings(project_path) == []
    qtbot.keyClicks(view.curator, "cleo")
    view.table.setFocus()
    view.table.selectRow(0)
    qtbot.keyClick(view.table, "i")
    qtbot.mouseClick(view.buttons["literal"], Qt.MouseButton.LeftButton)  # next row: c0003
    assert rulings(project_path) == [("c0000", "idiom", "cleo", 0), ("c0003", "literal", "cleo", 0)]
    assert [r["key"] for r in view.panel_data()["rows"]] == ["c0006", "c0009"]
    qtbot.keyClick(view.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo
    assert rulings(project_path)[-1] == ("c0003", "literal", "cleo", 1)
    assert [r["key"] for r in view.panel_data()["rows"]] == ["c0003", "c0006", "c0009"]
    assert Prefs().curator() == "cleo"

    out = tmp_path / "out" / "labels"
    out.parent.mkdir()
    window.export_to(with_extension(out, (".csv", ".jsonl"), ".csv"), labeled_only=True)
    qtbot.waitUntil(lambda: getattr(window, "last_export", None) is not None, timeout=10000)
    text = (tmp_path / "out" / "labels.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 12                                # labelled only
    by_key = {r["key"]: r for r in rows}
    assert (by_key["c0000"]["adjudicated"], by_key["c0000"]["adjudicated_by"]) == ("True", "cleo")
    assert by_key["c0000"]["label"] == "idiom"
    assert (by_key["c0003"]["adjudicated"], by_key["c0003"]["adjudicated_by"]) == ("False", "")
    mode = os.stat(tmp_path / "out" / "labels.csv").st_mode & 0o777
    assert mode == 0o666 & ~current_umask()             # not the temporary file's 0600
    window.close()


def test_export_dialog_defaults_beside_the_project_and_adds_the_extension(qtbot, tmp_path,
                                                                        monkeypatch):
    project = tmp_path / "work" / "idioms.triage"
    dialog = ExportDialog(project)
    qtbot.addWidget(dialog)
    assert Path(dialog.path.text()) == tmp_path / "work" / "idioms-labels.csv"
    dialog.format.setCurrentIndex(1)
    assert dialog.path.text().endswith("idioms-labels.jsonl")
    dialog.path.clear()
    qtbot.keyClicks(dialog.path, str(tmp_path / "mine"))
    qtbot.mouseClick(dialog.labeled, Qt.MouseButton.LeftButton)
    assert dialog.choice() == (tmp_path / "mine.jsonl", True)
    monkeypatch.chdir("/")
    assert start_folder(None, "") == Path.home()          # never the working directory
    assert start_folder(project) == tmp_path / "work" or not project.parent.exists()


def test_new_project_dialog_on_the_demo_csv(qtbot, tmp_path):
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert dialog.set_source(DEMO)
    m = dialog.mapping()
    assert (m.key, m.text, m.gold) == ("key", "text", "gold")
    assert [c for c, _ in m.scores] == ["m1_frequency", "m2_association", "m3_classifier"]
    items = [dialog.positive_combo.itemText(i) for i in range(dialog.positive_combo.count())]
    assert items == ["literal  (1,264 rows)", "idiom  (236 rows)"]
    assert dialog.positive_combo.currentData() == "idiom"   # the finds are the rare class
    assert dialog.fields.positives.text() == "idiom"
    assert dialog.target.text() == str(DEMO.with_suffix(".triage"))
    assert "Suggested" in dialog.suggestion.text()
    # Another source: the suggested target follows it.
    other = tmp_path / "reviews.csv"
    other.write_text("id,sentence,score,label\n1,a b,0.5,yes\n2,c d,0.1,no\n", encoding="utf-8")
    assert dialog.set_source(other)
    assert dialog.target.text() == str(tmp_path / "reviews.triage")
    assert dialog.positive_combo.currentData() == "yes"
    # A typed target is the user's: a new source does not overwrite it.
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, str(tmp_path / "mine.triage"))
    assert dialog.set_source(DEMO)
    assert dialog.target.text() == str(tmp_path / "mine.triage")


def test_a_positive_value_with_no_rows_is_refused_inline(qtbot, tmp_path):
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert dialog.set_source(DEMO)
    dialog.target.setText(str(tmp_path / "x.triage"))
    dialog.fields.scheme.setText("idiom:i,literal:l,maybe:m")
    dialog.fields.positives.clear()
    qtbot.keyClicks(dialog.fields.positives, "maybe")
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert not dialog.errors.isHidden()
    assert "'maybe' matches no row of the gold column" in dialog.errors.toPlainText()
    assert not (tmp_path / "x.triage").exists() and dialog.worker is None


def test_json_lines_export_marks_rulings(qtbot, project_path, tmp_path):
    from triage.project import open_project
    from triage.project.adjudication import adjudicate, disagreements, undo_ruling
    from triage.project.export import export_project

    with open_project(project_path) as project:
        cleo = project.start_session("cleo")
        first = disagreements(project)[0]
        adjudicate(project, cleo, first.candidate_id, "literal")
        assert undo_ruling(project, project.start_session("dan")) is None  # not dan's
        key = first.key
    export_project(project_path, tmp_path / "e.jsonl", labeled_only=True)
    lines = (tmp_path / "e.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    ruled = [r for r in rows if r["key"] == key][0]
    assert ruled["adjudicated"] is True and ruled["adjudicated_by"] == "cleo"
    assert ruled["label"] == "literal"
    assert QApplication.instance() is not None
