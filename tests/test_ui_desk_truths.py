"""Small truths at the desk: the note line says which candidate it attaches to, and the line
under the buttons never keeps another project's last decision."""

from __future__ import annotations

from tests.test_ui_desk import make_project, press, project_path, window  # noqa: F401


def test_the_note_line_names_the_candidate_it_attaches_to(window, qtbot):  # noqa: F811
    desk = window.desk
    press(qtbot, desk, "i", "l", "n")
    assert desk.note_row.caption.text() == "Note on “candidate number 2” (literal):"
    assert desk.note_edit.accessibleName() == "Note on “candidate number 2” (literal)"
    qtbot.keyClick(desk.note_edit, "\x1b")   # Esc: nothing saved
    press(qtbot, desk, "u", "n")   # undone: the note goes with the label before
    assert desk.note_row.caption.text() == "Note on “candidate number 1” (idiom):"


def test_another_project_starts_with_an_empty_line_under_the_buttons(window, qtbot,  # noqa: F811
                                                                      tmp_path):
    press(qtbot, window.desk, "i")
    assert window.desk.message.text().startswith("idiom: candidate number 1")
    other = tmp_path / "other"
    other.mkdir()
    window.open_project(make_project(other), "bob")
    assert window.desk.message.text() == ""
    assert window.desk.text.text() == "candidate number 1"
