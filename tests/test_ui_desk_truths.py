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


def test_another_models_score_is_not_shown_to_the_annotator(qtbot, tmp_path):
    """Unmapped columns that are numbers (another model's score) stay off the desk unless
    the lead lists them in the public fields; text columns show."""
    from tests.qt_helpers import open_main_window
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project, open_project
    from triage.store.settings import LabelOption, Settings

    source = tmp_path / "pool.csv"
    source.write_text("key,text,verb,m1_frequency,m3\nc1,spill the beans,spill,7,0.9\n"
                      "c2,post the package,post,3,0.2\n", encoding="utf-8")
    path = tmp_path / "p.triage"
    settings = Settings().with_changes(labels=(LabelOption("idiom", "i"),),
                                       positive_labels=("idiom",))
    project = create_project(path, settings)
    project.import_file(source, ColumnMapping(text="text", key="key", scores=(("m3", "m3"),)))
    project.close()
    desk_window = open_main_window(qtbot, path, "ada")
    assert desk_window.desk.meta.text() == "verb: spill"
    desk_window.close()
    with open_project(path) as lead:
        lead.update_settings(public_fields=("m1_frequency",))
    desk_window = open_main_window(qtbot, path, "ada")
    assert desk_window.desk.meta.text() == "m1_frequency: 7"
    desk_window.close()


def test_the_f1_sheet_starts_every_description_at_one_column(window, qtbot):  # noqa: F811
    window.show_help()
    sheet = window.help_dialog.sheet
    sheet.show()
    text = sheet.toPlainText()
    starts = set()
    for number, line in enumerate(text.splitlines()):
        if "\t" in line:
            cursor = sheet.textCursor()
            block = sheet.document().findBlockByNumber(number)
            cursor.setPosition(block.position() + line.index("\t") + 1)
            starts.add(sheet.cursorRect(cursor).x())
    assert len(starts) == 1, starts
    assert "Ctrl+1 … Ctrl+8\tgo to a tab" in text
    window.help_dialog.close()


def test_history_shows_the_notes(window, qtbot):  # noqa: F811
    desk = window.desk
    press(qtbot, desk, "i", "n")
    qtbot.keyClicks(desk.note_edit, "a pun")
    qtbot.keyClick(desk.note_edit, "\r")
    window.focus_history()
    history = window.drawer.history
    qtbot.waitUntil(lambda: bool(history.rows_shown()), timeout=5000)
    assert history.rows_shown()[0][1:] == ["c01", "idiom", "candidate number 1", "a pun"]
    history.table.selectRow(0)
    assert history.detail.text() == "candidate number 1\n\nYour note: a pun"


def test_the_metrics_say_which_candidates_they_are_measured_on(qtbot, tmp_path):
    """The Metrics page names the same candidates as the line above it (gold labels here),
    not "the labeled items"."""
    from tests.helpers import make_project as make_gold_project
    from triage.views.models import build_models_view_data, models_inputs
    from ui.analysis import ModelsView

    project = make_gold_project(tmp_path)
    data = build_models_view_data(models_inputs(project), trials=50)
    project.close()
    view = ModelsView()
    qtbot.addWidget(view)
    view.show_data(data)
    assert view.info.text().startswith("Judged on 30 candidates from gold labels")
    assert view.metrics_caption.text() == ("Metrics per model (columns) on the same 30 "
                                           "candidates (gold labels)")
