"""The data manager on screen: type a word, filter, relabel, rule and export a selection."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tests.helpers import make_project
from tests.qt_helpers import open_main_window


@pytest.fixture
def project_path(tmp_path):
    """ada and bob label the top 6 candidates and disagree on c0000 and c0003."""
    project = make_project(tmp_path, n=40, overlap_rate=0.0, audit_rate=0.0)
    ada, bob = project.start_session("ada"), project.start_session("bob")
    for i in range(6):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom", note="odd one" if i == 1 else None)
        project.record_label(bob, c.candidate_id, "literal" if i % 3 == 0 else "idiom")
    project.close()
    return tmp_path / "p.triage"


def shown(manager) -> list[tuple[str, ...]]:
    """Every row's cells as the table shows them."""
    model = manager.model
    return [tuple(model.data(model.index(r, c)) for c in range(model.columnCount()))
            for r in range(model.rowCount())]


def wait_rows(qtbot, manager, count: int) -> None:
    qtbot.waitUntil(lambda: not manager.busy(), timeout=20000)
    assert manager.model.rowCount() == count


def labels_of(path: Path, key: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT a.name, l.value, l.kind, l.undone_at IS NOT NULL FROM labels l "
            "JOIN candidates c ON c.id = l.candidate_id JOIN annotators a "
            "ON a.id = l.annotator_id WHERE c.key = ? ORDER BY l.id", [key]).fetchall()


@pytest.mark.slow
def test_the_lead_finds_filters_rules_and_exports(qtbot, project_path, tmp_path):
    window = open_main_window(qtbot, project_path, "ada")
    window.show_lead_view()
    lead = window.lead_view
    lead.tabs.setCurrentWidget(lead.data)
    manager = lead.data
    wait_rows(qtbot, manager, 40)
    assert manager.filters.status.text().startswith("40 of 40 candidates")
    qtbot.waitUntil(lambda: manager.index_state == "ready", timeout=20000)
    qtbot.keyClicks(manager.filters.search, "number 17")
    wait_rows(qtbot, manager, 1)
    assert shown(manager)[0][:4] == ("18", "c0017", "phrase number 17", "0.575")
    manager.filters.search.clear()
    manager.filters.state.setCurrentText("awaiting a ruling")
    wait_rows(qtbot, manager, 2)
    assert [r[1] for r in shown(manager)] == ["c0000", "c0003"]
    assert shown(manager)[0][5:7] == ("tie", "ada: idiom, bob: literal")
    manager.table.selectRow(0)
    assert "bob: literal" in manager.record.body.toPlainText()
    assert "score m1: 1" in manager.record.body.toPlainText()
    qtbot.mouseClick(manager.record.rule_buttons["idiom"], Qt.MouseButton.LeftButton)
    assert "type your name as curator" in manager.filters.status.text()
    qtbot.keyClicks(lead.adjudication.curator, "cleo")
    qtbot.mouseClick(manager.record.rule_buttons["idiom"], Qt.MouseButton.LeftButton)
    assert labels_of(project_path, "c0000")[-1] == ("cleo", "idiom", "adjudication", 0)
    wait_rows(qtbot, manager, 1)                 # c0000 is ruled: it awaits no more
    assert [r[1] for r in shown(manager)] == ["c0003"]
    manager.filters.state.setCurrentText("any")
    manager.filters.note.setText("odd")
    wait_rows(qtbot, manager, 1)
    assert shown(manager)[0][1] == "c0001" and shown(manager)[0][7] == "odd one"
    manager.filters.note.clear()
    manager.filters.annotator.setCurrentText("bob")
    wait_rows(qtbot, manager, 6)
    manager.table.selectAll()
    out = tmp_path / "chosen.csv"
    assert manager.export_to(out) == 6
    with open(out, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["key"] for r in rows] == [f"c000{i}" for i in range(6)]
    assert rows[0]["adjudicated_by"] == "cleo"
    assert manager.filters.status.text() == f"exported 6 candidates to {out}"


def test_the_annotator_finds_a_word_and_changes_her_decision_blind(qtbot, project_path):
    window = open_main_window(qtbot, project_path, "ada")
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    from ui.data_manager import FindWindow

    find = window.findChild(FindWindow)
    assert find is not None and find.isVisible()
    manager = find.manager
    wait_rows(qtbot, manager, 40)
    assert manager.model.headerData(0, Qt.Orientation.Horizontal) == "Key"
    assert [manager.model.headerData(c, Qt.Orientation.Horizontal)
            for c in range(manager.model.columnCount())] == ["Key", "Text", "Your label",
                                                             "Your note"]
    assert not manager.filters.decile.isVisible() and not manager.filters.export.isVisible()
    qtbot.waitUntil(lambda: manager.index_state == "ready", timeout=20000)
    qtbot.keyClicks(manager.filters.search, "3 phrase")   # "3" whole, "phrase" a prefix
    wait_rows(qtbot, manager, 1)
    assert shown(manager) == [("c0003", "phrase number 3", "idiom", "")]
    manager.table.selectRow(0)
    body = manager.record.body.toPlainText()
    assert "ada: idiom" in body and "bob" not in body and "score" not in body
    assert "m1" not in body and "rank" not in body
    qtbot.mouseClick(manager.record.relabel_buttons["literal"], Qt.MouseButton.LeftButton)
    assert labels_of(Path(window.project.path), "c0003")[-1] == ("ada", "literal", "triage", 0)
    qtbot.waitUntil(lambda: shown(manager) == [("c0003", "phrase number 3", "literal", "")],
                    timeout=20000)
    assert "ada: literal" in manager.record.body.toPlainText()


def test_a_search_before_the_index_is_ready_says_so_and_runs_when_it_is(qtbot, project_path,
                                                                          monkeypatch):
    import threading

    import ui.data_manager as dm

    release = threading.Event()
    real = dm.build_search_index

    def held(db, progress):
        progress(0, 40)
        release.wait(20)
        return real(db, progress)

    monkeypatch.setattr(dm, "build_search_index", held)
    window = open_main_window(qtbot, project_path, "ada")
    find = dm.open_find(window)
    manager = find.manager
    wait_rows(qtbot, manager, 40)
    qtbot.keyClicks(manager.filters.search, "17 phrase")
    qtbot.waitUntil(lambda: not manager.busy(), timeout=20000)
    assert manager.model.rowCount() == 40                 # the words wait; nothing blocks
    assert "building the search index: 0 %" in manager.filters.status.text()
    assert "the words of a search wait for it" in manager.filters.status.text()
    release.set()
    qtbot.waitUntil(lambda: manager.index_state == "ready", timeout=20000)
    wait_rows(qtbot, manager, 1)
    assert shown(manager) == [("c0017", "phrase number 17", "", "")]
    assert manager.filters.status.text() == "1 of 40 candidates"
