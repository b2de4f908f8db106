"""The new-project dialog reads the whole file off the GUI thread, busy meanwhile."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.qt_helpers import read_source
from ui.dialogs import new_project
from ui.dialogs.new_project import NewProjectDialog

DEMO = Path(__file__).resolve().parent.parent / "resources" / "demo" / "idioms.csv"


def test_the_whole_file_is_read_off_the_gui_thread_and_applied_here(qtbot, monkeypatch):
    gate, threads = threading.Event(), []
    real = new_project.look_at

    def slow_look(*args, **kwargs):
        threads.append(threading.current_thread())
        gate.wait(30)   # a large file: the dialog must answer meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(new_project, "look_at", slow_look)
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert dialog.set_source(DEMO)   # returns while the file is still being read
    assert dialog.reader is not None and not dialog.progress.isHidden()
    assert not dialog.create_button.isEnabled()
    assert dialog.preview.columnCount() == 0
    gate.set()
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)
    assert threads and threads[0] is not threading.main_thread()
    assert dialog.progress.isHidden() and dialog.create_button.isEnabled()
    assert dialog.mapping().text == "text" and dialog.preview.rowCount() > 0


def test_a_file_chosen_while_another_is_read_is_the_one_shown(qtbot, tmp_path, monkeypatch):
    other = tmp_path / "reviews.csv"
    other.write_text("id,sentence,score,label\n1,a b,0.5,yes\n2,c d,0.1,no\n", encoding="utf-8")
    gate, real = threading.Event(), new_project.look_at

    def look(path, *args, **kwargs):
        if Path(path) == DEMO:
            gate.wait(30)   # the first file is large: it is still being read
        return real(path, *args, **kwargs)

    monkeypatch.setattr(new_project, "look_at", look)
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert dialog.set_source(DEMO)
    first = dialog.reader
    assert read_source(qtbot, dialog, other)
    with qtbot.waitSignal(first.signals.finished, timeout=30000):
        gate.set()   # the first read's late answer must not replace the second's
    assert dialog.mapping().text == "sentence"
    assert dialog.target.text() == str(tmp_path / "reviews.triage")


def test_a_file_that_vanished_says_so_in_a_sentence(qtbot, tmp_path, monkeypatch):
    gone = tmp_path / "gone.csv"
    gone.write_text("id,text,score\n1,a,0.5\n", encoding="utf-8")
    real = new_project.look_at

    def vanish(path, *args, **kwargs):
        Path(path).unlink()
        return real(path, *args, **kwargs)

    monkeypatch.setattr(new_project, "look_at", vanish)
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert not read_source(qtbot, dialog, gone)
    text = dialog.errors.toPlainText()
    assert "gone.csv" in text and "Traceback" not in text and "unexpected" not in text


def test_the_same_file_is_not_read_again_unless_it_changed(qtbot, tmp_path):
    # Focus leaving the path field says "editing finished" again: a second read then would
    # take the Create button away under the click that moved the focus.
    source = tmp_path / "reviews.csv"
    source.write_text("id,sentence,score\n1,a b,0.5\n", encoding="utf-8")
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert read_source(qtbot, dialog, source)
    assert dialog.set_source(source) and dialog.reader is None
    assert dialog.create_button.isEnabled()
    source.write_text("id,sentence,score\n1,a b,0.5\n2,c d,0.25\n", encoding="utf-8")
    assert dialog.set_source(source) and dialog.reader is not None   # changed: read again
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)
    assert dialog.preview.rowCount() == 2
