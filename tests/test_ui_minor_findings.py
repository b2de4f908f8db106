"""Minor findings of a usability review, each by what the user sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from tests.helpers import make_project
from tests.qt_helpers import open_main_window


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    folder = tmp_path / "projects"
    folder.mkdir()
    make_project(folder, n=30).close()
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)   # the folder the program was started from
    w = open_main_window(qtbot, folder / "p.triage", "ada")
    yield w
    w.close()


def test_save_chart_and_export_report_start_in_the_project_folder(window, qtbot, monkeypatch):
    """Finding 6."""
    asked: list[str] = []
    import ui.lead_report
    import ui.save_chart

    def ask(_p, _t, where, _f, saving):
        asked.append(where)
        return "", ""
    monkeypatch.setattr(ui.save_chart, "ask_path", ask)
    monkeypatch.setattr(ui.lead_report, "ask_path", ask)
    qtbot.waitUntil(lambda: bool(window.panels), timeout=10000)
    window.panels[0].save_dialog()
    window.show_lead_view()
    window.lead_view.export_report_dialog()
    folder = window.project.path.resolve().parent
    assert [Path(a).parent for a in asked] == [folder, folder], asked
    assert Path(asked[1]).name == "p-report.html"


def test_ctrl_l_gives_an_open_lead_window_the_keyboard_focus(window, qtbot):
    """Finding 13: raised and focused, not only raised."""
    window.show_lead_view()
    lead = window.lead_view
    window.activateWindow()
    window.desk.setFocus()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    window.show_lead_view()   # what Ctrl+L does on an open lead window
    qtbot.waitUntil(lambda: QApplication.activeWindow() is lead, timeout=5000)
    focus = QApplication.focusWidget()
    assert focus is not None and focus.window() is lead


def test_tab_reaches_the_label_skip_undo_and_note_buttons(window, qtbot):
    """Finding 14: every button of the desk is a Tab stop, with a visible focus style."""
    desk = window.desk
    desk.setFocus()
    qtbot.waitUntil(lambda: desk.hasFocus(), timeout=5000)
    wanted = {*desk.buttons.labels.values(), desk.skip_button, desk.undo_button,
              desk.note_button}
    reached = set()
    for _ in range(40):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.add(QApplication.focusWidget())
    assert wanted <= reached, [b.text() for b in wanted - reached]
    assert "QPushButton:focus" in window.styleSheet()
    # A click still leaves the keys with the desk.
    desk.setFocus()
    qtbot.mouseClick(desk.skip_button, Qt.MouseButton.LeftButton)
    assert not isinstance(QApplication.focusWidget(), QPushButton)


def test_the_next_batch_is_a_whole_number_of_items():
    """Finding 11: "the next 248 items", never "the next 247.83 items"."""
    from triage.views.advice import next_batch_text
    from triage.views.rule_words import _slice_name

    assert _slice_name(247.83, 2478.3) == "the next 248 items cost"
    assert _slice_name(1.2, 50.0) == "the next 1 item costs"
    text = next_batch_text({"next_batch": {"items": 247.83, "expected_positives": 3.0,
                                           "cost": 9.91, "cost_per_positive": 3.3}})
    assert text.startswith("next 248 items: about 3 positives")
    assert "247.83" not in text


def test_counts_have_plurals_and_thousands_separators(qtbot):
    """Finding 15: "1 annotator", "1,500 candidates", no "..". """
    from triage.project.guidelines import Guidelines
    from triage.views.analysis import agreement_view_data
    from ui.analysis.guidelines_view import GuidelinesView

    data = agreement_view_data({"items": 1500, "annotators": 1, "ratings": 1, "alpha": None,
                                "pairable_items": 0, "pairs": {}}, {})
    assert data.summary == ("1,500 items, 1 annotator, 1 rating; 0 items rated by two or more")
    view = GuidelinesView()
    qtbot.addWidget(view)
    view.show_guidelines(Guidelines(0, "", None, None), ())
    assert ".." not in view.caption.text()
    assert view.caption.text().startswith("No guidelines yet: the lead writes them in the "
                                          "lead window. Each saved change")


def test_opening_another_project_leaves_nothing_of_the_old_one_on_screen(window, qtbot, tmp_path):
    """Finding 12: the old candidate and the old "report written to…" go away."""
    other = tmp_path / "other"
    other.mkdir()
    make_project(other, n=12).close()
    window.show_lead_view()
    lead = window.lead_view
    lead.say(f"report written to {tmp_path / 'projects' / 'p-report.html'}")
    assert "report written to" in lead.status.text()
    old_text = window.desk.text.text()
    assert old_text and window.desk.position.text()
    window.close_project()           # what opening another project does first
    assert window.desk.text.text() == "No project open."
    assert window.desk.position.text() == "" and window.desk.current is None
    window.open_project(other / "p.triage", "bob")
    assert "report written to" not in lead.status.text()
    assert window.desk.current is not None and window.desk.text.text() != "No project open."
