"""The desk, used like an annotator would: keys in, rows in the project file out."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from tests.qt_helpers import open_main_window
from triage.ingest.importer import ColumnMapping
from triage.project import create_project
from triage.store.settings import LabelOption, Settings
from ui.main_window import MainWindow
from ui.prefs import Prefs

# 20 candidates, ranked c01 first; gold idioms at ranks 1, 2, 4, 5, 9.
GOLD = {1: "idiom", 2: "idiom", 4: "idiom", 5: "idiom", 9: "idiom"}
SETTINGS = Settings().with_changes(
    labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")), positive_labels=("idiom",),
    price_per_item=0.04, budget=20.0, value_per_positive=0.5,
    overlap_rate=0.0, audit_rate=0.0)  # pure ranking order: every step is predictable


def make_project(tmp_path: Path, texts: dict[int, str] | None = None) -> Path:
    source = tmp_path / "pool.csv"
    lines = ["key,text,verb,score,gold"]
    for i in range(1, 21):
        text = (texts or {}).get(i, f"candidate number {i}")
        lines.append(f'c{i:02d},"{text}",v{i},{100 - i},{GOLD.get(i, "literal")}')
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "p.triage"
    project = create_project(path, SETTINGS)
    project.import_file(source, ColumnMapping(text="text", key="key", scores=(("m", "score"),),
                                              gold="gold"))
    project.close()
    return path


def label_rows(path: Path, *, active_only: bool = True) -> list[tuple]:
    """(key, value, annotator) of the label events, oldest first."""
    where = "WHERE l.undone_at IS NULL" if active_only else ""
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT c.key, l.value, a.name FROM labels l JOIN candidates c ON c.id = l.candidate_id"
            " JOIN annotators a ON a.id = l.annotator_id " + where + " ORDER BY l.id").fetchall()


@pytest.fixture
def project_path(tmp_path):
    return make_project(tmp_path)


@pytest.fixture
def window(qtbot, project_path):
    w = open_main_window(qtbot, project_path, "ada")
    yield w
    w.close()


def press(qtbot, widget, *keys: str) -> None:
    for key in keys:
        qtbot.keyClick(widget, key)


def test_labels_by_keystrokes_are_in_the_file(window, qtbot, project_path):
    desk = window.desk
    assert desk.text.text() == "candidate number 1"
    assert desk.position.text() == "rank 1 of 20  ·  decile 1  ·  5.0% into the pool"
    assert desk.meta.text() == "verb: v1"
    assert [b.text() for b in desk.buttons.labels.values()] == ["idiom  [i]", "literal  [l]"]
    # The desk has the focus from the start: no click needed.
    assert QApplication.focusWidget() is desk
    press(qtbot, QApplication.focusWidget(), "i", "l")
    qtbot.keyClick(window, "I")  # typed on the window (e.g. a panel had focus), Caps Lock on
    assert label_rows(project_path) == [("c01", "idiom", "ada"), ("c02", "literal", "ada"),
                                        ("c03", "idiom", "ada")]
    assert desk.text.text() == "candidate number 4"
    assert "3 labels this session" in window.status_label.text()
    assert window.status_label.text().startswith("annotator ada")
    with sqlite3.connect(project_path) as conn:
        seconds = [r[0] for r in conn.execute("SELECT seconds FROM labels")]
    assert all(0.0 <= s < 60.0 for s in seconds)


def test_clicking_a_label_button_records_and_keeps_keys_working(window, qtbot, project_path):
    qtbot.mouseClick(window.desk.buttons.labels["literal"], Qt.MouseButton.LeftButton)
    press(qtbot, window.desk, "i")
    assert label_rows(project_path) == [("c01", "literal", "ada"), ("c02", "idiom", "ada")]


def test_undo_brings_the_candidate_back(window, qtbot, project_path):
    desk = window.desk
    press(qtbot, desk, "i", "l")
    press(qtbot, desk, "u")
    assert desk.text.text() == "candidate number 2"
    assert label_rows(project_path) == [("c01", "idiom", "ada")]
    assert len(label_rows(project_path, active_only=False)) == 2  # a mark, not a delete
    assert "1 label this session" in window.status_label.text()
    qtbot.keyClick(desk, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert desk.text.text() == "candidate number 1"
    assert label_rows(project_path) == []
    press(qtbot, desk, "u")
    assert desk.message.text() == "Nothing to undo."
    press(qtbot, desk, "l")
    assert label_rows(project_path) == [("c01", "literal", "ada")]


def test_skip_records_a_null_label_and_moves_on(window, qtbot, project_path):
    press(qtbot, window.desk, "s", "i")
    assert label_rows(project_path) == [("c01", None, "ada"), ("c02", "idiom", "ada")]
    assert window.desk.text.text() == "candidate number 3"
    assert "1 label this session (1 skipped)" in window.status_label.text()


def test_note_goes_with_the_last_label(window, qtbot, project_path):
    desk = window.desk
    press(qtbot, desk, "n")
    assert not desk.note_row.isVisible()  # nothing labeled yet
    press(qtbot, desk, "i", "n")
    assert desk.note_row.isVisible() and desk.note_edit.hasFocus()
    qtbot.keyClicks(desk.note_edit, "lit use in a sports report")  # letters do not label
    qtbot.keyClick(desk.note_edit, Qt.Key.Key_Return)
    assert not desk.note_row.isVisible() and desk.hasFocus()
    with sqlite3.connect(project_path) as conn:
        assert conn.execute("SELECT note FROM labels").fetchall() == [
            ("lit use in a sports report",)]
    press(qtbot, desk, "n")
    qtbot.keyClicks(desk.note_edit, "never mind")
    qtbot.keyClick(desk.note_edit, Qt.Key.Key_Escape)
    assert not desk.note_row.isVisible()
    assert len(label_rows(project_path)) == 1


def test_panels_show_the_known_sequence(window, qtbot):
    # ranks 1..5 are idiom, idiom, literal(gold), idiom, idiom; we label i, i, l, skip, i.
    press(qtbot, window.desk, "i", "i", "l", "s", "i")
    qtbot.waitUntil(lambda: window.gain.panel_data().get("annotated") == [0, 1, 2, 3, 4],
                    timeout=10000)
    # The offline curves (a scan of the whole pool) come from the helper process, later.
    qtbot.waitUntil(lambda: list(window.gain.panel_data().get("offline", {})) == ["m"],
                    timeout=20000)
    gain = window.gain.panel_data()
    assert gain["positives"] == [0, 1, 2, 2, 3]
    assert gain["pool"] == 20
    spend = window.spend.panel_data()
    assert spend["spent"] == pytest.approx(5 * 0.04)  # the skip is paid for too
    assert spend["budget"] == 20.0
    assert spend["cost_per_positive"] == pytest.approx(0.2 / 3)
    assert spend["by_annotator"][0][0] == "ada"
    yields = window.yield_.panel_data()
    # Deciles of 2 candidates each: ranks 1-2 idiom, 3 literal + 4 skipped, 5 idiom.
    assert yields["annotated"][:4] == [2, 1, 1, 0]
    assert yields["positives"][:4] == [2, 0, 1, 0]
    assert yields["current"] == 3
    assert window.refreshes <= 3  # five labels in a burst: coalesced, not five refreshes


def test_a_settings_change_moves_the_spend_figures(window, qtbot, monkeypatch):
    press(qtbot, window.desk, "i", "l", "i")
    qtbot.waitUntil(lambda: window.spend.panel_data().get("spent") == pytest.approx(0.12),
                    timeout=10000)
    from ui.dialogs import settings as settings_dialog

    monkeypatch.setattr(settings_dialog.SettingsDialog, "changes",
                        lambda self: {"price_per_item": 0.25, "budget": 10.0})
    action = next(a for a in window.menuBar().actions() if a.text() == "&Project")
    settings_action = next(a for a in action.menu().actions() if a.text() == "Settings…")
    settings_action.trigger()
    window.settings_dialog.accept()
    qtbot.waitUntil(lambda: window.spend.panel_data().get("spent") == pytest.approx(0.75),
                    timeout=10000)
    assert window.spend.panel_data()["budget"] == 10.0
    assert window.project.settings.price_per_item == 0.25


def test_score_is_hidden_until_the_setting_shows_it(window, qtbot, project_path):
    desk = window.desk
    assert not desk.score.isVisible()
    window.show_score_action.trigger()
    assert desk.score.isVisible()
    assert desk.score.text() == "score 99  (model m)"
    with sqlite3.connect(project_path) as conn:
        stored = conn.execute("SELECT value FROM settings WHERE key='show_score'").fetchone()
    assert stored == ("true",)
    window.show_score_action.trigger()
    assert not desk.score.isVisible()


def test_candidate_text_is_never_html(qtbot, tmp_path):
    path = make_project(tmp_path, texts={1: "<b>bold</b> &amp; <img src=x>"})
    w = MainWindow(Prefs())
    qtbot.addWidget(w)
    w.open_project(path, "ada")
    # A plain-text editor: no rich text at all, the markup shows literally.
    assert isinstance(w.desk.text, QPlainTextEdit) and w.desk.text.isReadOnly()
    assert w.desk.meta.textFormat() == Qt.TextFormat.PlainText
    assert w.desk.text.text() == "<b>bold</b> &amp; <img src=x>"
    assert w.desk.text.document().toPlainText() == "<b>bold</b> &amp; <img src=x>"
    w.close()


def test_busy_file_is_retried_and_the_label_kept(window, qtbot, project_path):
    window.project.db.conn.execute("PRAGMA busy_timeout=100")
    window.desk.retry_ms = 50
    other = sqlite3.connect(project_path, isolation_level=None, timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    press(qtbot, window.desk, "i")
    assert window.status_label.text().startswith("Project file busy — retrying…")
    assert window.desk.text.text() == "candidate number 1"  # not moved on
    press(qtbot, window.desk, "l")  # ignored while the first decision waits
    qtbot.wait(200)
    assert label_rows(project_path) == []
    other.execute("COMMIT")
    other.close()
    qtbot.waitUntil(lambda: window.desk.text.text() == "candidate number 2", timeout=3000)
    assert label_rows(project_path) == [("c01", "idiom", "ada")]
    assert not window.status_label.text().startswith("Project file busy")


def test_lock_released_from_another_thread_while_the_desk_waits(window, qtbot, project_path):
    # The desk keeps serving its event loop between retries.
    window.project.db.conn.execute("PRAGMA busy_timeout=50")
    window.desk.retry_ms = 20
    other = sqlite3.connect(project_path, isolation_level=None, timeout=0,
                            check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, lambda: (other.execute("COMMIT"), other.close()))
    release.start()
    started = time.monotonic()
    press(qtbot, window.desk, "s")
    qtbot.waitUntil(lambda: window.desk.text.text() == "candidate number 2", timeout=3000)
    release.join()
    assert time.monotonic() - started >= 0.25
    assert label_rows(project_path) == [("c01", None, "ada")]


def test_switch_annotator_starts_a_new_session(window, qtbot, project_path, monkeypatch):
    press(qtbot, window.desk, "i")
    monkeypatch.setattr("ui.main_window.ask_annotator", lambda *a: "bob")
    window.switch_annotator()
    assert window.status_label.text().startswith("annotator bob  ·  0 labels")
    press(qtbot, window.desk, "l")
    # The candidate that was on screen (c02) goes to bob: ending a session frees it.
    assert label_rows(project_path) == [("c01", "idiom", "ada"), ("c02", "literal", "bob")]
    with sqlite3.connect(project_path) as conn:
        sessions = conn.execute("SELECT a.name, s.ended_at IS NOT NULL FROM sessions s JOIN "
                                "annotators a ON a.id = s.annotator_id ORDER BY s.id").fetchall()
    assert sessions == [("ada", 1), ("bob", 0)]
    assert window.prefs.last_annotator(project_path) == "bob"


def test_zoom_recent_projects_and_layout_are_remembered(window, qtbot, project_path):
    window.zoom(+1)
    window.zoom(+1)
    size = window.desk.text.font().pointSizeF()
    window.split.setSizes([700, 300])
    window.close()
    again = MainWindow(Prefs())
    qtbot.addWidget(again)
    assert again.desk.zoom_steps == 2
    assert again.desk.text.font().pointSizeF() == pytest.approx(size)
    assert again.prefs.recent_projects() == [str(project_path.resolve())]
    assert again.prefs.last_project() == str(project_path.resolve())
    assert again.prefs.last_annotator(project_path) == "ada"
    assert again.prefs.layout("split") is not None
    again.zoom(None)
    assert Prefs().font_zoom() == 0
    again.close()


def test_the_candidate_on_screen_goes_to_the_next_annotator(window, qtbot, monkeypatch):
    press(qtbot, window.desk, "i")
    assert window.desk.text.text() == "candidate number 2"
    monkeypatch.setattr("ui.main_window.ask_annotator", lambda *a: "bob")
    window.switch_annotator()
    assert window.desk.text.text() == "candidate number 2"


@pytest.mark.qt_no_exception_capture
def test_an_unexpected_error_is_logged_shown_and_survived(window, qtbot, project_path):
    from ui.errors import ErrorHook
    from ui.prefs import log_path

    hook = ErrorHook(log_path(), parent=lambda: window).install()
    try:
        def broken_slot():
            raise RuntimeError("boom in a slot")

        QTimer.singleShot(0, broken_slot)
        qtbot.waitUntil(lambda: hook.count == 1, timeout=10000)
        assert "RuntimeError: boom in a slot" in log_path().read_text(encoding="utf-8")
        assert hook.dialog is not None and hook.dialog.isVisible()
        assert not hook.dialog.isModal()
        assert "boom in a slot" in hook.dialog.text()
        press(qtbot, window.desk, "i")  # the application keeps working
        assert label_rows(project_path) == [("c01", "idiom", "ada")]
        hook.dialog.close()
    finally:
        hook.uninstall()


def test_lead_view_gets_the_annotator_table(window, qtbot, monkeypatch):
    press(qtbot, window.desk, "i", "l", "s")
    seen = {}
    window.show_lead_view()
    monkeypatch.setattr(window.lead_view, "show_state",
                        lambda snap, info: seen.update(events=snap.events,
                                                       rows=info.annotator_rows))
    press(qtbot, window.desk, "i")
    qtbot.waitUntil(lambda: seen.get("events") == 4, timeout=10000)
    (row,) = seen["rows"]
    assert (row["annotator"], row["labels"], row["skips"], row["positives"]) == ("ada", 3, 1, 2)
    window.lead_view.close()


def test_a_new_project_from_the_dialog_opens_at_the_desk(window, qtbot, tmp_path, monkeypatch):
    (tmp_path / "second").mkdir()
    other = make_project(tmp_path / "second")
    monkeypatch.setattr("ui.main_window.ask_annotator", lambda *a: "cy")
    window.new_project()
    dialog = window.new_project_dialog
    dialog.project_path = other  # as if the import had just finished
    dialog.accept()
    assert window.project.path == other
    assert window.status_label.text().startswith("annotator cy")
    press(qtbot, window.desk, "l")
    assert label_rows(other) == [("c01", "literal", "cy")]
