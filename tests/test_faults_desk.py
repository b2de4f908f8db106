"""The desk on a bad day: a failure after a commit, a full disk, a giant or hostile text.

When loading the next candidate failed after a label
committed, the desk kept showing the labelled candidate and the next key labelled it
again; the line under the buttons echoed the whole previous candidate.
"""

from __future__ import annotations

import sqlite3
import subprocess

import pytest

from tests.qt_helpers import open_main_window
from tests.test_ui_desk import label_rows, make_project, press
from triage import store
from triage.base.errors import AlreadyRecorded
from triage.project import Project
from triage.project.state import ProjectState
from triage.store import records

FULL = sqlite3.OperationalError("database or disk is full")


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_main_window(qtbot, make_project(tmp_path), "ada")
    w.desk.retry_ms = w.desk.fault_retry_ms = 20
    yield w
    w.close()


@pytest.mark.parametrize("fault", [FULL, KeyError(535)], ids=["disk-full", "damaged-page"])
def test_a_failure_after_the_commit_moves_on_and_never_labels_twice(window, qtbot, tmp_path,
                                                                    monkeypatch, fault):
    desk = window.desk
    real = Project._candidate

    def broken(self, *args, **kwargs):
        raise fault
    monkeypatch.setattr(Project, "_candidate", broken)
    press(qtbot, desk, "i")  # commits, then loading the next candidate fails
    assert label_rows(tmp_path / "p.triage") == [("c01", "idiom", "ada")]
    assert desk.current is None
    assert desk.text.text().startswith("The next candidate could not be shown: ")
    assert "candidate number 1" not in desk.text.text()
    press(qtbot, desk, "l", "s")  # tries to load again; labels nothing
    assert label_rows(tmp_path / "p.triage") == [("c01", "idiom", "ada")]
    monkeypatch.setattr(Project, "_candidate", real)
    press(qtbot, desk, "l")  # the fault is gone: this key loads the next candidate
    assert desk.text.text() == "candidate number 2"
    press(qtbot, desk, "l")
    assert label_rows(tmp_path / "p.triage") == [("c01", "idiom", "ada"), ("c02", "literal", "ada")]


def test_a_full_disk_keeps_the_label_and_saves_it_when_space_returns(window, qtbot, tmp_path,
                                                                     monkeypatch):
    desk = window.desk
    real = records.insert_label
    full = {"on": True}

    def insert(*args, **kwargs):
        if full["on"]:
            raise FULL
        return real(*args, **kwargs)
    monkeypatch.setattr(records, "insert_label", insert)
    press(qtbot, desk, "i")
    assert "is full" in desk.message.text() and "kept and will be saved" in desk.message.text()
    assert desk.text.text() == "candidate number 1"  # still the decision being saved
    assert label_rows(tmp_path / "p.triage") == []
    full["on"] = False
    qtbot.waitUntil(lambda: desk.text.text() == "candidate number 2", timeout=3000)
    assert label_rows(tmp_path / "p.triage") == [("c01", "idiom", "ada")]


def test_a_retry_of_a_write_that_had_committed_records_it_once(window, qtbot, tmp_path,
                                                               monkeypatch):
    desk = window.desk
    real_sync = ProjectState.sync
    failures = {"left": 1}

    def sync_after_commit(self):
        if failures["left"] and store.active_labels(self.db):
            failures["left"] -= 1
            raise FULL  # the label is in the file; what follows it fails
        return real_sync(self)
    monkeypatch.setattr(ProjectState, "sync", sync_after_commit)
    press(qtbot, desk, "i")
    qtbot.waitUntil(lambda: desk.text.text() == "candidate number 2", timeout=3000)
    assert label_rows(tmp_path / "p.triage") == [("c01", "idiom", "ada")]


def test_the_line_under_the_buttons_is_a_short_single_line(qtbot, tmp_path):
    long_text = " ".join(["word"] * 300) + "\n" * 15 + "end"
    w = open_main_window(qtbot, make_project(tmp_path, {1: long_text}), "ada")
    press(qtbot, w.desk, "i")
    message = w.desk.message.text()
    assert "\n" not in message and len(message) <= 80 and message.startswith("idiom: word")
    w.close()


def test_a_second_label_on_one_candidate_is_refused_unless_a_change(tmp_path):
    from tests.helpers import make_project as make_core

    project = make_core(tmp_path, n=10)
    ada = project.start_session("ada")
    c = project.next_candidate(ada)
    first = project.record_label(ada, c.candidate_id, "idiom")
    with pytest.raises(AlreadyRecorded, match="already decided") as refused:
        project.record_label(ada, c.candidate_id, "literal")
    assert refused.value.label_id == first
    again = project.start_session("ada")  # a new session of the same person: still refused
    with pytest.raises(AlreadyRecorded):
        project.skip(again, c.candidate_id)
    project.record_label(ada, c.candidate_id, "literal", change=True)
    bob = project.start_session("bob")
    project.record_label(bob, c.candidate_id, "literal")  # another annotator: an overlap
    project.record_label(ada, c.candidate_id, "idiom", kind="retest")
    with pytest.raises(AlreadyRecorded):
        project.record_label(ada, c.candidate_id, "idiom", kind="retest")
    assert [(r.annotator, r.value, r.kind) for r in store.active_labels(project.db)] == [
        ("ada", "idiom", "triage"), ("ada", "literal", "triage"), ("bob", "literal", "overlap"),
        ("ada", "idiom", "retest")]
    project.close()


def test_hidden_characters_are_shown_as_markers_with_a_note(qtbot, tmp_path):
    w = open_main_window(qtbot, make_project(tmp_path, {1: "gnp\u202eexe.png \u200bx"}), "ada")
    assert w.desk.text.text() == "gnp⟨U+202E⟩exe.png ⟨U+200B⟩x"
    assert w.desk.text.document().toPlainText() == "gnp⟨U+202E⟩exe.png ⟨U+200B⟩x"
    assert "hidden characters" in w.desk.meta.text()
    press(qtbot, w.desk, "i")
    assert "hidden characters" not in w.desk.meta.text()  # candidate 2 is plain
    w.close()


def test_giant_texts_show_lazily_and_keep_the_window_on_the_screen(qtbot, tmp_path):
    one_line = "giant " * 175_000                                  # ~1 MB, one line
    many = "\n".join(f"line {i}" for i in range(100_000))          # 100,000 lines
    w = open_main_window(qtbot, make_project(tmp_path, {1: one_line, 2: many}), "ada")
    desk = w.desk
    screen = w.screen().availableGeometry()
    for expected in (one_line, many):
        assert desk.text.text() == expected
        assert desk.text.document().characterCount() <= 32_001  # the first screens only
        assert w.height() <= screen.height() and w.width() <= screen.width()
        press(qtbot, desk, "i")
        assert len(desk.message.text()) <= 80
    assert desk.text.text() == "candidate number 3"
    press(qtbot, desk, "u")  # back to the 100,000 lines: scrolling to the end loads more
    assert desk.text.text() == many
    bar = desk.text.verticalScrollBar()
    for _ in range(5):
        bar.setValue(bar.maximum())
    assert desk.text.document().blockCount() > 400
    w.close()


def test_a_read_only_project_opens_at_the_desk_which_says_it_cannot_record(qtbot, tmp_path,
                                                                           monkeypatch):
    from triage.store import integrity

    path = make_project(tmp_path)
    monkeypatch.setattr(integrity, "writable", lambda _path: False)
    w = open_main_window(qtbot, path, "ada")
    assert w.desk.text.text().startswith("This desk cannot record labels: ")
    assert "read-only" in w.desk.text.text()
    press(qtbot, w.desk, "i", "s", "u")  # nothing to label; nothing breaks
    assert label_rows(path) == []
    assert w.info is not None  # the lead's figures still load
    w.close()


def test_the_desk_keeps_a_rolling_backup(qtbot, tmp_path):
    path = make_project(tmp_path)
    w = open_main_window(qtbot, path, "ada")
    backup = tmp_path / "p.triage.backup"
    qtbot.waitUntil(backup.exists, timeout=5000)
    with sqlite3.connect(backup) as conn:
        assert conn.execute("SELECT count(*) FROM candidates").fetchone()[0] == 20
    w.close()


@pytest.mark.slow
def test_a_project_on_a_read_only_disk_opens_with_the_lead_window_working(qtbot, tmp_path):
    from tests.test_faults_cli import tmpfs

    path = make_project(tmp_path)
    with tmpfs(tmp_path / "ro", "4m") as folder:
        here = folder / "p.triage"
        here.write_bytes(path.read_bytes())
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        w = open_main_window(qtbot, here, "ada")
        try:
            assert w.desk.text.text().startswith("This desk cannot record labels: ")
            w.show_lead_view()
            lead = w.lead_view
            qtbot.waitUntil(lambda: not lead.pending_tabs(), timeout=60000)
            assert lead.advice.table.rowCount() >= 5
        finally:
            w.close()
