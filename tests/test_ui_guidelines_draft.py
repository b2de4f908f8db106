"""Drafts are never lost: Esc or Ctrl+W in the lead window with an
unsaved guidelines draft asks Save / Discard / Cancel; Cancel keeps the window and the draft."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.helpers import make_project
from tests.qt_helpers import open_main_window

Button = QMessageBox.StandardButton


@pytest.fixture
def lead(qtbot, tmp_path):
    make_project(tmp_path, n=20).close()
    window = open_main_window(qtbot, tmp_path / "p.triage", "lee")
    window.show_lead_view()
    lead = window.lead_view
    lead.tabs.setCurrentWidget(lead.guidelines)
    qtbot.waitExposed(lead)
    qtbot.waitUntil(lambda: not lead.guidelines.has_draft() and lead.guidelines.version == 0
                    and "guidelines" not in lead.pending_tabs(), timeout=10000)
    yield lead, window
    lead.guidelines.ask_about_draft = lambda: Button.Discard   # teardown never blocks
    window.close()


def _type_draft(qtbot, lead) -> None:
    editor = lead.guidelines.editor
    editor.setFocus()
    qtbot.keyClicks(editor, "Idioms are figurative.")
    assert lead.guidelines.has_draft()


@pytest.mark.parametrize("key", ["esc", "ctrl+w"])
def test_cancel_keeps_the_window_and_the_draft(qtbot, lead, key):
    lead, _window = lead
    asked = []
    lead.guidelines.ask_about_draft = lambda: asked.append(1) or Button.Cancel
    _type_draft(qtbot, lead)
    if key == "esc":
        qtbot.keyClick(lead.guidelines.editor, Qt.Key.Key_Escape)
    else:
        qtbot.keyClick(lead.guidelines.editor, Qt.Key.Key_W,
                       Qt.KeyboardModifier.ControlModifier)
    assert asked == [1]
    assert lead.isVisible()
    assert lead.guidelines.editor.toPlainText() == "Idioms are figurative."


def test_save_stores_the_draft_then_closes(qtbot, lead):
    lead, window = lead
    lead.guidelines.ask_about_draft = lambda: Button.Save
    _type_draft(qtbot, lead)
    qtbot.keyClick(lead.guidelines.editor, Qt.Key.Key_Escape)
    assert not lead.isVisible()
    from triage.project.guidelines import current_guidelines

    assert current_guidelines(window.project).text == "Idioms are figurative."


def test_discard_closes_and_a_clean_editor_closes_without_asking(qtbot, lead):
    lead, _window = lead
    asked = []
    lead.guidelines.ask_about_draft = lambda: asked.append(1) or Button.Discard
    _type_draft(qtbot, lead)
    qtbot.keyClick(lead.guidelines.editor, Qt.Key.Key_Escape)
    assert asked == [1] and not lead.isVisible()
    assert not lead.guidelines.has_draft()
    _window.show_lead_view()
    qtbot.keyClick(lead.guidelines.editor, Qt.Key.Key_Escape)
    assert asked == [1] and not lead.isVisible()


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_closing_the_desk_with_a_draft_cancelled_keeps_both_open(qtbot, lead):
    lead, window = lead
    lead.guidelines.ask_about_draft = lambda: Button.Cancel
    _type_draft(qtbot, lead)
    assert not window.close()
    assert window.isVisible() and lead.isVisible() and window.project is not None
