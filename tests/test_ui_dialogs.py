"""New-project dialog, background worker, and the Qt-free form logic behind the dialogs."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt, QThreadPool

from tests.helpers import pool_rows, write_pool
from triage.base.errors import TriageError
from triage.ingest.importer import ColumnMapping
from triage.store.settings import LabelOption, Settings
from triage.views.new_project import (
    build_project,
    form_changes,
    guess_columns,
    guess_scheme,
    parse_amount,
    project_files,
    settings_changes,
)
from ui.dialogs.new_project import NewProjectDialog
from ui.workers import Worker

# -- Qt-free form logic ------------------------------------------------------------------


def test_amounts_and_form_changes():
    assert parse_amount(" $1,250.5 ", "budget") == 1250.5
    assert parse_amount("", "budget", optional=True) is None
    with pytest.raises(TriageError, match="price per item must be a number, not 'abc'"):
        parse_amount("abc", "price per item")
    with pytest.raises(TriageError, match="zero or more"):
        parse_amount("-1", "budget")
    changes = form_changes(scheme="idiom:i, literal:l", positives="idiom", price_model="per_item",
                           price="0.04", budget="20", currency="eur", value="")
    assert changes == {"labels": (LabelOption("idiom", "i"), LabelOption("literal", "l")),
                       "positive_labels": ("idiom",), "price_model": "per_item",
                       "price_per_item": 0.04, "budget": 20.0, "currency": "EUR",
                       "value_per_positive": None}
    with pytest.raises(TriageError, match="three-letter code"):
        form_changes(scheme="a", positives="", price_model="per_item", price="1", budget="",
                     currency="dollars", value="")


def test_settings_changes_keep_only_what_moved_and_validate():
    old = Settings(labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")),
                   positive_labels=("idiom",), budget=20.0)
    new = form_changes(scheme="idiom:i,literal:l", positives="idiom", price_model="per_item",
                       price="0.04", budget="25", currency="USD", value="")
    assert settings_changes(old, new) == {"budget": 25.0}
    with pytest.raises(TriageError, match="reserved"):
        settings_changes(old, {**new, "labels": (LabelOption("idiom", "s"),)})


def test_guessing_the_mapping_and_scheme_from_the_preview():
    header = ["id", "sentence", "m1", "m2", "label"]
    rows = [["1", "a b", "0.5", "x", "idiom"], ["2", "c d", "0.1", "0.2", "literal"]]
    assert guess_columns(header, rows) == {"key": "id", "text": "sentence", "gold": "label",
                                           "scores": ["m1"], "image": None}
    assert guess_scheme(["idiom", "literal", "idiom", ""]) == ("idiom:i,literal:l", "idiom")
    assert guess_scheme(["yes", "yeah"]) == ("yes:1,yeah:2", "yes")  # first letters clash
    assert guess_scheme(["spam", "ham"]) == ("spam:1,ham:2", "spam")  # s is skip


def test_build_project_leaves_nothing_on_failure_and_refuses_existing_files(tmp_path):
    rows = pool_rows(10)
    rows[1]["m1"] = "oops"  # line 3 of the file
    src = write_pool(tmp_path / "bad.csv", rows)
    target = tmp_path / "bad.triage"
    mapping = ColumnMapping(text="text", key="key", scores=(("m1", "m1"),))
    with pytest.raises(TriageError, match=r"bad.csv:3: column m1"):
        build_project(target, Settings(), src, mapping)
    assert not any(f.exists() for f in project_files(target))
    target.write_text("keep me")
    with pytest.raises(TriageError, match="already exists"):
        build_project(target, Settings(), src, mapping)
    assert target.read_text() == "keep me"


# -- the worker ---------------------------------------------------------------------------


def test_worker_reports_progress_then_the_result(qtbot):
    seen = []
    worker = Worker(lambda progress: [progress(i, 3) for i in range(1, 4)] and "done")
    worker.signals.progress.connect(lambda d, t: seen.append((d, t)))
    with qtbot.waitSignal(worker.signals.finished, timeout=10000) as blocker:
        QThreadPool.globalInstance().start(worker)
    assert blocker.args == ["done"]
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=10000)
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_worker_turns_errors_into_messages(qtbot):
    def fail(_progress):
        raise TriageError("data.csv:3: column m1: not a number")

    worker = Worker(fail)
    with qtbot.waitSignal(worker.signals.failed, timeout=10000) as blocker:
        QThreadPool.globalInstance().start(worker)
    assert blocker.args == ["data.csv:3: column m1: not a number"]
    crash = Worker(lambda _p: 1 / 0)
    with qtbot.waitSignal(crash.signals.failed, timeout=10000) as blocker:
        QThreadPool.globalInstance().start(crash)
    assert blocker.args[0].startswith("unexpected error: ZeroDivisionError")


def test_worker_cancel_makes_progress_answer_false(qtbot):
    answers = []

    def work(progress):
        answers.append(progress(1, 2))
        worker.cancel()
        answers.append(progress(2, 2))
        if answers[-1] is False:
            raise TriageError("cancelled")

    worker = Worker(work)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=10000):
        QThreadPool.globalInstance().start(worker)
    assert answers == [True, False] and worker.is_cancelled


# -- the new-project dialog ---------------------------------------------------------------


def _dialog(qtbot, src, target) -> NewProjectDialog:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert dialog.set_source(src)
    dialog.target.clear()
    qtbot.keyClicks(dialog.target, str(target))
    return dialog


def _count(path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_a_good_file_creates_the_project(qtbot, tmp_path):
    src = write_pool(tmp_path / "pool.csv", pool_rows(50))
    target = tmp_path / "idioms.triage"
    dialog = _dialog(qtbot, src, target)
    assert dialog.preview.rowCount() == 20 and dialog.preview.columnCount() == 5
    assert dialog.preview.horizontalHeaderItem(1).text() == "text"
    assert dialog.preview.item(0, 0).text() == "c0000"
    assert dialog.key_combo.currentText() == "key" and dialog.gold_combo.currentText() == "gold"
    assert dialog.fields.scheme.text() == "idiom:i,literal:l"
    dialog.fields.budget.clear()
    qtbot.keyClicks(dialog.fields.budget, "5")
    with qtbot.waitSignal(dialog.accepted, timeout=10000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert dialog.project_path == target
    assert _count(target, "candidates") == 50 and _count(target, "models") == 2
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT value FROM settings WHERE key='budget'").fetchone() == ("5.0",)


def test_a_bad_file_shows_line_and_column_and_creates_nothing(qtbot, tmp_path):
    rows = pool_rows(50)
    rows[1]["m2"] = "high"  # file line 3
    src = write_pool(tmp_path / "bad.csv", rows)
    target = tmp_path / "bad.triage"
    dialog = _dialog(qtbot, src, target)
    assert dialog.mapping().scores == (("m1", "m1"),)  # the preview saw "high": not a score
    item = dialog.score_list.findItems("m2", Qt.MatchFlag.MatchExactly)[0]
    item.setCheckState(Qt.CheckState.Checked)  # the user insists m2 is a model
    with qtbot.waitSignal(dialog.errors.textChanged, timeout=10000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=10000)
    text = dialog.errors.toPlainText()
    assert "bad.csv:3: column m2" in text and not dialog.errors.isHidden()
    assert dialog.project_path is None and dialog.result() == 0
    assert not any(f.exists() for f in project_files(target))


def test_form_errors_are_shown_before_anything_runs(qtbot, tmp_path):
    src = write_pool(tmp_path / "pool.csv", pool_rows(20))
    target = tmp_path / "p.triage"
    dialog = _dialog(qtbot, src, target)
    dialog.fields.price.setText("free")
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert "price per item must be a number" in dialog.errors.toPlainText()
    assert not dialog.running and not target.exists()
    dialog.fields.price.setText("0.04")
    dialog.set_scores([])
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert "at least one score column" in dialog.errors.toPlainText()
    target.write_text("someone else's file")
    dialog.set_scores(["m1"])
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert "already exists" in dialog.errors.toPlainText()
    assert target.read_text() == "someone else's file"


def test_cancel_during_the_import_leaves_nothing(qtbot, tmp_path):
    src = write_pool(tmp_path / "big.csv", pool_rows(60_000))
    target = tmp_path / "big.triage"
    dialog = _dialog(qtbot, src, target)
    dialog.show()
    qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    assert dialog.running and not dialog.progress.isHidden()
    with qtbot.waitSignal(dialog.rejected, timeout=20000):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.running and dialog.project_path is None
    assert "cancelled" in dialog.errors.toPlainText()
    assert not any(f.exists() for f in project_files(target))


def test_settings_dialog_sets_rates_recall_and_queue_mode(qtbot):
    from triage.store.settings import Settings
    from ui.dialogs.settings import SettingsDialog

    settings = Settings(overlap_rate=0.1, audit_rate=0.02, queue_mode="follow")
    dialog = SettingsDialog(settings, ["m1", "m2"])
    qtbot.addWidget(dialog)
    assert dialog.changes() == {}                 # an untouched form changes nothing
    dialog.rates["overlap_rate"].setValue(25.0)
    dialog.target.setValue(90.0)
    dialog.queue_mode.setCurrentIndex(dialog.queue_mode.findData("pets"))
    assert dialog.changes() == {"overlap_rate": 0.25, "target_recall": 0.9, "queue_mode": "pets"}
