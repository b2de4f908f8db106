"""Reading at the desk all day: long texts, text size, highlights, guidelines, history, F1."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.qt_helpers import open_main_window
from tests.test_ui_desk import label_rows, make_project
from triage.project import open_project
from triage.project.guidelines import save_guidelines
from triage.views.reading import highlight_spans, parse_words, shortcut_sheet
from ui.desk_drawer import GuidelinesPane
from ui.prefs import Prefs

LONG = " ".join(f"sentence {i} of a very long candidate document that goes on." for i in range(400))


@pytest.fixture
def project_path(tmp_path):
    return make_project(tmp_path, texts={1: LONG, 2: "The Bucket list: kick the bucket, buckets"})


@pytest.fixture
def window(qtbot, project_path):
    w = open_main_window(qtbot, project_path, "ada")
    w.resize(1200, 760)
    yield w
    w.close()


def test_highlight_spans_are_whole_words_any_case():
    text = "Kick the BUCKET, buckets; bucket-list"
    assert [text[s:s + n] for s, n in highlight_spans(text, ["bucket"])] == ["BUCKET", "bucket"]
    assert highlight_spans("a.b a*b", ["a*b"]) == [(4, 3)]  # literal, not a pattern
    assert parse_words("kick, Bucket\nkick\n ") == ("kick", "Bucket")
    assert shortcut_sheet([("Desk", [("i", "idiom"), ("s", "skip")])]) == \
        "Desk\n  i\tidiom\n  s\tskip\n"


def test_a_long_text_wraps_and_scrolls_from_the_keyboard(window, qtbot):
    desk = window.desk
    assert desk.text.text() == LONG                      # all of it, nothing clipped
    bar = desk.text.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=3000)
    assert desk.text.lineWrapMode() == desk.text.LineWrapMode.WidgetWidth
    assert desk.text.horizontalScrollBar().maximum() == 0  # wrapped, never cut on the right
    qtbot.keyClick(desk, Qt.Key.Key_PageDown)
    assert bar.value() > 0
    qtbot.keyClick(desk, Qt.Key.Key_End)                 # not bound: nothing labelled
    bottom = bar.value()
    qtbot.keyClick(desk, Qt.Key.Key_PageUp)
    assert bar.value() < bottom or bottom == 0
    qtbot.keyClick(desk, "l")                            # the next candidate starts at the top
    assert desk.text.text().startswith("The Bucket list")
    assert bar.value() == 0


def test_text_size_keys_change_and_remember_the_size(window, qtbot, project_path):
    size = window.desk.text.font().pointSizeF()
    qtbot.keyClick(window.desk, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    bigger = window.desk.text.font().pointSizeF()
    assert bigger > size
    qtbot.keyClick(window.desk, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.desk, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.desk.text.font().pointSizeF() < size
    assert Prefs().font_zoom() == -1
    assert label_rows(project_path) == []                # no key reached the labels


def test_lead_guidelines_and_keywords_reach_the_desk_and_the_labels(window, qtbot,
                                                                    project_path):
    window.show_lead_view()
    lead = window.lead_view
    lead.tabs.setCurrentWidget(lead.guidelines)
    lead.adjudication.curator.setText("lee")
    editor = lead.guidelines.editor
    qtbot.keyClicks(editor, "# Idioms")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "An *idiom* means <b>more</b>.")
    lead.guidelines.words.clear()
    qtbot.keyClicks(lead.guidelines.words, "bucket, kick")
    qtbot.mouseClick(lead.guidelines.save_button, Qt.MouseButton.LeftButton)
    assert lead.guidelines.message.text().startswith("Saved: guidelines v1")
    # The desk shows version 1, rendered without HTML: the tag stays literal text.
    pane = window.drawer.guidelines
    assert pane.caption.text().startswith("Guidelines v1 · by lee")
    shown = pane.browser.toPlainText()
    assert "Idioms" in shown and "<b>more</b>" in shown
    assert "<b>more</b>" not in pane.browser.toHtml().replace("&lt;b&gt;", "")
    press = window.desk
    qtbot.keyClick(press, "i")                           # candidate 1 under v1
    assert window.desk.text.highlighted_words() == ["Bucket", "kick", "bucket"]
    lead.guidelines.editor.appendPlainText("\nA second rule.")
    qtbot.mouseClick(lead.guidelines.save_button, Qt.MouseButton.LeftButton)
    assert lead.guidelines.message.text().startswith("Saved: guidelines v2")
    qtbot.keyClick(press, "l")                           # candidate 2 under v2
    with sqlite3.connect(project_path) as conn:
        versions = conn.execute("SELECT guideline_version FROM labels ORDER BY id").fetchall()
        stored = conn.execute("SELECT version, author FROM guidelines").fetchall()
    assert versions == [(1,), (2,)]
    assert stored == [(1, "lee"), (2, "lee")]
    with open_project(project_path) as project:
        assert project.settings.highlight_words == ("bucket", "kick")


def test_f1_opens_the_guidelines_and_a_sheet_of_the_real_keys(window, qtbot, project_path):
    with open_project(project_path) as project:
        save_guidelines(project, "Label **idioms** only.", "lee")
    window.activateWindow()
    qtbot.keyClick(window.desk, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: getattr(window, "help_dialog", None) is not None, timeout=2000)
    help_dialog = window.help_dialog
    assert "Label idioms only." in help_dialog.guidelines.toPlainText()
    sheet = help_dialog.sheet.toPlainText()
    rows = {" ".join(line.split()) for line in sheet.splitlines()}
    for row in ("i label the candidate 'idiom'", "l label the candidate 'literal'",
                "u undo your last decision (also Ctrl+Z)", "Ctrl+L Lead view",
                "F1 Guidelines and keyboard shortcuts",
                "Esc or Ctrl+W close the lead window (asks about unsaved guidelines)",
                "Ctrl+= or Ctrl++ Larger text"):
        assert row in rows, row
    help_dialog.close()


def test_history_lists_decisions_and_changes_one_undoably(window, qtbot, project_path):
    desk = window.desk
    for key in "ili":
        qtbot.keyClick(desk, key)
    qtbot.keyClick(window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    history = window.drawer.history
    assert window.drawer.isVisible() and window.drawer.currentWidget() is history
    assert QApplication.focusWidget() is history.table
    rows = history.rows_shown()
    assert [r[1:3] for r in rows] == [["c03", "idiom"], ["c02", "literal"], ["c01", "idiom"]]
    qtbot.keyClick(history.table, Qt.Key.Key_Down)       # select c02
    assert history.detail.text() == "The Bucket list: kick the bucket, buckets"
    qtbot.keyClick(history.table, "i")                   # change it to idiom
    assert label_rows(project_path)[-1] == ("c02", "idiom", "ada")
    assert [r[1:3] for r in history.rows_shown()][:2] == [["c02", "idiom"], ["c03", "idiom"]]
    assert desk.text.text() == "candidate number 4"      # the desk did not move on
    qtbot.keyClick(history.table, Qt.Key.Key_Escape)     # back to the desk
    assert QApplication.focusWidget() is desk
    qtbot.keyClick(desk, "u")                            # undo takes the change back
    assert label_rows(project_path) == [("c01", "idiom", "ada"), ("c02", "literal", "ada"),
                                        ("c03", "idiom", "ada")]
    qtbot.waitUntil(lambda: ["c02", "literal"] in [r[1:3] for r in history.rows_shown()],
                    timeout=2000)
    assert desk.text.text() == "candidate number 4"


def test_agreement_tab_breaks_down_by_guideline_version(qtbot, tmp_path):
    from tests.helpers import make_project as make_pool_project

    project = make_pool_project(tmp_path, n=60, overlap_rate=0.0, audit_rate=0.0)
    ada, bob = project.start_session("ada"), project.start_session("bob")
    save_guidelines(project, "v1: idioms are figurative.", "lee")
    for i in range(24):
        if i == 12:
            save_guidelines(project, "v2: idioms are figurative; literal if unsure.", "lee")
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom" if i % 2 else "literal")
        disagree = i < 12 and i % 3 == 0          # v1 left room for doubt; v2 settled it
        value = ("literal" if i % 2 else "idiom") if disagree else (
            "idiom" if i % 2 else "literal")
        project.record_label(bob, c.candidate_id, value)
    project.close()
    window = open_main_window(qtbot, tmp_path / "p.triage", "lee")
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitUntil(lambda: lead.agreement is not None, timeout=20000)  # charts load first
    lead.tabs.setCurrentWidget(lead.agreement)
    qtbot.waitUntil(lambda: lead.agreement.versions.rowCount() == 2, timeout=20000)
    rows = lead.agreement.version_rows()
    assert [r[0] for r in rows] == ["v1", "v2"]
    assert [r[1] for r in rows] == ["12", "12"]
    assert float(rows[1][2]) == 1.0 and float(rows[0][2]) < 0.5 and rows[1][3] == "100.0%"
    window.close()


def test_a_history_change_is_not_a_new_label_on_any_surface(window, qtbot, project_path):
    """The desk, the live numbers and the annotator table agree."""
    desk = window.desk
    for key in "ili":
        qtbot.keyClick(desk, key)
    qtbot.keyClick(window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    history = window.drawer.history
    qtbot.keyClick(history.table, Qt.Key.Key_Down)       # select c02 (literal)
    qtbot.keyClick(history.table, "i")                   # change it to idiom
    assert "changed c02: literal → idiom" in desk.message.text()
    assert " 3 labels this session " in desk.status_text(), desk.status_text()
    snap = window.project.snapshot()
    assert (snap.label_events, snap.annotated, snap.positives_found) == (3, 3, 3)
    row = next(r for r in window.project.annotator_table() if r["annotator"] == "ada")
    assert (row["labels"], row["positives"]) == (3, 3)
    assert snap.spend == pytest.approx(3 * window.project.settings.price_per_item)
    qtbot.keyClick(history.table, Qt.Key.Key_Escape)
    qtbot.keyClick(desk, "u")                            # undo takes the change back
    assert " 3 labels this session " in desk.status_text(), desk.status_text()
    assert window.project.snapshot().positives_found == 2



def test_long_guidelines_open_at_their_title_whatever_the_first_layout(qtbot, tmp_path):
    # At start-up the pane is laid out narrow before the window takes its size: the
    # browser's cursor, left at the end of the new text, had scrolled it to the bottom.
    path = make_project(tmp_path, texts={1: "a", 2: "b"})
    rules = "\n\n".join(f"- rule {i}: read the sentence twice before you decide." for i in
                        range(40))
    with open_project(path) as project:
        guidelines = save_guidelines(project, "# Idiom or literal?\n\n" + rules, author="lee")
    pane = GuidelinesPane()
    qtbot.addWidget(pane)
    pane.show_guidelines(guidelines)
    pane.resize(100, 100)
    pane.show()
    qtbot.waitExposed(pane)
    pane.resize(600, 200)
    bar = pane.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: 0 < bar.maximum() < 2000, timeout=3000)
    assert bar.value() == 0
    top = pane.browser.cursorForPosition(pane.browser.viewport().rect().topLeft())
    assert top.block().text() == "Idiom or literal?"
